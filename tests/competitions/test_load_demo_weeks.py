"""``manage.py load_demo --week N`` (``shared/SEASON.md``): the demo league at the start, the
middle and the end of its season. Each week is built once per class (in a transaction rolled
back afterwards); the tests only read it.

The calendar below is worked out by hand from R20 and the cups' weeks (``engine/calendar.py``):
championship round r in week r (rounds 10 and 11 both in week 10), KDH round r in week r + 1
(its qualifying round in week 2, its final in week 8), WG round r in week r + 2 (group rounds
1–6 in weeks 3–8, semi-finals in week 9, final and third-place game in week 10).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command, execute_from_command_line
from django.db import transaction
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from competitions import selectors
from competitions.demo import ONR_IN_WEEK, DemoLeague, DemoWeekInvalid, demo_load
from competitions.models import (
    Competition,
    Fixture,
    OnrSanction,
    Pick,
    Pool,
    PoolRound,
    Round,
    TeamResult,
)
from league.models import Entry, Season, Team, WaitingListEntry
from tests.demo_worlds import DemoWorlds

WEEK_ROUNDS: dict[int, set[tuple[str, int]]] = {
    1: {("championship", 1)},
    2: {("championship", 2), ("kdh", 1)},
    3: {("championship", 3), ("kdh", 2), ("wg", 1)},
    4: {("championship", 4), ("kdh", 3), ("wg", 2)},
    5: {("championship", 5), ("kdh", 4), ("wg", 3)},
    6: {("championship", 6), ("kdh", 5), ("wg", 4)},
    7: {("championship", 7), ("kdh", 6), ("wg", 5)},
    8: {("championship", 8), ("kdh", 7), ("wg", 6)},
    9: {("championship", 9), ("wg", 7)},
    10: {("championship", 10), ("championship", 11), ("wg", 8)},
}
POOLS = {"championship": 7, "kdh": 1, "wg": 1}
"""Pool rounds per round: one per division in the championship, one for each cup."""
KDH_GAMES = {1: 20, 2: 32, 3: 16, 4: 8, 5: 4, 6: 2, 7: 1}
"""R17: 84 teams, the 40 with D3 codes 03–12 in a qualifying round, then 64 → 1."""


def rounds_before(week: int) -> set[tuple[str, int]]:
    return {r for w in range(1, week) for r in WEEK_ROUNDS[w]}


def published_pool_rounds() -> Counter[tuple[str, int]]:
    return Counter(
        PoolRound.objects.filter(status=PoolRound.Status.PUBLISHED).values_list(
            "round__competition", "round__number"
        )
    )


def onr_teams(season: Season, week: int) -> set[str]:
    """The teams the demo names ONR in ``week`` (division, code), found by their place."""
    return {
        entry.team.slug
        for division, code in ONR_IN_WEEK.get(week, ())
        for entry in Entry.objects.filter(season=season, division__slug=division, code=code)
    }


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test here reads the database (and is skipped or fails without PostgreSQL)."""


def build(blocker: DjangoDbBlocker, worlds: DemoWorlds, week: int) -> Iterator[DemoLeague]:
    """The demo at ``week`` for the tests of one class, then rolled back."""
    with blocker.unblock(), transaction.atomic():
        yield worlds.load(week=week)
        transaction.set_rollback(True)


