"""The OpenAPI schema describes the API of ``shared/API.md`` and generates without a warning."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command


@pytest.fixture
def schema(tmp_path: Path) -> dict:
    out = tmp_path / "schema.yaml"
    # --fail-on-warn raises on any warning; --validate checks it against the OpenAPI spec.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    return yaml.safe_load(out.read_text())


def test_the_schema_generates_without_warnings_and_validates(schema: dict) -> None:
    assert schema["info"]["title"] == "Matrix Hockey API"


def test_every_endpoint_of_api_md_is_described(schema: dict) -> None:
    paths = schema["paths"]
    assert set(paths["/api/token/"]) == {"post", "delete"}
    assert set(paths["/api/me/"]) == {"get"}
    assert set(paths["/api/seasons/current/"]) == {"get"}
    assert set(paths["/api/standings/{pool}/"]) == {"get"}
    assert set(paths["/api/infos/{competition}/{pool}/"]) == {"get"}
    assert set(paths["/api/picks/{competition}/{round}/"]) == {"get", "put"}


def test_a_pick_put_documents_its_errors(schema: dict) -> None:
    put = schema["paths"]["/api/picks/{competition}/{round}/"]["put"]
    assert {"200", "400", "401", "403", "404", "409"} <= set(put["responses"])
    competition = next(p for p in put["parameters"] if p["name"] == "competition")
    assert competition["schema"]["enum"] == ["championship", "kdh", "wg"]


def test_the_token_endpoint_needs_no_authentication(schema: dict) -> None:
    assert schema["paths"]["/api/token/"]["post"].get("security", []) in ([], [{}])


def test_the_seasons_endpoints_and_the_season_parameter_are_described(schema: dict) -> None:
    paths = schema["paths"]
    assert set(paths["/api/seasons/"]) == {"get"}
    assert set(paths["/api/seasons/{number}/"]) == {"get"}
    assert {"200", "404"} <= set(paths["/api/seasons/{number}/"]["get"]["responses"])
    for path in (
        "/api/standings/{pool}/",
        "/api/infos/{competition}/{pool}/",
        "/api/results/{competition}/{pool}/{round}/",
    ):
        [season] = [p for p in paths[path]["get"]["parameters"] if p["name"] == "season"]
        assert (season["in"], season.get("required", False), season["schema"]["type"]) == (
            "query",
            False,
            "integer",
        )
