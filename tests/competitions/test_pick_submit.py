"""``pick_submit``: a coach's pick checked (R6, R7, R10, R13) and stored (R12)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from competitions import services as competitions
from competitions.models import (
    Competition,
    Pick,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    Stage,
)
from competitions.selectors import pick_current, pick_history
from competitions.services import DeadlinePassed, PickRejected, pick_submit
from engine import NotationError
from engine import Pick as EnginePick
from league.models import Entry, Season, Team
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(coach: User) -> Team:
    return Team.objects.get(coach=coach)


@pytest.fixture
def entry(team: Team) -> Entry:
    return Entry.objects.get(team=team)


@pytest.fixture
def kdh_pool(season: Season) -> Pool:
    return competitions.pool_create(season=season, competition=Competition.KDH)


@pytest.fixture
def wg_pool(season: Season) -> Pool:
    return competitions.pool_create(season=season, competition=Competition.WG)


def cup_round(season: Season, competition: str, number: int, stage: str) -> Round:
    return competitions.round_create(
        season=season, competition=competition, number=number, week=number, stage=stage
    )


@pytest.fixture
def kdh_round(season: Season, kdh_pool: Pool, entry: Entry) -> Round:
    """KDH round 1; the coach's team is in the cup."""
    PoolMember.objects.create(pool=kdh_pool, entry=entry)
    return cup_round(season, Competition.KDH, 1, Stage.ROUND_OF_64)


@pytest.fixture
def wg_round(season: Season, wg_pool: Pool, entry: Entry) -> Round:
    """WG group round 1; the coach's team is qualified, in group A."""
    PoolMember.objects.create(pool=wg_pool, entry=entry, group="A")
    return cup_round(season, Competition.WG, 1, Stage.GROUP)


Submit = Callable[..., Pick]


@pytest.fixture
def submit(team: Team, coach: User) -> Submit:
    """The coach sends ``notation`` from the web a day before the round's deadline."""

    def send(round: Round, notation: str, **extra: object) -> Pick:
        extra.setdefault("received_at", round.deadline - timedelta(days=1))
        extra.setdefault("channel", "web")
        extra.setdefault("entered_by", coach)
        team_sending = extra.pop("team", team)
        return pick_submit(team=team_sending, round=round, notation=notation, **extra).pick

    return send


def refused(submit: Submit, round: Round, notation: str, **extra: object) -> PickRejected:
    with pytest.raises(PickRejected) as caught:
        submit(round, notation, **extra)
    return caught.value


# --- Stored as received, the last one counts (R12) ---------------------------------------------


def test_a_valid_pick_is_stored_as_received_and_in_normal_form(
    submit: Submit, championship_round: Round, coach: User
) -> None:
    at = championship_round.deadline - timedelta(hours=3)
    pick = submit(championship_round, "f+ (2)", received_at=at)
    stored = Pick.objects.get()
    assert stored == pick
    assert (stored.notation, stored.normalized, stored.channel) == ("f+ (2)", "F+(2)", "web")
    assert (stored.received_at, stored.entered_by) == (at, coach)
    assert stored.receipt == stored.compute_receipt()


def test_the_last_pick_sent_counts_and_every_one_is_kept(
    submit: Submit, championship_round: Round, entry: Entry
) -> None:
    deadline = championship_round.deadline
    submit(championship_round, "A(1)", received_at=deadline - timedelta(days=3))
    last = submit(championship_round, "B#(2)", received_at=deadline - timedelta(days=2))
    assert pick_current(entry=entry, round=championship_round) == last
    assert [p.normalized for p in pick_history(entry=entry, round=championship_round)] == [
        "B#(2)",
        "A(1)",
    ]


def test_a_pick_may_be_sent_weeks_ahead_of_its_round(
    submit: Submit, season: Season, entry: Entry
) -> None:
    later = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=6, week=6
    )
    first_deadline = season.deadline_for_week(1)
    pick = submit(later, "K(X)", received_at=first_deadline - timedelta(days=2))
    assert pick_current(entry=entry, round=later) == pick