@pytest.fixture(scope="class")
def week_1(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> Iterator[DemoLeague]:
    yield from build(django_db_blocker, demo_worlds, 1)


@pytest.fixture(scope="class")
def week_6(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> Iterator[DemoLeague]:
    yield from build(django_db_blocker, demo_worlds, 6)


@pytest.fixture(scope="class")
def week_11(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> Iterator[DemoLeague]:
    yield from build(django_db_blocker, demo_worlds, 11)


def waiting_week_is(season: Season, week: int) -> None:
    """``week``'s rounds are closed and unplayed, its deadline the most recent one passed."""
    now = timezone.now()
    rounds = Round.objects.filter(season=season, week=week)
    assert {(r.competition, r.number) for r in rounds} == WEEK_ROUNDS[week]
    assert all(r.status == Round.Status.CLOSED and r.deadline < now for r in rounds)
    assert not PoolRound.objects.filter(round__in=rounds).exclude(status="pending").exists()
    latest = Round.objects.filter(deadline__lt=now).order_by("-deadline").first()
    assert latest is not None and latest.week == week
    later = Round.objects.filter(season=season, week__gt=week)
    assert all(r.status == Round.Status.OPEN and r.deadline > now for r in later)


def picks_in_for(season: Season, week: int) -> None:
    """Every team playing a round of ``week`` sent its pick before the deadline, but the ONR
    teams, who sent none at all."""
    onr = onr_teams(season, week)
    for round in Round.objects.filter(season=season, week=week):
        playing = {
            entry.team.slug
            for fixture in Fixture.objects.filter(pool_round__round=round).select_related(
                "home__team", "away__team"
            )
            for entry in (fixture.home, fixture.away)
        }
        picks = Pick.objects.filter(round=round)
        senders = set(picks.values_list("entry__team__slug", flat=True))
        assert senders == playing - onr, round
        assert all(pick.received_at < round.deadline for pick in picks)


def advance_picks_for(season: Season, week: int) -> None:
    """R12: some coaches (not all) already sent their picks for ``week``."""
    now = timezone.now()
    picks = Pick.objects.filter(round__season=season, round__week=week)
    championship = picks.filter(round__competition=Competition.CHAMPIONSHIP)
    assert 0 < championship.count() < 84
    assert all(pick.received_at < now for pick in picks)


class TestAtWeek1:
    def test_nothing_is_published_or_arbitrated(self, week_1: DemoLeague) -> None:
        assert not PoolRound.objects.exclude(status=PoolRound.Status.PENDING).exists()
        assert not TeamResult.objects.exists() and not OnrSanction.objects.exists()
        assert week_1.season.status == Season.Status.RUNNING and week_1.season.is_current

    def test_week_1_waits_for_its_referee_with_every_pick_in(self, week_1: DemoLeague) -> None:
        waiting_week_is(week_1.season, 1)
        picks_in_for(week_1.season, 1)
        assert Pick.objects.filter(round__week=1).count() == 84  # nobody ONR in week 1
        assert week_1.onr == {}

    def test_week_2_is_open_with_some_picks_in_advance(self, week_1: DemoLeague) -> None:
        advance_picks_for(week_1.season, 2)

    def test_the_season_began_last_week(self, week_1: DemoLeague) -> None:
        now = timezone.now()
        assert now - timedelta(days=7) < week_1.season.deadline_for_week(1) < now

    def test_nobody_waits_for_a_place_yet(self, week_1: DemoLeague) -> None:
        assert not WaitingListEntry.objects.exists()

    def test_the_command_leaves_a_league_alone_or_refuses_it(self, week_1: DemoLeague) -> None:
        with pytest.raises(CommandError, match="already holds a league") as refused:
            call_command("load_demo", "--week", "6", stdout=StringIO())
        assert refused.value.returncode == 1
        out = StringIO()
        call_command("load_demo", "--week", "6", "--if-empty", stdout=out)
        assert "Not loading it" in out.getvalue()
        assert Season.objects.count() == 1 and Team.objects.count() == 84
        assert not PoolRound.objects.exclude(status=PoolRound.Status.PENDING).exists()


class TestAtWeek6:
    def test_weeks_1_to_5_are_published(self, week_6: DemoLeague) -> None:
        expected = rounds_before(6)
        assert published_pool_rounds() == {r: POOLS[r[0]] for r in expected}
        published = Round.objects.filter(status=Round.Status.PUBLISHED)
        assert set(published.values_list("competition", "number")) == expected
        for pool in Pool.objects.filter(competition=Competition.CHAMPIONSHIP):
            assert {row.played for row in selectors.pool_standings(pool=pool)} == {5}, pool

    def test_the_kdh_is_at_its_quarter_finals(self, week_6: DemoLeague) -> None:
        games = Counter(
            Fixture.objects.filter(pool_round__round__competition="kdh").values_list(
                "pool_round__round__number", flat=True
            )
        )
        # Rounds 1–4 played in weeks 2–5; the quarter-finals (round 5) drawn for week 6.
        assert games == {number: KDH_GAMES[number] for number in range(1, 6)}
        fourth = PoolRound.objects.get(round__competition="kdh", round__number=4)
        assert fourth.qualified.count() == 8

    def test_the_wg_has_played_three_group_rounds(self, week_6: DemoLeague) -> None:
        wg = Pool.objects.get(competition=Competition.WG)
        tables = selectors.wg_group_standings(pool=wg)
        assert sorted(tables) == ["A", "B", "C"]
        assert {row.played for table in tables.values() for row in table} == {3}
        assert not Fixture.objects.filter(
            pool_round__round__competition="wg", pool_round__round__number=7
        ).exists()  # no semi-finals before the group stage ends (R18)

    def test_week_6_waits_for_its_referee(self, week_6: DemoLeague) -> None:
        waiting_week_is(week_6.season, 6)
        picks_in_for(week_6.season, 6)
        assert set(week_6.onr[6]) == onr_teams(week_6.season, 6) != set()

    def test_week_7_has_some_picks_in_advance(self, week_6: DemoLeague) -> None:
        advance_picks_for(week_6.season, 7)

    def test_the_onr_teams_of_weeks_2_to_5_are_sanctioned_once_a_week(
        self, week_6: DemoLeague
    ) -> None:
        # R14: once per team and week, though D2A's 02 was ONR in the championship and the WG.
        expected = {(team, week) for week in (2, 3, 5) for team in onr_teams(week_6.season, week)}
        sanctions = list(OnrSanction.objects.values_list("entry__team__slug", "week"))
        assert sorted(sanctions) == sorted(expected)
        wg_onr = TeamResult.objects.filter(onr=True, pool_round__round__competition="wg")
        assert set(wg_onr.values_list("entry__team__slug", flat=True)) <= {t for t, _ in expected}


class TestAtWeek11:
    def test_every_round_of_every_competition_is_published(self, week_11: DemoLeague) -> None:
        every = rounds_before(11)
        assert len(every) == 11 + 7 + 8
        assert published_pool_rounds() == {r: POOLS[r[0]] for r in every}
        assert sum(published_pool_rounds().values()) == 7 * 11 + 7 + 8
        assert not Round.objects.exclude(status=Round.Status.PUBLISHED).exists()
        assert not PoolRound.objects.exclude(status=PoolRound.Status.PUBLISHED).exists()
        for pool in Pool.objects.filter(competition=Competition.CHAMPIONSHIP):
            assert {row.played for row in selectors.pool_standings(pool=pool)} == {11}, pool

    def test_the_season_ended_last_week_and_is_not_closed(self, week_11: DemoLeague) -> None:
        now = timezone.now()
        season = Season.objects.get()
        assert season.status == Season.Status.RUNNING and season.is_current
        last = season.deadline_for_week(10)
        assert now - timedelta(days=7) < last < now
        assert not Round.objects.filter(deadline__gt=last).exists()

    def test_the_kdh_has_its_winner(self, week_11: DemoLeague) -> None:
        games = Counter(
            Fixture.objects.filter(pool_round__round__competition="kdh").values_list(
                "pool_round__round__number", flat=True
            )
        )
        assert games == KDH_GAMES
        final = Fixture.objects.select_related("result").get(
            pool_round__round__competition="kdh", pool_round__round__number=7
        )
        assert final.result.winner_id in {final.home_id, final.away_id}

    def test_the_wg_played_its_final_and_third_place_game(self, week_11: DemoLeague) -> None:
        semis = list(
            Fixture.objects.filter(
                pool_round__round__competition="wg", pool_round__round__number=7
            ).select_related("result")
        )
        last = {
            f.label: f
            for f in Fixture.objects.filter(
                pool_round__round__competition="wg", pool_round__round__number=8
            ).select_related("result")
        }
        assert len(semis) == 2 and set(last) == {Fixture.Label.FINAL, Fixture.Label.THIRD_PLACE}
        winners = {f.result.winner_id for f in semis}
        players = {f.home_id for f in semis} | {f.away_id for f in semis}
        final, third = last[Fixture.Label.FINAL], last[Fixture.Label.THIRD_PLACE]
        assert len(players) == 4 and winners < players
        assert {final.home_id, final.away_id} == winners
        assert {third.home_id, third.away_id} == players - winners
        for game in (final, third):
            assert game.result.winner_id in {game.home_id, game.away_id}

    def test_at_least_three_teams_wait_for_a_place(self, week_11: DemoLeague) -> None:
        season = Season.objects.get()
        waiting = WaitingListEntry.objects.filter(status=WaitingListEntry.Status.WAITING)
        assert waiting.count() >= 3 and waiting.count() == WaitingListEntry.objects.count()
        assert all(w.registered_at < season.deadline_for_week(10) for w in waiting)

    def test_no_team_reaches_a_third_onr(self, week_11: DemoLeague) -> None:
        season = Season.objects.get()
        counts = Counter(OnrSanction.objects.values_list("entry__team__slug", flat=True))
        assert max(counts.values()) == 2
        for entry in Entry.objects.filter(season=season).select_related("team"):
            assert entry.onr_count == counts[entry.team.slug] <= 2
            assert entry.promotion_barred == (entry.onr_count == 2)  # R14: 2nd ONR
            assert entry.replaced_at is None
        # Week 10's ONR team missed both championship rounds: two ONRs (R14, R20).
        (team,) = onr_teams(season, 10)
        missed = TeamResult.objects.filter(
            entry__team__slug=team, onr=True, pool_round__round__week=10
        )
        assert missed.count() == 2
        assert OnrSanction.objects.filter(entry__team__slug=team, week=10).count() == 2


@pytest.mark.parametrize("week", ["0", "12", "x", "-1", "3.5"])
def test_a_week_outside_1_to_11_is_bad_usage(week: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as bad:
        execute_from_command_line(["manage.py", "load_demo", "--week", week])
    assert bad.value.code == 2
    assert "a week from 1 to 11" in capsys.readouterr().err
    assert not Season.objects.exists()


@pytest.mark.parametrize("week", [0, 12])
def test_the_service_and_the_command_refuse_a_bad_week_too(week: int) -> None:
    with pytest.raises(DemoWeekInvalid):
        demo_load(week=week)
    with pytest.raises(CommandError) as bad:
        call_command("load_demo", week=week, stdout=StringIO())
    assert bad.value.returncode == 2
    assert not Season.objects.exists()


def shape() -> dict[str, object]:
    """What the demo's weeks decide (the fresh pool-round seeds change scores and cup draws)."""
    season = Season.objects.get()
    return {
        "starts_on": season.starts_on,
        "rounds": sorted(Round.objects.values_list("competition", "number", "status", "deadline")),
        "pool_rounds": sorted(
            PoolRound.objects.values_list(
                "pool__slug", "round__competition", "round__number"
            ).filter(status=PoolRound.Status.PUBLISHED)
        ),
        "championship_picks": sorted(
            Pick.objects.filter(round__competition="championship").values_list(
                "entry__team__slug", "round__number"
            )
        ),
        "sanctions": sorted(OnrSanction.objects.values_list("entry__team__slug", "week")),
        "waiting_list": list(WaitingListEntry.objects.values_list("name", flat=True)),
    }


@pytest.fixture(scope="module")
def default_and_week_3(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker
) -> tuple[tuple[str, dict[str, object]], tuple[str, dict[str, object]]]:
    made = []
    for args in ([], ["--week", "3"]):
        with django_db_blocker.unblock(), transaction.atomic():
            out = StringIO()
            call_command("load_demo", *args, stdout=out)
            said = next(line for line in out.getvalue().splitlines() if "loaded in" in line)
            made.append((said, shape()))
            transaction.set_rollback(True)
    return made[0], made[1]


def test_the_default_week_is_week_3(
    default_and_week_3: tuple[tuple[str, dict[str, object]], tuple[str, dict[str, object]]],
) -> None:
    (said, default), (said_3, week_3) = default_and_week_3
    assert default == week_3
    assert {(c, n) for _, c, n in default["pool_rounds"]} == rounds_before(3)  # type: ignore[attr-defined]
    assert "week 3 waiting for its referee (ONR: " in said
    assert said.split(": ", 1)[1] == said_3.split(": ", 1)[1]
