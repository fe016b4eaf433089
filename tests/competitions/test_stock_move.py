"""``stock_move``: the ledger of extra goals and great saves (R6: never below 0)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from competitions.models import StockKind, StockMovement, StockReason
from competitions.services import StockBelowZero, stock_move
from competitions.services.entries import StockLedgerBatch
from league.models import Entry

pytestmark = pytest.mark.django_db


def ledger(entry: Entry, kind: StockKind) -> list[tuple[int, int, str]]:
    rows = StockMovement.objects.filter(entry=entry, kind=kind).order_by("id")
    return [(m.delta, m.balance_after, m.reason) for m in rows]


def test_an_entry_starts_with_its_stocks_in_the_ledger(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=4, great_saves=3)
    assert (entry.extra_goals, entry.great_saves) == (4, 3)
    assert ledger(entry, StockKind.EXTRA_GOALS) == [(4, 4, "season_start")]
    assert ledger(entry, StockKind.GREAT_SAVES) == [(3, 3, "season_start")]


def test_a_movement_changes_the_balance_and_is_logged_with_its_reason(
    enter_team: Callable[..., Entry], admin_user: object
) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=4)
    movement = stock_move(
        entry=entry,
        kind=StockKind.EXTRA_GOALS,
        delta=-1,
        reason=StockReason.ONR_SANCTION,
        note="first ONR",
        by=admin_user,
    )
    entry.refresh_from_db()
    assert entry.extra_goals == 3
    assert (movement.delta, movement.balance_after, movement.created_by) == (-1, 3, admin_user)
    assert ledger(entry, StockKind.EXTRA_GOALS)[-1] == (-1, 3, "onr_sanction")


def test_the_ledger_adds_up_to_the_balance(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=2)
    for delta in (3, -4, 1, -2):
        stock_move(entry=entry, kind="extra_goals", delta=delta, reason="admin")
    entry.refresh_from_db()
    rows = ledger(entry, StockKind.EXTRA_GOALS)
    assert sum(delta for delta, _, _ in rows) == entry.extra_goals == 0
    running = 0
    for delta, balance_after, _ in rows:
        running += delta
        assert balance_after == running


def test_a_stock_cannot_go_below_zero_and_nothing_is_written(
    enter_team: Callable[..., Entry],
) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=1)
    with pytest.raises(StockBelowZero, match="Sleigh Dogs"):
        stock_move(entry=entry, kind="extra_goals", delta=-2, reason="played")
    entry.refresh_from_db()
    assert entry.extra_goals == 1
    assert len(ledger(entry, StockKind.EXTRA_GOALS)) == 1


def test_the_two_stocks_are_separate(enter_team: Callable[..., Entry]) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=0, great_saves=2)
    stock_move(entry=entry, kind="great_saves", delta=-2, reason="played")
    with pytest.raises(StockBelowZero):
        stock_move(entry=entry, kind="extra_goals", delta=-1, reason="played")
    entry.refresh_from_db()
    assert (entry.extra_goals, entry.great_saves) == (0, 0)


def locked(*entries: Entry) -> list[Entry]:
    """The entries read again under a lock, as an arbitration holds them."""
    pks = [entry.pk for entry in entries]
    rows = Entry.objects.select_for_update().select_related("team").filter(pk__in=pks)
    return sorted(rows, key=lambda e: pks.index(e.pk))


def test_a_batch_writes_every_movement_in_order_in_two_queries(
    enter_team: Callable[..., Entry], admin_user: object
) -> None:
    teams = [enter_team(f"Team {code:02d}", code=code, extra_goals=3, great_saves=2)
             for code in range(1, 7)]  # fmt: skip
    with transaction.atomic():
        entries = locked(*teams)
        batch = StockLedgerBatch(by=admin_user)
        for entry in entries:
            batch.move(entry=entry, kind="extra_goals", delta=-1, reason="played")
            batch.move(entry=entry, kind="great_saves", delta=-2, reason="played")
        batch.move(entry=entries[0], kind="extra_goals", delta=-2, reason="onr_sanction", note="x")
        with CaptureQueriesContext(connection) as queries:
            batch.write()
    assert len(queries) == 2
    first = Entry.objects.get(pk=teams[0].pk)
    assert (first.extra_goals, first.great_saves) == (0, 0)
    assert ledger(first, StockKind.EXTRA_GOALS) == [
        (3, 3, "season_start"), (-1, 2, "played"), (-2, 0, "onr_sanction")
    ]  # fmt: skip
    for team in teams[1:]:
        team.refresh_from_db()
        assert (team.extra_goals, team.great_saves) == (2, 0)
        assert ledger(team, StockKind.GREAT_SAVES) == [(2, 2, "season_start"), (-2, 0, "played")]
    assert StockMovement.objects.filter(created_by=admin_user).count() == 13


def test_a_batch_writes_each_entry_s_own_values_in_one_update(
    enter_team: Callable[..., Entry],
) -> None:
    # The balances and the fields changed are written with one WHEN per value: entries sharing a
    # value, entries with their own, and an entry left out keeps what it had (R6, R14).
    teams = [enter_team(f"Team {code:02d}", code=code, extra_goals=code, great_saves=2)
             for code in range(1, 6)]  # fmt: skip
    with transaction.atomic():
        entries = locked(*teams)
        batch = StockLedgerBatch()
        for entry in entries[:4]:
            batch.move(entry=entry, kind="extra_goals", delta=-1, reason="played")
        entries[1].onr_count, entries[2].onr_count = 1, 2
        entries[2].promotion_barred = True
        with CaptureQueriesContext(connection) as queries:
            batch.write(changed=entries[1:3], fields=["onr_count", "promotion_barred"])
    assert len(queries) == 2
    stored = Entry.objects.filter(pk__in=[team.pk for team in teams]).order_by("code")
    assert list(
        stored.values_list("extra_goals", "great_saves", "onr_count", "promotion_barred")
    ) == [(0, 2, 0, False), (1, 2, 1, False), (2, 2, 2, True), (3, 2, 0, False), (5, 2, 0, False)]


def test_a_batch_refuses_a_stock_below_zero_and_nothing_is_written(
    enter_team: Callable[..., Entry],
) -> None:
    one, two = enter_team("Sleigh Dogs", code=1, extra_goals=1), enter_team("Snowmen", code=2)
    with transaction.atomic():
        first, second = locked(one, two)
        batch = StockLedgerBatch()
        batch.move(entry=first, kind="extra_goals", delta=-1, reason="played")
        with pytest.raises(StockBelowZero, match="Snowmen"):
            batch.move(entry=second, kind="extra_goals", delta=-1, reason="played")
    one.refresh_from_db()
    assert one.extra_goals == 1
    assert len(ledger(one, StockKind.EXTRA_GOALS)) == 1
    assert len(ledger(two, StockKind.EXTRA_GOALS)) == 1


def test_the_database_refuses_a_negative_balance_from_a_batch(
    enter_team: Callable[..., Entry],
) -> None:
    """The in-memory check is the first guard; the database's constraint is the last (R6)."""
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        (held,) = locked(entry)
        batch = StockLedgerBatch()
        batch.move(entry=held, kind="extra_goals", delta=-1, reason="played")
        held.extra_goals -= 1  # a caller's bug: a balance changed beside the ledger
        batch.write()
    entry.refresh_from_db()
    assert (entry.extra_goals, entry.great_saves) == (1, 2)


