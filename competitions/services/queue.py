"""Asking a worker for an arbitration and waiting for it: the request is queued on commit,
refusals are recorded, and the caller waits up to a limit.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

from competitions import selectors, tasks
from competitions.models import PoolRound
from competitions.selectors.entries import PLAYED
from competitions.services.arbitration import arbitration_ready_check, pool_round_to_arbitrate
from competitions.services.errors import (
    ArbitrationQueueUnavailable,
    ArbitrationRefused,
    arbitration_refusal_of,
)
from league.models import AuditLog
from league.services import audit_record
from matrixhockey.db import work_lock

logger = logging.getLogger(__name__)


ARBITRATION_POLL_SECONDS = 0.2
"""How often :func:`pool_round_arbitration_wait` looks at the pool round."""


@dataclass(frozen=True)
class ArbitrationRequest:
    """A referee's request to arbitrate a pool round: the task queued for it, or ``None`` when
    the pool round was already arbitrated (nothing to queue)."""

    pool_round: PoolRound
    task_id: str | None
    again: bool = False
    """The last request had gone nowhere (refused, queued too long, or lost with its worker)."""


@transaction.atomic
def pool_round_arbitration_request(
    *, pool_round: PoolRound, by: AbstractBaseUser | None
) -> ArbitrationRequest:
    """Queue the arbitration of ``pool_round`` on a Celery worker (``competitions.tasks``).

    Checked now, so that a referee hears it at once: the deadline has passed (R13) and the pool's
    earlier rounds are arbitrated (:class:`ArbitrationTooEarly`, :class:`ArbitrationOutOfOrder`).
    A pool round already arbitrated or published is returned as it is and nothing is queued. The
    task is queued when the transaction commits, under a task id recorded in the audit log with
    the request. A double click or two referees at once queue two tasks: the arbitration's claim
    lets one play and the other returns the stored result, so there is one result either way.
    """

    now = timezone.now()
    pool_round = pool_round_to_arbitrate(pool_round.pk)
    if pool_round.status in PLAYED:
        return ArbitrationRequest(pool_round=pool_round, task_id=None)
    arbitration_ready_check(pool_round, now)
    again = selectors.pool_round_arbitration_state(pool_round=pool_round, now=now).ask_again
    task_id = str(uuid.uuid4())
    audit_record(
        actor=by, action=selectors.ARBITRATION_REQUESTED, obj=pool_round, payload={"task": task_id}
    )
    by_id = by.pk if by is not None else None

    def enqueue() -> None:
        try:
            tasks.pool_round_arbitrate.apply_async(args=[pool_round.pk, by_id], task_id=task_id)
        except BrokerUnavailable as error:  # say so, rather than leave the referee waiting
            logger.exception("Could not queue the arbitration of pool round %s", pool_round.pk)
            pool_round_arbitration_refused(
                pool_round=pool_round,
                by=by,
                task_id=task_id,
                refusal=ArbitrationQueueUnavailable(error=type(error).__name__),
            )

    transaction.on_commit(enqueue)
    return ArbitrationRequest(pool_round=pool_round, task_id=task_id, again=again)


def pool_round_arbitration_refused(
    *,
    pool_round: PoolRound,
    by: AbstractBaseUser | None,
    task_id: str | None,
    refusal: ArbitrationRefused,
) -> AuditLog:
    """Record that the arbitration task ``task_id`` was refused (final: it is not retried), so the
    referee's page and the waiting API call can say why."""
    return audit_record(
        actor=by,
        action=selectors.ARBITRATION_REFUSED,
        obj=pool_round,
        # The code and its facts, worded when shown in the reader's language (services.errors).
        payload={"task": task_id, "code": refusal.code, "facts": refusal.facts},
    )


@contextmanager
def pool_round_arbitration_attempt(
    *, pool_round: PoolRound, by: AbstractBaseUser | None, task_id: str | None
) -> Iterator[int]:
    """A worker's run of arbitration task ``task_id`` (yields which attempt it is: 2 and more
    when the queue handed the task out again after its worker was lost).

    The worker holds the pool round's work lock (:data:`selectors.ARBITRATION_WORK`) for the
    whole run and records, committed at once, that it took the task: the referee's desk tells a
    request still queued from one running (the lock held) and from one whose worker stopped (the
    lock gone with its database session, no result). Run this outside a transaction, around
    :func:`pool_round_arbitrate`, which is what makes a second run harmless."""
    with work_lock(selectors.ARBITRATION_WORK, pool_round.pk):
        attempt = 1 + (
            AuditLog.objects.filter(
                action=selectors.ARBITRATION_STARTED, object_id=str(pool_round.pk)
            )
            .filter(payload__task=task_id)
            .count()
            if task_id is not None
            else 0
        )
        audit_record(
            actor=by,
            action=selectors.ARBITRATION_STARTED,
            obj=pool_round,
            payload={"task": task_id, "attempt": attempt},
        )
        yield attempt


def pool_round_arbitration_wait(*, request: ArbitrationRequest, timeout: float) -> PoolRound:
    """Wait up to ``timeout`` seconds for ``request``'s task: the pool round, arbitrated when the
    worker finished in time (still pending otherwise). A refusal the worker recorded for this
    task is raised again here. Reads only; polls the database, so it works the same with a
    worker on another machine and with tasks run eagerly (no broker)."""
    deadline = time.monotonic() + max(timeout, 0)
    while True:
        pool_round = PoolRound.objects.select_related("round__season", "pool").get(
            pk=request.pool_round.pk
        )
        if pool_round.status in PLAYED or request.task_id is None:
            return pool_round
        refused = selectors.arbitration_refusal(pool_round=pool_round, task_id=request.task_id)
        if refused is not None:
            raise arbitration_refusal_of(refused)
        if time.monotonic() >= deadline:
            return pool_round
        time.sleep(ARBITRATION_POLL_SECONDS)