# --- The notation (R10): the message quotes the part at fault ------------------------------------


@pytest.mark.parametrize(
    ("notation", "part"),
    [
        ("", "pick"),
        ("   ", "pick"),
        ("7(2)", "7"),
        ("FF(2)", "FF"),
        ("F+", "F+"),
        ("F%(2)", "%"),
        ("F(2", "(2"),
        ("F(1)(2)(3)", "(3)"),
        ("F(7)", "(7)"),
        ("C(1)(9)", "(9)"),
    ],
)
def test_a_pick_that_does_not_parse_is_refused_quoting_the_part_at_fault(
    submit: Submit, championship_round: Round, notation: str, part: str
) -> None:
    error = refused(submit, championship_round, notation)
    assert error.code == "notation"
    with pytest.raises(NotationError) as engine:
        EnginePick.parse(notation)
    # The league's own wording (translatable), not the engine's English reason.
    assert engine.value.reason not in error.message
    if part != "pick":
        assert f"“{part}”" in error.message
    assert not Pick.objects.exists()


# --- What the competition allows (R6, R7, R19) ------------------------------------------------


def test_great_saves_are_refused_in_the_kdh(submit: Submit, kdh_round: Round) -> None:
    error = refused(submit, kdh_round, "C#(1)(4)")
    assert error.code == "not_allowed"
    assert "Great saves (#)" in error.message


def test_the_kdh_needs_a_shootout_value(submit: Submit, kdh_round: Round) -> None:
    error = refused(submit, kdh_round, "C+(1)")
    assert (error.code, "needs a shootout value" in error.message) == ("not_allowed", True)


def test_a_shootout_value_is_refused_outside_the_kdh(
    submit: Submit, championship_round: Round
) -> None:
    error = refused(submit, championship_round, "C(1)(4)")
    assert error.code == "not_allowed"
    assert "“(4)”" in error.message


@pytest.mark.parametrize("round_name", ["kdh_round", "wg_round"])
def test_extra_time_3_is_refused_in_the_cups(
    submit: Submit, request: pytest.FixtureRequest, round_name: str
) -> None:
    round = request.getfixturevalue(round_name)
    notation = "C(3)(4)" if round.competition == Competition.KDH else "C(3)"
    error = refused(submit, round, notation)
    assert error.code == "not_allowed"
    assert "Extra-time value 3" in error.message


def test_a_column_beyond_the_competitions_matrix_is_refused(
    submit: Submit, kdh_round: Round
) -> None:
    error = refused(submit, kdh_round, "H(1)(4)")
    assert error.code == "not_allowed"
    assert "Column H" in error.message and "A to G" in error.message


def test_valid_cup_picks_are_accepted(submit: Submit, kdh_round: Round, wg_round: Round) -> None:
    assert submit(kdh_round, "g+(x)(5)").normalized == "G+(X)(5)"
    assert submit(wg_round, "h(2)").normalized == "H(2)"


# --- Whether the team plays that round ---------------------------------------------------------


def test_a_team_outside_the_kdh_cannot_send_a_kdh_pick(
    submit: Submit, season: Season, kdh_pool: Pool
) -> None:
    round = cup_round(season, Competition.KDH, 1, Stage.ROUND_OF_64)
    error = refused(submit, round, "C(1)(4)")
    assert error.code == "not_playing"


def test_a_team_the_kdh_did_not_send_on_cannot_send_a_pick_for_its_next_round(
    submit: Submit,
    season: Season,
    kdh_pool: Pool,
    kdh_round: Round,
    other_coach: User,
    entry: Entry,
    record_played: ResultRecorder,
) -> None:
    rival = Entry.objects.get(team__coach=other_coach)
    PoolMember.objects.create(pool=kdh_pool, entry=rival)
    next_round = cup_round(season, Competition.KDH, 2, Stage.ROUND_OF_32)
    assert submit(next_round, "A(1)(2)")  # before the first round is played: still in
    record_played(entry, kdh_round, pool=kdh_pool, column="B", extra_time="1", shootout="3")
    pool_round = PoolRound.objects.get(pool=kdh_pool, round=kdh_round)
    pool_round.qualified.add(rival)
    # Arbitrated, not published: nothing is public yet, the team may still send (kept, and
    # not played if it is out).
    assert submit(next_round, "A(1)(2)")
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.PUBLISHED, published_at=timezone.now()
    )
    assert refused(submit, next_round, "A(1)(2)").code == "not_playing"
    pool_round.qualified.add(entry)  # a lucky loser (R15) goes on
    assert submit(next_round, "A(1)(2)")


