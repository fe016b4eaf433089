"""Receivers of the competitions' signals (connected in :meth:`CompetitionsConfig.ready`)."""

from __future__ import annotations

from django.dispatch import receiver

from competitions.models import PoolRound
from competitions.services import pool_round_published
from league.emails import email_results_published


@receiver(pool_round_published, dispatch_uid="competitions.results_email_on_publish")
def results_email_on_publish(
    sender: type[PoolRound], pool_round: PoolRound, by: object, **kwargs: object
) -> None:
    """Publishing sends the results email to the pool's coaches — once per publication, however
    often this fires (:func:`~league.emails.email_results_published`)."""
    email_results_published(pool_round=pool_round)
