"""Moving a round's deadline (R13) by hand: the admin's one way to do it.

The move is one conditional update that bumps the calendar feeds' SEQUENCE and LAST-MODIFIED
with it (RFC 5545: subscribers update the event instead of keeping the old time), written to
the audit log with the deadline before and after. Once the season runs the move is announced:
the round keeps the deadline it replaced and when (the home page shows it for a week,
``competitions.selectors.glance.DEADLINE_MOVE_SHOWN``), and the signal
``competitions.signals.round_deadline_moved`` lets the mail write one email per coach and
deputy concerned, in the same transaction.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from competitions.models import Round
from competitions.signals import round_deadline_moved
from league.models import Season
from league.public_cache import public_version_bump
from league.services.audit import audit_change


@transaction.atomic
def round_deadline_move(*, round: Round, deadline: datetime, by: User | None) -> Round:
    """Move ``round``'s deadline to ``deadline`` (``round`` is updated in place and returned).
    The same deadline again changes nothing: no revision, no audit entry, no email."""
    before = Round.objects.select_for_update().values_list("deadline", flat=True).get(pk=round.pk)
    running = Season.objects.filter(pk=round.season_id, status=Season.Status.RUNNING).exists()
    now = timezone.now()
    announced = {"deadline_moved_from": before, "deadline_moved_at": now} if running else {}
    moved = (
        Round.objects.filter(pk=round.pk)
        .exclude(deadline=deadline)
        .update(
            deadline=deadline,
            calendar_sequence=F("calendar_sequence") + 1,
            calendar_changed_at=now,
            **announced,
        )
    )
    round.refresh_from_db(
        fields=[
            "deadline",
            "calendar_sequence",
            "calendar_changed_at",
            "deadline_moved_from",
            "deadline_moved_at",
        ]
    )
    if not moved:
        return round
    audit_change(
        actor=by,
        obj=round,
        before={"deadline": before.isoformat()},
        after={"deadline": round.deadline.isoformat()},
        action="round_deadline_move",
        announced=running,
    )
    # The next deadline and its countdown are public.
    public_version_bump()
    if running:
        round_deadline_moved.send(sender=Round, round=round, before=before, by=by)
    return round
