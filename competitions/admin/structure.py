"""The competitions in the admin. Results are read-only: arbitration writes them.

Matrices can be edited until their season starts (R19); pool rounds get their secret seed from
the service that creates them, and the seed shows here only once the round is published (R23).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from competitions import services
from competitions.models import (
    ArbitrationRequest,
    Fixture,
    FixtureResult,
    Matrix,
    MatrixCell,
    OnrSanction,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    SeasonPlanDraft,
    SeasonStartJob,
    TeamResult,
)
from competitions.selectors.entries import PLAYED
from competitions.selectors.teams import onr_sanctions_publication
from league.audit_admin import AuditedAdmin
from league.models import Entry, Season
from matrixhockey.admin import CheckedAutocomplete, ReadOnlyAdmin, ReadOnlyInline, adopt
from matrixhockey.http import SignedInRequest, signed_in_user


def _editable_matrix(matrix: Matrix | None) -> bool:
    return matrix is None or matrix.season.status == Season.Status.PREPARING


class MatrixCellInline(admin.TabularInline):
    model = MatrixCell
    fields = ["round_number", "column", "value"]
    extra = 0
    ordering = ["round_number", "column"]

    def has_add_permission(self, request: HttpRequest, obj: Matrix | None = None) -> bool:
        return _editable_matrix(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Matrix | None = None) -> bool:
        return _editable_matrix(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Matrix | None = None) -> bool:
        return _editable_matrix(obj) and super().has_delete_permission(request, obj)


@admin.register(Matrix)
class MatrixAdmin(AuditedAdmin):
    """A new matrix is filled by a die (R19); its cells can be changed before the season starts."""

    list_display = ["season", "competition"]
    list_filter = ["season", "competition"]
    search_fields = ["season__name", "=season__number"]
    inlines = [MatrixCellInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Matrix | None = None) -> list[str]:
        return ["season", "competition"] if obj is not None else []

    def get_inline_instances(self, request: HttpRequest, obj: Matrix | None = None) -> list[Any]:
        return super().get_inline_instances(request, obj) if obj is not None else []

    def save_model(
        self, request: HttpRequest, obj: Matrix, form: forms.ModelForm, change: bool
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        adopt(obj, services.matrix_create(season=obj.season, competition=obj.competition))


class RoundForm(forms.ModelForm):
    class Meta:
        model = Round
        fields = ["season", "competition", "number", "week", "stage", "deadline", "status"]
        help_texts = {"deadline": _("Empty: the season's deadline for this week (R13).")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["deadline"].required = False

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        season, week = data.get("season"), data.get("week")
        if not data.get("deadline") and season is not None and week:
            data["deadline"] = season.deadline_for_week(week)
        return data


@admin.register(Round)
class RoundAdmin(AuditedAdmin):
    form = RoundForm
    # A moved deadline is recorded by round_deadline_move, with its feeds' revision.
    audit_exclude = (
        "deadline",
        "calendar_sequence",
        "calendar_changed_at",
        "deadline_moved_from",
        "deadline_moved_at",
    )
    list_display = ["season", "competition", "number", "week", "stage", "deadline", "status"]
    list_filter = ["season", "competition", "stage", "status"]
    search_fields = ["=number", "=season__number"]
    date_hierarchy = "deadline"

    def save_model(
        self, request: HttpRequest, obj: Round, form: forms.ModelForm, change: bool
    ) -> None:
        if not (change and "deadline" in form.changed_data):
            super().save_model(request, obj, form, change)
            return
        # The other fields as edited, then the deadline by its service: the feeds' revision,
        # the audit entry and, while the season runs, its announcement.
        deadline = obj.deadline
        obj.deadline = form.initial["deadline"]
        super().save_model(request, obj, form, change)
        services.round_deadline_move(round=obj, deadline=deadline, by=signed_in_user(request))


class PoolMemberInline(CheckedAutocomplete, admin.TabularInline):
    model = PoolMember
    fields = ["entry", "group"]
    autocomplete_fields = ["entry"]
    extra = 0


class PoolForm(forms.ModelForm):
    class Meta:
        model = Pool
        fields = ["season", "competition", "division", "slug", "referees"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["slug"].required = False

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if not data.get("slug"):
            division = data.get("division")
            data["slug"] = division.slug if division is not None else data.get("competition", "")
        return data


@admin.register(Pool)
class PoolAdmin(AuditedAdmin):
    form = PoolForm
    list_display = ["slug", "competition", "season", "division", "referee_names"]
    list_filter = ["season", "competition"]
    search_fields = ["slug", "referees__username"]
    filter_horizontal = ["referees"]
    inlines = [PoolMemberInline]
    list_select_related = ["season", "division"]

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).prefetch_related("referees")

    @admin.display(description=_("referees"))
    def referee_names(self, pool: Pool) -> str:
        return ", ".join(r.get_username() for r in pool.referees.all())


class FixtureFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        seen: set[int] = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or form.cleaned_data.get("DELETE"):
                continue
            for side in ("home", "away"):
                entry = form.cleaned_data.get(side)
                if entry is None:
                    continue
                if not isinstance(entry, Entry):
                    # A read-only row (an arbitrated round's): the admin gives its initial data,
                    # ids, as its cleaned data; the game itself names its teams.
                    entry = getattr(form.instance, side)
                if entry.pk in seen:
                    raise forms.ValidationError(
                        _("%(team)s plays twice in this round.") % {"team": entry.team}
                    )
                seen.add(entry.pk)


def _final(pool_round: PoolRound | None) -> bool:
    """Whether ``pool_round``'s games, results and draws are final: arbitrated or published,
    only voiding it takes them back (the database refuses any other change too)."""
    return pool_round is not None and pool_round.status in PLAYED


class FixtureInline(CheckedAutocomplete, admin.TabularInline):
    """A pool round's games, editable until it is arbitrated, read-only after."""

    model = Fixture
    formset = FixtureFormSet
    fields = ["home", "away", "label"]
    autocomplete_fields = ["home", "away"]
    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: PoolRound | None = None) -> bool:
        return not _final(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: PoolRound | None = None) -> bool:
        return not _final(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: PoolRound | None = None) -> bool:
        return not _final(obj) and super().has_delete_permission(request, obj)