def test_a_drawn_cup_round_is_played_only_by_its_teams(
    submit: Submit, season: Season, kdh_pool: Pool, kdh_round: Round, enter_team: Callable
) -> None:
    others = [enter_team(f"KDH {n}", code=n) for n in (5, 6)]
    for other in others:
        PoolMember.objects.create(pool=kdh_pool, entry=other)
    pool_round = competitions.pool_round_create(pool=kdh_pool, round=kdh_round)
    competitions.fixture_create(pool_round=pool_round, home=others[0], away=others[1])
    assert refused(submit, kdh_round, "A(1)(2)").code == "not_playing"


def test_a_team_not_qualified_for_the_wg_cannot_send_a_wg_pick(
    submit: Submit, season: Season, wg_pool: Pool
) -> None:
    round = cup_round(season, Competition.WG, 1, Stage.GROUP)
    assert refused(submit, round, "A(1)").code == "not_playing"


# --- What the team has left (R6, R7, R19): its own record only --------------------------------


def test_a_column_played_in_an_arbitrated_round_is_refused(
    submit: Submit,
    season: Season,
    championship_round: Round,
    elite_pool: Pool,
    entry: Entry,
    record_played: ResultRecorder,
) -> None:
    record_played(entry, championship_round, pool=elite_pool, column="F", extra_time="2")
    round_2 = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    error = refused(submit, round_2, "F+(1)")
    assert error.code == "unavailable"
    assert "Column F is already used" in error.message
    assert "Columns left: A, B, C, D, E, G, H, I, J, K." in error.message
    assert submit(round_2, "G(2)").normalized == "G(2)"  # 2 is played three times a season


def test_an_extra_time_value_is_refused_once_its_quota_is_used(
    submit: Submit,
    season: Season,
    elite_pool: Pool,
    entry: Entry,
    record_played: ResultRecorder,
) -> None:
    rounds = [
        competitions.round_create(
            season=season, competition=Competition.CHAMPIONSHIP, number=n, week=n
        )
        for n in (1, 2, 3)
    ]
    record_played(entry, rounds[0], pool=elite_pool, column="A", extra_time="X")
    record_played(entry, rounds[1], pool=elite_pool, column="B", extra_time="0")
    # R7: the championship plays X once, 0 twice.
    error = refused(submit, rounds[2], "C(X)")
    assert error.code == "unavailable"
    assert "Extra-time value X is used up" in error.message
    assert "Values left: 0, 1, 2, 3." in error.message
    assert submit(rounds[2], "C(0)").normalized == "C(0)"


def test_a_shootout_value_is_played_once_in_the_kdh(
    submit: Submit,
    season: Season,
    kdh_pool: Pool,
    kdh_round: Round,
    entry: Entry,
    record_played: ResultRecorder,
) -> None:
    record_played(entry, kdh_round, pool=kdh_pool, column="A", extra_time="1", shootout="4")
    round_2 = cup_round(season, Competition.KDH, 2, Stage.ROUND_OF_32)
    error = refused(submit, round_2, "B(1)(4)")
    assert error.code == "unavailable"
    assert "Shootout value 4 is used up" in error.message


def test_a_round_not_yet_arbitrated_uses_nothing(
    submit: Submit, season: Season, championship_round: Round
) -> None:
    submit(championship_round, "F(X)")
    round_2 = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    # R11: a stale advance pick is redrawn at arbitration, not refused now.
    assert submit(round_2, "F(X)").normalized == "F(X)"


