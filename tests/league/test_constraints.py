"""The league's rules that the database itself enforces: writes that bypass every form fail."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from competitions.models import Pick, StockMovement
from league.models import DIVISION_SIZE, Division, Entry, Season, Team, WaitingListEntry

pytestmark = pytest.mark.django_db


def refused(write: Callable[[], object]) -> None:
    """``write`` raises IntegrityError and leaves the test's transaction usable."""
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


def test_season_numbers_are_unique(season: Season) -> None:
    refused(lambda: Season.objects.create(number=1, starts_on=date(2027, 3, 1)))


def test_only_one_season_is_current(season: Season) -> None:
    refused(lambda: Season.objects.create(number=2, starts_on=date(2027, 3, 1), is_current=True))


def test_several_seasons_may_be_not_current(season: Season) -> None:
    Season.objects.create(number=2, starts_on=date(2027, 3, 1))
    Season.objects.create(number=3, starts_on=date(2028, 3, 6))
    assert Season.objects.filter(is_current=False).count() == 2


def test_season_deadline_weekday_is_a_day_of_the_week(season: Season) -> None:
    refused(lambda: Season.objects.filter(pk=season.pk).update(deadline_weekday=7))


def test_season_status_is_one_of_its_choices(season: Season) -> None:
    refused(lambda: Season.objects.filter(pk=season.pk).update(status="paused"))


def test_divisions_follow_the_league_shape(divisions: dict[str, Division]) -> None:
    refused(lambda: Division.objects.create(slug="d2c", name="D2C", tier=2, group="C"))
    refused(lambda: Division.objects.create(slug="elite-b", name="Elite B", tier=1, group="B"))
    refused(lambda: Division.objects.create(slug="d4a", name="D4A", tier=4, group="A"))


def test_a_division_group_exists_once_per_tier(divisions: dict[str, Division]) -> None:
    refused(lambda: Division.objects.create(slug="d3a-bis", name="D3A bis", tier=3, group="A"))


def test_a_coach_coaches_one_team(coach: User) -> None:
    refused(lambda: Team.objects.create(slug="second", name="Second Team", coach=coach))


def test_a_dummy_team_has_no_coach(visitor: User) -> None:
    refused(lambda: Team.objects.create(slug="dummy", name="Dummy", coach=visitor, is_dummy=True))


def test_team_codes_are_01_to_12(season: Season, divisions: dict[str, Division]) -> None:
    team = Team.objects.create(slug="t", name="T")
    for code in (0, 13):
        refused(
            lambda code=code: Entry.objects.create(
                season=season, team=team, division=divisions["elite"], code=code
            )
        )


def test_a_code_is_used_once_per_division_and_season(
    enter_team: Callable[..., Entry], season: Season, divisions: dict[str, Division]
) -> None:
    enter_team("Sleigh Dogs", code=5)
    team = Team.objects.create(slug="t", name="T")
    refused(
        lambda: Entry.objects.create(season=season, team=team, division=divisions["elite"], code=5)
    )


def test_the_same_code_is_fine_in_another_division(
    enter_team: Callable[..., Entry], divisions: dict[str, Division]
) -> None:
    enter_team("Sleigh Dogs", code=5)
    enter_team("Snowmen", code=5, division=divisions["d2a"])
    assert Entry.objects.filter(code=5).count() == 2


def test_a_thirteenth_team_cannot_enter_a_division(
    fill_division: Callable[..., list[Entry]], season: Season, divisions: dict[str, Division]
) -> None:
    fill_division(DIVISION_SIZE)
    team = Team.objects.create(slug="thirteenth", name="Thirteenth")
    for code in range(0, DIVISION_SIZE + 2):
        refused(
            lambda code=code: Entry.objects.create(
                season=season, team=team, division=divisions["elite"], code=code
            )
        )
    assert Entry.objects.filter(division=divisions["elite"]).count() == DIVISION_SIZE


def test_a_team_enters_a_season_once(
    enter_team: Callable[..., Entry], season: Season, divisions: dict[str, Division]
) -> None:
    entry = enter_team("Sleigh Dogs", code=1)
    refused(
        lambda: Entry.objects.create(
            season=season, team=entry.team, division=divisions["d2a"], code=1
        )
    )


def test_stocks_never_go_below_zero_in_the_database(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1)
    refused(lambda: Entry.objects.filter(pk=entry.pk).update(extra_goals=-1))
    refused(lambda: Entry.objects.filter(pk=entry.pk).update(great_saves=-1))


def test_an_entry_does_not_replace_itself(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1)
    refused(lambda: Entry.objects.filter(pk=entry.pk).update(replaces=entry))


def test_a_ledger_balance_is_never_negative(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1)
    refused(
        lambda: StockMovement.objects.create(
            entry=entry, kind="extra_goals", delta=-1, balance_after=-1, reason="admin"
        )
    )


def test_a_ledger_reason_is_one_of_its_choices(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1)
    refused(
        lambda: StockMovement.objects.create(
            entry=entry, kind="extra_goals", delta=1, balance_after=1, reason="gift"
        )
    )


def test_a_placed_waiting_list_entry_names_its_team(db: None) -> None:
    refused(
        lambda: WaitingListEntry.objects.create(
            name="Igloos", email="i@example.org", status="placed"
        )
    )
    team = Team.objects.create(slug="igloos", name="Igloos")
    refused(
        lambda: WaitingListEntry.objects.create(name="Igloos", email="i@example.org", team=team)
    )


def test_a_pick_channel_is_web_email_or_referee(coach: User, championship_round: object) -> None:
    entry = Entry.objects.get(team__coach=coach)
    refused(
        lambda: Pick.objects.create(
            entry=entry, round=championship_round, notation="F", normalized="F", channel="fax"
        )
    )
