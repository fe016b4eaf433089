"""Issue 22: every admin edit is on the record, with who, when, where from, and each changed
field before and after; an object's « History » page and the league's history show them,
readable, filtered by season and kind."""

from __future__ import annotations

from datetime import date, time

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client, RequestFactory
from django.urls import reverse

from competitions.models import Competition, Matrix, MatrixCell
from competitions.services import matrix_create
from competitions.services.withdrawal import entry_withdraw
from league import services as league
from league.audit_admin import AuditedAdmin
from league.models import AuditLog, Division, Entry, News, Season, Team
from league.services.audit import audit_via
from tests.admin_forms import form_data
from tests.conftest import TeamMaker

pytestmark = pytest.mark.django_db


def change_url(obj: object) -> str:
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])


def history_url(obj: object) -> str:
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_history", args=[obj.pk])


def edit(client: Client, obj: object, **changes: object) -> None:
    page = client.get(change_url(obj))
    response = client.post(change_url(obj), form_data(page, **changes))
    assert response.status_code == 302, response.context and response.context.get("errors")


def changes_of(entry: AuditLog) -> dict[str, tuple[object, object]]:
    return {c["field"]: (c["before"], c["after"]) for c in entry.payload["changes"]}


def test_a_teams_coach_and_deputy_changed_in_the_admin_are_recorded_before_and_after(
    admin_client: Client, admin_user: User, coach: User, season: Season
) -> None:
    team = Team.objects.get(coach=coach)
    helper = User.objects.create_user("helper")
    newcomer = User.objects.create_user("newcomer")

    edit(admin_client, team, coach=newcomer.pk, deputy=helper.pk, name="Sleigh Dogs II")

    entry = AuditLog.objects.get(action="team_change")
    assert (entry.actor, entry.kind, entry.season_number) == (admin_user, "team", season.number)
    assert entry.payload["via"] == "admin"
    assert changes_of(entry) == {
        "name": ("Sleigh Dogs", "Sleigh Dogs II"),
        "coach": (
            {"row_id": coach.pk, "str": "sleigh-coach"},
            {"row_id": newcomer.pk, "str": "newcomer"},
        ),
        "deputy": (None, {"row_id": helper.pk, "str": "helper"}),
    }


def test_an_entrys_onr_count_promotion_bar_division_and_code_are_recorded(
    admin_client: Client, enter_team: TeamMaker, divisions: dict[str, Division]
) -> None:
    entry = enter_team("Snowmen", code=4)

    edit(
        admin_client,
        entry,
        onr_count=2,
        promotion_barred="on",
        division=divisions["d2a"].pk,
        code=7,
    )

    logged = AuditLog.objects.get(action="entry_change")
    assert logged.kind == "entry" and logged.object_id == str(entry.pk)
    elite, d2a = divisions["elite"], divisions["d2a"]
    assert changes_of(logged) == {
        "onr_count": (0, 2),
        "promotion_barred": (False, True),
        "division": ({"row_id": elite.pk, "str": str(elite)}, {"row_id": d2a.pk, "str": str(d2a)}),
        "code": (4, 7),
    }


def test_an_edit_that_changes_nothing_is_not_recorded(
    admin_client: Client, enter_team: TeamMaker
) -> None:
    entry = enter_team("Snowmen", code=4)
    edit(admin_client, entry)
    assert not AuditLog.objects.filter(action="entry_change").exists()


def test_a_seasons_settings_are_recorded_and_its_secret_seed_never(
    admin_client: Client, season: Season
) -> None:
    edit(admin_client, season, deadline_time="18:30:00", name="Saison 2026 bis")

    logged = AuditLog.objects.get(action="season_change", payload__via="admin")
    assert (logged.kind, logged.season_number) == ("season", 1)
    assert changes_of(logged) == {
        "name": ("Saison 2026", "Saison 2026 bis"),
        "deadline_time": (str(time(17, 0)), str(time(18, 30))),
    }
    assert season.seed not in str(AuditLog.objects.values_list("payload", flat=True))


