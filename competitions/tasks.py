"""The competitions' Celery tasks: they take ids, call one service, and retry there.

The services import this module to queue its tasks (``delay``/``apply_async`` on commit); each
task imports its service when it runs (the HackSoft shape), so neither waits on the other.

``competitions.arbitration_request_run`` (the function ``pool_round_arbitrate``) is queued by
:func:`competitions.services.pool_round_arbitration_request` once its transaction commits, with
the request's id. It is idempotent by the request's claim (a conditional status update that only
one worker wins) and the arbitration's own lock: sent twice, retried, or run while a referee
arbitrates from elsewhere, it leaves exactly one result.

``competitions.pool_round_verify`` is queued by :func:`competitions.services.pool_round_publish`
once the publication commits, with the pool round's id; ``competitions.season_rounds_verify``
runs nightly (beat). Both record a mismatch once a night and alert the admins (R23).

``competitions.season_start`` is queued by
:func:`competitions.services.season_jobs.season_start_request`: it runs one season start and
records its progress on the job, which only one worker can claim.
"""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import MaxRetriesExceededError
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
    # Named for what it takes, a request's id: a message queued under the name it had when it
    # took a pool round's id is left unread rather than misread.
    bind=True,
    name="competitions.arbitration_request_run",
    max_retries=ARBITRATION_MAX_RETRIES,
    # Its outcome is read back by whoever follows a run (the fault tests; `celery result`);
    # the desk and the API read the request's row.
    ignore_result=False,
)
def pool_round_arbitrate(self: Task, request_id: int) -> dict[str, object]:
    """Run arbitration request ``request_id`` (``pool_round_arbitration_run``): the request's
    claim runs it once, however often the task is sent.

    A transient database error (``OperationalError``) is retried with backoff on a worker: the
    arbitration's transaction rolled back, the request went back to ``requested``, and the retry
    claims it again (its next attempt). Run eagerly, without a broker, the error goes to the
    caller instead. A refusal (:class:`~competitions.services.ArbitrationRefused`: too early,
    out of order, a broken seed commitment) is final: recorded on the request, not retried.
    """
    from competitions import services

    try:
        request = services.pool_round_arbitration_run(
            request_id=request_id, task_id=self.request.id
        )
    except OperationalError as error:
        if self.request.is_eager:
            raise  # run in-process (no broker): no queue to retry on, the caller hears it
        logger.warning(
            "Arbitration request %s hit a database error (retry %d): %s",
            request_id,
            self.request.retries + 1,
            error,
        )
        raise self.retry(
            exc=error, countdown=arbitration_retry_countdown(self.request.retries)
        ) from error
    if request is None:
        logger.warning("Arbitration request %s does not exist", request_id)
        return {"status": "missing", "request": request_id}
    if request.is_pending and not self.request.is_eager:
        # Another worker holds the pool round (its work lock): look again later — done by then,
        # or taken over if that worker is gone (a killed process's session may outlive it a
        # moment).
        try:
            raise self.retry(countdown=arbitration_retry_countdown(self.request.retries))
        except MaxRetriesExceededError:
            logger.warning("Arbitration request %s still held by another worker", request_id)
    outcome: dict[str, object] = {
        "status": request.status,
        "request": request.pk,
        "pool_round": request.pool_round_id,
        "attempts": request.attempts,
    }
    if request.status == request.Status.REFUSED:
        logger.info("Arbitration request %s refused: %s", request_id, request.refusal_code)
        outcome["code"] = request.refusal_code
    return outcome


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


@shared_task(name="competitions.pool_round_verify")
def pool_round_verify(pool_round_id: int) -> bool | None:
    """R23: verify published pool round ``pool_round_id`` after its publication
    (``pool_round_verification_record``); a mismatch alerts the admins. Whether it matched
    (``None``: no such published pool round). The nightly check is its retry."""
    from competitions.models import PoolRound
    from competitions.services import pool_round_verification_record

    pool_round = PoolRound.objects.filter(pk=pool_round_id).first()
    if pool_round is None:
        logger.warning("Pool round %s does not exist", pool_round_id)
        return None
    verification = pool_round_verification_record(pool_round=pool_round)
    return None if verification is None else verification.matches


@shared_task(name="competitions.season_rounds_verify")
def season_rounds_verify() -> int:
    """R23, nightly: verify every published pool round of the current season
    (``season_rounds_verify``); how many did not verify."""
    from competitions import services

    return services.season_rounds_verify()
