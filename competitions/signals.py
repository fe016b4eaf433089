"""What the competitions tell the layers above them (the mail listens: ``mail.receivers``).

Each signal is sent inside the service's transaction, so what a receiver writes (an email in
the outbox) is committed with the action or not at all.
"""

from __future__ import annotations

from django.dispatch import Signal

pool_round_published = Signal()
"""Sent (``pool_round=``, ``by=``) in a publication's transaction: the results emails."""

pick_received = Signal()
"""Sent (``pick=``) when a pick is stored from the web, the API or a referee's late-pick
acceptance: the coach's receipt email."""

late_pick_rejected = Signal()
"""Sent (``late_pick=``) when a referee refuses a pick emailed after the deadline (R13): the
coach is told."""

season_started = Signal()
"""Sent (``season=``, ``by=``) when a season starts (``season_start``): the announcement to every
coach, with their division, code, stocks and first deadline."""

round_deadline_moved = Signal()
"""Sent (``round=``, ``before=``, ``by=``) when a round's deadline moved while its season runs
(``round_deadline_move``): the coaches concerned are told."""

pool_round_verification_failed = Signal()
"""Sent (``failure=``, a :class:`~competitions.models.VerificationFailure`) in the transaction
that records a published pool round's failed verification, once per pool round and night (R23):
the admins' alert."""

pool_round_voided = Signal()
"""Sent (``pool_round=``, ``entries=`` the ids of the teams' entries that played it, ``by=``) in
the transaction of a void (``pool_round_void``): the pool's coaches are told it will be
replayed, and why."""
