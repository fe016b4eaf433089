"""A team's page (``/teams/<slug>/``): its season from the published results only (games in the
rules' display, place, stocks, ONR count), its coach's ledger for its coach only (R14), and the
others may not."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth.models import User
from django.db.models import Q
from django.test import Client

from competitions import services
from competitions.models import Fixture, StockMovement, TeamResult
from competitions.selectors.teams import next_onr
from league.models import Division, Entry, Season
from tests.competitions.desk_league import Desk, desk_build, eager_tasks

pytestmark = pytest.mark.django_db

PICKS = {"elite-01": "A++(1)", "elite-02": "K#(2)", "elite-03": "E+(X)"}
PAGE = "/teams/elite-01/"


@pytest.fixture(autouse=True)
def eager() -> Iterator[None]:
    with eager_tasks():
        yield


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, picks=PICKS, skip=["elite-07"])
    return made


@pytest.fixture
def browser() -> Callable[[User | None], Client]:
    def open_as(user: User | None) -> Client:
        client = Client(headers={"accept-language": "en"})
        if user is not None:
            client.force_login(user)
        return client

    return open_as


def fact(html: str, name: str) -> str:
    found = re.search(rf"<dd data-{name}>([^<]*)</dd>", html)
    assert found is not None, name
    return found.group(1).strip()


def opponent_of(desk: Desk, team: str) -> Entry:
    entry = desk.league.entries[team]
    fixture = Fixture.objects.get(Q(home=entry) | Q(away=entry), pool_round=desk.pool_round(1))
    return fixture.away if fixture.home_id == entry.pk else fixture.home


def test_an_arbitrated_round_changes_nothing_until_it_is_published(
    desk: Desk, browser: Callable
) -> None:
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    assert Entry.objects.get(team__slug="elite-01").extra_goals == 0  # A++ spent both
    html = browser(None).get(PAGE).content.decode()
    assert 'class="team-game' not in html
    assert "A++" not in html
    assert fact(html, "extra-goals") == "2"
    assert fact(html, "points") == "0"
    onr = browser(None).get("/teams/elite-07/").content.decode()
    assert fact(onr, "onr") == "0" and fact(onr, "extra-goals") == "2"


def test_a_published_game_shows_from_the_team_s_side_with_both_picks_as_played(
    desk: Desk, browser: Callable
) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    html = browser(None).get(PAGE).content.decode()
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
    onr = browser(None).get("/teams/elite-07/").content.decode()
    assert fact(onr, "onr") == "1"  # R14: the first ONR costs one of each
    assert fact(onr, "extra-goals") == "1" and fact(onr, "great-saves") == "1"


@pytest.mark.parametrize("who", [None, "other_coach", "referee", "visitor"])
def test_only_the_team_s_coach_reads_its_ledger(
    desk: Desk, browser: Callable, who: str | None, admin_user: User
) -> None:
    user = getattr(desk, who) if who else None
    html = browser(user).get(PAGE).content.decode()
    assert 'id="ledger"' not in html
    assert "A++(1)" not in html  # not even the team's own unpublished pick
    assert 'id="ledger"' not in browser(admin_user).get(PAGE).content.decode()


def test_the_coach_s_ledger_lists_published_movements_and_every_pick_sent(
    desk: Desk, browser: Callable
) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    coach = browser(desk.coach)
    html = coach.get(PAGE).content.decode()
    ledger = html.split('id="ledger"', 1)[1]
    assert re.findall(r'data-reason="(\w+)"', ledger) == ["season_start", "season_start"]
    assert "1 movement of a round not yet published" in ledger
    assert '<code class="notation">A++(1)</code>' in ledger  # the coach's own pick
    assert fact(ledger, "ledger-onr") == "0"
    assert "1 extra goal and 1 great save (R14)" in ledger

    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    ledger = coach.get(PAGE).content.decode().split('id="ledger"', 1)[1]
    played = StockMovement.objects.get(entry__team__slug="elite-01", reason="played")
    assert re.findall(r'data-reason="(\w+)"', ledger) == ["season_start", "season_start", "played"]
    assert f'<td class="num">{played.delta}</td>' in ledger
    assert "not yet published" not in ledger


def test_an_unknown_team_is_not_found(desk: Desk, browser: Callable) -> None:
    response = browser(None).get("/teams/no-such-team/")
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
    desk: Desk, browser: Callable
) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    visitor = browser(None)
    for url in (
        "/standings/elite/",
        "/results/championship/elite/1/",
        "/infos/championship/elite/",
    ):
        html = visitor.get(url).content.decode()
        assert 'href="/teams/elite-01/"' in html, url
        assert 'href="/teams/elite-12/"' in html, url