# --- Stocks (R6): refused above the team's stock at submission ----------------------------------


def test_extra_goals_above_the_stock_are_refused(submit: Submit, championship_round: Round) -> None:
    error = refused(submit, championship_round, "F++++(2)")  # the coach's team has 3
    assert error.code == "unavailable"
    assert error.message == "You ask for 4 extra goals (+) but your team has 3 left."
    assert submit(championship_round, "F+++(2)").normalized == "F+++(2)"


def test_great_saves_above_the_stock_are_refused(submit: Submit, championship_round: Round) -> None:
    error = refused(submit, championship_round, "F###(2)")  # the coach's team has 2
    assert error.message == "You ask for 3 great saves (#) but your team has 2 left."
    assert submit(championship_round, "F##(2)").normalized == "F##(2)"


def test_the_stock_counts_what_arbitrated_rounds_spent(
    submit: Submit,
    season: Season,
    championship_round: Round,
    elite_pool: Pool,
    entry: Entry,
    record_played: ResultRecorder,
) -> None:
    record_played(
        entry, championship_round, pool=elite_pool, column="A", extra_time="1", extra_goals=2
    )
    round_2 = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    assert refused(submit, round_2, "B++(1)").message == (
        "You ask for 2 extra goals (+) but your team has 1 left."
    )


# --- Who may send (the coach; a referee of the pool; staff) ---------------------------------------


def test_another_coach_cannot_send_a_pick_for_the_team(
    submit: Submit, championship_round: Round, other_coach: User
) -> None:
    error = refused(submit, championship_round, "F(2)", entered_by=other_coach)
    assert error.code == "forbidden"
    assert not Pick.objects.exists()


def test_a_web_pick_needs_its_sender(submit: Submit, championship_round: Round) -> None:
    assert refused(submit, championship_round, "F(2)", entered_by=None).code == "forbidden"


def test_an_email_pick_matched_by_address_may_have_no_user(
    submit: Submit, championship_round: Round
) -> None:
    pick = submit(championship_round, "F(2)", channel="email", entered_by=None)
    assert (pick.channel, pick.entered_by) == ("email", None)


def test_only_a_referee_of_the_pool_or_staff_enters_a_pick_as_referee(
    submit: Submit, championship_round: Round, other_coach: User, referee: User, admin_user: User
) -> None:
    error = refused(submit, championship_round, "F(2)", channel="referee", entered_by=other_coach)
    assert error.code == "forbidden"
    assert submit(championship_round, "F(2)", channel="referee", entered_by=referee)
    assert submit(championship_round, "G(2)", channel="referee", entered_by=admin_user)


# --- The deadline (R13) --------------------------------------------------------------------------


def test_a_web_pick_one_second_before_the_deadline_is_accepted(
    submit: Submit, championship_round: Round
) -> None:
    at = championship_round.deadline - timedelta(seconds=1)
    assert submit(championship_round, "F(2)", received_at=at).received_at == at


@pytest.mark.parametrize("channel", ["web", "email"])
@pytest.mark.parametrize("late", [timedelta(0), timedelta(seconds=1), timedelta(days=2)])
def test_a_coachs_pick_at_or_after_the_deadline_is_refused(
    submit: Submit, championship_round: Round, channel: str, late: timedelta
) -> None:
    with pytest.raises(DeadlinePassed) as caught:
        submit(
            championship_round,
            "F(2)",
            channel=channel,
            received_at=championship_round.deadline + late,
        )
    assert caught.value.code == "deadline"
    assert "Friday 6 March 2026, 17:00" in caught.value.message
    assert not Pick.objects.exists()


