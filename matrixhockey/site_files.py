"""The files a browser or a crawler asks for at the site's root: ``/favicon.ico`` (browsers
that do not read the page's ``<link rel="icon">``) and ``/robots.txt``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

ROBOTS = """User-agent: *
Allow: /accounts/login/
Allow: /accounts/password_reset/
Disallow: /admin/
Disallow: /desk/
Disallow: /referee/
Disallow: /accounts/
Disallow: /picks/
Disallow: /api/
"""


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """The league's icon is an SVG among the static files."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


@require_safe
@cache_control(max_age=86400, public=True)
def robots(request: HttpRequest) -> HttpResponse:
    """Public pages may be indexed, the sign-in and forgotten-password pages among them (the
    longest matching rule wins, RFC 9309); desks, the rest of accounts (a reset link's token,
    « My account »), picks and the API may not."""
    return HttpResponse(ROBOTS, content_type="text/plain; charset=utf-8")
