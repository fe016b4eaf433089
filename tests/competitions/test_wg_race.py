"""The WG race (``/wg/race/``): R18's twelve if the season ended now, from published results
only, through the engine's own ``qualifiers`` — with a team qualified twice freeing its place."""

from __future__ import annotations

import re

import pytest
from django.db.models import Q
from django.test import Client

from competitions import services
from competitions.models import Fixture, FixtureResult, TeamResult
from competitions.selectors.standings import pool_standings
from competitions.selectors.wg_race import wg_race
from league.models import Division, Season
from tests.competitions.desk_league import Desk, desk_build
from tests.final_results import unguarded

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    for pool in ("elite", "d2a"):
        made.league.send_all(pool, 1)
        pool_round = services.pool_round_arbitrate(
            pool_round=made.pool_round(1, pool), by=made.referee
        )
        services.pool_round_publish(pool_round=pool_round, by=made.referee)
    # elite-01 wins its first game 20-0: the Elite's leader and the most goals, twice qualified.
    entry = made.league.entries["elite-01"]
    fixture = Fixture.objects.get(Q(home=entry) | Q(away=entry), pool_round=made.pool_round(1))
    home = fixture.home_id == entry.pk
    other = fixture.away if home else fixture.home
    with unguarded():
        FixtureResult.objects.filter(fixture=fixture).update(
            home_goals=20 if home else 0,
            away_goals=0 if home else 20,
            winner=entry,
            decided="regulation",
        )
        TeamResult.objects.filter(pool_round=fixture.pool_round, entry=entry).update(goals=20)
        TeamResult.objects.filter(pool_round=fixture.pool_round, entry=other).update(goals=0)
    return made


def test_the_twelve_follow_r18_with_a_freed_place_for_a_team_qualified_twice(desk: Desk) -> None:
    race = wg_race(season=desk.league.season)
    assert race is not None and len(race.teams) == 12
    slugs = [team.entry.team.slug for team in race.teams]
    assert len(set(slugs)) == 12
    leaders = [pool_standings(pool=desk.league.pools[p])[0].team for p in ("elite", "d2a")]
    assert leaders[0] == "elite-01"
    berths = {team.entry.team.slug: (team.berth, team.freed_place) for team in race.teams}
    for leader in leaders:
        assert berths[leader] == ("division_winner", False)
    # elite-01 also has the most goals: that berth is freed, nobody holds it as such.
    assert ("most_goals", False) not in berths.values()
    # Neither the KDH final nor the WG is played: their three places are freed places too.
    assert not race.kdh_final_known and not race.holder_known
    freed = [team for team in race.teams if team.freed_place]
    assert len(freed) == 12 - 2 - (1 if ("fewest_goals_against", False) in berths.values() else 0)
    # The first freed place goes to the most goals among those not yet in (R18).
    first = next(team for team in race.teams if team.freed_place)
    rest = [
        row
        for p in ("elite", "d2a")
        for row in pool_standings(pool=desk.league.pools[p])
        if row.team not in {t.entry.team.slug for t in race.teams[: race.teams.index(first)]}
    ]
    assert first.berth == "most_goals" and first.goals_for == max(r.goals_for for r in rest)


def test_an_arbitrated_unpublished_round_changes_nothing(desk: Desk) -> None:
    before = [(t.entry.pk, t.berth) for t in wg_race(season=desk.league.season).teams]
    desk.league.send_all("elite", 2)
    services.pool_round_arbitrate(pool_round=desk.pool_round(2), by=desk.referee)
    after = [(t.entry.pk, t.berth) for t in wg_race(season=desk.league.season).teams]
    assert after == before


def test_the_page_lists_the_twelve_in_the_reader_s_language(desk: Desk) -> None:
    html = Client(headers={"accept-language": "en"}).get("/wg/race/").content.decode()
    assert len(re.findall(r"<tr data-berth=", html)) == 12
    assert 'href="/teams/elite-01/"' in html
    assert "The KDH final is not published yet" in html
    french = Client(headers={"accept-language": "fr"}).get("/wg/race/")
    assert french.status_code == 200


def test_before_any_published_game_the_page_says_so(
    season: Season, divisions: dict[str, Division]
) -> None:
    desk_build(season=season, divisions=divisions)
    html = Client(headers={"accept-language": "en"}).get("/wg/race/").content.decode()
    assert "No game of this season is published yet." in html
