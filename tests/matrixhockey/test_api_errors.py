"""Every API answer, errors included, is JSON in the shape of ``shared/API.md``:
``{"detail": "…"}`` or ``{"field": ["message", …]}``; and no input gives a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _throttle_counters_forgotten() -> Iterator[None]:
    """The many anonymous calls here must not throttle the next test file's."""
    yield
    cache.clear()


def detail_of(response: Any) -> str:
    """The ``detail`` of a JSON error answer, checking the answer is exactly that shape."""
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"detail"}, body
    assert isinstance(body["detail"], str) and body["detail"]
    return body["detail"]


def is_field_errors(body: object) -> bool:
    """``{"field": ["message", …]}``: every value a non-empty list of strings."""
    return (
        isinstance(body, dict)
        and bool(body)
        and all(
            isinstance(messages, list) and messages and all(isinstance(m, str) for m in messages)
            for messages in body.values()
        )
    )


@pytest.mark.parametrize(
    "path",
    ["/api/nothing-here/", "/api/", "/api/standings/", "/api/picks/championship/one/"],
)
def test_an_unknown_api_path_answers_a_json_404(api_client: APIClient, path: str) -> None:
    response = api_client.get(path)
    assert response.status_code == 404
    assert detail_of(response) == "Not found."


@pytest.mark.parametrize("path", ["/api/nothing-here/", "/api/standings/nowhere/x/"])
def test_an_unknown_api_path_answers_a_json_404_with_debug_on(
    api_client: APIClient, settings: Settings, path: str
) -> None:
    # With DEBUG on (make run) Django answers its technical HTML page, not handler404.
    settings.DEBUG = True
    response = api_client.get(path, headers={"accept": "text/html"})
    assert response.status_code == 404
    assert detail_of(response) == "Not found."
    assert response["X-Content-Type-Options"] == "nosniff"


def test_a_nul_byte_in_an_api_url_answers_a_json_400_with_debug_on(
    api_client: APIClient, settings: Settings
) -> None:
    settings.DEBUG = True
    response = api_client.get("/api/seasons/%00/")
    assert response.status_code == 400
    assert detail_of(response) == "Bad request."


def test_an_unknown_page_answers_djangos_debug_page_with_debug_on(
    client: Client, settings: Settings, db: None
) -> None:
    settings.DEBUG = True
    response = client.get("/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_an_unknown_api_path_answers_in_the_callers_language(api_client: APIClient) -> None:
    response = api_client.get("/api/nothing-here/", headers={"accept-language": "fr"})
    assert detail_of(response) == "Non trouvé."


def test_an_unknown_page_still_answers_the_sites_html_404(client: Client, db: None) -> None:
    response = client.get("/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "Page not found" in response.content.decode()


def test_an_api_path_without_its_slash_is_still_redirected(api_client: APIClient) -> None:
    response = api_client.get("/api/seasons")
    assert (response.status_code, response["Location"]) == (301, "/api/seasons/")


def test_a_token_asked_without_a_user_name_names_the_field(api_client: APIClient) -> None:
    response = api_client.post("/api/token/", {"password": "x"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert is_field_errors(body) and set(body) == {"username"}


def test_a_token_asked_with_a_list_for_body_answers_field_errors(api_client: APIClient) -> None:
    response = api_client.post("/api/token/", [1, 2], format="json")
    assert response.status_code == 400
    assert is_field_errors(response.json())


def test_a_method_the_endpoint_lacks_answers_a_json_405(api_client: APIClient) -> None:
    response = api_client.delete("/api/seasons/")
    assert response.status_code == 405
    assert detail_of(response) == 'Method "DELETE" not allowed.'


def test_a_body_of_an_unknown_type_answers_a_json_415(api_client: APIClient) -> None:
    response = api_client.post("/api/token/", b"<x/>", content_type="application/xml")
    assert response.status_code == 415
    assert "application/xml" in detail_of(response)


def test_no_token_answers_a_json_401(api_client: APIClient) -> None:
    response = api_client.get("/api/me/")
    assert response.status_code == 401
    assert detail_of(response) == "Authentication credentials were not provided."


def test_a_visitor_sending_a_pick_answers_a_json_403(
    api_as: Any, visitor: User, championship_round: Any
) -> None:
    response = api_as(visitor).put("/api/picks/championship/1/", {"pick": "A(1)"}, format="json")
    assert response.status_code == 403
    detail_of(response)


def test_too_many_requests_answer_a_json_429_with_retry_after(
    api_client: APIClient, settings: Settings
) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "2/minute", "user": "2/minute"},
    }
    answers = [api_client.get("/api/seasons/") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert "throttled" in detail_of(answers[2]).lower()
    assert int(answers[2]["Retry-After"]) > 0


# --- No 500 from any input ------------------------------------------------------------------------


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_a_deeply_nested_json_body_answers_400(api_client: APIClient, depth: int) -> None:
    response = api_client.post("/api/token/", nested(depth), content_type="application/json")
    assert response.status_code == 400
    assert "JSON" in detail_of(response)


def test_a_deeply_nested_json_pick_answers_400(
    api_as: Any, coach: User, championship_round: Any
) -> None:
    body = '{"pick": ' + nested(50_000) + "}"
    response = api_as(coach).put(
        "/api/picks/championship/1/", body, content_type="application/json"
    )
    assert response.status_code == 400
    detail_of(response)


def test_a_json_body_nested_a_little_is_still_read(api_client: APIClient) -> None:
    """A body nested 100 deep is read (and refused for its fields, not as unreadable)."""
    body = json.dumps({"username": "x", "password": json.loads(nested(100))})
    response = api_client.post("/api/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert set(response.json()) == {"password"}


def test_a_body_over_the_limit_answers_413(api_client: APIClient, settings: Settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps({"username": "x" * 20_000, "password": "y"})
    response = api_client.post("/api/token/", body, content_type="application/json")
    assert response.status_code == 413
    detail_of(response)


def test_a_form_body_over_the_limit_answers_413(api_client: APIClient, settings: Settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = "username=" + "x" * 20_000 + "&password=y"
    response = api_client.post(
        "/api/token/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 413
    detail_of(response)


@pytest.mark.parametrize(
    "path",
    [
        "/api/standings/%00/",
        "/api/infos/championship/%00/",
        "/api/infos/%00/elite/",
        "/api/results/%00/elite/1/",
        "/api/seasons/current/?season=%00",
        "/api/standings/elite/?season=1%00",
        "/api/standings/elite/?%00=1",
    ],
)
def test_a_nul_byte_in_an_api_url_answers_a_json_4xx(
    api_client: APIClient, season: Any, path: str
) -> None:
    response = api_client.get(path)
    assert response.status_code in (400, 404)
    detail_of(response)


@pytest.mark.parametrize(
    "path",
    [
        "/infos/%00/elite/",
        "/picks/link/%00/",
        "/standings/elite/?season=%00",
        "/seasons/teams/%00/",
        "/results/?season=1%00",
    ],
)
def test_a_nul_byte_in_a_page_url_answers_the_sites_4xx(
    client: Client, season: Any, path: str
) -> None:
    response = client.get(path)
    assert response.status_code in (400, 404)
    assert response["Content-Type"].startswith("text/html")


def test_a_nul_byte_in_a_pick_answers_400(
    api_as: Any, coach: User, championship_round: Any
) -> None:
    response = api_as(coach).put("/api/picks/championship/1/", {"pick": "A\x00(1)"}, format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"pick"}
