"""Who may pick for a cup round follows published results only: after a KDH round is
arbitrated and before it is published, its losers still see the next round's form and may send
a pick through the API (kept, and not played if they are out); the reminder says nothing either.
Once published, the losers are out everywhere."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db.models import Q
from django.test import Client
from django.utils import timezone

from competitions import services as competitions
from competitions.models import Competition, Fixture, Pick, PoolRound, Round
from competitions.selectors import (
    entry_opponents,
    entry_plays_round,
    entry_pools,
    public_draws,
    rounds_columns_held,
)
from league.models import Division, Entry, Season, Team
from tests.competitions.arbitration_league import League, add_kdh, build_league, plain_pick

pytestmark = pytest.mark.django_db


@pytest.fixture
def kdh(season: Season, divisions: dict[str, Division]) -> League:
    referee = User.objects.create_user("kdh-referee")
    made = build_league(
        season=season, divisions=divisions, referee=referee, division_slugs=["elite", "d2a"]
    )
    add_kdh(made)
    made.play("kdh", 1)  # arbitrated; the next round drawn from it, not published
    Round.objects.filter(season=season, competition=Competition.KDH, number=2).update(
        deadline=timezone.now() + timedelta(days=3)
    )
    return made


def loser_of_round_1(made: League) -> Entry:
    fixture = Fixture.objects.filter(pool_round=made.pool_round("kdh", 1)).first()
    result = fixture.result
    return fixture.away if result.winner_id == fixture.home_id else fixture.home


@pytest.fixture
def loser_coach(kdh: League) -> User:
    user = User.objects.create_user("loser-coach", email="loser@example.org")
    Team.objects.filter(pk=loser_of_round_1(kdh).team_id).update(coach=user)
    return user


def test_until_publication_the_loser_may_still_pick_for_the_next_round(
    kdh: League, loser_coach: User, api_as: Callable
) -> None:
    loser = loser_of_round_1(kdh)
    next_round = kdh.round(Competition.KDH, 2)
    assert kdh.pool_round("kdh", 1).status == PoolRound.Status.ARBITRATED
    assert entry_plays_round(entry=loser, round=next_round)

    browser = Client(headers={"accept-language": "en"})
    browser.force_login(loser_coach)
    assert 'id="round-kdh-2"' in browser.get("/picks/").content.decode()
    # A pick the loser still has: the KDH's draw is random, so which column it played is too.
    pick = plain_pick(Competition.KDH, 2, loser.code)
    response = api_as(loser_coach).put("/api/picks/kdh/2/", {"pick": pick}, format="json")
    assert response.status_code == 200, response.content
    assert Pick.objects.filter(entry=loser, round=next_round).count() == 1

    competitions.pool_round_publish(pool_round=kdh.pool_round("kdh", 1), by=kdh.referee)
    assert not entry_plays_round(entry=loser, round=next_round)
    assert 'id="round-kdh-2"' not in browser.get("/picks/").content.decode()
    refused = api_as(loser_coach).put("/api/picks/kdh/2/", {"pick": "B(1)(2)"}, format="json")
    assert refused.status_code == 403
    # The pick sent before publication is kept, not played (the referee's desk shows no game).
    assert Pick.objects.filter(entry=loser, round=next_round).count() == 1


def test_the_next_round_s_opponent_shows_on_the_pick_page_only_once_published(
    kdh: League,
) -> None:
    fixture = Fixture.objects.filter(pool_round=kdh.pool_round("kdh", 1)).first()
    winner = fixture.home if fixture.result.winner_id == fixture.home_id else fixture.away
    user = User.objects.create_user("winner-coach", email="winner@example.org")
    Team.objects.filter(pk=winner.team_id).update(coach=user)
    [next_game] = Fixture.objects.filter(
        Q(home=winner) | Q(away=winner), pool_round=kdh.pool_round("kdh", 2)
    )
    opponent = next_game.away if next_game.home_id == winner.pk else next_game.home
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)

    def kdh_card() -> str:
        html = browser.get("/picks/").content.decode()
        return html.split('id="round-kdh-2"', 1)[1].split("</article>", 1)[0]

    assert "data-opponent" not in kdh_card()  # drawn from an unpublished round: secret
    competitions.pool_round_publish(pool_round=kdh.pool_round("kdh", 1), by=kdh.referee)
    card = kdh_card()
    assert "data-opponent" in card
    assert f'href="/teams/{opponent.team.slug}/"' in card
    assert f'href="/infos/kdh/kdh/#team-{opponent.team.slug}"' in card


def test_kdh_infos_show_the_teams_still_in_first_and_fold_the_eliminated_once_published(
    kdh: League,
) -> None:
    loser = loser_of_round_1(kdh)
    visitor = Client(headers={"accept-language": "en"})

    def sections() -> tuple[str, str]:
        html = visitor.get("/infos/kdh/kdh/").content.decode()
        main, _, folded = html.partition("data-eliminated")
        return main, folded

    main, folded = sections()
    assert f'id="team-{loser.team.slug}"' in main and folded == ""  # not published: all in
    competitions.pool_round_publish(pool_round=kdh.pool_round("kdh", 1), by=kdh.referee)
    main, folded = sections()
    assert f'id="team-{loser.team.slug}"' not in main
    assert f'id="team-{loser.team.slug}"' in folded
    losers = Fixture.objects.filter(pool_round=kdh.pool_round("kdh", 1)).count()
    assert f"{losers} teams out of the cup" in folded


def test_the_opponents_and_the_crowding_pools_hide_the_same_draws_until_publication(
    kdh: League,
) -> None:
    """R23, one rule for both readers (:class:`PublicDraws`): the pick page's opponent and the
    matrices' crowding pool (R2: a cup round's drawn games' teams) show round 1's draw, made
    when the season started, and round 2's, made by round 1's arbitration, only once round 1
    is published."""
    first, second = kdh.round(Competition.KDH, 1), kdh.round(Competition.KDH, 2)
    fixture = Fixture.objects.filter(pool_round=kdh.pool_round("kdh", 1)).first()
    winner = fixture.home if fixture.result.winner_id == fixture.home_id else fixture.away
    others_in_games = {
        round.pk: 2 * Fixture.objects.filter(pool_round__round=round).count() - 1
        for round in (first, second)
    }
    pool = kdh.pools["kdh"]

    def shown() -> tuple[set[int], set[int], set[int]]:
        pools = entry_pools(entry=winner)
        opponents = entry_opponents(entry=winner, rounds=[first, second], pools=pools)
        held = rounds_columns_held(entry=winner, rounds=[first, second], pools=pools)
        drawn = {pk for pk, columns in held.items() if columns.teams == others_in_games[pk]}
        public = public_draws(pools=[pool])
        by_helper = {
            round.pk
            for round in (first, second)
            if public.shows(pool_id=pool.pk, competition=round.competition, number=round.number)
        }
        return set(opponents), drawn, by_helper

    # A round whose draw is hidden crowds with every team its published games left in.
    assert pool.members.count() - 1 not in others_in_games.values()
    assert shown() == ({first.pk}, {first.pk}, {first.pk})
    competitions.pool_round_publish(pool_round=kdh.pool_round("kdh", 1), by=kdh.referee)
    both = {first.pk, second.pk}
    assert shown() == (both, both, both)
