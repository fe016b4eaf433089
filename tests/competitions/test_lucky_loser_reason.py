"""A KDH lucky loser says why it went through (R15), on the bracket, the results pages and the
results API (``qualified`` per game), once the round is published and not before (R23).

A twelve-team KDH: its qualifying round has four games (codes 05–12, R17). Game 0 is lost by two
ONR teams, so one loser of the three others goes on in its place. The KDH's round-1 row is
A 6, B 5, C 4, D 3 (no bonus goal, no great saves in the KDH):

- game 1: A(1)(5) – A(1)(3): A crowded by both, 5-5; extra time 1 against 1; shootout 5 against
  3 — the loser's margin is 2, with 3 shootout goals;
- game 2: B(1)(4) – B(1)(3): 4-4; extra time level; shootout 4 against 3 — margin 1;
- game 3: C(1)(1) – D(1)(1): 4-3 in regular time.

Shootout losers come first, the smallest margin first: game 2's loser goes on, by the shootout
margin, 1 against 2 for game 1's loser.
"""

from __future__ import annotations

import json
import re
from html import unescape
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from competitions import services
from competitions.models import Competition, PoolRound
from competitions.selectors.lucky_losers import games_lucky_losers
from league.models import Division, Entry, Season, Team
from tests.competitions.arbitration_league import League, add_kdh, build_league

ROW = {"A": 6, "B": 5, "C": 4, "D": 3, "E": 2, "F": 1, "G": 6}


def _text(html: str) -> str:
    # A link is inline (a ruling's citation links to the rules): its tags part no words.
    inline = re.sub(r"</?a\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", inline)).split())


@pytest.fixture
def made(season: Season, divisions: dict[str, Division]) -> League:
    referee = User.objects.create_user("cup-referee", password="x")
    league = build_league(
        season=season,
        divisions=divisions,
        referee=referee,
        matrix_rows={Competition.KDH: {1: ROW}},
    )
    add_kdh(league)
    return league


def play_lucky_round(made: League) -> tuple[list[tuple[str, str]], PoolRound]:
    games = made.games("kdh", 1)
    (_, _), (h1, a1), (h2, a2), (h3, a3) = games
    picks = {
        h1: "A(1)(5)",
        a1: "A(1)(3)",
        h2: "B(1)(4)",
        a2: "B(1)(3)",
        h3: "C(1)(1)",
        a3: "D(1)(1)",
    }
    pool_round = made.play("kdh", 1, skip=games[0], picks=picks)
    return games, pool_round


def _pages(made: League) -> dict[str, str]:
    client = Client(headers={"Accept-Language": "en"})
    slug = made.pools["kdh"].slug
    week = made.round(Competition.KDH, 1).week
    return {
        "bracket": _text(client.get("/standings/kdh/").content.decode()),
        "results": _text(client.get(f"/results/kdh/{slug}/1/").content.decode()),
        "week": _text(client.get(f"/results/week/1/{week}/").content.decode()),
        "api": client.get(f"/api/results/kdh/{slug}/1/").content.decode(),
    }


def test_a_lucky_loser_says_why_once_published(made: League) -> None:
    games, pool_round = play_lucky_round(made)
    lucky = made.entries[games[2][1]].team.name
    # Arbitrated, not published: nothing of it anywhere (R23).
    before = _pages(made)
    for page in ("bracket", "results", "week"):
        assert "Lucky loser" not in before[page] and "goes on:" not in before[page]
        assert "shootout defeat margin" not in before[page]
    assert json.loads(before["api"])["matches"] == []
    assert "lucky_loser" not in before["api"]

    services.pool_round_publish(pool_round=pool_round, by=made.referee)
    pages = _pages(made)
    why = "the smallest shootout defeat margin: 1, against 2 for the best loser left out (R15)"
    assert f"{lucky} goes on: {why}" in pages["bracket"]
    assert f"Lucky loser: {lucky} — {why}" in pages["results"]
    assert f"Lucky loser: {lucky} — {why}" in pages["week"]

    matches = json.loads(pages["api"])["matches"]
    assert [match["qualified"] for match in matches] == [
        [],  # both ONR: both out (R15)
        [{"team": games[1][0], "went_on_as": "winner"}],
        [
            {"team": games[2][0], "went_on_as": "winner"},
            {
                "team": games[2][1],
                "went_on_as": "lucky_loser",
                "criterion": "shootout_margin",
                "figure": 1,
                "runner_up": 2,
                "die": None,
            },
        ],
        [{"team": games[3][0], "went_on_as": "winner"}],
    ]
    assert [(m["home_goals"], m["away_goals"], m["decided"]) for m in matches] == [
        (0, 0, "forfeit"),
        (5, 5, "shootout"),
        (4, 4, "shootout"),
        (4, 3, "regulation"),
    ]


