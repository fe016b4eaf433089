"""The site's URLs plus ``/bench/bare/``: a one-line Django view behind the same middleware, the
ceiling ``bench/bench_http.py`` measures every public page against. Mounted only by
:mod:`bench.http_settings`, never by the site."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from matrixhockey.urls import handler400, handler403, handler404, handler500, urlpatterns

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


urlpatterns = [path("bench/bare/", bare), *urlpatterns]
