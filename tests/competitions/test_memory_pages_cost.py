"""The memory's pages and API reads before any close and as the league ages (issue 25): the
empty state before the first close, and the same number of queries after one season and after
two — what the closes stored is read, never the games again.

The league: :mod:`tests.competitions.memory_pages_league`, built season by season here.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.competitions.memory_pages_league import coaches_make, history_begin, season_played

pytestmark = pytest.mark.django_db


def page(open_as: Callable[..., Client], path: str, language: str = "en") -> str:
    response = open_as(None, language).get(path)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_before_any_closed_season_the_pages_and_reads_say_nothing_is_closed_yet(
    monkeypatch: pytest.MonkeyPatch, open_as: Callable[..., Client]
) -> None:
    history_begin(monkeypatch, coaches_make())
    html = page(open_as, "/all-time/")
    assert "data-empty" in html
    assert "none is closed yet" in html
    assert "Aucune saison n’est encore close" in page(open_as, "/all-time/", "fr")
    assert "data-history-empty" in page(open_as, "/teams/castors/")
    assert "data-career-empty" in page(open_as, "/coaches/camille/")
    api = open_as(None).get("/api/all-time/").json()
    assert api == {"scope": "all", "order": "points", "through": None, "rows": []}
    assert open_as(None).get("/api/coaches/camille/").json()["seasons"] == []


def queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200, path
    return len(captured.captured_queries)


PATHS = [
    "/all-time/",
    "/all-time/?scope=elite&order=wins",
    "/teams/castors/",
    "/teams/castors/?season=1",
    "/coaches/camille/",
    "/api/all-time/",
    "/api/teams/castors/history/",
    "/api/coaches/camille/",
]


def test_the_pages_and_reads_cost_the_same_queries_after_one_season_and_after_two(
    monkeypatch: pytest.MonkeyPatch, open_as: Callable[..., Client]
) -> None:
    made = history_begin(monkeypatch, coaches_make())
    season_played(made, 1)
    client = open_as(None)
    after_one = {path: queries(client, path) for path in PATHS}
    season_played(made, 2)
    after_two = {path: queries(client, path) for path in PATHS}
    assert after_two == after_one
    # And as few as that: the stored lines, the closed season, the page's own reads.
    assert after_one["/all-time/"] <= 4
