"""Picks (read-only) and the referee's queue of late picks in the admin. The admin is for staff
only, so the picks it lists, including those of rounds not yet published, are never shown to
coaches or visitors.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from competitions import services
from competitions.models import LatePick, Pick
from league.audit_admin import AuditedAdmin
from matrixhockey.admin import ReadOnlyAdmin
from matrixhockey.http import signed_in_user


@admin.register(Pick)
class PickAdmin(ReadOnlyAdmin):
    """Every pick received. Staff only: picks of unpublished rounds are secret to everyone else."""

    list_display = [
        "received_at",
        "entry",
        "round",
        "normalized",
        "notation",
        "channel",
        "entered_by",
        "short_receipt",
    ]
    list_filter = ["channel", "round__competition", "round__season"]
    search_fields = ["entry__team__name", "entry__team__slug", "=receipt"]
    date_hierarchy = "received_at"
    list_select_related = [
        "entry__team",
        "entry__season",
        "entry__division",
        "round__season",
        "entered_by",
    ]

    @admin.display(description=_("receipt"))
    def short_receipt(self, pick: Pick) -> str:
        return pick.receipt[:12] + "…"


@admin.register(LatePick)
class LatePickAdmin(AuditedAdmin, ReadOnlyAdmin):
    """R13: the referee's queue of picks emailed after the deadline. Its rows are never edited:
    accepting one (an action) enters it as a pick by the deciding referee or admin (channel
    ``referee``); rejecting tells the coach."""

    list_display = [
        "received_at",
        "entry",
        "round",
        "notation",
        "status",
        "decided_by",
        "decided_at",
    ]
    list_filter = ["status", "round__competition", "round__season", "entry__division"]
    search_fields = ["entry__team__name", "entry__team__slug", "message_id"]
    date_hierarchy = "received_at"
    list_select_related = ["entry__team", "entry__season", "entry__division", "round__season"]
    actions = ["accept", "reject"]

    def _decide(self, request: HttpRequest, queryset: QuerySet[LatePick], accept: bool) -> None:
        decide = services.late_pick_accept if accept else services.late_pick_reject
        done = 0
        for late_pick in queryset.select_related("entry__team", "round"):
            try:
                decide(late_pick=late_pick, by=signed_in_user(request))
            except (ValidationError, PermissionDenied) as error:
                reason = " ".join(getattr(error, "messages", [str(error)]))
                self.message_user(
                    request,
                    _("%(late_pick)s: %(reason)s") % {"late_pick": late_pick, "reason": reason},
                    messages.ERROR,
                )
            else:
                done += 1
        if done:
            message = (
                ngettext("%(count)d late pick entered.", "%(count)d late picks entered.", done)
                if accept
                else ngettext(
                    "%(count)d late pick rejected.", "%(count)d late picks rejected.", done
                )
            )
            self.message_user(request, message % {"count": done})

    @admin.action(description=_("Accept: enter the selected late picks (R13)"))
    def accept(self, request: HttpRequest, queryset: QuerySet[LatePick]) -> None:
        self._decide(request, queryset, accept=True)

    @admin.action(description=_("Reject the selected late picks"))
    def reject(self, request: HttpRequest, queryset: QuerySet[LatePick]) -> None:
        self._decide(request, queryset, accept=False)
