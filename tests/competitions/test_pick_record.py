"""``pick_record`` and the pick history: append-only, with a receipt (R12)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction

from competitions.models import Pick, Round, StockMovement
from competitions.selectors import pick_current, pick_history
from competitions.services import pick_record
from league.models import Entry
from league.services import audit_record
from matrixhockey.db import AppendOnlyError

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 3, 4, 11, 0, tzinfo=UTC)


@pytest.fixture
def entry(coach: User) -> Entry:
    return Entry.objects.get(team__coach=coach)


def record(entry: Entry, round: Round, notation: str, at: datetime, **extra: object) -> Pick:
    return pick_record(
        entry=entry,
        round=round,
        notation=notation,
        normalized=notation.replace(" ", "").upper(),
        channel=extra.pop("channel", "web"),
        received_at=at,
        **extra,
    )


def test_a_pick_is_stored_as_received_with_its_channel_and_author(
    entry: Entry, championship_round: Round, referee: User
) -> None:
    pick = record(entry, championship_round, "f+ (2)", NOON, channel="referee", entered_by=referee)
    pick.refresh_from_db()
    assert (pick.notation, pick.normalized, pick.channel) == ("f+ (2)", "F+(2)", "referee")
    assert (pick.received_at, pick.entered_by) == (NOON, referee)


def test_the_receipt_is_the_sha256_of_the_stored_record(
    entry: Entry, championship_round: Round, coach: User
) -> None:
    pick = record(entry, championship_round, "F+(2)", NOON, entered_by=coach)
    stored = Pick.objects.get(pk=pick.pk)
    assert json.loads(stored.canonical()) == {
        "channel": "web",
        "competition": "championship",
        "entered_by": "sleigh-coach",
        "normalized": "F+(2)",
        "notation": "F+(2)",
        "received_at": "2026-03-04T11:00:00.000000+00:00",
        "round": 1,
        "season": 1,
        "team": "sleigh-dogs",
    }
    assert stored.receipt == hashlib.sha256(stored.canonical().encode()).hexdigest()
    assert len(stored.receipt) == 64


def test_two_different_picks_have_different_receipts(
    entry: Entry, championship_round: Round
) -> None:
    first = record(entry, championship_round, "F+(2)", NOON)
    second = record(entry, championship_round, "F+(3)", NOON)
    assert first.receipt != second.receipt


def test_the_last_pick_received_counts_and_every_pick_is_kept(
    entry: Entry, championship_round: Round
) -> None:
    record(entry, championship_round, "A(1)", NOON)
    latest = record(entry, championship_round, "B(2)", NOON + timedelta(hours=2))
    record(
        entry, championship_round, "C(3)", NOON + timedelta(hours=1)
    )  # sent earlier, arrived late

    assert pick_current(entry=entry, round=championship_round) == latest
    history = [p.normalized for p in pick_history(entry=entry, round=championship_round)]
    assert history == ["B(2)", "C(3)", "A(1)"]


def test_two_picks_at_the_same_instant_the_later_stored_counts(
    entry: Entry, championship_round: Round
) -> None:
    record(entry, championship_round, "A(1)", NOON)
    second = record(entry, championship_round, "B(2)", NOON)
    assert pick_current(entry=entry, round=championship_round) == second


def test_no_pick_means_no_current_pick(entry: Entry, championship_round: Round) -> None:
    assert pick_current(entry=entry, round=championship_round) is None


def test_a_pick_never_shows_its_notation_in_its_name(
    entry: Entry, championship_round: Round
) -> None:
    pick = record(entry, championship_round, "K+++(X)", NOON)
    assert "K+++" not in str(pick)
    assert "Sleigh Dogs" in str(pick)


def test_a_stored_pick_cannot_be_changed_or_deleted(
    entry: Entry, championship_round: Round
) -> None:
    pick = record(entry, championship_round, "F+(2)", NOON)
    pick.normalized = "A(0)"
    with pytest.raises(AppendOnlyError):
        pick.save()
    with pytest.raises(AppendOnlyError):
        pick.delete()
    with pytest.raises(AppendOnlyError):
        Pick.objects.filter(pk=pick.pk).update(normalized="A(0)")
    with pytest.raises(AppendOnlyError):
        Pick.objects.filter(pk=pick.pk).delete()
    assert Pick.objects.get(pk=pick.pk).normalized == "F+(2)"


@pytest.mark.parametrize(
    "table", ["competitions_pick", "competitions_stockmovement", "league_auditlog"]
)
@pytest.mark.parametrize("statement", ["UPDATE {table} SET id = id", "DELETE FROM {table}"])
def test_the_database_refuses_to_rewrite_history(
    entry: Entry, championship_round: Round, admin_user: User, table: str, statement: str
) -> None:
    record(entry, championship_round, "F+(2)", NOON)
    audit_record(actor=admin_user, action="test", obj=entry, payload={})
    assert StockMovement.objects.filter(entry=entry).exists()
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement.format(table=table))