def test_a_matrix_cell_changed_before_the_start_is_recorded_with_its_row(
    admin_client: Client, season: Season
) -> None:
    Season.objects.filter(pk=season.pk).update(status=Season.Status.PREPARING)
    matrix = matrix_create(season=season, competition=Competition.WG)
    cell = MatrixCell.objects.get(matrix=matrix, round_number=3, column="B")
    page = admin_client.get(change_url(matrix))
    forms = page.context["inline_admin_formsets"][0].formset.forms
    index = next(i for i, form in enumerate(forms) if form.instance.pk == cell.pk)
    new = 1 if cell.value != 1 else 2

    admin_client.post(change_url(matrix), form_data(page, **{f"cells-{index}-value": new}))

    logged = AuditLog.objects.get(action="matrix_change")
    assert (logged.kind, logged.season_number) == ("matrix", season.number)
    [change] = logged.payload["changes"]
    assert change["model"] == "competitions.matrixcell" and change["row_id"] == cell.pk
    assert (change["field"], change["before"], change["after"]) == ("value", cell.value, new)


def test_an_account_changed_in_the_admin_is_recorded_without_its_password(
    admin_client: Client, coach: User
) -> None:
    old_hash = coach.password
    edit(admin_client, coach, email="sleigh@example.net", is_staff="on")
    url = reverse("admin:auth_user_password_change", args=[coach.pk])
    admin_client.post(url, {"password1": "Another-Pass-42", "password2": "Another-Pass-42"})

    edited, password = AuditLog.objects.filter(action="user_change").order_by("id")
    assert (edited.kind, password.kind) == ("account", "account")
    assert changes_of(edited)["email"] == ("sleigh-coach@example.org", "sleigh@example.net")
    assert changes_of(edited)["is_staff"] == (False, True)
    assert list(changes_of(password)) == ["password"]
    stored = str(list(AuditLog.objects.values_list("payload", flat=True)))
    assert old_hash not in stored and User.objects.get(pk=coach.pk).password not in stored