def test_the_reason_speaks_french(made: League) -> None:
    _, pool_round = play_lucky_round(made)
    services.pool_round_publish(pool_round=pool_round, by=made.referee)
    client = Client(headers={"Accept-Language": "fr"})
    html = _text(client.get(f"/results/kdh/{made.pools['kdh'].slug}/1/").content.decode())
    assert "plus petit écart de défaite aux tirs au but : 1, contre 2" in html


def test_a_championship_game_has_no_qualified(made: League) -> None:
    pool_round = made.play("elite", 1)
    services.pool_round_publish(pool_round=pool_round, by=made.referee)
    answer = Client().get("/api/results/championship/elite/1/").json()
    assert answer["matches"] and all("qualified" not in match for match in answer["matches"])


def _entry(pk: int, slug: str) -> Entry:
    return Entry(pk=pk, team=Team(pk=pk, slug=slug, name=slug))


def _game(
    home: Entry, away: Entry, goals: tuple[int, int], decided: str, shootouts: tuple[str, str]
) -> Any:
    return SimpleNamespace(
        home=home,
        away=away,
        home_goals=goals[0],
        away_goals=goals[1],
        decided=decided,
        winner=home,
        home_pick=SimpleNamespace(shootout=shootouts[0]),
        away_pick=SimpleNamespace(shootout=shootouts[1]),
    )


def test_stored_rows_read_an_x_from_its_draw_and_the_die_from_the_log() -> None:
    """Two double forfeits, three shootout losers: b lost 4 against an X that rolled 5 (its
    draw under the round's seed; the next round's draw of the same name is not it): margin 1,
    4 goals; d lost a level 2-2 shootout on a die: margin 0; f lost 1 against 2: margin 1,
    1 goal. d goes first by its margin, 0 against 1; then b before f by shootout goals, 4
    against 1."""
    a, b, c, d, e, f, x, y = (_entry(pk, slug) for pk, slug in enumerate("abcdefxy", 1))
    games = [
        _game(a, b, (2, 2), "shootout", ("X", "4")),
        _game(c, d, (2, 2), "die", ("2", "2")),
        _game(e, f, (2, 2), "shootout", ("2", "1")),
        _game(x, y, (0, 0), "forfeit", ("", "")),
        _game(y, x, (0, 0), "forfeit", ("", "")),
    ]
    games[3].winner = games[4].winner = None
    draws = [
        {"seed": "s", "what": "shootout_x:a", "options": ["0", "5"], "result": "5"},
        {"seed": "s/next-round-draw", "what": "shootout_x:a", "options": ["0"], "result": "0"},
    ]
    found = games_lucky_losers(games=games, seed="s", draws=draws)
    assert [(lucky.entry.team.slug, lucky.criterion, lucky.reason.figure) for lucky in found] == [
        ("d", "shootout_margin", 0),
        ("b", "shootout_goals", 4),
    ]
    assert found[1].reason.runner_up == 1 and found[1].die is None


def test_a_tie_takes_the_die_the_round_published() -> None:
    a, b, c, d, x, y = (_entry(pk, slug) for pk, slug in enumerate("abcdxy", 1))
    games = [
        _game(a, b, (3, 1), "regulation", ("0", "0")),
        _game(c, d, (3, 1), "regulation", ("0", "0")),
        _game(x, y, (0, 0), "forfeit", ("", "")),
    ]
    games[2].winner = None
    die = {"seed": "s", "what": "lucky_loser_die:1", "options": ["b", "d"], "result": "d"}
    (found,) = games_lucky_losers(games=games, seed="s", draws=[die])
    assert (found.entry.team.slug, found.criterion, found.die) == ("d", "die", die)
    assert found.as_dict() == {
        "team": "d",
        "went_on_as": "lucky_loser",
        "criterion": "die",
        "figure": None,
        "runner_up": None,
        "die": "d",
    }
    with translation.override("en"):
        words = _text(render_to_string("results/_lucky_loser_why.html", {"lucky": found}))
    assert words == (
        "every criterion level: a die among b, d (draw lucky_loser_die:1, seed s, R15, R23)"
    )


def test_a_round_stored_without_its_die_shows_no_reason_rather_than_a_wrong_one() -> None:
    """A season imported without its draw log: the tie's die is not there to read again."""
    a, b, c, d, x, y = (_entry(pk, slug) for pk, slug in enumerate("abcdxy", 1))
    games = [
        _game(a, b, (3, 1), "regulation", ("0", "0")),
        _game(c, d, (3, 1), "regulation", ("0", "0")),
        _game(x, y, (0, 0), "forfeit", ("", "")),
    ]
    games[2].winner = None
    assert games_lucky_losers(games=games, seed="s", draws=[]) == ()
    # An X whose roll is missing, likewise.
    games[1] = _game(c, d, (2, 2), "shootout", ("X", "1"))
    assert games_lucky_losers(games=games, seed="s", draws=[]) == ()