def _concurrently(workers: list[Callable[[], None]]) -> list[BaseException]:
    """Run ``workers`` in threads (each with its own database connection), all at once."""
    start = threading.Barrier(len(workers))
    errors: list[BaseException] = []

    def run(work: Callable[[], None]) -> None:
        try:
            start.wait(timeout=10)
            work()
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return errors


@pytest.fixture
def slow_ledger_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Widen the window between reading the balance and writing the movement."""
    create = StockMovement.objects.create

    def slow_create(**kwargs: object) -> StockMovement:
        time.sleep(0.2)
        return create(**kwargs)

    monkeypatch.setattr(StockMovement.objects, "create", slow_create)


@pytest.mark.django_db(transaction=True)
def test_concurrent_spending_never_takes_a_stock_below_zero(
    enter_team: Callable[..., Entry], slow_ledger_writes: None
) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=3)
    spend = lambda: stock_move(entry=entry, kind="extra_goals", delta=-1, reason="played")  # noqa: E731

    errors = _concurrently([spend] * 5)

    entry.refresh_from_db()
    assert entry.extra_goals == 0
    assert len(errors) == 2 and all(isinstance(e, StockBelowZero) for e in errors), errors
    assert [b for _, b, _ in ledger(entry, StockKind.EXTRA_GOALS)] == [3, 2, 1, 0]


@pytest.mark.django_db(transaction=True)
def test_concurrent_movements_are_all_counted(
    enter_team: Callable[..., Entry], slow_ledger_writes: None
) -> None:
    entry = enter_team("Sleigh Dogs", code=1, extra_goals=0)
    give = lambda: stock_move(entry=entry, kind="extra_goals", delta=1, reason="admin")  # noqa: E731

    errors = _concurrently([give] * 4)

    entry.refresh_from_db()
    assert errors == []
    assert entry.extra_goals == 4
    assert sorted(b for _, b, _ in ledger(entry, StockKind.EXTRA_GOALS)) == [0, 1, 2, 3, 4]
