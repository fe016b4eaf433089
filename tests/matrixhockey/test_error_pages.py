"""The site's error pages (400, 403, 404, 500, 503) in French and English, built on the site's
layout; the 500 and 503 pages without the database (the database out of reach is a 503 with
``Retry-After``, the whole stack is in ``tests/faults/test_postgres_restart.py``); and the
Content-Security-Policy header on every page."""

from __future__ import annotations

import json

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.utils import translation

from matrixhockey import errors
from matrixhockey.middleware import DatabaseUnavailableMiddleware

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "path", "status", "title"),
    [
        ("en", "/nothing-here/", 404, "Page not found"),
        ("fr", "/nothing-here/", 404, "Page introuvable"),
        ("en", "/standings/elite/?x=%00", 400, "Bad request"),
        ("en", "/desk/season/", 302, None),
    ],
)
def test_error_pages_are_the_sites_pages_in_the_readers_language(
    language: str, path: str, status: int, title: str | None
) -> None:
    response = Client(headers={"accept-language": language}).get(path)
    assert response.status_code == status
    if title is not None:
        html = response.content.decode()
        assert f'<html lang="{language}">' in html
        assert title in html
        assert 'class="site-header"' in html


def test_a_page_refused_by_csrf_is_the_sites_403() -> None:
    browser = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})
    response = browser.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    html = response.content.decode()
    assert "Access denied" in html and 'class="site-header"' in html


@pytest.mark.parametrize(("language", "title"), [("en", "Server error"), ("fr", "Erreur")])
def test_the_500_page_needs_no_database(language: str, title: str) -> None:
    request = RequestFactory().get("/standings/elite/")
    with translation.override(language), connection.execute_wrapper(_no_query):
        response = errors.server_error(request)
    assert response.status_code == 500
    html = response.content.decode()
    assert f'<html lang="{language}">' in html and title in html


def test_the_api_500_is_json() -> None:
    response = errors.server_error(RequestFactory().get("/api/me/"))
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"


def _no_query(*args: object) -> None:
    raise AssertionError("the 500 page ran a database query")


@pytest.mark.parametrize("path", ["/", "/api/seasons/", "/nothing-here/", "/api/docs/"])
def test_every_answer_carries_a_content_security_policy_without_inline_script(
    client: Client, path: str
) -> None:
    policy = client.get(path)["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"


def test_only_pages_of_templates_we_do_not_own_may_use_inline_styles(client: Client) -> None:
    assert "'unsafe-inline'" not in client.get("/")["Content-Security-Policy"]
    assert "'unsafe-inline'" in client.get("/api/docs/")["Content-Security-Policy"]


def test_the_sites_templates_hold_no_inline_script_or_style(client: Client) -> None:
    html = client.get("/").content.decode()
    assert "<script>" not in html and "<style" not in html and " style=" not in html


# --- The database out of reach: 503 with Retry-After, never a 500 ------------------------------


@pytest.mark.parametrize(("language", "title"), [("en", "Back in a moment"), ("fr", 'lang="fr"')])
def test_a_page_that_meets_the_database_down_is_the_503_page(language: str, title: str) -> None:
    request = RequestFactory().get("/standings/elite/")
    middleware = DatabaseUnavailableMiddleware(lambda request: HttpResponse())
    with translation.override(language), connection.execute_wrapper(_no_query):
        response = middleware.process_exception(request, OperationalError("gone"))
    assert response is not None and response.status_code == 503
    assert int(response["Retry-After"]) > 0
    html = response.content.decode()
    assert title in html and 'class="site-header"' in html


def test_the_api_that_meets_the_database_down_answers_a_json_503() -> None:
    request = RequestFactory().put("/api/picks/championship/1/")
    middleware = DatabaseUnavailableMiddleware(lambda request: HttpResponse())
    response = middleware.process_exception(request, InterfaceError("connection already closed"))
    assert response is not None and response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == str(errors.DATABASE_RETRY_AFTER_SECONDS)
    assert json.loads(response.content) == {
        "detail": "The league's database cannot be reached at the moment: try again in a few "
        "seconds.",
        "code": "database_unavailable",
    }


def test_other_errors_are_left_to_the_500() -> None:
    request = RequestFactory().get("/api/me/")
    middleware = DatabaseUnavailableMiddleware(lambda request: HttpResponse())
    assert middleware.process_exception(request, ValueError("a bug")) is None


def test_the_database_down_outside_a_view_is_a_503_too() -> None:
    """Django calls ``handler500`` while handling the error (a middleware saving the session…):
    the error is at hand there."""
    request = RequestFactory().get("/api/me/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = errors.server_error(request)
    assert response.status_code == 503
    assert "Retry-After" in response
