"""R14's replacements, confirmed by an admin: at a third ONR an Elite or D2 team by a new dummy
team, a D3 team by the first team of the waiting list (a dummy when the list is empty); a new
team ONR in week 1 straight away. The replacement keeps the record (points, results, stocks)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions import selectors
from competitions import services as competitions
from competitions.models import Fixture, OnrSanction, PoolRound
from league import services as league
from league.models import AuditLog, Division, Entry, Season, Team, WaitingListEntry
from tests.competitions.arbitration_league import League, build_league
from tests.conftest import eager_tasks


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


def three_onr(made: League, pool: str, team: str) -> OnrSanction:
    """``team`` sends no pick three weeks running: the third ONR proposes its replacement."""
    for number in (1, 2, 3):
        made.play_published(pool, number, skip=[team])
    return OnrSanction.objects.get(entry=made.entries[team], week=3)


def played_record(made: League, pool: str, entry: Entry) -> tuple[object, ...]:
    table = {
        row.team: row
        for row in selectors.pool_standings(pool=made.pools[pool], published_only=False)
    }
    row = table[entry.team.slug]
    return (row.played, row.points, row.goals_for, row.goals_against)


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return build_league(
        season=season, divisions=divisions, referee=referee, stocks=lambda d, c: (5, 6)
    )


@pytest.fixture
def d3a(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return build_league(
        season=season,
        divisions=divisions,
        referee=referee,
        division_slugs=["d3a"],
        stocks=lambda d, c: (5, 6),
    )


def test_an_elite_team_is_replaced_by_a_new_dummy_team_that_keeps_its_record(
    elite: League, referee: User
) -> None:
    sanction = three_onr(elite, "elite", "elite-05")
    old = elite.entry("elite-05")
    record = played_record(elite, "elite", old)

    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)

    assert new.team.is_dummy and new.team.coach is None
    assert new.team.name == "Équipe fantôme 1"
    assert (new.division, new.code, new.replaces) == (old.division, old.code, old)
    assert (new.extra_goals, new.great_saves) == (old.extra_goals, old.great_saves)
    assert Entry.objects.get(pk=old.pk).replaced_at is not None
    assert played_record(elite, "elite", new) == record  # points and results carried over
    round_4 = elite.pool_round("elite", 4)
    assert Fixture.objects.filter(pool_round=round_4, home=new).exists() or (
        Fixture.objects.filter(pool_round=round_4, away=new).exists()
    )
    confirmed = AuditLog.objects.get(action="onr_replacement_confirm")
    assert confirmed.actor == referee and confirmed.payload["dummy"] is True


def test_a_dummy_plays_random_legal_picks_and_is_never_onr(elite: League, referee: User) -> None:
    """R14: the next round plays the dummy as a regular team with no stocks."""
    new = competitions.onr_replacement_confirm(
        sanction=three_onr(elite, "elite", "elite-05"), by=referee
    )
    pool_round = elite.play("elite", 4, skip=[new.team.slug])
    played = pool_round.team_results.get(entry=new)
    assert not played.onr and played.column
    assert played.extra_goals_used == played.great_saves_used == 0
    assert not OnrSanction.objects.filter(entry=new).exists()


def test_each_dummy_team_gets_the_next_free_number(elite: League, referee: User) -> None:
    league.team_create(name="Équipe fantôme 1", is_dummy=True)
    new = competitions.onr_replacement_confirm(
        sanction=three_onr(elite, "elite", "elite-05"), by=referee
    )
    assert new.team.name == "Équipe fantôme 2"


def test_a_d3_team_is_replaced_by_the_first_team_of_the_waiting_list(
    d3a: League, referee: User
) -> None:
    sanction = three_onr(d3a, "d3a", "d3a-07")
    WaitingListEntry.objects.create(
        name="Les Derniers", email="late@example.org", registered_at=timezone.now()
    )
    first = WaitingListEntry.objects.create(
        name="Les Premiers",
        email="Premiers@Example.org",
        registered_at=timezone.now() - timedelta(days=30),
    )
    old = d3a.entry("d3a-07")
    record = played_record(d3a, "d3a", old)

    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)

    assert new.team.name == "Les Premiers" and not new.team.is_dummy
    coach = new.team.coach
    assert coach is not None and coach.email.lower() == "premiers@example.org"
    assert not coach.has_usable_password()
    first.refresh_from_db()
    assert (first.status, first.team) == (WaitingListEntry.Status.PLACED, new.team)
    assert WaitingListEntry.objects.filter(status=WaitingListEntry.Status.WAITING).count() == 1
    assert (new.extra_goals, new.great_saves) == (old.extra_goals, old.great_saves)
    assert played_record(d3a, "d3a", new) == record


def test_a_waiting_team_with_an_account_is_coached_by_it(d3a: League, referee: User) -> None:
    sanction = three_onr(d3a, "d3a", "d3a-07")
    user = User.objects.create_user("newcomer", email="newcomer@example.org")
    WaitingListEntry.objects.create(name="Newcomers", email="other@example.org", user=user)
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    assert new.team.coach == user


def test_a_d3_team_is_replaced_by_a_dummy_when_the_waiting_list_is_empty(
    d3a: League, referee: User
) -> None:
    sanction = three_onr(d3a, "d3a", "d3a-07")
    assert sanction.replacement == OnrSanction.Replacement.DUMMY
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    assert new.team.is_dummy


def test_a_replacement_is_confirmed_once(elite: League, referee: User) -> None:
    sanction = three_onr(elite, "elite", "elite-05")
    competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    with pytest.raises(ValidationError, match="already replaced"):
        competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    assert Team.objects.filter(is_dummy=True).count() == 1


def test_no_replacement_before_a_third_onr(elite: League, referee: User) -> None:
    elite.play("elite", 1, skip=["elite-05"])
    with pytest.raises(ValidationError, match="third ONR"):
        competitions.onr_replacement_confirm(sanction=OnrSanction.objects.get(), by=referee)
    assert elite.entry("elite-05").replaced_at is None


# --- A new team ONR in week 1 ---------------------------------------------------------------------


def test_a_new_team_onr_in_week_1_is_replaced_by_the_waiting_list_straight_away(
    elite: League, referee: User
) -> None:
    elite.play_published("elite", 1, skip=["elite-09"])
    WaitingListEntry.objects.create(name="Les Impatients", email="imp@example.org")
    new = competitions.entry_replace_first_week_onr(entry=elite.entries["elite-09"], by=referee)
    assert new.team.name == "Les Impatients"
    assert new.replaces_id == elite.entries["elite-09"].pk
    assert AuditLog.objects.get(action="onr_replacement_confirm").payload["why"] == "onr_week_1"


def test_a_team_not_onr_in_week_1_is_not_replaced_that_way(elite: League, referee: User) -> None:
    elite.play("elite", 1, skip=["elite-09"])
    elite.play("elite", 2, skip=["elite-10"])
    for team in ("elite-01", "elite-10"):
        with pytest.raises(ValidationError, match="not ONR in week 1"):
            competitions.entry_replace_first_week_onr(entry=elite.entries[team], by=referee)


def test_a_team_that_played_an_earlier_season_is_not_new(
    elite: League, referee: User, divisions: dict[str, Division]
) -> None:
    Season.objects.filter(pk=elite.season.pk).update(number=5)
    earlier = league.season_create(number=4, starts_on=elite.season.starts_on - timedelta(weeks=52))
    competitions.entry_create(
        season=earlier, team=elite.entries["elite-09"].team, division=divisions["d2a"], code=1
    )
    elite.play_published("elite", 1, skip=["elite-09"])
    with pytest.raises(ValidationError, match="earlier season"):
        competitions.entry_replace_first_week_onr(entry=elite.entries["elite-09"], by=referee)
    assert elite.entry("elite-09").replaced_at is None


# --- In the admin --------------------------------------------------------------------------------


def test_the_admin_lists_onr_sanctions_read_only(
    elite: League, referee: User, admin_client: Client
) -> None:
    sanction = three_onr(elite, "elite", "elite-05")
    listing = admin_client.get(reverse("admin:competitions_onrsanction_changelist"))
    assert listing.status_code == 200
    assert "Elite 05" in listing.content.decode()
    assert (
        admin_client.get(
            reverse("admin:competitions_onrsanction_change", args=[sanction.pk])
        ).status_code
        == 200
    )
    assert admin_client.get(reverse("admin:competitions_onrsanction_add")).status_code == 403


def test_an_admin_confirms_a_replacement_with_the_action(
    elite: League, referee: User, admin_client: Client
) -> None:
    sanction = three_onr(elite, "elite", "elite-05")
    response = admin_client.post(
        reverse("admin:competitions_onrsanction_changelist"),
        {"action": "confirm_replacement", "_selected_action": [sanction.pk]},
        follow=True,
    )
    assert "is replaced by Équipe fantôme 1" in response.content.decode()
    assert elite.entry("elite-05").replaced_at is not None
    confirmed = AuditLog.objects.get(action="onr_replacement_confirm")
    assert (confirmed.payload["via"], confirmed.kind) == ("admin", "replacement")
    replaced = AuditLog.objects.get(action="entry_replace")
    assert replaced.kind == "replacement" and replaced.season_number == elite.season.number
    team = {c["field"]: c for c in replaced.payload["changes"]}["team"]
    assert team["before"]["row_id"] == elite.entries["elite-05"].team_id
    assert team["after"]["str"] == "Équipe fantôme 1"


def test_an_admin_replaces_a_new_team_from_the_entries(
    elite: League, referee: User, admin_client: Client
) -> None:
    elite.play_published("elite", 1, skip=["elite-09"])
    response = admin_client.post(
        reverse("admin:league_entry_changelist"),
        {
            "action": "replace_first_week_onr",
            "_selected_action": [elite.entries["elite-09"].pk, elite.entries["elite-01"].pk],
        },
        follow=True,
    )
    html = response.content.decode()
    assert "is replaced by Équipe fantôme 1" in html
    assert "not ONR in week 1" in html  # elite-01 sent its pick
    assert elite.entry("elite-09").replaced_at is not None
    assert elite.entry("elite-01").replaced_at is None


def test_voiding_from_the_admin_asks_for_a_reason_then_voids(
    elite: League, referee: User, admin_client: Client
) -> None:
    pool_round = elite.play("elite", 1)
    url = reverse("admin:competitions_poolround_changelist")
    asked = admin_client.post(
        url, {"action": "void_pool_rounds", "_selected_action": [pool_round.pk]}
    )
    assert asked.status_code == 200 and "reason" in asked.content.decode()
    assert PoolRound.objects.get(pk=pool_round.pk).status == PoolRound.Status.ARBITRATED

    done = admin_client.post(
        url,
        {
            "action": "void_pool_rounds",
            "_selected_action": [pool_round.pk],
            "apply": "1",
            "reason": "a matrix value was wrong",
        },
        follow=True,
    )
    assert "1 round voided" in done.content.decode()
    assert PoolRound.objects.get(pk=pool_round.pk).status == PoolRound.Status.VOID
    assert AuditLog.objects.get(action="pool_round_void").payload["reason"] == (
        "a matrix value was wrong"
    )


def test_the_admin_says_why_a_round_cannot_be_voided(
    elite: League, referee: User, admin_client: Client
) -> None:
    first = elite.play("elite", 1)
    elite.play("elite", 2)
    done = admin_client.post(
        reverse("admin:competitions_poolround_changelist"),
        {
            "action": "void_pool_rounds",
            "_selected_action": [first.pk],
            "apply": "1",
            "reason": "oops",
        },
        follow=True,
    )
    assert "Round 2 of this pool is already arbitrated" in done.content.decode()
    assert PoolRound.objects.get(pk=first.pk).status == PoolRound.Status.ARBITRATED


def test_an_admin_can_queue_an_arbitration_again_after_a_void(
    elite: League,
    referee: User,
    admin_client: Client,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    pool_round = elite.play("elite", 1)
    competitions.pool_round_void(pool_round=pool_round, by=referee, reason="redo")
    with eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            reverse("admin:competitions_poolround_changelist"),
            {"action": "arbitrate_pool_rounds", "_selected_action": [pool_round.pk]},
        )
    assert PoolRound.objects.get(pk=pool_round.pk).status == PoolRound.Status.ARBITRATED
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 2
