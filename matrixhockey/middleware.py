"""The site's own middleware: requests refused before any view runs, the database out of reach
answered 503, the Content-Security-Policy, a signed-in person's answers kept out of caches."""

from __future__ import annotations

import logging
from collections.abc import Callable
from urllib.parse import unquote

from csp.constants import UNSAFE_INLINE
from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, HttpResponseBase

from matrixhockey.errors import DATABASE_DOWN, api_debug_page_replaced, database_unavailable

logger = logging.getLogger(__name__)


class RejectNulBytesMiddleware:
    """A NUL byte (``%00``) in a URL's path or query is a 400: no view reads it, so no query ever
    hands one to PostgreSQL (which refuses it with an error, not an answer)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in request.path_info or "\x00" in unquote(query) or "\x00" in query:
            # Django answers it with handler400 (matrixhockey.errors.bad_request).
            raise BadRequest("NUL byte in the URL")
        return self.get_response(request)


class ApiDebugErrorsMiddleware:
    """Under ``/api/`` with ``DEBUG`` on, Django's technical error pages (an unknown path, a
    refused request, a server error) become the API's JSON errors
    (:func:`matrixhockey.errors.api_debug_page_replaced`): the API answers the same shape under
    ``make run`` as in production. The traceback still goes to the log."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return api_debug_page_replaced(request, self.get_response(request))


class DatabaseUnavailableMiddleware:
    """A view (DRF's included) that meets the database out of reach answers
    :func:`database_unavailable` instead of a 500; the error is logged as a warning."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_DOWN):
            return None
        logger.warning(
            "The database is out of reach (%s %s): %s", request.method, request.path, exception
        )
        return database_unavailable(request)


INLINE_STYLE_PREFIXES = ("/admin/", "/api/docs/")
"""Pages rendered by templates the league does not own (Django's admin, Swagger UI), which carry
a ``<style>`` element: they may use inline styles; no page may run an inline script."""


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's header (``CONTENT_SECURITY_POLICY`` in the settings), with inline styles
    allowed on the pages of :data:`INLINE_STYLE_PREFIXES` only."""

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if request.path_info.startswith(INLINE_STYLE_PREFIXES):
            parts.update = {**(parts.update or {}), "style-src": [UNSAFE_INLINE]}
        return parts


PRIVATE = "private, no-store"


class PrivateAnswersMiddleware:
    """An answer to someone signed in (a session, or an API token: DRF passes its user to the
    request) is theirs: their name in the header, their picks, their team's ledger, the referee's
    unpublished scores. It is ``Cache-Control: private, no-store`` — neither a shared cache nor
    the browser's disk keeps it — unless the view set its own (the admin's ``never_cache``, the
    calendar feeds). Public pages stay cacheable for visitors.

    Listed after ``AuthenticationMiddleware``. A request without a session cookie or credentials
    is a visitor's: its user is not read (reading it would touch the session and add ``Vary``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not response.has_header("Cache-Control") and _signed_in(request):
            response["Cache-Control"] = PRIVATE
        return response


def _signed_in(request: HttpRequest) -> bool:
    if settings.SESSION_COOKIE_NAME not in request.COOKIES and not request.headers.get(
        "Authorization"
    ):
        return False
    user = getattr(request, "user", None)
    return user is not None and user.is_authenticated
