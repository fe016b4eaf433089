"""The league in the admin. Histories (picks, stock movements, audit log) are read-only.

The admin is for staff only, so the picks it lists — including those of rounds not yet
published — are never shown to coaches or visitors.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from competitions import services as competitions_services
from league import emails, services
from league.models import (
    AuditLog,
    Division,
    Entry,
    InboundEmail,
    LatePick,
    Mailing,
    OutboundEmail,
    Pick,
    Profile,
    Season,
    StockKind,
    StockMovement,
    StockReason,
    Team,
    WaitingListEntry,
)
from matrixhockey.admin import ReadOnlyAdmin, ReadOnlyInline, adopt


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = [
        "number",
        "name",
        "status",
        "is_current",
        "starts_on",
        "deadline_weekday",
        "deadline_time",
        "time_zone",
    ]
    list_filter = ["status", "is_current"]
    search_fields = ["=number", "name"]
    date_hierarchy = "starts_on"
    actions = ["make_current"]

    @admin.action(description=_("Make the selected season the current one"))
    def make_current(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        if queryset.count() != 1:
            self.message_user(request, _("Select exactly one season."), messages.ERROR)
            return
        season = services.season_make_current(season=queryset.get())
        self.message_user(request, _("%(season)s is now the current season.") % {"season": season})


@admin.register(Division)
class DivisionAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "tier", "group"]
    list_filter = ["tier"]
    search_fields = ["name", "slug"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "coach", "is_dummy", "created_at"]
    list_filter = ["is_dummy"]
    search_fields = ["name", "slug", "coach__username", "coach__email"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["coach"]
    date_hierarchy = "created_at"
    list_select_related = ["coach"]


class EntryAddForm(forms.ModelForm):
    """A new entry with its starting stocks, written to the ledger as ``season_start``."""

    starting_extra_goals = forms.IntegerField(
        label=_("starting extra goals"), min_value=0, initial=0
    )
    starting_great_saves = forms.IntegerField(
        label=_("starting great saves"), min_value=0, initial=2
    )

    class Meta:
        model = Entry
        fields = ["season", "team", "division", "code"]


class StockMovementInline(ReadOnlyInline):
    model = StockMovement
    fields = [
        "created_at",
        "kind",
        "delta",
        "balance_after",
        "reason",
        "round",
        "note",
        "created_by",
    ]
    readonly_fields = fields
    ordering = ["-created_at", "-id"]
    verbose_name_plural = _("stock ledger")


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = [
        "team",
        "season",
        "division",
        "code_display",
        "extra_goals",
        "great_saves",
        "onr_count",
        "promotion_barred",
        "is_playing",
    ]
    list_filter = ["season", "division", "promotion_barred"]
    search_fields = ["team__name", "team__slug"]
    list_select_related = ["team", "season", "division"]
    autocomplete_fields = ["team"]
    readonly_fields = ["extra_goals", "great_saves", "stock_link", "replaces", "replaced_at"]
    fields = [
        "season",
        "team",
        "division",
        "code",
        "extra_goals",
        "great_saves",
        "stock_link",
        "onr_count",
        "promotion_barred",
        "replaces",
        "replaced_at",
    ]
    inlines = [StockMovementInline]
    actions = ["replace_first_week_onr"]

    @admin.action(description=_("Replace now: a new team ONR in week 1 (R14)"))
    def replace_first_week_onr(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        """R14: the first team of the waiting list (a dummy when it is empty) takes the place."""
        for entry in queryset.select_related("team"):
            try:
                new = competitions_services.entry_replace_first_week_onr(
                    entry=entry, by=request.user
                )
            except ValidationError as error:
                reason = " ".join(error.messages)
                self.message_user(
                    request,
                    _("%(entry)s: %(reason)s") % {"entry": entry, "reason": reason},
                    messages.ERROR,
                )
            else:
                self.message_user(
                    request,
                    _("%(old)s is replaced by %(new)s.") % {"old": entry.team, "new": new.team},
                )

    @admin.display(description=_("code"), ordering="code")
    def code_display(self, entry: Entry) -> str:
        return f"{entry.code:02d}"

    @admin.display(description=_("playing"), boolean=True)
    def is_playing(self, entry: Entry) -> bool:
        return entry.is_playing

    @admin.display(description=_("stocks"))
    def stock_link(self, entry: Entry) -> str:
        url = reverse("admin:league_entry_stock", args=[entry.pk])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Move a stock…"))

    def get_form(
        self, request: HttpRequest, obj: Entry | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm]:
        if obj is None:
            kwargs["form"] = EntryAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Entry | None = None) -> list[str]:
        if obj is None:
            return [*EntryAddForm.Meta.fields, "starting_extra_goals", "starting_great_saves"]
        return self.fields

    def get_inline_instances(self, request: HttpRequest, obj: Entry | None = None) -> list[Any]:
        return super().get_inline_instances(request, obj) if obj is not None else []

    def save_model(
        self, request: HttpRequest, obj: Entry, form: forms.ModelForm, change: bool
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        data = form.cleaned_data
        entry = services.entry_create(
            season=data["season"],
            team=data["team"],
            division=data["division"],
            code=data["code"],
            extra_goals=data["starting_extra_goals"],
            great_saves=data["starting_great_saves"],
            by=request.user,
        )
        adopt(obj, entry)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.stock_move_view)
        return [path("<int:pk>/stock/", view, name="league_entry_stock"), *super().get_urls()]

    def stock_move_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        entry = get_object_or_404(Entry.objects.select_related("team", "season", "division"), pk=pk)
        if not self.has_change_permission(request, entry):
            return redirect("admin:index")
        form = StockMoveForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                movement = services.stock_move(
                    entry=entry,
                    kind=form.cleaned_data["kind"],
                    delta=form.cleaned_data["delta"],
                    reason=form.cleaned_data["reason"],
                    note=form.cleaned_data["note"],
                    by=request.user,
                )
            except services.StockBelowZero as error:
                form.add_error("delta", error)
            else:
                self.message_user(
                    request,
                    _("%(team)s: %(movement)s.") % {"team": entry.team, "movement": movement},
                )
                return redirect("admin:league_entry_change", entry.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Move a stock of %(entry)s") % {"entry": entry},
            "entry": entry,
            "form": form,
        }
        return TemplateResponse(request, "admin/league/entry/stock_move.html", context)


class StockMoveForm(forms.Form):
    kind = forms.ChoiceField(label=_("stock"), choices=StockKind.choices)
    delta = forms.IntegerField(
        label=_("change"), help_text=_("Negative to take away, positive to give.")
    )
    reason = forms.ChoiceField(
        label=_("reason"),
        choices=[
            (r.value, r.label)
            for r in (StockReason.ADMIN, StockReason.ONR_SANCTION, StockReason.SEASON_START)
        ],
        initial=StockReason.ADMIN,
    )
    note = forms.CharField(label=_("note"), widget=forms.Textarea(attrs={"rows": 3}))

    def clean_delta(self) -> int:
        delta = self.cleaned_data["delta"]
        if delta == 0:
            raise forms.ValidationError(_("A movement changes the stock: give a non-zero number."))
        return delta


@admin.register(StockMovement)
class StockMovementAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "entry",
        "kind",
        "delta",
        "balance_after",
        "reason",
        "round",
        "created_by",
    ]
    list_filter = ["kind", "reason", "entry__season", "entry__division"]
    search_fields = ["entry__team__name", "entry__team__slug", "note"]
    date_hierarchy = "created_at"
    list_select_related = [
        "entry__team",
        "entry__season",
        "entry__division",
        "round__season",
        "created_by",
    ]


@admin.register(WaitingListEntry)
class WaitingListEntryAdmin(admin.ModelAdmin):
    list_display = ["name", "email", "registered_at", "status", "team"]
    list_filter = ["status"]
    search_fields = ["name", "email", "user__username"]
    date_hierarchy = "registered_at"
    autocomplete_fields = ["user", "team"]


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


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor", "action", "content_type", "object_repr"]
    list_filter = ["action", "content_type"]
    search_fields = ["action", "object_repr", "actor__username"]
    date_hierarchy = "at"
    list_select_related = ["actor", "content_type"]


@admin.register(OutboundEmail)
class OutboundEmailAdmin(ReadOnlyAdmin):
    """The outbox: what was sent, what waits for the mail server, what failed. Read-only, with
    a "resend" action."""

    list_display = ["created_at", "subject", "recipients", "template", "language", "status"]
    list_display += ["attempts", "sent_at"]
    list_filter = ["status", "template", "language"]
    search_fields = ["subject", "to", "last_error"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "template",
        "language",
        "to",
        "reply_to",
        "headers",
        "subject",
        "body_text",
        "html_preview",
        "status",
        "attempts",
        "last_error",
        "created_at",
        "sent_at",
    ]
    fields = readonly_fields
    actions = ["resend"]

    @admin.display(description=_("to"))
    def recipients(self, email: OutboundEmail) -> str:
        return ", ".join(email.to)

    @admin.display(description=_("HTML body"))
    def html_preview(self, email: OutboundEmail) -> str:
        # Sandboxed: the email's HTML is shown as the recipient sees it, without scripts.
        return format_html(
            '<iframe sandbox srcdoc="{}" title="{}" style="width:100%;min-height:28rem;'
            'border:1px solid var(--hairline-color)"></iframe>',
            email.body_html,
            email.subject,
        )

    @admin.action(description=_("Resend the selected emails"))
    def resend(self, request: HttpRequest, queryset: QuerySet[OutboundEmail]) -> None:
        count = 0
        for email in queryset:
            emails.email_resend(email=email)
            count += 1
        self.message_user(
            request,
            ngettext("%(count)d email queued again.", "%(count)d emails queued again.", count)
            % {"count": count},
        )


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "language"]
    list_filter = ["language"]
    search_fields = ["user__username", "user__email"]
    autocomplete_fields = ["user"]


@admin.register(LatePick)
class LatePickAdmin(ReadOnlyAdmin):
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
                decide(late_pick=late_pick, by=request.user)
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


@admin.register(InboundEmail)
class InboundEmailAdmin(ReadOnlyAdmin):
    """Every email received for picks, once per Message-ID, with what the league did."""

    list_display = ["processed_at", "received_at", "sender", "user", "outcome", "subject", "reply"]
    list_filter = ["outcome"]
    search_fields = ["sender", "message_id", "subject", "user__username"]
    date_hierarchy = "received_at"
    list_select_related = ["user", "reply"]


@admin.register(Mailing)
class MailingAdmin(ReadOnlyAdmin):
    """The week's clock (``league.weekly``): who got which weekly email, reminder or watchdog
    alert — one each per week (or pool round), with the email in the outbox. Read-only."""

    list_display = ["created_at", "kind", "season", "week", "user", "pool_round", "email"]
    list_filter = ["kind", "season", "week"]
    search_fields = ["user__username", "user__email"]
    date_hierarchy = "created_at"
    list_select_related = [
        "season",
        "user",
        "pool_round__pool",
        "pool_round__round__season",
        "email",
    ]
