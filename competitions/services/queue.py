"""Asking a worker for an arbitration and waiting for it: the request is a row
(:class:`~competitions.models.ArbitrationRequest`) written in the request's transaction, its task
queued on commit; the worker claims the row by a conditional update and records how it ended
(done, or refused with a code); the caller waits up to a limit by reading the row.
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import datetime

from django.contrib.auth.models import User
from django.db import DatabaseError, IntegrityError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from competitions import selectors, tasks
from competitions.models import ArbitrationRequest, PoolRound
from competitions.selectors.entries import PLAYED
from competitions.services.arbitration import (
    arbitration_ready_check,
    pool_round_arbitrate,
    pool_round_to_arbitrate,
)
from competitions.services.errors import (
    ArbitrationAlreadyRequested,
    ArbitrationQueueUnavailable,
    ArbitrationRefused,
    arbitration_refusal_of,
)
from league.services import audit_record
from matrixhockey.db import work_lock, work_locks_tell
from matrixhockey.redis_breaker import TASK_NOT_QUEUED, task_publish

logger = logging.getLogger(__name__)

Status = ArbitrationRequest.Status

ARBITRATION_POLL_SECONDS = 0.2
"""How often :func:`pool_round_arbitration_wait` looks at the request."""


@transaction.atomic
def pool_round_arbitration_request(
    *, pool_round: PoolRound, by: User | None
) -> ArbitrationRequest | None:
    """Ask a Celery worker (``competitions.tasks``) to arbitrate ``pool_round``: the request's
    row, its task queued when this transaction commits. ``None`` when the pool round is already
    arbitrated or published (nothing to queue).

    Checked now, so that a referee hears it at once: the deadline has passed (R13) and the pool's
    earlier rounds are arbitrated (:class:`ArbitrationTooEarly`, :class:`ArbitrationOutOfOrder`).
    While the pool round's last request is pending, a second one (a double click, two referees
    at once) queues nothing and is refused (:class:`ArbitrationAlreadyRequested`, with the
    request to follow) — unless that request went nowhere (queued too long, or its worker
    stopped): it is then queued again under a new task id (``asks`` counts the times). A
    pool round has one pending request at most (a unique index), whoever asks at once.
    """
    now = timezone.now()
    pool_round = pool_round_to_arbitrate(pool_round.pk)
    if pool_round.status in PLAYED:
        return None
    arbitration_ready_check(pool_round, now)
    task_id = str(uuid.uuid4())
    pending = ArbitrationRequest.objects.filter(
        pool_round=pool_round, status__in=ArbitrationRequest.PENDING
    ).first()
    if pending is None:
        try:
            with transaction.atomic():
                request = ArbitrationRequest.objects.create(
                    pool_round=pool_round, requested_by=by, requested_at=now, task_id=task_id
                )
        except IntegrityError:  # another request for it committed a moment ago
            raise _already(pool_round) from None
    else:
        request = _ask_again(pending, by, now, task_id)
    audit_record(
        actor=by,
        action=selectors.ARBITRATION_REQUESTED,
        obj=pool_round,
        payload={"request": request.pk, "task": task_id},
    )
    transaction.on_commit(lambda: _enqueue(request, by))
    return request


def _already(pool_round: PoolRound) -> ArbitrationAlreadyRequested:
    pending = ArbitrationRequest.objects.filter(
        pool_round=pool_round, status__in=ArbitrationRequest.PENDING
    ).first()
    return ArbitrationAlreadyRequested(pending=pending)


def _ask_again(
    pending: ArbitrationRequest, by: User | None, now: datetime, task_id: str
) -> ArbitrationRequest:
    """Queue ``pending`` again under ``task_id`` when it went nowhere; refused otherwise. A
    conditional update: of two referees asking again at once, one queues it."""
    if not selectors.arbitration_request_stuck(request=pending, now=now):
        raise _already(pending.pool_round)
    queued = ArbitrationRequest.objects.filter(
        pk=pending.pk, status=pending.status, task_id=pending.task_id
    ).update(
        status=Status.REQUESTED,
        task_id=task_id,
        requested_by=by,
        requested_at=now,
        started_at=None,
        asks=F("asks") + 1,
    )
    if queued != 1:
        raise _already(pending.pool_round)
    pending.refresh_from_db()
    return pending


def _enqueue(request: ArbitrationRequest, by: User | None) -> None:
    try:
        task_publish(tasks.pool_round_arbitrate, args=(request.pk,), task_id=request.task_id)
    except TASK_NOT_QUEUED as error:  # Redis down or hung: say so, not leave the referee waiting
        logger.exception("Could not queue arbitration request %s", request.pk)
        pool_round_arbitration_refused(
            request=request,
            by=by,
            refusal=ArbitrationQueueUnavailable(error=type(error).__name__),
        )


def pool_round_arbitration_refused(
    *, request: ArbitrationRequest, by: User | None, refusal: ArbitrationRefused
) -> ArbitrationRequest:
    """Record that ``request`` was refused (final: it is not retried), as the refusal's code and
    facts, so the referee's desk and the waiting API call can say why in their reader's
    language; the audit log keeps it as history."""
    ArbitrationRequest.objects.filter(pk=request.pk).update(
        status=Status.REFUSED,
        refusal_code=refusal.code,
        refusal_facts=refusal.facts,
        finished_at=timezone.now(),
    )
    audit_record(
        actor=by,
        action=selectors.ARBITRATION_REFUSED,
        obj=request.pool_round,
        # History only: the request's row is what the desk and the API read.
        payload={
            "request": request.pk,
            "task": request.task_id,
            "code": refusal.code,
            "facts": refusal.facts,
        },
    )
    request.refresh_from_db()
    return request


def pool_round_arbitration_run(
    *, request_id: int, task_id: str | None = None
) -> ArbitrationRequest | None:
    """A worker's run of arbitration request ``request_id`` (``None``: no such request).

    Under the pool round's work lock (:data:`selectors.ARBITRATION_WORK`, held for the whole
    run: the desk tells a running request from one whose worker stopped), the worker claims the
    request by one conditional update (``requested`` → ``started``, ``attempts`` + 1, on the
    status and attempts it read) that touches one row or none: a task sent twice, or while
    another worker runs it, does nothing and returns the request as it stands (its task looks
    again later). Holding the lock, a request still ``started`` is one whose worker was lost
    (its lock went with its session): this run takes it over. The
    arbitration and the request's ``done`` commit together; a refusal is recorded (final); a
    transient database error puts the request back to ``requested`` and is raised again, for
    the task to retry (its next attempt). Run this outside a transaction."""
    request = (
        ArbitrationRequest.objects.select_related("pool_round", "requested_by")
        .filter(pk=request_id)
        .first()
    )
    if request is None:
        return None
    with work_lock(selectors.ARBITRATION_WORK, request.pool_round_id) as free:
        request.refresh_from_db(fields=["status", "attempts"])
        claimable = [Status.REQUESTED, *([Status.STARTED] if work_locks_tell() else [])]
        if not free or request.status not in claimable:  # a live worker has it, or it ended
            return request
        # Compare and set: the row as read, or nothing (another claim moved it meanwhile).
        claimed = ArbitrationRequest.objects.filter(
            pk=request.pk, status=request.status, attempts=request.attempts
        ).update(
            status=Status.STARTED,
            started_at=timezone.now(),
            attempts=F("attempts") + 1,
            **({"task_id": task_id} if task_id else {}),
        )
        request.refresh_from_db()
        if claimed != 1:
            return request
        by = request.requested_by
        audit_record(
            actor=by,
            action=selectors.ARBITRATION_STARTED,
            obj=request.pool_round,
            payload={"request": request.pk, "task": request.task_id, "attempt": request.attempts},
        )
        if request.attempts > 1:
            logger.warning(
                "Arbitration request %s taken again (attempt %d): its last worker stopped or "
                "hit a database error before finishing",
                request.pk,
                request.attempts,
            )
        try:
            with transaction.atomic():
                pool_round_arbitrate(pool_round=request.pool_round, by=by)
                ArbitrationRequest.objects.filter(pk=request.pk, status=Status.STARTED).update(
                    status=Status.DONE, finished_at=timezone.now()
                )
        except ArbitrationRefused as refusal:
            return pool_round_arbitration_refused(request=request, by=by, refusal=refusal)
        except OperationalError:
            _back_in_queue(request)
            raise
    request.refresh_from_db()
    return request


def _back_in_queue(request: ArbitrationRequest) -> None:
    """A transient database error: the request waits for its task's retry, ``requested``."""
    try:
        ArbitrationRequest.objects.filter(pk=request.pk, status=Status.STARTED).update(
            status=Status.REQUESTED, started_at=None
        )
    except DatabaseError:  # the database is gone: the retry takes the request over (the lock
        # went with the session), the desk says it stopped meanwhile
        logger.warning("Could not put arbitration request %s back in the queue", request.pk)


def pool_round_arbitration_wait(
    *, pool_round: PoolRound, request: ArbitrationRequest | None, timeout: float
) -> PoolRound:
    """Wait up to ``timeout`` seconds for ``request``: the pool round, arbitrated when the worker
    finished in time (still pending otherwise). A refusal the worker recorded for the request is
    raised again here, worded in the active language. Reads only; polls the database, so it
    works the same with a worker on another machine and with tasks run eagerly (no broker)."""
    deadline = time.monotonic() + max(timeout, 0)
    rows = PoolRound.objects.select_related("round__season", "pool")
    while True:
        pool_round = rows.get(pk=pool_round.pk)
        if pool_round.status in PLAYED or request is None:
            return pool_round
        status, code, facts = (
            ArbitrationRequest.objects.filter(pk=request.pk)
            .values_list("status", "refusal_code", "refusal_facts")
            .get()
        )
        if status == Status.DONE:
            # The worker may have finished between the two reads: read the pool round again.
            return rows.get(pk=pool_round.pk)
        if status == Status.REFUSED:
            raise arbitration_refusal_of({"code": code, "facts": facts})
        if time.monotonic() >= deadline:
            return pool_round
        time.sleep(ARBITRATION_POLL_SECONDS)
