"""Team entries in the admin, with their read-only stock ledger and the stock correction form;
the R14 first-week replacement action.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

import matrixhockey.converters  # noqa: F401  (registers <num:…>)
from competitions import services
from competitions import services as competitions_services
from competitions.models import StockKind, StockMovement, StockReason
from league.audit_admin import AuditedAdmin
from league.models import Entry
from league.services.audit import VIA_ADMIN, audit_via
from matrixhockey.admin import CheckedAutocomplete, ReadOnlyAdmin, ReadOnlyInline, adopt
from matrixhockey.french import of_name
from matrixhockey.http import SignedInRequest, signed_in_user


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
    fields = (
        "created_at",
        "kind",
        "delta",
        "balance_after",
        "reason",
        "round",
        "note",
        "created_by",
    )
    readonly_fields = fields
    ordering = ["-created_at", "-id"]
    verbose_name_plural = _("stock ledger")


@admin.register(Entry)
class EntryAdmin(CheckedAutocomplete, AuditedAdmin):
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
    fields = (
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
    )
    inlines = [StockMovementInline]
    actions = ["replace_first_week_onr"]

    @admin.action(description=_("Replace now: a new team ONR in week 1 (R14)"))
    def replace_first_week_onr(self, request: SignedInRequest, queryset: QuerySet[Entry]) -> None:
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

    def get_fields(self, request: HttpRequest, obj: Entry | None = None) -> tuple[str, ...]:
        if obj is None:
            return (*EntryAddForm.Meta.fields, "starting_extra_goals", "starting_great_saves")
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
            by=signed_in_user(request),
        )
        adopt(obj, entry)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.stock_move_view)
        return [path("<num:pk>/stock/", view, name="league_entry_stock"), *super().get_urls()]

    def stock_move_view(self, request: SignedInRequest, pk: int) -> HttpResponse:
        with audit_via(VIA_ADMIN):
            return self._stock_move(request, pk)

    def _stock_move(self, request: SignedInRequest, pk: int) -> HttpResponse:
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
            "title": _("Move a stock of %(of_entry)s") % {"of_entry": of_name(str(entry))},
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
