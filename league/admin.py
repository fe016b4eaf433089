"""The registry in the admin: seasons, divisions, teams, the waiting list, profiles and the
(read-only) audit log.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import Model, QuerySet
from django.forms import ModelForm, ValidationError
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from league import services
from league.audit_admin import AuditedAdmin
from league.audit_display import entry_lines, entry_summary
from league.models import (
    BUILT_IN_RULINGS,
    AuditLog,
    Division,
    News,
    Profile,
    Ruling,
    Season,
    Team,
    WaitingListEntry,
)
from league.public_cache import public_version_bump
from league.services.audit import (
    VIA_ADMIN,
    VIA_COMMAND,
    VIA_DESK,
    audit_change,
    audit_via,
    snapshot,
)
from league.signals import plan_inputs_changed
from matrixhockey.admin import CheckedAutocomplete, ReadOnlyAdmin
from matrixhockey.http import SignedInRequest, signed_in_user


class PublicPagesChange(AuditedAdmin):
    """An admin whose rows public pages show (the home page's news, the rulings page): a kept
    copy of those pages must not outlive a change (league.public_cache). Each bump runs inside
    the admin's transaction."""

    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        public_version_bump()

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        super().delete_model(request, obj)
        public_version_bump()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Model]) -> None:
        super().delete_queryset(request, queryset)
        public_version_bump()


class PlanInputsChange(AuditedAdmin):
    """An admin of rows the next season's plan is computed from (the teams, the waiting list):
    a change asks the competitions to store the plan again, inside the admin's transaction
    (``league.signals.plan_inputs_changed``)."""

    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        plan_inputs_changed.send(sender=type(obj))

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        super().delete_model(request, obj)
        plan_inputs_changed.send(sender=type(obj))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Model]) -> None:
        super().delete_queryset(request, queryset)
        plan_inputs_changed.send(sender=queryset.model)


@admin.register(Season)
class SeasonAdmin(AuditedAdmin):
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
        season = services.season_make_current(season=queryset.get(), by=signed_in_user(request))
        self.message_user(request, _("%(season)s is now the current season.") % {"season": season})


@admin.register(Division)
class DivisionAdmin(AuditedAdmin):
    list_display = ["name", "slug", "tier", "group"]
    list_filter = ["tier"]
    search_fields = ["name", "slug"]


class TeamAdminForm(ModelForm):
    """A team in the admin: its deputy coaches no team and deputises no other, refused
    in the words the coach's own form uses."""

    class Meta:
        model = Team
        fields = "__all__"

    def clean_deputy(self) -> User | None:
        deputy: User | None = self.cleaned_data.get("deputy")
        if deputy is not None:
            try:
                services.team_deputy_check(team=self.instance, deputy=deputy)
            except services.DeputyRefused as refusal:
                raise ValidationError(str(refusal), code="deputy_refused") from refusal
        return deputy


@admin.register(Team)
class TeamAdmin(CheckedAutocomplete, PlanInputsChange):
    """A team; a coach chosen here stops deputising another team, in the same
    transaction, and that team's coach is told (``coach_deputyship_end``)."""

    form = TeamAdminForm
    list_display = ["name", "slug", "coach", "is_dummy", "created_at"]
    list_filter = ["is_dummy"]
    search_fields = ["name", "slug", "coach__username", "coach__email"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["coach"]
    date_hierarchy = "created_at"
    list_select_related = ["coach"]

    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        assert isinstance(obj, Team)  # this admin's model
        if obj.coach is not None and "coach" in form.changed_data:
            services.coach_deputyship_end(coach=obj.coach, team=obj, by=signed_in_user(request))


@admin.register(WaitingListEntry)
class WaitingListEntryAdmin(CheckedAutocomplete, PlanInputsChange):
    list_display = ["name", "contact_name", "email", "language", "registered_at", "status", "team"]
    list_filter = ["status", "language"]
    search_fields = ["name", "contact_name", "email", "user__username"]
    readonly_fields = ["confirmed_at"]
    date_hierarchy = "registered_at"
    autocomplete_fields = ["user", "team"]


class AuditViaFilter(admin.SimpleListFilter):
    """Where a change came from: the admin, the season desk or a management command."""

    title = _("via")
    parameter_name = "via"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [
            (VIA_ADMIN, str(_("the admin"))),
            (VIA_DESK, str(_("the season desk"))),
            (VIA_COMMAND, str(_("a command"))),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[AuditLog]) -> QuerySet[AuditLog]:
        value = self.value()
        return queryset.filter(payload__via=value) if value else queryset


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    """The league's whole history, readable: who, when, what and each change before → after;
    filtered by season, kind, origin, person and date (« History » on an object's page shows
    its own entries)."""

    list_display = ["at", "actor_or_command", "kind", "season_number", "object_link", "summary"]
    list_filter = [
        "season_number",
        "kind",
        AuditViaFilter,
        ("actor", admin.RelatedOnlyFieldListFilter),
        "action",
    ]
    search_fields = ["action", "object_repr", "actor__username"]
    date_hierarchy = "at"
    list_select_related = ["actor", "content_type"]
    list_per_page = 50
    fields = readonly_fields = (
        "at",
        "actor_or_command",
        "action",
        "kind",
        "season_number",
        "object_link",
        "changes",
    )

    @admin.display(description=_("by"), ordering="actor__username")
    def actor_or_command(self, entry: AuditLog) -> str:
        if entry.actor is not None:
            return entry.actor.get_username()
        command = entry.payload.get("command") if isinstance(entry.payload, dict) else None
        return str(command or _("the site"))

    @admin.display(description=_("object"))
    def object_link(self, entry: AuditLog) -> str:
        kind = entry.content_type
        model = kind.model_class() if kind is not None else None
        label = f"{kind.name}: {entry.object_repr}" if kind and model else entry.object_repr
        if model is None or not self.admin_site.is_registered(model) or not entry.object_id:
            return label
        opts = model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_history", args=[entry.object_id])
        return format_html('<a href="{}">{}</a>', url, label)

    @admin.display(description=_("changes"))
    def summary(self, entry: AuditLog) -> str:
        return entry_summary(entry)

    @admin.display(description=_("changes"))
    def changes(self, entry: AuditLog) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((line.label, line.before, line.after) for line in entry_lines(entry)),
        )
        return format_html(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            _("What"),
            _("Before"),
            _("After"),
            rows,
        )