def test_a_row_deleted_in_the_admin_is_recorded_as_it_was(
    admin_client: Client, admin_user: User
) -> None:
    news = News.objects.create(title_fr="Bienvenue", title_en="Welcome", body_fr="…", body_en="…")
    url = reverse("admin:league_news_delete", args=[news.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302

    logged = AuditLog.objects.get(action="news_delete")
    assert (logged.actor, logged.kind, logged.object_repr) == (admin_user, "news", str(news))
    assert changes_of(logged)["title_en"] == ("Welcome", None)


def test_a_rows_added_in_the_admin_are_recorded_with_their_values(
    admin_client: Client, season: Season
) -> None:
    page = admin_client.get(reverse("admin:league_division_add"))
    admin_client.post(
        reverse("admin:league_division_add"),
        form_data(page, slug="d3a", name="D3A", tier=3, group="A"),
    )
    logged = AuditLog.objects.get(action="division_add")
    assert changes_of(logged)["name"] == (None, "D3A")


def test_the_season_made_current_by_the_admins_action_is_recorded(
    admin_client: Client, admin_user: User, season: Season
) -> None:
    following = league.season_create(number=2, starts_on=date(2026, 9, 7))
    admin_client.post(
        reverse("admin:league_season_changelist"),
        {"action": "make_current", "_selected_action": [following.pk]},
    )
    made = AuditLog.objects.get(action="season_change", object_id=str(following.pk))
    assert made.actor == admin_user and made.payload["via"] == "admin"
    assert changes_of(made) == {"is_current": (False, True)}
    assert AuditLog.objects.filter(action="season_change", object_id=str(season.pk)).exists()


def test_a_withdrawal_from_the_desk_is_recorded_with_where_it_came_from(
    enter_team: TeamMaker, season: Season
) -> None:
    entry = enter_team("Snowmen", code=4)
    Season.objects.filter(pk=season.pk).update(status=Season.Status.FINISHED)
    desk = Client(headers={"Accept-Language": "en"})
    staff = User.objects.create_user("desk-admin", is_staff=True)
    desk.force_login(staff)

    desk.post(reverse("season_desk_withdraw"), {"entry": entry.pk, "confirm": "1"})

    logged = AuditLog.objects.get(action="entry_withdraw")
    assert (logged.actor, logged.kind, logged.payload["via"]) == (staff, "withdrawal", "desk")
    assert changes_of(logged) == {"withdrawn": (False, True)}


def test_a_service_called_by_a_command_names_it(enter_team: TeamMaker, season: Season) -> None:
    entry = enter_team("Snowmen", code=4)
    Season.objects.filter(pk=season.pk).update(status=Season.Status.FINISHED)
    with audit_via("command", "some_command"):
        entry_withdraw(entry=entry, by=None)
    logged = AuditLog.objects.get(action="entry_withdraw")
    assert logged.actor is None
    assert (logged.payload["via"], logged.payload["command"]) == ("command", "some_command")


# --- The history pages ------------------------------------------------------------------------


def test_an_objects_history_page_shows_its_changes_before_and_after_in_both_languages(
    admin_client: Client, enter_team: TeamMaker
) -> None:
    entry = enter_team("Snowmen", code=4)
    edit(admin_client, entry, onr_count=2)

    english = admin_client.get(history_url(entry), headers={"Accept-Language": "en"})
    html = english.content.decode()
    assert english.status_code == 200
    assert "ONR count" in html and "entry_change" in html and ">admin<" in html
    row = html[html.index("ONR count") :]
    assert row.index(">0<") < row.index(">2<")  # before, then after

    french = admin_client.get(history_url(entry), headers={"Accept-Language": "fr"})
    assert "nombre d’ONR" in french.content.decode()
    assert "Historique" in french.content.decode()


def test_the_leagues_history_filters_by_season_and_kind(
    admin_client: Client, enter_team: TeamMaker, season: Season
) -> None:
    entry = enter_team("Snowmen", code=4)
    edit(admin_client, entry, onr_count=1)
    edit(admin_client, entry.team, name="Snowmen II")
    later = league.season_create(number=2, starts_on=date(2026, 9, 7))
    edit(admin_client, later, name="Saison 2027")
    url = reverse("admin:league_auditlog_changelist")

    def listed(**query: object) -> set[str]:
        page = admin_client.get(url, {**query, "via": "admin"})
        assert page.status_code == 200
        return {row.object_repr for row in page.context["cl"].result_list}

    assert {str(entry), "Snowmen II", "Saison 2027"} <= listed()
    assert listed(kind="entry") == {str(entry)}
    assert listed(kind="team", season_number=1) == {"Snowmen II"}
    assert listed(season_number=1, kind="season") == set()
    assert listed(season_number=2, kind="season") == {"Saison 2027"}
    page = admin_client.get(url, {"kind": "entry"}).content.decode()
    assert "ONR count: 0 → 1" in page
    assert history_url(entry) in page


def test_the_leagues_history_is_paginated(admin_client: Client, enter_team: TeamMaker) -> None:
    entry = enter_team("Snowmen", code=4)
    for count in range(1, 53):
        league.audit_record(actor=None, action="test", obj=entry, payload={"n": count})
    page = admin_client.get(reverse("admin:league_auditlog_changelist"), {"action": "test"})
    assert len(page.context["cl"].result_list) == 50
    assert page.context["cl"].result_count == 52


def test_a_history_entry_is_shown_alone_as_a_table_and_stays_read_only(
    admin_client: Client, enter_team: TeamMaker
) -> None:
    entry = enter_team("Snowmen", code=4)
    edit(admin_client, entry, onr_count=3)
    logged = AuditLog.objects.get(action="entry_change")
    page = admin_client.get(change_url(logged)).content.decode()
    assert "<td>ONR count</td><td>0</td><td>3</td>" in page
    assert admin_client.post(change_url(logged), {}).status_code == 403


# --- No admin slips by ------------------------------------------------------------------------


def test_every_league_and_competitions_admin_that_can_write_is_audited(admin_user: User) -> None:
    request = RequestFactory().get("/admin/")
    request.user = admin_user
    writers = []
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in ("league", "competitions"):
            continue
        writes = (
            model_admin.has_add_permission(request)
            or model_admin.has_change_permission(request)
            or model_admin.has_delete_permission(request)
            or bool(model_admin.get_actions(request).keys() - {"delete_selected"})
        )
        if writes:
            writers.append(model)
            assert isinstance(model_admin, AuditedAdmin), f"{model._meta.label} is not audited"
    assert {Team, Entry, Season, Matrix} <= set(writers)
