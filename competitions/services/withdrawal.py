"""R24: a team of a finished season withdrawn before the next season starts (its coach quits, or
an admin removes it). It keeps its place in the final table; the next season's plan lists it as
leaving and fills its place from below.

Stored in the competitions' archive (:class:`~competitions.models.Withdrawal`), beside what
the closed season keeps, rather than as a field of the registry's ``Entry``: it is a fact about
a closed season's end, read only by the plan.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from competitions.models import Withdrawal
from competitions.services.season_plan import season_plan_store
from league.models import Entry, Season
from league.public_cache import public_version_bump
from league.services import audit_record


@transaction.atomic
def entry_withdraw(*, entry: Entry, by: User | None) -> Withdrawal:
    """Withdraw ``entry``'s team from the league at the end of its finished season (R24).

    Refused (``ValidationError`` with a code) while the season is not finished
    (``season_not_finished``), once a later season has started (``next_started``), for a team
    replaced during the season (``replaced``: it no longer holds a place) and for a dummy team
    (``dummy``: it leaves anyway). Withdrawing a team twice changes nothing.
    """
    entry = (
        Entry.objects.select_for_update(of=("self",))
        .select_related("season", "team")
        .get(pk=entry.pk)
    )
    done = Withdrawal.objects.filter(entry=entry).first()
    if done is not None:
        return done
    season = entry.season
    if season.status != Season.Status.FINISHED:
        raise ValidationError(
            _("%(season)s is not finished: a team withdraws at the season's end (R24).")
            % {"season": season},
            code="season_not_finished",
        )
    later = Season.objects.filter(number__gt=season.number).exclude(status=Season.Status.PREPARING)
    if later.exists():
        raise ValidationError(
            _("The season after %(season)s has started: it is too late to withdraw %(team)s.")
            % {"season": season, "team": entry.team},
            code="next_started",
        )
    if entry.replaced_at is not None:
        raise ValidationError(
            _("%(team)s was replaced during the season (R14): it holds no place to leave.")
            % {"team": entry.team},
            code="replaced",
        )
    if entry.team.is_dummy:
        raise ValidationError(
            _("%(team)s is a dummy team: it leaves at the season's end anyway (R24).")
            % {"team": entry.team},
            code="dummy",
        )
    withdrawal = Withdrawal.objects.create(entry=entry, by=by)
    season_plan_store(season=season)  # R24: the team leaves, its place filled from below
    audit_record(
        actor=by,
        action="entry_withdraw",
        obj=entry,
        payload={
            "team": entry.team.slug,
            "changes": [{"field": "withdrawn", "before": False, "after": True}],
        },
    )
    public_version_bump()  # the tables mark the team withdrawn (R24)
    return withdrawal


__all__ = ["entry_withdraw"]
