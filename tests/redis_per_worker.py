"""Each pytest-xdist worker on a Redis database of its own (a pytest plugin: ``-p
tests.redis_per_worker`` in pyproject.toml's ``addopts``).

pytest-django gives each xdist worker its own test database (``test_<name>_gw0``,
``test_<name>_gw1``…); Redis has no such copy, and two workers sharing one database would take
each other's Celery tasks, flush each other's queues and read each other's cache. So worker
``gw0`` (and a run without xdist) keeps ``REDIS_URL``'s database, and worker ``gwN`` takes the Nth
of ``TEST_REDIS_WORKER_DBS`` (``"5"`` for ``-n 2``: CI runs on 15 and 5).

The plugin is loaded before pytest-django reads the settings (which read ``REDIS_URL`` once), so
``REDIS_URL`` is rewritten in the worker's environment here; the processes a test starts (a
Celery worker, the site under gunicorn) inherit it.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

WORKER_DBS = "TEST_REDIS_WORKER_DBS"
"""The Redis databases of xdist's workers gw1, gw2…, comma-separated (gw0 uses ``REDIS_URL``'s)."""


def worker_index() -> int:
    """This process's xdist worker number (``gw3`` → 3); 0 outside xdist."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))


def worker_redis_url(url: str) -> str:
    """``url`` for this process: unchanged for ``gw0`` and outside xdist, else pointed at the
    worker's database of :data:`WORKER_DBS`."""
    index = worker_index()
    if index == 0:
        return url
    listed = [db.strip() for db in os.environ.get(WORKER_DBS, "").split(",") if db.strip()]
    if len(listed) < index:
        raise pytest.UsageError(
            f"pytest-xdist worker gw{index} needs a Redis database of its own: "
            f"{WORKER_DBS}={os.environ.get(WORKER_DBS, '')!r} names {len(listed)} "
            "(one per worker after gw0, e.g. TEST_REDIS_WORKER_DBS=5 for -n 2)"
        )
    parts = urlsplit(url)
    databases = [parts.path.strip("/") or "0", *listed]
    if not all(db.isdigit() for db in listed) or len(set(databases)) < len(databases):
        raise pytest.UsageError(
            f"{WORKER_DBS}={os.environ[WORKER_DBS]!r}: the workers' Redis databases must be "
            f"numbers, each used once, none REDIS_URL's ({url})"
        )
    return urlunsplit(parts._replace(path=f"/{listed[index - 1]}"))


if os.environ.get("REDIS_URL"):
    os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"])