class AuditedUserAdmin(AuditedAdmin, UserAdmin):
    """People's accounts, as Django's own admin edits them, on the record too (a password
    change as a mark, never its hash)."""

    def user_change_password(
        self, request: HttpRequest, id: str, form_url: str = ""
    ) -> HttpResponse:
        user = self.get_object(request, id)
        before = None if user is None else snapshot(user, ["password"])
        with audit_via(VIA_ADMIN):
            response = super().user_change_password(request, id, form_url)
        if user is not None and before is not None:
            user.refresh_from_db(fields=["password"])
            audit_change(
                actor=signed_in_user(request),
                obj=user,
                before=before,
                after=snapshot(user, ["password"]),
            )
        return response


admin.site.unregister(User)
admin.site.register(User, AuditedUserAdmin)


@admin.register(Profile)
class ProfileAdmin(CheckedAutocomplete, AuditedAdmin):
    # Issue 25: staff see here whose coach's page is hidden (the page itself is a 404 to them).
    list_display = ["user", "language", "career_public"]
    list_filter = ["language", "career_public"]
    search_fields = ["user__username", "user__email"]
    autocomplete_fields = ["user"]


@admin.register(News)
class NewsAdmin(PublicPagesChange):
    """The league's announcements, in French and English; « Email it now » sends one to every
    coach (who wants news), once."""

    list_display = ["title_fr", "title_en", "published_at", "emailed_at"]
    search_fields = ["title_fr", "title_en"]
    date_hierarchy = "published_at"
    readonly_fields = ["emailed_at"]
    actions = ["email_now"]

    @admin.action(description=_("Email the selected news to every coach now"))
    def email_now(self, request: SignedInRequest, queryset: QuerySet[News]) -> None:
        for news in queryset:
            try:
                services.news_email_request(news=news, by=request.user)
            except services.NewsNotReady:
                self.message_user(
                    request,
                    _("“%(title)s” is not published yet, or was emailed already.")
                    % {"title": news},
                    messages.WARNING,
                )
            else:
                self.message_user(
                    request,
                    _("“%(title)s” is being emailed to every coach.") % {"title": news},
                )


class RulingForm(ModelForm):
    """A clarification names an R-number that exists: R1–R25, or a ruling added before."""

    class Meta:
        model = Ruling
        fields = ["number", "kind", "season", "title_fr", "title_en", "text_fr", "text_en"]

    def clean(self) -> dict[str, object]:
        super().clean()
        data = self.cleaned_data
        number, kind = data.get("number"), data.get("kind")
        clarifying = kind == Ruling.Kind.CLARIFICATION
        if clarifying and isinstance(number, int) and number > BUILT_IN_RULINGS:
            added = Ruling.objects.filter(kind=Ruling.Kind.RULING, number=number)
            if not added.exists():
                raise ValidationError(
                    {"number": _("There is no ruling R%(number)d to clarify.") % {"number": number}}
                )
        return data


@admin.register(Ruling)
class RulingAdmin(PublicPagesChange):
    """The rulings and clarifications the league adds to the rules (the rulings page shows them,
    newest first, with the season each takes effect in); R1–R25 are the rulebook's."""

    form = RulingForm
    list_display = ["number", "kind", "title_en", "title_fr", "season", "created_at"]
    list_filter = ["kind", "season"]
    list_select_related = ["season"]
    search_fields = ["=number", "title_fr", "title_en"]
    readonly_fields = ["created_at"]
