"""pool_round_arbitration_request and _wait: what a referee's « Arbitrer » does — checked at once,
queued when the transaction commits, recorded; the state the desk shows (running, refused)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from competitions import selectors, services, tasks
from competitions.models import ArbitrationRequest, Competition, PoolRound, Round, TeamResult
from league.models import AuditLog, Division, Season
from tests.competitions.desk_league import Desk, desk_build

pytestmark = pytest.mark.usefixtures("eager")


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1)
    return made


def request(desk: Desk, number: int = 1) -> ArbitrationRequest | None:
    return services.pool_round_arbitration_request(
        pool_round=desk.pool_round(number), by=desk.referee
    )


def test_the_task_is_queued_once_the_request_commits(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        asked = request(desk)
    assert asked is not None and asked.task_id and len(callbacks) == 1
    assert desk.pool_round(1).status == PoolRound.Status.PENDING  # nothing ran before the commit
    row = ArbitrationRequest.objects.get()
    assert (row.status, row.requested_by, row.task_id) == ("requested", desk.referee, asked.task_id)
    assert (row.attempts, row.asks, row.started_at) == (0, 1, None)
    logged = AuditLog.objects.get(action="pool_round_arbitration_request")  # kept as history
    assert (logged.actor, logged.payload) == (
        desk.referee,
        {"request": row.pk, "task": row.task_id},
    )
    assert selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1)).requested_at

    callbacks[0]()

    assert desk.pool_round(1).status == PoolRound.Status.ARBITRATED
    assert desk.pool_round(1).arbitrated_by == desk.referee
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("done", 1)
    assert row.requested_at <= row.started_at <= row.finished_at


def test_an_arbitrated_round_is_returned_as_it_is_and_nothing_is_queued(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        asked = request(desk)
    assert asked is None and callbacks == []
    assert not ArbitrationRequest.objects.exists()
    waited = services.pool_round_arbitration_wait(
        pool_round=desk.pool_round(1), request=None, timeout=0
    )
    assert waited.status == PoolRound.Status.ARBITRATED


def test_a_request_before_the_deadline_is_refused_at_once(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    """R13: the referee hears it on the spot; nothing is queued or recorded."""
    Round.objects.filter(pk=desk.league.round(Competition.CHAMPIONSHIP, 1).pk).update(
        deadline=timezone.now() + timedelta(minutes=5)
    )
    with (
        django_capture_on_commit_callbacks(execute=False) as callbacks,
        pytest.raises(services.ArbitrationTooEarly),
    ):
        request(desk)
    assert callbacks == []
    assert not ArbitrationRequest.objects.exists()
    assert not AuditLog.objects.filter(action="pool_round_arbitration_request").exists()


def test_a_request_waits_for_the_pools_earlier_rounds(desk: Desk) -> None:
    with pytest.raises(services.ArbitrationOutOfOrder):
        request(desk, number=2)


def test_a_broker_that_is_down_is_said_rather_than_waited_for(
    desk: Desk, django_capture_on_commit_callbacks: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise BrokerUnavailable("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.pool_round_arbitrate, "apply_async", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        asked = request(desk)
    with pytest.raises(services.ArbitrationQueueUnavailable):
        services.pool_round_arbitration_wait(
            pool_round=desk.pool_round(1), request=asked, timeout=0
        )
    state = selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1))
    assert state.requested_at is None and state.refusal is not None
    assert state.refusal.code == "queue_unavailable"
    assert state.refusal.facts == {"error": "OperationalError"}
    assert "could not be queued" in str(state.refusal)
    row = ArbitrationRequest.objects.get()
    assert (row.status, row.refusal_code, row.attempts) == ("refused", "queue_unavailable", 0)
    assert row.refusal_facts == {"error": "OperationalError"}


def test_waiting_returns_the_pending_round_when_the_worker_is_not_done(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=False):  # no worker takes it
        asked = request(desk)
    waited = services.pool_round_arbitration_wait(
        pool_round=desk.pool_round(1), request=asked, timeout=0.3
    )
    assert waited.status == PoolRound.Status.PENDING


def test_waiting_raises_the_refusal_the_worker_recorded(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="f" * 64)
    with django_capture_on_commit_callbacks(execute=True):
        asked = request(desk)
    with pytest.raises(services.SeedCommitmentBroken, match="does not match"):
        services.pool_round_arbitration_wait(
            pool_round=desk.pool_round(1), request=asked, timeout=5
        )
    assert not TeamResult.objects.exists()


def test_a_request_no_worker_took_stays_queued_and_is_offered_again(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    """A request no worker took is said as it is, queued (never taken for lost: its task is
    still in the queue); after a while the desk offers to ask again."""
    with django_capture_on_commit_callbacks(execute=False):
        asked = request(desk)
    assert asked is not None and asked.asks == 1
    pool_round = desk.pool_round(1)
    now = timezone.now()
    state = selectors.pool_round_arbitration_state(pool_round=pool_round, now=now)
    assert state.requested_at is not None and not state.ask_again
    later = now + selectors.ARBITRATION_REQUEST_STALE + timedelta(seconds=1)
    state = selectors.pool_round_arbitration_state(pool_round=pool_round, now=later)
    assert state.requested_at is not None and state.ask_again and not state.lost
