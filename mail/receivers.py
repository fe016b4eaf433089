"""The mail listening to the competitions (connected in :meth:`MailConfig.ready`): receipts,
the late-pick refusal, the results emails and a moved deadline's announcement. The competitions
never import the mail."""

from __future__ import annotations

from datetime import datetime

from django.dispatch import receiver

from competitions.models import LatePick, Pick, PoolRound, Round, VerificationFailure
from competitions.services.picks import StalePick
from competitions.signals import (
    late_pick_rejected,
    pick_received,
    pool_round_published,
    pool_round_verification_failed,
    pool_round_voided,
    round_deadline_moved,
)
from mail import receivers_people  # noqa: F401  (connects the invitation and announcement)
from mail.emails import (
    email_deadline_moved,
    email_pick_receipt,
    email_results_published,
    emails_pool_round_voided,
    emails_verification_failed,
)
from mail.emails_replies import email_late_pick_rejected


@receiver(pool_round_published, dispatch_uid="mail.results_email_on_publish")
def results_email_on_publish(
    sender: type[PoolRound], pool_round: PoolRound, by: object, **kwargs: object
) -> None:
    """Publishing sends the results email to the pool's coaches: one outbox row each, written in
    the publication's transaction, once per publication however often this fires
    (:func:`~mail.emails.email_results_published`)."""
    email_results_published(pool_round=pool_round)


@receiver(pick_received, dispatch_uid="mail.pick_receipt")
def pick_receipt(
    sender: type[Pick], pick: Pick, stale: StalePick | None = None, **kwargs: object
) -> None:
    """Every pick stored for a team gets its receipt by email, to its coach and its deputy
    (R12), with the R11 warning its sender got: outbox rows written in the pick's own
    transaction, rendered and sent by a worker (:func:`~mail.emails.email_pick_receipt`), not
    in the request."""
    email_pick_receipt(pick=pick, stale=stale)


@receiver(late_pick_rejected, dispatch_uid="mail.late_pick_rejected")
def late_pick_refusal(sender: type[LatePick], late_pick: LatePick, **kwargs: object) -> None:
    """R13: the coach whose late pick a referee refused is told."""
    email_late_pick_rejected(late_pick=late_pick)


@receiver(round_deadline_moved, dispatch_uid="mail.deadline_moved")
def deadline_moved(
    sender: type[Round], round: Round, before: datetime, by: object, **kwargs: object
) -> None:
    """R13: a deadline moved while the season runs is told to the coaches and deputies of the
    teams that play the round."""
    email_deadline_moved(round=round, before=before)


@receiver(pool_round_verification_failed, dispatch_uid="mail.verification_failed")
def verification_failed(
    sender: type[VerificationFailure], failure: VerificationFailure, **kwargs: object
) -> None:
    """R23: a published pool round that does not verify alerts every admin by email, in the
    transaction that records it."""
    emails_verification_failed(failure=failure)


@receiver(pool_round_voided, dispatch_uid="mail.pool_round_voided")
def pool_round_voided_email(
    sender: type[PoolRound], pool_round: PoolRound, entries: list[int], by: object, **kwargs: object
) -> None:
    """A voided pool round is told to the coaches and deputies of the teams that played it: it
    will be replayed, and why."""
    emails_pool_round_voided(pool_round=pool_round, entries=entries)