class TeamResultInline(ReadOnlyInline):
    model = TeamResult
    fields = ("entry", "display", "goals", "onr", "redrawn", "bonus_goal")
    readonly_fields = fields


class PoolRoundAddForm(forms.ModelForm):
    class Meta:
        model = PoolRound
        fields = ("pool", "round")


# --- The pool rounds' admin actions (issue 5): void and redo, arbitrate ---------------------------


class VoidForm(forms.Form):
    reason = forms.CharField(
        label=_("reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Kept in the audit log with the whole old result."),
    )


def _refusal_text(error: Exception) -> str:
    if isinstance(error, services.ArbitrationRefused):
        return error.message
    return " ".join(getattr(error, "messages", [str(error)]))


@admin.action(description=_("Void the selected rounds, to arbitrate them again…"))
def void_pool_rounds(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[PoolRound]
) -> HttpResponse | None:
    """Ask for a reason, then void each selected pool round (``services.pool_round_void``): its
    old result goes to the audit log, its stocks come back, it can be arbitrated again."""
    form = VoidForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        voided = 0
        for pool_round in queryset.select_related("pool", "round__season"):
            try:
                services.pool_round_void(
                    pool_round=pool_round,
                    by=signed_in_user(request),
                    reason=form.cleaned_data["reason"],
                )
            except (services.ArbitrationRefused, ValidationError) as error:
                modeladmin.message_user(
                    request,
                    _("%(pool_round)s: %(reason)s")
                    % {"pool_round": pool_round, "reason": _refusal_text(error)},
                    messages.ERROR,
                )
            else:
                voided += 1
        if voided:
            modeladmin.message_user(
                request,
                ngettext(
                    "%(count)d round voided: arbitrate it again from the referee's desk.",
                    "%(count)d rounds voided: arbitrate them again from the referee's desk.",
                    voided,
                )
                % {"count": voided},
            )
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "opts": modeladmin.model._meta,
        "title": _("Void rounds"),
        "form": form,
        "pool_rounds": queryset.select_related("pool", "round__season"),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/competitions/poolround/void.html", context)


@admin.action(description=_("Arbitrate the selected rounds (queued for a worker)"))
def arbitrate_pool_rounds(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[PoolRound]
) -> None:
    """Queue each selected pool round's arbitration, as a referee's « Arbitrer » does."""
    for pool_round in queryset.select_related("pool", "round__season"):
        try:
            services.pool_round_arbitration_request(
                pool_round=pool_round, by=signed_in_user(request)
            )
        except services.ArbitrationRefused as error:
            modeladmin.message_user(
                request,
                _("%(pool_round)s: %(reason)s") % {"pool_round": pool_round, "reason": error},
                messages.ERROR,
            )
        else:
            modeladmin.message_user(
                request, _("%(pool_round)s: arbitration queued.") % {"pool_round": pool_round}
            )


