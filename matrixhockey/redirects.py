"""Where a form sends its sender back: the ``next`` a page puts in its forms, when it is a path
of this site, else the view's default page.

A page writes its own address (``request.get_full_path()``), always a path from the root. Any
other value was not written by the site: an empty one, another site's address (``https://…``,
``//host``, ``/\\host``), a scheme (``javascript:``) or a bare word (``x``, which Django's
``redirect`` would try as a view's name, and a browser as a path relative to the form's). Each
of them goes to the default, never to an error or another site.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import RedirectURLMixin
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme


def site_path(request: HttpRequest, candidate: str | None) -> str | None:
    """``candidate`` when it is a path of this site (``/…``), else ``None``."""
    if not candidate or not candidate.startswith("/"):
        return None
    safe = url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return candidate if safe else None


def redirect_back(request: HttpRequest, default: str, *args: Any) -> HttpResponseRedirect:
    """Back to the form's ``next`` (posted) when it is a path of this site, else to ``default``
    (a URL name, with its ``args``)."""
    back = site_path(request, request.POST.get("next"))
    return HttpResponseRedirect(back or resolve_url(default, *args))


class SitePathRedirectMixin(RedirectURLMixin):
    """Django's sign-in and sign-out views, with :func:`site_path`'s rule for their ``next``:
    anything but a path of this site leads to the view's default page."""

    request: HttpRequest

    def get_redirect_url(self) -> str:
        return site_path(self.request, super().get_redirect_url()) or ""
