"""The pick selectors: what a team has left (R6, R7, R19), the rounds a coach may still send
picks for (R12, R13), « infos équipes »."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from competitions import services as competitions
from competitions.models import (
    Competition,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    Stage,
    TeamResult,
)
from competitions.selectors import (
    EntryChoices,
    Sight,
    entry_choices,
    entry_plays_round,
    entry_stocks,
    pool_infos,
    round_status,
    team_rounds_open,
)
from competitions.services import pick_submit
from league import services as league
from league.models import Entry, Season, Team
from tests.conftest import ResultRecorder, TeamMaker
from tests.final_results import unguarded

pytestmark = pytest.mark.django_db


@pytest.fixture
def dogs(coach: User) -> Entry:
    return Entry.objects.get(team__coach=coach)


def future_round(
    season: Season, competition: str, number: int, week: int, **extra: object
) -> Round:
    return competitions.round_create(
        season=season,
        competition=competition,
        number=number,
        week=week,
        deadline=timezone.now() + timedelta(days=week),
        **extra,
    )


# --- entry_choices ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("competition", "columns", "extra_time", "shootout"),
    [
        # R7 and R19, as the rulings state them.
        ("championship", "ABCDEFGHIJK", {"0": 2, "1": 3, "2": 3, "3": 2, "X": 1}, {}),
        (
            "kdh",
            "ABCDEFG",
            {"0": 2, "1": 2, "2": 2, "X": 1},
            {"0": 1, "1": 1, "2": 1, "3": 1, "4": 1, "5": 1, "X": 1},
        ),
        ("wg", "ABCDEFGH", {"0": 2, "1": 2, "2": 2, "X": 2}, {}),
    ],
)
def test_a_team_starts_with_every_column_and_the_quotas_of_r7(
    dogs: Entry,
    competition: str,
    columns: str,
    extra_time: dict[str, int],
    shootout: dict[str, int],
) -> None:
    for sight in Sight:
        choices = entry_choices(entry=dogs, competition=competition, sight=sight)
        assert choices == EntryChoices(
            competition=competition,
            columns=tuple(columns),
            extra_time=extra_time,
            shootout=shootout,
            extra_goals=3,
            great_saves=2,
        )


def test_the_pick_form_counts_the_team_s_own_arbitrated_picks_and_infos_equipes_only_published(
    season: Season,
    dogs: Entry,
    elite_pool: Pool,
    championship_round: Round,
    record_played: ResultRecorder,
) -> None:
    round_2 = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    record_played(
        dogs,
        championship_round,
        pool=elite_pool,
        column="A",
        extra_time="X",
        extra_goals=1,
        status=PoolRound.Status.PUBLISHED,
    )
    record_played(
        dogs, round_2, pool=elite_pool, column="B", extra_time="0", extra_goals=1, great_saves=2
    )
    form = entry_choices(entry=dogs, competition="championship", sight=Sight.TEAM)
    assert entry_choices(entry=dogs, competition="championship", sight=Sight.REFEREE) == form
    public = entry_choices(entry=dogs, competition="championship", sight=Sight.PUBLIC)
    assert form.columns == tuple("CDEFGHIJK")
    assert public.columns == tuple("BCDEFGHIJK")
    assert form.extra_time == {"0": 1, "1": 3, "2": 3, "3": 2}
    assert public.extra_time == {"0": 2, "1": 3, "2": 3, "3": 2}
    assert (form.extra_goals, form.great_saves) == (1, 0)
    assert (public.extra_goals, public.great_saves) == (2, 2)
    assert EntryChoices.spread(form.extra_time) == ["0", "1", "1", "1", "2", "2", "2", "3", "3"]


def test_the_team_knows_its_own_picks_of_an_unpublished_round_not_the_referee_s_draws(
    season: Season,
    dogs: Entry,
    elite_pool: Pool,
    championship_round: Round,
    record_played: ResultRecorder,
) -> None:
    """R23, R4, R11, R14: round 1 arbitrated, not published. An ONR team's drawn column and
    value, and its sanction, are the referee's; a redrawn part of a team's pick is too, while
    the pick it sent is its own."""
    round_2 = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    # Round 1: the team sent nothing; the referee drew C(X), the sanction took one of each.
    pool_round = competitions.pool_round_create(pool=elite_pool, round=championship_round)
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=timezone.now()
    )
    TeamResult.objects.create(
        pool_round=pool_round, entry=dogs, column="C", extra_time="X", onr=True, goals=0
    )
    for kind in ("extra_goals", "great_saves"):
        competitions.stock_move(
            entry=dogs, kind=kind, delta=-1, reason="onr_sanction", round=championship_round
        )
    # Round 2: the team's A+(1) was played as E+(1), its column redrawn (R11).
    played = record_played(
        dogs, round_2, pool=elite_pool, column="A", extra_time="1", extra_goals=1
    )
    with unguarded():
        TeamResult.objects.filter(pk=played.pk).update(column="E", redrawn=True)
    dogs.refresh_from_db()

    team = entry_choices(entry=dogs, competition="championship", sight=Sight.TEAM)
    referee = entry_choices(entry=dogs, competition="championship", sight=Sight.REFEREE)
    public = entry_choices(entry=dogs, competition="championship", sight=Sight.PUBLIC)
    assert public.columns == tuple("ABCDEFGHIJK") and "X" in public.extra_time
    assert team.columns == tuple("BCDEFGHIJK")  # its own A, not the drawn C nor the redrawn E
    assert referee.columns == tuple("ABDFGHIJK")  # C drawn, E played
    assert "X" in team.extra_time and "X" not in referee.extra_time
    assert (public.extra_goals, public.great_saves) == (3, 2)
    assert (team.extra_goals, team.great_saves) == (2, 2)  # the extra goal its pick asked
    assert (referee.extra_goals, referee.great_saves) == (1, 1)


def test_stocks_moved_outside_any_round_count_at_once(dogs: Entry, admin_user: User) -> None:
    competitions.stock_move(entry=dogs, kind="extra_goals", delta=2, reason="admin", by=admin_user)
    for sight in Sight:
        assert entry_stocks(entry=dogs, sight=sight) == (5, 2)


# --- entry_plays_round ---------------------------------------------------------------------------


def test_a_replaced_team_plays_no_more(
    dogs: Entry, championship_round: Round, admin_user: User
) -> None:
    newcomer = league.team_create(name="Newcomers")
    new = competitions.entry_replace(entry=dogs, team=newcomer, by=admin_user)
    dogs.refresh_from_db()
    assert not entry_plays_round(entry=dogs, round=championship_round)
    assert entry_plays_round(entry=new, round=championship_round)


def test_a_replacement_plays_the_cup_its_predecessor_was_in(season: Season, dogs: Entry) -> None:
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    PoolMember.objects.create(pool=kdh, entry=dogs)
    round = future_round(season, Competition.KDH, 1, 1, stage=Stage.ROUND_OF_64)
    new = competitions.entry_replace(entry=dogs, team=league.team_create(name="Newcomers"))
    assert entry_plays_round(entry=new, round=round)


def test_a_team_drawn_in_a_cup_round_still_to_play_may_send_picks_for_the_next(
    season: Season, dogs: Entry, enter_team: TeamMaker
) -> None:
    # R17: the Elite is exempt from the KDH's qualifying round; drawn in the round of 64, it
    # may send its picks for the round of 32 in advance (R12) until the round of 64 is played.
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    winner, loser = enter_team("Winners", code=2), enter_team("Losers", code=3)
    for entry in (dogs, winner, loser):
        PoolMember.objects.create(pool=kdh, entry=entry)
    qualifying = future_round(season, Competition.KDH, 1, 1, stage=Stage.QUALIFYING)
    round_of_64 = future_round(season, Competition.KDH, 2, 2, stage=Stage.ROUND_OF_64)
    round_of_32 = future_round(season, Competition.KDH, 3, 3, stage=Stage.ROUND_OF_32)
    played = competitions.pool_round_create(pool=kdh, round=qualifying)
    competitions.fixture_create(pool_round=played, home=winner, away=loser)
    PoolRound.objects.filter(pk=played.pk).update(
        status=PoolRound.Status.PUBLISHED,
        arbitrated_at=timezone.now(),
        published_at=timezone.now(),
    )
    played.qualified.add(winner)
    to_play = competitions.pool_round_create(pool=kdh, round=round_of_64)
    competitions.fixture_create(pool_round=to_play, home=dogs, away=winner)

    assert entry_plays_round(entry=dogs, round=round_of_32)
    assert entry_plays_round(entry=winner, round=round_of_32)
    assert not entry_plays_round(entry=loser, round=round_of_32)

    # Arbitrated, not published: nothing is public yet, both may still send picks (kept, and
    # simply not played by the team that turns out eliminated).
    PoolRound.objects.filter(pk=to_play.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=timezone.now()
    )
    to_play.qualified.add(winner)
    next_round = competitions.pool_round_create(pool=kdh, round=round_of_32)
    competitions.fixture_create(pool_round=next_round, home=winner, away=loser)  # drawn from it
    assert entry_plays_round(entry=dogs, round=round_of_32)
    assert entry_plays_round(entry=winner, round=round_of_32)

    PoolRound.objects.filter(pk=to_play.pk).update(
        status=PoolRound.Status.PUBLISHED, published_at=timezone.now()
    )
    assert not entry_plays_round(entry=dogs, round=round_of_32)
    assert entry_plays_round(entry=winner, round=round_of_32)


def test_the_teams_exempt_from_the_kdh_qualifying_round_are_in_the_round_of_64(
    season: Season, dogs: Entry, enter_team: TeamMaker
) -> None:
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    home, away = enter_team("Home", code=2), enter_team("Away", code=3)
    for entry in (dogs, home, away):
        PoolMember.objects.create(pool=kdh, entry=entry)
    qualifying = future_round(season, Competition.KDH, 1, 1, stage=Stage.QUALIFYING)
    round_of_64 = future_round(season, Competition.KDH, 2, 2, stage=Stage.ROUND_OF_64)
    drawn = competitions.pool_round_create(pool=kdh, round=qualifying)
    competitions.fixture_create(pool_round=drawn, home=home, away=away)
    assert entry_plays_round(entry=dogs, round=round_of_64)  # exempt (R17)
    assert entry_plays_round(entry=home, round=round_of_64)
    assert not entry_plays_round(entry=dogs, round=qualifying)


def test_a_team_of_another_season_plays_nothing(dogs: Entry, championship_round: Round) -> None:
    other = league.season_create(number=2, starts_on=date(2027, 3, 1))
    round = competitions.round_create(
        season=other, competition=Competition.CHAMPIONSHIP, number=1, week=1
    )
    assert not entry_plays_round(entry=dogs, round=round)


# --- team_rounds_open ----------------------------------------------------------------------------


def test_the_open_rounds_are_grouped_by_week_with_each_competition_the_team_plays(
    season: Season, dogs: Entry, coach: User, championship_round: Round
) -> None:
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    wg = competitions.pool_create(season=season, competition=Competition.WG)
    PoolMember.objects.create(pool=kdh, entry=dogs)
    champ_2 = future_round(season, Competition.CHAMPIONSHIP, 2, 2)
    champ_3 = future_round(season, Competition.CHAMPIONSHIP, 3, 3)
    kdh_1 = future_round(season, Competition.KDH, 1, 2, stage=Stage.ROUND_OF_64)
    future_round(season, Competition.WG, 1, 3, stage=Stage.GROUP)  # not qualified
    pick = pick_submit(
        team=dogs.team, round=champ_3, notation="F(2)", channel="web", entered_by=coach
    ).pick
    weeks = team_rounds_open(team=dogs.team)
    assert [w.week for w in weeks] == [2, 3]  # round 1's deadline (March) has passed
    assert [(r.competition, r.round) for r in weeks[0].rounds] == [
        ("championship", champ_2),
        ("kdh", kdh_1),
    ]
    assert [(r.competition, r.round, r.current) for r in weeks[1].rounds] == [
        ("championship", champ_3, pick)
    ]
    assert weeks[0].deadline == champ_2.deadline
    PoolMember.objects.create(pool=wg, entry=dogs, group="A")
    assert [r.competition for r in team_rounds_open(team=dogs.team)[1].rounds] == [
        "championship",
        "wg",
    ]


def test_no_round_is_open_after_its_deadline_or_once_closed(season: Season, dogs: Entry) -> None:
    round = future_round(season, Competition.CHAMPIONSHIP, 2, 2)
    assert team_rounds_open(team=dogs.team, now=round.deadline - timedelta(seconds=1))
    assert team_rounds_open(team=dogs.team, now=round.deadline) == []
    Round.objects.filter(pk=round.pk).update(status=Round.Status.CLOSED)
    assert team_rounds_open(team=dogs.team) == []


def test_a_team_not_in_the_season_has_no_open_round(
    season: Season, championship_round: Round
) -> None:
    assert team_rounds_open(team=league.team_create(name="Waiting")) == []


def test_without_a_current_season_nothing_is_open(dogs: Entry, season: Season) -> None:
    Season.objects.update(is_current=False)
    assert team_rounds_open(team=Team.objects.get(pk=dogs.team_id)) == []


def test_round_status_closes_an_open_round_at_its_deadline(championship_round: Round) -> None:
    deadline = championship_round.deadline
    assert round_status(round=championship_round, now=deadline - timedelta(seconds=1)) == "open"
    assert round_status(round=championship_round, now=deadline) == "closed"


# --- pool_infos ----------------------------------------------------------------------------------


def test_pool_infos_list_every_playing_team_of_the_division_by_code(
    season: Season, elite_pool: Pool, enter_team: TeamMaker
) -> None:
    for code in (3, 1, 2):
        enter_team(f"Team {code}", code=code)
    infos = pool_infos(season=season, competition="championship", pool_slug="elite")
    assert list(infos) == ["team-1", "team-2", "team-3"]
    assert all(choices.columns == tuple("ABCDEFGHIJK") for choices in infos.values())


def test_pool_infos_of_an_unknown_pool_is_none(season: Season, elite_pool: Pool) -> None:
    assert pool_infos(season=season, competition="championship", pool_slug="d3a") is None
    assert pool_infos(season=season, competition="nhl", pool_slug="elite") is None
