"""A team's page (``/teams/<slug>/``): its season from the published results only (games in the
rules' display, place, stocks, ONR count), its coach's ledger for its coach only (R14), and the
others may not."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db.models import Q

from competitions import services
from competitions.models import Fixture, StockMovement, TeamResult
from competitions.selectors.teams import next_onr
from league.models import Division, Entry
from tests.competitions.desk_league import Desk

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

PAGE = "/teams/elite-01/"


def fact(html: str, name: str) -> str:
    found = re.search(rf"<dd data-{name}>([^<]*)</dd>", html)
    assert found is not None, name
    return found.group(1).strip()


def opponent_of(desk: Desk, team: str) -> Entry:
    entry = desk.league.entries[team]
    fixture = Fixture.objects.get(Q(home=entry) | Q(away=entry), pool_round=desk.pool_round(1))
    return fixture.away if fixture.home_id == entry.pk else fixture.home


def test_an_arbitrated_round_changes_nothing_until_it_is_published(
    desk: Desk, open_as: Callable
) -> None:
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    assert Entry.objects.get(team__slug="elite-01").extra_goals == 0  # A++ spent both
    html = open_as(None).get(PAGE).content.decode()
    assert 'class="team-game' not in html
    assert "A++" not in html
    assert fact(html, "extra-goals") == "2"
    assert fact(html, "points") == "0"
    onr = open_as(None).get("/teams/elite-07/").content.decode()
    assert fact(onr, "onr") == "0" and fact(onr, "extra-goals") == "2"


def test_a_published_game_shows_from_the_team_s_side_with_both_picks_as_played(
    desk: Desk, open_as: Callable
) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    html = open_as(None).get(PAGE).content.decode()
    own = TeamResult.objects.get(pool_round=pool_round, entry__team__slug="elite-01")
    opponent = opponent_of(desk, "elite-01")
    theirs = TeamResult.objects.get(pool_round=pool_round, entry=opponent)
    line = html.split('class="team-game', 1)[1].split("</li>", 1)[0]
    assert f"[{own.display}]" in line and f"[{theirs.display}]" in line
    assert f'href="/teams/{opponent.team.slug}/"' in line
    score = re.search(r"<strong data-score>(\d+)-(\d+)</strong>", line)
    assert score is not None and int(score.group(1)) == own.goals
    assert int(score.group(2)) == theirs.goals
    assert fact(html, "extra-goals") == "0"
    assert fact(html, "place") != "—"
    onr = open_as(None).get("/teams/elite-07/").content.decode()
    assert fact(onr, "onr") == "1"  # R14: the first ONR costs one of each
    assert fact(onr, "extra-goals") == "1" and fact(onr, "great-saves") == "1"


@pytest.mark.parametrize("who", [None, "other_coach", "referee", "visitor"])
def test_only_the_team_s_coach_reads_its_ledger(
    desk: Desk, open_as: Callable, who: str | None, admin_user: User
) -> None:
    user = getattr(desk, who) if who else None
    html = open_as(user).get(PAGE).content.decode()
    assert 'id="ledger"' not in html
    assert "A++(1)" not in html  # not even the team's own unpublished pick
    assert 'id="ledger"' not in open_as(admin_user).get(PAGE).content.decode()


def test_the_coach_s_ledger_lists_published_movements_and_every_pick_sent(
    desk: Desk, open_as: Callable
) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    coach = open_as(desk.coach)
    html = coach.get(PAGE).content.decode()
    ledger = html.split('id="ledger"', 1)[1]
    assert re.findall(r'data-reason="(\w+)"', ledger) == ["season_start", "season_start"]
    # R23: not even how many movements the unpublished round made.
    assert "movement of a round" not in ledger
    assert "movements appear here once it is published" in ledger
    assert '<code class="notation">A++(1)</code>' in ledger  # the coach's own pick
    assert fact(ledger, "ledger-onr") == "0"
    assert '1 extra goal and 1 great save (<a href="/rules/#r14">R14</a>)' in ledger

    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    ledger = coach.get(PAGE).content.decode().split('id="ledger"', 1)[1]
    played = StockMovement.objects.get(entry__team__slug="elite-01", reason="played")
    assert re.findall(r'data-reason="(\w+)"', ledger) == ["season_start", "season_start", "played"]
    assert f'<td class="num">{played.delta}</td>' in ledger
    assert "movements appear here once it is published" in ledger


def test_an_unknown_team_is_not_found(desk: Desk, open_as: Callable) -> None:
    response = open_as(None).get("/teams/no-such-team/")
    assert response.status_code == 404
    assert "no-such-team" in response.content.decode()


@pytest.mark.parametrize(
    ("tier", "count", "expected"),
    [
        (1, 0, (1, 1, False, False, "")),
        (3, 0, (0, 0, False, False, "")),  # R14 takes what is there: nothing left, nothing lost
        (1, 1, (3, 2, True, False, "")),
        (1, 2, (3, 2, True, True, "dummy")),  # whatever is left goes too
        (3, 2, (0, 0, True, True, "waiting_list")),
    ],
)
def test_the_next_onr_costs_what_r14_says(
    tier: int, count: int, expected: tuple, divisions: dict[str, Division]
) -> None:
    division = next(d for d in divisions.values() if d.tier == tier)
    stocks = (3, 2) if count == 1 or tier == 1 else (0, 0)
    cost = next_onr(
        division=division, onr_count=count, extra_goals=stocks[0], great_saves=stocks[1]
    )
    assert (cost.extra_goals, cost.great_saves, cost.barred, cost.replaced, cost.replacement) == (
        expected
    )
    assert cost.number == count + 1


def test_team_names_link_to_their_page_in_standings_results_and_infos(
    desk: Desk, open_as: Callable
) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    visitor = open_as(None)
    for url in (
        "/standings/elite/",
        "/results/championship/elite/1/",
        "/infos/championship/elite/",
    ):
        html = visitor.get(url).content.decode()
        assert 'href="/teams/elite-01/"' in html, url
        assert 'href="/teams/elite-12/"' in html, url
