"""R13: the referee's queue of picks received by email after the deadline, accepted or
rejected once.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions.models import LatePick, Pick, Round
from competitions.selectors.picks import entry_pool
from competitions.services.picks import late_pick_check, pick_submit
from competitions.signals import late_pick_rejected
from league.models import Entry, Team
from league.services.audit import audit_record
from matrixhockey.db import save_valid


def late_pick_queue(
    *, team: Team, round: Round, notation: str, received_at: datetime, message_id: str = ""
) -> str:
    """Put a pick received after ``round``'s deadline (R13) in its referee's queue, once it
    passes the checks a referee's entry would (R6, R7, R10, R19: :func:`late_pick_check`, which
    raises :class:`~competitions.services.errors.PickRejected` for one a referee could not
    enter). Returns the pick's normalized notation, for the coach's reply."""
    entry = Entry.objects.current_of(team, season=round.season_id).get()
    normalized = late_pick_check(entry=entry, round=round, notation=notation)
    save_valid(
        LatePick(
            entry=entry,
            round=round,
            notation=notation,
            received_at=received_at,
            message_id=message_id,
        )
    )
    return normalized


def _late_pick_lock(*, late_pick: LatePick, by: User) -> LatePick:
    """``late_pick``, locked, still pending, and ``by`` may decide on it (a referee of the team's
    pool for that competition, or staff)."""
    late = (
        LatePick.objects.select_for_update(of=("self",))
        .select_related("entry__team__coach", "round__season")
        .get(pk=late_pick.pk)
    )
    pool = entry_pool(entry=late.entry, competition=late.round.competition)
    if not (by.is_staff or (pool is not None and pool.referees.filter(pk=by.pk).exists())):
        raise PermissionDenied(
            _("Only a referee of this team's pool or an admin may decide on its late picks.")
        )
    if late.status != LatePick.Status.PENDING:
        raise ValidationError(
            _("This late pick was already decided: %(status)s.")
            % {"status": late.get_status_display()},
            code="decided",
        )
    return late


def _late_pick_decide(
    *, late: LatePick, status: LatePick.Status, by: User, pick: Pick | None
) -> LatePick:
    late.status = status
    late.decided_by = by
    late.decided_at = timezone.now()
    late.pick = pick
    save_valid(late)
    audit_record(
        actor=by,
        action=f"late_pick_{status}",
        obj=late,
        payload={"round": late.round_id, "pick": pick.pk if pick else None},
    )
    return late


@transaction.atomic
def late_pick_accept(*, late_pick: LatePick, by: User) -> LatePick:
    """R13: a referee (or an admin) enters a pick emailed after the deadline, as received and at
    the time it was received, with channel ``referee`` — until the pool's round is arbitrated
    (:func:`pick_submit` refuses it then). The coach gets the pick's receipt by email.

    Raises ``PermissionDenied`` for someone else, ``ValidationError`` when the late pick was
    already decided, :class:`PickRejected` when the pick cannot be entered any more.
    """
    late = _late_pick_lock(late_pick=late_pick, by=by)
    submitted = pick_submit(
        team=late.entry.team,
        round=late.round,
        notation=late.notation,
        channel=Pick.Channel.REFEREE,
        entered_by=by,
        received_at=late.received_at,
        receipt=True,
    )
    pick = submitted.pick
    return _late_pick_decide(late=late, status=LatePick.Status.ACCEPTED, by=by, pick=pick)


@transaction.atomic
def late_pick_reject(*, late_pick: LatePick, by: User) -> LatePick:
    """R13: a referee (or an admin) refuses a pick emailed after the deadline; the coach is
    told by email. Same refusals as :func:`late_pick_accept`."""
    late = _late_pick_lock(late_pick=late_pick, by=by)
    late_pick_rejected.send(sender=LatePick, late_pick=late)
    return _late_pick_decide(late=late, status=LatePick.Status.REJECTED, by=by, pick=None)
