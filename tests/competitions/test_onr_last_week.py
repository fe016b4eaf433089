"""R14, R20 through the site: the last week's two championship rounds are two ONRs for a team
that sends neither — two sanctions, every stock lost, barred from promotion — while a
championship and a WG group-stage ONR of the same week stay one (tests/competitions/
test_arbitrate.py). The figures are worked out by hand from the stocks each team starts with."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError

from competitions import services as competitions
from competitions.models import (
    Competition,
    OnrSanction,
    StockKind,
    StockMovement,
    StockReason,
)
from competitions.selectors.teams import coach_ledger
from league.models import AuditLog, Division, Season, WaitingListEntry
from tests.competitions.arbitration_league import League, build_league


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def d3a(season: Season, divisions: dict[str, Division], referee: User) -> League:
    """D3A's twelve teams, each with 3 extra goals and 4 great saves, rounds 1–9 played."""
    made = build_league(
        season=season,
        divisions=divisions,
        referee=referee,
        division_slugs=["d3a"],
        stocks=lambda d, c: (3, 4),
    )
    for number in range(1, 10):
        made.play("d3a", number)
    return made


def last_week(made: League, *, skip: list[str]) -> None:
    """Week 10: championship rounds 10 and 11 (R20), arbitrated and published one by one."""
    for number in (10, 11):
        assert made.round(made.pools["d3a"].competition, number).week == 10
        pool_round = made.play("d3a", number, skip=skip)
        competitions.pool_round_publish(pool_round=pool_round, by=made.referee)


def test_a_team_sending_neither_last_week_round_has_two_onrs(d3a: League) -> None:
    last_week(d3a, skip=["d3a-05"])
    entry = d3a.entry("d3a-05")
    # Round 10: the 1st ONR, one of each (3, 4 → 2, 3); round 11: the 2nd, all that is left.
    assert (entry.onr_count, entry.extra_goals, entry.great_saves) == (2, 0, 0)
    assert entry.promotion_barred
    sanctions = OnrSanction.objects.filter(entry=entry).order_by("onr_count")
    assert list(
        sanctions.values_list(
            "week",
            "week_onr",
            "round__number",
            "onr_count",
            "extra_goals_removed",
            "great_saves_removed",
        )
    ) == [(10, 1, 10, 1, 1, 1), (10, 2, 11, 2, 2, 3)]
    assert [s.barred_from_promotion for s in sanctions] == [False, True]
    assert sorted(
        StockMovement.objects.filter(entry=entry, reason=StockReason.ONR_SANCTION).values_list(
            "kind", "delta", "note"
        )
    ) == [
        (StockKind.EXTRA_GOALS, -2, "ONR 2"),
        (StockKind.EXTRA_GOALS, -1, "ONR 1"),
        (StockKind.GREAT_SAVES, -3, "ONR 2"),
        (StockKind.GREAT_SAVES, -1, "ONR 1"),
    ]
    # What the team's page and the coach's ledger say once both rounds are published.
    ledger = coach_ledger(entry=entry)
    assert (ledger.onr_count, ledger.barred) == (2, True)
    assert (ledger.next_onr.number, ledger.next_onr.replaced) == (3, True)


def test_a_team_with_an_onr_already_gets_its_replacement_proposed_in_round_11(
    season: Season, divisions: dict[str, Division], referee: User
) -> None:
    """ONR in week 1, then in both last-week rounds: the 3rd ONR (R14) asks for the waiting
    list's first team (D3)."""
    made = build_league(season=season, divisions=divisions, referee=referee, division_slugs=["d3a"])
    WaitingListEntry.objects.create(name="Les Remplaçants", email="r@example.org")
    made.play("d3a", 1, skip=["d3a-07"])
    for number in range(2, 10):
        made.play("d3a", number)
    last_week(made, skip=["d3a-07"])
    entry = made.entry("d3a-07")
    assert entry.onr_count == 3
    third = OnrSanction.objects.get(entry=entry, onr_count=3)
    assert (third.week, third.round.number) == (10, 11)
    assert third.replacement == OnrSanction.Replacement.WAITING_LIST
    assert AuditLog.objects.filter(action="onr_replacement_proposed").count() == 1


def test_the_other_teams_of_the_last_week_are_not_sanctioned(d3a: League) -> None:
    last_week(d3a, skip=["d3a-05"])
    assert set(OnrSanction.objects.values_list("entry__team__slug", flat=True)) == {"d3a-05"}
    assert d3a.entry("d3a-06").onr_count == 0


def test_the_database_refuses_two_sanctions_of_one_team_in_one_round(d3a: League) -> None:
    last_week(d3a, skip=["d3a-05"])
    first = OnrSanction.objects.get(onr_count=1)
    with pytest.raises(IntegrityError):
        OnrSanction.objects.create(entry=first.entry, week=10, round=first.round, onr_count=3)


def test_the_database_refuses_a_weeks_first_sanction_twice(d3a: League) -> None:
    """Two arbitrations of one week at once that each missed the other's ONR would both write
    the week's first sanction: the database refuses the second, which is tried again."""
    last_week(d3a, skip=["d3a-05"])
    first = OnrSanction.objects.get(onr_count=1)
    wg_final = d3a.round(Competition.WG, 8)
    assert wg_final.week == 10
    with pytest.raises(IntegrityError):
        OnrSanction.objects.create(
            entry=first.entry, week=10, week_onr=1, round=wg_final, onr_count=3
        )
