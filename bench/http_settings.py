"""Settings of ``bench/bench_http.py``'s servers: the site's own, with :mod:`bench.http_urls`
as the URL configuration (the site's URLs and, beside them, the bare view it is measured against).
Never used by the site itself."""

from matrixhockey.settings import *  # noqa: F403

ROOT_URLCONF = "bench.http_urls"
