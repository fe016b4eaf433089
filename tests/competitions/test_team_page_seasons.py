"""A team's page through a whole season (issue 24): ``?season=N`` honoured after the season is
closed and another is current, its cup runs (KDH and WG) with their games to come as far as
their pairings are public (R23), the winner no longer « still in » once the season is closed,
the WG's third-place game named as such (R18), and every game row naming both teams.

One season played to its end through the real services serves the whole module
(:mod:`tests.competitions.season_league`); each test runs in its own rolled-back transaction.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import pytest
from django.db.models import Q

from competitions.models import Competition, Fixture, FixtureResult, PoolRound, Stage
from competitions.services.season_close import season_close
from engine import wg
from league.models import Entry, Season
from tests.competitions.season_league import PlayedSeason, season_played_for_module
from tests.final_results import unguarded

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[PlayedSeason]:
    with season_played_for_module(django_db_blocker) as made:
        yield made


def cup_section(html: str, competition: str) -> str:
    found = re.search(rf'<section[^>]*aria-labelledby="cup-{competition}".*?</section>', html, re.S)
    assert found is not None, competition
    return found.group(0)


def cup_state(html: str, competition: str) -> str:
    found = re.search(r"<span[^>]*data-cup-state>([^<]*)</span>", cup_section(html, competition))
    assert found is not None
    return found.group(1).strip()


def final_of(competition: Competition, label: str = "") -> Fixture:
    fixtures = Fixture.objects.filter(pool_round__pool__competition=competition)
    if competition == Competition.WG:
        fixtures = fixtures.filter(pool_round__round__number=wg.FINAL_ROUND, label=label)
    else:
        fixtures = fixtures.filter(pool_round__round__stage=Stage.FINAL)
    return fixtures.select_related("home__team", "away__team", "result").get()


def page(open_as: Callable, slug: str, query: str = "") -> str:
    response = open_as(None).get(f"/teams/{slug}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def unpublish(pool_round: PoolRound) -> None:
    """Take ``pool_round`` back to before its publication (the guard of played rounds lifted
    for it: the test's transaction is rolled back)."""
    with unguarded():
        PoolRound.objects.filter(pk=pool_round.pk).update(status=PoolRound.Status.ARBITRATED)


def test_a_past_season_s_page_after_a_close_with_season_n(
    played: PlayedSeason, open_as: Callable
) -> None:
    season_close(season=played.season, by=played.admin)
    Season.objects.filter(pk=played.season.pk).update(is_current=False)
    Season.objects.create(number=2, starts_on=date(2026, 8, 31), is_current=True)
    slug = "elite-team-01"
    now = page(open_as, slug)
    assert 'class="team-game' not in now  # season 2: not drawn in yet
    past = page(open_as, slug, "?season=1")
    assert "data-place>—<" not in past
    entry = played.entries[slug]
    games = Fixture.objects.filter(Q(home=entry) | Q(away=entry)).count()
    assert len(re.findall(r'class="team-game', past)) == games > 0  # its season, on the record
    assert f'href="/standings/{played.entries[slug].division.slug}/?season=1"' in past
    # Every link from a game row stays in season 1.
    rounds = re.findall(r'href="(/results/[^"]+)"', past)
    assert rounds and all(link.endswith("?season=1") for link in rounds)
    assert open_as(None).get(f"/teams/{slug}/?season=9").status_code == 404
    assert open_as(None).get(f"/teams/{slug}/?season=x").status_code == 404


@pytest.mark.parametrize("competition", [Competition.KDH, Competition.WG])
def test_a_closed_season_s_cup_winner_is_the_winner_and_everyone_else_out(
    played: PlayedSeason, open_as: Callable, competition: Competition
) -> None:
    final = final_of(competition, Fixture.Label.FINAL)
    winner = final.home if final.result.winner_id == final.home_id else final.away
    loser = final.away if winner == final.home else final.home
    assert cup_state(page(open_as, winner.team.slug), competition) == "winner"
    season_close(season=played.season, by=played.admin)
    assert cup_state(page(open_as, winner.team.slug), competition) == "winner"
    assert cup_state(page(open_as, loser.team.slug), competition) == "out"
    # Every team that played the cup is out or its winner: none still in a finished cup.
    entered = Entry.objects.filter(
        Q(home_fixtures__pool_round__pool__competition=competition)
        | Q(away_fixtures__pool_round__pool__competition=competition)
    ).distinct()
    for entry in entered.select_related("team")[:24]:
        assert cup_state(page(open_as, entry.team.slug), competition) in ("winner", "out")


def test_the_wg_third_place_game_is_not_labelled_final(
    played: PlayedSeason, open_as: Callable
) -> None:
    third = final_of(Competition.WG, Fixture.Label.THIRD_PLACE)
    section = cup_section(page(open_as, third.home.team.slug), "wg")
    assert "Third-place game" in section
    assert ">Final<" not in section
    final = final_of(Competition.WG, Fixture.Label.FINAL)
    assert ">Final<" in cup_section(page(open_as, final.home.team.slug), "wg")


def test_every_game_row_names_both_teams(played: PlayedSeason, open_as: Callable) -> None:
    entry = played.entries["elite-team-01"]
    html = page(open_as, entry.team.slug)
    rows = re.findall(r'<li class="team-game.*?</li>', html, re.S)
    assert rows
    for row in rows:
        assert entry.team.name in row
        names = re.findall(r'href="/teams/[^"]+/">([^<]+)</a>', row)
        assert names and entry.team.name not in names


def test_cup_runs_show_the_games_to_come_once_their_pairings_are_public(
    played: PlayedSeason, open_as: Callable
) -> None:
    final = final_of(Competition.KDH)
    final_round = PoolRound.objects.get(fixtures=final)
    unpublish(final_round)
    for entry in (final.home, final.away):
        section = cup_section(page(open_as, entry.team.slug), "kdh")
        assert cup_state(page(open_as, entry.team.slug), "kdh") == "still in"
        coming = re.findall(r'<li class="team-game upcoming".*?</li>', section, re.S)
        assert len(coming) == 1
        assert final.home.team.name in coming[0] and final.away.team.name in coming[0]
        assert "Final" in coming[0]
    # R23: the semi-finals unpublished too, the final's pairing is not public.
    semi = PoolRound.objects.get(pool=final_round.pool, round__number=final_round.round.number - 1)
    unpublish(semi)
    coming = re.findall(
        r'<li class="team-game upcoming".*?</li>',
        cup_section(page(open_as, final.home.team.slug), "kdh"),
        re.S,
    )
    assert len(coming) == 1 and "Semi-finals" in coming[0]  # its semi-final, not the final

    wg_final = final_of(Competition.WG, Fixture.Label.FINAL)
    third = final_of(Competition.WG, Fixture.Label.THIRD_PLACE)
    unpublish(PoolRound.objects.get(fixtures=wg_final))
    section = cup_section(page(open_as, third.away.team.slug), "wg")
    coming = re.findall(r'<li class="team-game upcoming".*?</li>', section, re.S)
    assert len(coming) == 1 and "Third-place game" in coming[0] and ">Final<" not in coming[0]
    assert third.home.team.name in coming[0] and third.away.team.name in coming[0]
    finalist = cup_section(page(open_as, wg_final.home.team.slug), "wg")
    assert cup_state(finalist, "wg") == "still in" and "upcoming" in finalist


def test_a_wg_team_left_out_of_the_drawn_semi_finals_is_out(
    played: PlayedSeason, open_as: Callable
) -> None:
    in_semis = set(
        Fixture.objects.filter(
            pool_round__pool__competition=Competition.WG,
            pool_round__round__number__gte=wg.SEMI_FINAL_ROUND,
        ).values_list("home_id", "away_id")
    )
    kept = {pk for pair in in_semis for pk in pair}
    left = (
        Entry.objects.filter(
            Q(home_fixtures__pool_round__pool__competition=Competition.WG)
            | Q(away_fixtures__pool_round__pool__competition=Competition.WG)
        )
        .exclude(pk__in=kept)
        .select_related("team")
        .first()
    )
    assert left is not None
    # The season still running, the semi-finals published: out since they were drawn.
    for pool_round in PoolRound.objects.filter(
        pool__competition=Competition.WG, round__number__gte=wg.SEMI_FINAL_ROUND
    ):
        unpublish(pool_round)
    assert cup_state(page(open_as, left.team.slug), "wg") == "out"
    # Before the group's last round is published, the semi-finals are not drawn: still in.
    unpublish(
        PoolRound.objects.get(
            pool__competition=Competition.WG, round__number=wg.SEMI_FINAL_ROUND - 1
        )
    )
    assert cup_state(page(open_as, left.team.slug), "wg") == "still in"
    assert FixtureResult.objects.exists()
