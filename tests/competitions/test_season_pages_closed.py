"""The season pages read what the close stored (issue 25): a closed season's page, the roll of
honour and a team's honours come from its archive (final tables, cup honours) and the team's
season lines, not from its results — so they cost the same queries after one season as after
five, read none of a closed season's results, and show exactly what the results would.

The league is the memory's small history (:mod:`tests.competitions.memory_league`): seasons of
two divisions of four and the cups' last week, played and published through the real service
and closed through the real one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from competitions.models import FixtureResult, SeasonArchive, TeamResult
from league.models import Season
from league.public_cache import public_cache_forget
from tests.competitions.memory_league import SEASON_1, SEASON_2, History, history_start

pytestmark = pytest.mark.django_db

PAGES: dict[str, Callable[[int], str]] = {
    "seasons": lambda last: "/seasons/",
    "first season": lambda last: "/seasons/1/",
    "last season": lambda last: f"/seasons/{last}/",
    "honours": lambda last: "/seasons/teams/aigles/",
    "honours of a team that moved": lambda last: "/seasons/teams/castors/",
    "team": lambda last: "/teams/hiboux/",
}
"""The pages whose seasons are read from the close, with the last season's number."""

RESULTS_TABLES = (FixtureResult._meta.db_table, TeamResult._meta.db_table)


def _seasons_played(history: History, numbers: range) -> None:
    """Seasons ``numbers`` opened, played (SEASON_1's and SEASON_2's in turn) and closed."""
    for number in numbers:
        season = SEASON_1 if number % 2 else SEASON_2
        history.season_open(number, season["divisions"])  # type: ignore[arg-type]
        history.play_season(number, season)
        history.close(number)


def _ask(path: str) -> tuple[str, list[str]]:
    """``path`` for a visitor with nothing kept: its page and the SQL it ran."""
    for cache in caches.all():
        cache.clear()
    public_cache_forget()
    with override_settings(PUBLIC_CACHE_SECONDS=0), CaptureQueriesContext(connection) as queries:
        response = Client(headers={"accept-language": "en"}).get(path)
    assert response.status_code == 200, path
    # The page but its per-request CSRF token (the language form's) and its charts' ids (a
    # counter of the process).
    page = re.sub(r'(csrfmiddlewaretoken" value=)"\w+"', r"\1", response.content.decode())
    page = re.sub(r"(chart-[a-z]+)-\d+", r"\1", page)
    return page, [query["sql"] for query in queries.captured_queries]


def _measure(last: int) -> dict[str, tuple[str, list[str]]]:
    return {name: _ask(path(last)) for name, path in PAGES.items()}


def test_the_season_pages_cost_the_same_queries_after_one_season_and_after_five(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    history = history_start(monkeypatch)
    _seasons_played(history, range(1, 2))
    one = {name: len(sql) for name, (_, sql) in _measure(1).items()}
    _seasons_played(history, range(2, 6))
    five = {name: len(sql) for name, (_, sql) in _measure(5).items()}
    assert five == one


def test_the_season_pages_read_no_result_of_a_closed_season(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    history = history_start(monkeypatch)
    _seasons_played(history, range(1, 4))
    for name, (_, sql) in _measure(3).items():
        if name == "team":
            continue  # the team's page shows the current season's games, from its results
        assert not [query for query in sql if any(table in query for table in RESULTS_TABLES)], name


def test_a_closed_seasons_pages_show_what_its_published_results_show(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    history = history_start(monkeypatch)
    _seasons_played(history, range(1, 4))
    stored = _measure(3)
    # The archives gone (their season lines with them), each season is worked out again from
    # its published results: every season page must read the same.
    SeasonArchive.objects.all().delete()
    assert set(Season.objects.values_list("status", flat=True)) == {Season.Status.FINISHED}
    worked_out = _measure(3)
    for name, (page, _) in stored.items():
        if name == "team":
            continue  # its history is the memory's season lines alone (memory_rebuild)
        assert page == worked_out[name][0], name
    assert "Aigles" in stored["seasons"][0] and "champion" in stored["honours"][0]
