"""The site's error answers: one shape for the API, localized pages for people.

Under ``/api/`` every error is JSON in the shape of ``shared/API.md`` — ``{"detail": "…"}``, or
``{"field": ["message", …]}`` for a refused body — whether DRF raised it inside a view
(:func:`api_exception_handler`) or Django answered before any view ran: an unknown path, a
refused request, a body over the limit, a server error (the ``handler4xx``/``handler500`` views
below, named in ``matrixhockey.urls``) — with ``DEBUG`` on too, where Django would answer its
technical page (:class:`matrixhockey.middleware.ApiDebugErrorsMiddleware`). Elsewhere the same
handlers render the site's pages ``400.html``, ``403.html``, ``404.html`` and ``500.html`` in the
reader's language.

``500.html`` is rendered without the request's context processors: a server error may come from
the database, and the page must not need it (no user, no query).

The database out of reach for a moment (restarting, failing over, the connection cut) is not a
server error: wherever it is met — a view, DRF, a middleware — the answer is a 503 with
``Retry-After`` (:func:`database_unavailable`): ``{"detail", "code": "database_unavailable"}``
under ``/api/``, the page ``503.html`` elsewhere, both in the reader's language, built without
the database.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.decorators.csrf import requires_csrf_token
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from matrixhockey.api import PayloadTooLarge

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"

DATABASE_DOWN = (OperationalError, InterfaceError)
"""What the database driver raises when it cannot be reached or the connection was cut."""
DATABASE_RETRY_AFTER_SECONDS = 15
"""``Retry-After`` of a 503 for a database out of reach: a restart takes seconds."""


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def api_error(detail: str, status_code: int) -> JsonResponse:
    """``{"detail": detail}`` with ``status_code``."""
    return JsonResponse({"detail": detail}, status=status_code)


def error_shape(data: Any) -> Any:
    """DRF's error data in the documented shape: a bare list of messages (a ``ValidationError``
    raised with a list) becomes ``{"non_field_errors": [...]}``; a bare string, ``{"detail"}``."""
    if isinstance(data, list):
        return {"non_field_errors": [str(message) for message in data]}
    if isinstance(data, str):
        return {"detail": data}
    return data


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus: a body over the size limit is a 413, and the data always has the
    documented shape. Anything else unexpected is left to Django (a 500, logged)."""
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    response = exception_handler(exc, context)
    if response is not None:
        response.data = error_shape(response.data)
    return response


def _page(
    request: HttpRequest, template: str, status_code: int, context: dict[str, Any] | None = None
) -> HttpResponse:
    body = loader.render_to_string(template, context or {}, request)
    return HttpResponse(body, status=status_code)


@requires_csrf_token
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400 (Django refused the request before any view: a bad header, a NUL byte, a broken
    multipart body…); a body over the size limit is a 413."""
    if isinstance(exception, RequestDataTooBig):
        message = PayloadTooLarge().detail
        if is_api(request):
            return api_error(str(message), status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        return _page(request, "400.html", 413, {"reason": message})
    if is_api(request):
        return api_error(_("Bad request."), status.HTTP_400_BAD_REQUEST)
    return _page(request, "400.html", 400)


@requires_csrf_token
def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """403 outside DRF's views: a CSRF failure, a page's ``PermissionDenied``."""
    if is_api(request):
        return api_error(
            _("You do not have permission to perform this action."), status.HTTP_403_FORBIDDEN
        )
    return _page(request, "403.html", 403, {"exception": exception})


@requires_csrf_token
def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: an unknown path, or a page's ``Http404`` (its message says why, when it has one)."""
    if is_api(request):
        return api_error(_("Not found."), status.HTTP_404_NOT_FOUND)
    reason = _not_found_reason(exception)
    return _page(request, "404.html", 404, {"exception": reason})


def _not_found_reason(exception: Exception | None) -> str:
    """The message of a page's ``Http404``; nothing for a path that matched no URL (Django's
    resolver puts the tried patterns there, not a sentence for people)."""
    if exception is None or not exception.args or not isinstance(exception.args[0], str):
        return ""
    return exception.args[0]


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``, without the database: the database could not be reached."""
    if is_api(request):
        response: HttpResponse = JsonResponse(
            {
                "detail": _(
                    "The league's database cannot be reached at the moment: try again in a few "
                    "seconds."
                ),
                "code": "database_unavailable",
            },
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    else:
        context = {
            "league_name": settings.LEAGUE_NAME,
            "request": request,
            "retry_after": DATABASE_RETRY_AFTER_SECONDS,
        }
        response = HttpResponse(loader.render_to_string("503.html", context), status=503)
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """500, without the database: no context processor runs (no user, no query). Django calls
    it while handling the error, so the error is at hand: the database out of reach outside a
    view (a middleware saving the session…) is a 503 too."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable(request)
    if is_api(request):
        return api_error(_("A server error occurred."), status.HTTP_500_INTERNAL_SERVER_ERROR)
    context = {"league_name": settings.LEAGUE_NAME, "request": request}
    return HttpResponse(loader.render_to_string("500.html", context), status=500)


def api_debug_page_replaced(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """With ``DEBUG`` on, Django answers an unknown path (and a view's ``Http404``, a refused
    request, a server error) with its technical HTML page instead of calling the handlers above;
    under ``/api/`` that page is replaced by the handler's JSON for its status, keeping the
    headers the middleware added (CSP, ``Vary``, ``Cache-Control``…). DRF's own answers (its
    browsable pages included) and answers already JSON are left alone."""
    if (
        not settings.DEBUG
        or not is_api(request)
        or response.status_code < 400
        or isinstance(response, Response)
        or response.get("Content-Type", "").startswith("application/json")
    ):
        return response
    if response.status_code == 404:
        replaced = page_not_found(request)
    elif response.status_code == 403:
        replaced = permission_denied(request)
    elif response.status_code >= 500:
        replaced = api_error(_("A server error occurred."), response.status_code)
    else:
        replaced = api_error(_("Bad request."), response.status_code)
    for header, value in response.items():
        if header.lower() not in ("content-type", "content-length"):
            replaced.headers.setdefault(header, value)
    return replaced


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without its CSRF token (``CSRF_FAILURE_VIEW``): the site's 403."""
    return permission_denied(request)