@admin.register(PoolRound)
class PoolRoundAdmin(AuditedAdmin):
    list_display = ["round", "pool", "status", "seed_hash", "arbitrated_at", "published_at"]
    list_filter = ["round__season", "round__competition", "status"]
    search_fields = ["pool__slug", "=round__number", "seed_hash"]
    list_select_related = ["round__season", "pool"]
    inlines = [FixtureInline, TeamResultInline]
    actions = [void_pool_rounds, arbitrate_pool_rounds]
    fields = (
        "pool",
        "round",
        "status",
        "seed_hash",
        "published_seed",
        "draw_log",
        "arbitrated_at",
        "arbitrated_by",
        "published_at",
        "published_by",
        "qualified_teams",
    )
    readonly_fields = fields

    @admin.display(description=_("qualified"))
    def qualified_teams(self, pool_round: PoolRound) -> str:
        """Cups: the teams the round sent on, final once it is arbitrated like its games."""
        return ", ".join(
            sorted(str(entry.team) for entry in pool_round.qualified.select_related("team"))
        )

    @admin.display(description=_("seed"))
    def published_seed(self, pool_round: PoolRound) -> str:
        return pool_round.public_seed or str(_("(secret until published)"))

    def get_form(
        self,
        request: HttpRequest,
        obj: PoolRound | None = None,
        change: bool = False,
        **kwargs: Any,
    ) -> type[forms.ModelForm]:
        if obj is None:
            kwargs["form"] = PoolRoundAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: PoolRound | None = None) -> tuple[str, ...]:
        return self.fields if obj is not None else PoolRoundAddForm.Meta.fields

    def get_readonly_fields(
        self, request: HttpRequest, obj: PoolRound | None = None
    ) -> list[str] | tuple[str, ...]:
        return self.readonly_fields if obj is not None else []

    def get_inline_instances(self, request: HttpRequest, obj: PoolRound | None = None) -> list[Any]:
        return super().get_inline_instances(request, obj) if obj is not None else []

    def has_delete_permission(self, request: HttpRequest, obj: PoolRound | None = None) -> bool:
        return not _final(obj) and super().has_delete_permission(request, obj)

    def save_model(
        self, request: HttpRequest, obj: PoolRound, form: forms.ModelForm, change: bool
    ) -> None:
        if not change:
            adopt(obj, services.pool_round_create(pool=obj.pool, round=obj.round))