def test_a_referee_enters_a_late_pick_until_the_round_is_arbitrated(
    submit: Submit,
    championship_round: Round,
    elite_pool: Pool,
    referee: User,
    entry: Entry,
    other_coach: User,
    record_played: ResultRecorder,
) -> None:
    late = championship_round.deadline + timedelta(hours=20)
    pick = submit(
        championship_round, "F(2)", channel="referee", entered_by=referee, received_at=late
    )
    assert pick_current(entry=entry, round=championship_round) == pick
    other = Entry.objects.get(team__coach=other_coach)
    record_played(other, championship_round, pool=elite_pool, column="A", extra_time="1")
    with pytest.raises(DeadlinePassed) as caught:
        submit(championship_round, "G(2)", channel="referee", entered_by=referee, received_at=late)
    assert caught.value.code == "arbitrated"


def test_after_arbitration_nobody_enters_a_pick_even_before_the_deadline(
    submit: Submit, championship_round: Round, elite_pool: Pool, admin_user: User
) -> None:
    pool_round = competitions.pool_round_create(pool=elite_pool, round=championship_round)
    PoolRound.objects.filter(pk=pool_round.pk).update(status=PoolRound.Status.ARBITRATING)
    for channel, user in (("web", None), ("referee", admin_user)):
        extra = {"entered_by": user} if user else {}
        with pytest.raises(DeadlinePassed):
            submit(championship_round, "F(2)", channel=channel, **extra)


# --- Two picks at the same instant (R12) ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_instant", [True, False])
def test_two_picks_sent_at_once_are_both_stored_and_the_later_counts(
    team: Team, coach: User, championship_round: Round, entry: Entry, same_instant: bool
) -> None:
    base = championship_round.deadline - timedelta(hours=1)
    times = {
        "A(1)": base + (timedelta(0) if same_instant else timedelta(microseconds=1)),
        "B(2)": base,
    }
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def send(notation: str, at: datetime) -> None:
        try:
            barrier.wait(timeout=10)
            pick_submit(
                team=team,
                round=championship_round,
                notation=notation,
                channel="web",
                entered_by=coach,
                received_at=at,
            )
        except BaseException as error:  # reported in the main thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=item) for item in times.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    stored = list(Pick.objects.filter(entry=entry).order_by("received_at", "id"))
    assert sorted(p.normalized for p in stored) == ["A(1)", "B(2)"]
    # R12: the latest by (received_at, id) counts, on every read.
    current = pick_current(entry=entry, round=championship_round)
    assert current == stored[-1]
    if not same_instant:
        assert current.normalized == "A(1)"  # received later, whichever was stored last
    assert all(pick_current(entry=entry, round=championship_round) == current for _ in range(3))


@pytest.mark.django_db(transaction=True)
def test_a_divisions_picks_do_not_wait_for_each_other(
    coach: User,
    other_coach: User,
    championship_round: Round,
    elite_pool: Pool,
) -> None:
    """The division's pool round is locked ``FOR SHARE`` by a pick (the arbitration, ``FOR
    UPDATE``, still waits for it): a second team's pick goes through while the first one's
    transaction is still open, where an exclusive lock made it wait for that commit."""
    from django.db import transaction

    competitions.pool_round_create(pool=elite_pool, round=championship_round)
    at = championship_round.deadline - timedelta(days=1)
    holding, second_done = threading.Event(), threading.Event()
    order: list[str] = []
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with transaction.atomic():
                pick_submit(
                    team=Team.objects.get(coach=coach),
                    round=championship_round,
                    notation="A(1)",
                    channel="web",
                    entered_by=coach,
                    received_at=at,
                )
                holding.set()
                second_done.wait(timeout=5)  # the locks are held meanwhile
                order.append("first committed")
        except BaseException as error:
            errors.append(error)
        finally:
            holding.set()
            connection.close()

    def second() -> None:
        try:
            holding.wait(timeout=10)
            pick_submit(
                team=Team.objects.get(coach=other_coach),
                round=championship_round,
                notation="B(2)",
                channel="web",
                entered_by=other_coach,
                received_at=at,
            )
            order.append("second stored")
            second_done.set()
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert order == ["second stored", "first committed"]
    assert sorted(Pick.objects.values_list("normalized", flat=True)) == ["A(1)", "B(2)"]
