"""The competitions' Celery tasks: they take ids, call one service, and retry there.

The services import this module to queue its tasks (``delay``/``apply_async`` on commit); each
task imports its service when it runs (the HackSoft shape), so neither waits on the other.

``competitions.pool_round_arbitrate`` is queued by
:func:`competitions.services.pool_round_arbitration_request` once its transaction commits. It
is idempotent by the arbitration's own claim (a conditional status update that only one worker
wins): sent twice, retried, or run while a referee arbitrates from elsewhere, it leaves exactly
one result.

``competitions.season_start`` is queued by
:func:`competitions.services.season_jobs.season_start_request`: it runs one season start and
records its progress on the job, which only one worker can claim.
"""

from __future__ import annotations

import logging

from celery import Task, shared_task
from django.contrib.auth import get_user_model
from django.db import OperationalError

logger = logging.getLogger(__name__)

ARBITRATION_MAX_RETRIES = 6
"""Retries on a transient database error (connection lost, serialization, deadlock…) before the
task gives up; the referee may ask again."""
ARBITRATION_RETRY_BASE_SECONDS = 5
ARBITRATION_RETRY_MAX_SECONDS = 300


def arbitration_retry_countdown(retries: int) -> int:
    """Seconds before retry number ``retries + 1``: 5 s, 10 s, 20 s… capped at 5 minutes."""
    return min(ARBITRATION_RETRY_BASE_SECONDS * 2**retries, ARBITRATION_RETRY_MAX_SECONDS)


@shared_task(
    bind=True,
    name="competitions.pool_round_arbitrate",
    max_retries=ARBITRATION_MAX_RETRIES,
    # Its outcome is read back by whoever follows a run (the fault tests; `celery result`);
    # the desk and the API read the pool round itself.
    ignore_result=False,
)
def pool_round_arbitrate(self: Task, pool_round_id: int, user_id: int | None) -> dict[str, object]:
    """Arbitrate pool round ``pool_round_id`` in the name of user ``user_id``.

    A transient database error (``OperationalError``) is retried with backoff on a worker: the
    service's transaction rolled everything back, its claim included, so the retry starts clean
    (run eagerly, without a broker, the error goes to the caller instead). A refusal
    (:class:`~competitions.services.ArbitrationRefused`: too early, out of order, in progress, a
    broken seed commitment) is final: recorded under this task's id and not retried.
    """
    from competitions import services
    from competitions.models import PoolRound

    pool_round = PoolRound.objects.filter(pk=pool_round_id).first()
    if pool_round is None:
        logger.warning("Pool round %s to arbitrate does not exist", pool_round_id)
        return {"status": "missing", "pool_round": pool_round_id}
    by = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
    try:
        with services.pool_round_arbitration_attempt(
            pool_round=pool_round, by=by, task_id=self.request.id
        ) as attempt:
            if attempt > 1:
                logger.warning(
                    "Arbitration of pool round %s handed out again (attempt %d): its last "
                    "worker stopped before finishing",
                    pool_round_id,
                    attempt,
                )
            arbitrated = services.pool_round_arbitrate(pool_round=pool_round, by=by)
    except OperationalError as error:
        if self.request.is_eager:
            raise  # run in-process (no broker): no queue to retry on, the caller hears it
        logger.warning(
            "Arbitration of pool round %s hit a database error (attempt %d): %s",
            pool_round_id,
            self.request.retries + 1,
            error,
        )
        raise self.retry(
            exc=error, countdown=arbitration_retry_countdown(self.request.retries)
        ) from error
    except services.ArbitrationRefused as refusal:
        services.pool_round_arbitration_refused(
            pool_round=pool_round, by=by, task_id=self.request.id, refusal=refusal
        )
        logger.info("Arbitration of pool round %s refused: %s", pool_round_id, refusal.message)
        return {"status": "refused", "code": refusal.code, "facts": refusal.facts}
    return {"status": arbitrated.status, "pool_round": arbitrated.pk}


@shared_task(name="competitions.rounds_close_due")
def rounds_close_due() -> int:
    """Close the open rounds whose deadline passed (R13, ``rounds_close_due``); every few
    minutes, so the next run is the retry."""
    from competitions import services

    return services.rounds_close_due()


SEASON_START_MAX_RETRIES = 3
"""Retries of a season start after a transient database error (the job went back to queued)."""


@shared_task(
    bind=True,
    name="competitions.season_start",
    max_retries=SEASON_START_MAX_RETRIES,
    ignore_result=False,  # read back like the arbitration's; the desk reads the job's row
)
def season_start_run(self: Task, job_id: int) -> dict[str, object]:
    """Run season start job ``job_id`` (``season_start_job_run``): once, however often it is
    sent; a transient database error is retried with backoff."""
    from competitions.services.season_jobs import season_start_job_run

    try:
        job = season_start_job_run(job_id=job_id)
    except OperationalError as error:
        if self.request.is_eager:
            raise
        logger.warning("Season start %s hit a database error: %s", job_id, error)
        raise self.retry(
            exc=error, countdown=arbitration_retry_countdown(self.request.retries)
        ) from error
    if job is None:
        logger.warning("Season start job %s does not exist", job_id)
        return {"status": "missing", "job": job_id}
    return {
        "status": job.status,
        "job": job.pk,
        "season": job.season.number if job.season is not None else None,
        "code": job.code,
    }