@admin.register(Fixture)
class FixtureAdmin(CheckedAutocomplete, AuditedAdmin):
    """Games of pool rounds not yet arbitrated can be changed; an arbitrated or published
    round's are shown read-only and no game can be moved into one."""

    list_display = ["pool_round", "home", "away", "label"]
    list_filter = ["pool_round__round__season", "pool_round__round__competition", "label"]
    search_fields = ["home__team__name", "away__team__name"]
    autocomplete_fields = ["home", "away"]
    # Each row names its pool round and both entries (team, division and season): one query
    # for the page, whatever the number of rows.
    list_select_related = [
        "pool_round__pool__season",
        "pool_round__round__season",
        "home__team",
        "home__division",
        "home__season",
        "away__team",
        "away__division",
        "away__season",
    ]

    def has_change_permission(self, request: HttpRequest, obj: Fixture | None = None) -> bool:
        return (obj is None or not _final(obj.pool_round)) and super().has_change_permission(
            request, obj
        )

    def has_delete_permission(self, request: HttpRequest, obj: Fixture | None = None) -> bool:
        return (obj is None or not _final(obj.pool_round)) and super().has_delete_permission(
            request, obj
        )

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField | None:
        if db_field.name == "pool_round":
            kwargs["queryset"] = PoolRound.objects.exclude(status__in=PLAYED).select_related(
                "pool", "round__season"
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(FixtureResult)
class FixtureResultAdmin(ReadOnlyAdmin):
    list_display = ["fixture", "home_goals", "away_goals", "decided", "winner", "created_at"]
    list_filter = [
        "decided",
        "fixture__pool_round__round__season",
        "fixture__pool_round__round__competition",
    ]
    search_fields = ["fixture__home__team__name", "fixture__away__team__name"]
    date_hierarchy = "created_at"
    list_select_related = [
        "fixture__home__team",
        "fixture__away__team",
        "winner__team",
        "winner__division",
        "winner__season",
    ]


@admin.register(TeamResult)
class TeamResultAdmin(ReadOnlyAdmin):
    list_display = ["pool_round", "entry", "display", "goals", "onr", "redrawn", "bonus_goal"]
    list_filter = [
        "onr",
        "redrawn",
        "bonus_goal",
        "pool_round__round__season",
        "pool_round__round__competition",
    ]
    search_fields = ["entry__team__name", "entry__team__slug"]
    list_select_related = [
        "pool_round__pool",
        "pool_round__round__season",
        "entry__team",
        "entry__division",
        "entry__season",
    ]


# --- The weekend's admin (issue 5): arbitration requests, ONR sanctions and replacements ----------


@admin.register(ArbitrationRequest)
class ArbitrationRequestAdmin(ReadOnlyAdmin):
    """The referees' requests to arbitrate, as the workers ran them (read-only: only the
    services move a request on)."""

    list_display = [
        "pool_round",
        "status",
        "refusal_code",
        "attempts",
        "asks",
        "requested_by",
        "requested_at",
        "started_at",
        "finished_at",
    ]
    list_filter = ["status", "refusal_code", "pool_round__pool__competition"]
    date_hierarchy = "requested_at"
    list_select_related = ["pool_round__pool__season", "pool_round__round__season", "requested_by"]


@admin.register(SeasonPlanDraft)
class SeasonPlanDraftAdmin(ReadOnlyAdmin):
    """The next season's plan as the admins leave it on the season desk (read-only: the desk and
    ``season_plan --draft`` change it, and a change computes the plan again)."""

    list_display = ["season", "swaps", "updated_by", "updated_at"]
    list_select_related = ["season", "updated_by"]


@admin.register(SeasonStartJob)
class SeasonStartJobAdmin(ReadOnlyAdmin):
    """Each request to start a season and how far its worker got (read-only: the desk and
    ``season_start`` queue them, the worker moves them on)."""

    list_display = [
        "id",
        "status",
        "code",
        "done",
        "total",
        "season",
        "requested_by",
        "requested_at",
        "started_at",
        "finished_at",
    ]
    list_filter = ["status"]
    date_hierarchy = "requested_at"
    list_select_related = ["season", "requested_by"]


@admin.register(OnrSanction)
class OnrSanctionAdmin(AuditedAdmin, ReadOnlyAdmin):
    """R14's sanctions, as the arbitration wrote them; at a third ONR, the proposed replacement
    an admin confirms here."""

    list_display = [
        "entry",
        "week",
        "week_onr",
        "round",
        "onr_count",
        "extra_goals_removed",
        "great_saves_removed",
        "barred_from_promotion",
        "replacement",
        "round_published",
        "replaced",
        "created_at",
    ]
    list_filter = [
        "replacement",
        "onr_count",
        "barred_from_promotion",
        "entry__season",
        "entry__division",
    ]
    search_fields = ["entry__team__name", "entry__team__slug"]
    date_hierarchy = "created_at"
    list_select_related = ["entry__team", "entry__season", "entry__division", "round__season"]
    actions = ["confirm_replacement"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[OnrSanction]:
        return onr_sanctions_publication(super().get_queryset(request))

    @admin.display(description=_("replaced"), boolean=True)
    def replaced(self, sanction: OnrSanction) -> bool:
        return sanction.entry.replaced_at is not None

    @admin.display(description=_("round published"), boolean=True)
    def round_published(self, sanction: OnrSanction) -> bool:
        """R23: a proposed replacement is confirmed once the round that found the ONR is
        published (the new team would show on the public pages at once)."""
        return bool(getattr(sanction, "published", False))

    @admin.action(description=_("Confirm the proposed replacement (R14), its round published"))
    def confirm_replacement(
        self, request: SignedInRequest, queryset: QuerySet[OnrSanction]
    ) -> None:
        for sanction in queryset.select_related("entry__team"):
            try:
                entry = services.onr_replacement_confirm(sanction=sanction, by=request.user)
            except ValidationError as error:
                self.message_user(
                    request,
                    _("%(sanction)s: %(reason)s")
                    % {"sanction": sanction, "reason": _refusal_text(error)},
                    messages.ERROR,
                )
            else:
                self.message_user(
                    request,
                    _("%(old)s is replaced by %(new)s, which keeps its record and stocks.")
                    % {"old": sanction.entry.team, "new": entry.team},
                )
