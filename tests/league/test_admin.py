"""The league in the admin, signed in as the league admin: bad input is refused with a message
and nothing is saved; histories are read-only; only staff get in."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from competitions.models import Pick, Round, StockMovement
from competitions.services import pick_record
from league.models import DIVISION_SIZE, AuditLog, Division, Entry, Season, Team
from league.services import audit_record
from matrixhockey.admin import ReadOnlyAdmin
from tests.admin_forms import errors, form_data

pytestmark = pytest.mark.django_db


def add_url(model: type) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")


def change_url(obj: object) -> str:
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])


def test_every_admin_list_and_form_opens(
    admin_client: Client, coach: User, championship_round: Round, referee: User
) -> None:
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        if meta.app_label not in ("league", "competitions"):
            continue
        listing = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        assert admin_client.get(listing).status_code == 200, listing
        adding = reverse(f"admin:{meta.app_label}_{meta.model_name}_add")
        expected = 403 if isinstance(model_admin, ReadOnlyAdmin) else 200
        assert admin_client.get(adding).status_code == expected, adding
        for row in model.objects.all()[:3]:
            assert admin_client.get(change_url(row)).status_code == 200, change_url(row)


@pytest.mark.parametrize("who", ["coach", "referee", "visitor"])
def test_only_staff_get_into_the_admin(
    client: Client, request: pytest.FixtureRequest, who: str
) -> None:
    client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("admin:competitions_pick_changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_a_second_team_for_the_same_coach_is_refused(admin_client: Client, coach: User) -> None:
    page = admin_client.get(add_url(Team))
    response = admin_client.post(
        add_url(Team), form_data(page, name="Second Team", slug="second-team", coach=coach.pk)
    )
    assert response.status_code == 200
    assert "This user already coaches another team." in errors(response)
    assert not Team.objects.filter(slug="second-team").exists()


def test_a_new_entry_opens_its_stock_ledger(
    admin_client: Client, season: Season, divisions: dict[str, Division], admin_user: User
) -> None:
    team = Team.objects.create(slug="snowmen", name="Snowmen")
    page = admin_client.get(add_url(Entry))
    response = admin_client.post(
        add_url(Entry),
        form_data(
            page,
            season=season.pk,
            team=team.pk,
            division=divisions["d3a"].pk,
            code=4,
            starting_extra_goals=5,
            starting_great_saves=3,
        ),
    )
    assert response.status_code == 302, errors(response)
    entry = Entry.objects.get(team=team)
    assert (entry.code, entry.extra_goals, entry.great_saves) == (4, 5, 3)
    assert set(entry.movements.values_list("reason", "created_by")) == {
        ("season_start", admin_user.pk)
    }


def _post_entry(
    client: Client, season: Season, division: Division, code: int, name: str = "Thirteenth"
) -> object:
    team = Team.objects.create(slug=name.lower(), name=name)
    page = client.get(add_url(Entry))
    return client.post(
        add_url(Entry),
        form_data(page, season=season.pk, team=team.pk, division=division.pk, code=code),
    )


def test_a_thirteenth_team_in_a_division_is_refused(
    admin_client: Client,
    fill_division: Callable[..., list[Entry]],
    season: Season,
    divisions: dict[str, Division],
) -> None:
    fill_division(DIVISION_SIZE)
    response = _post_entry(admin_client, season, divisions["elite"], code=12)
    assert response.status_code == 200
    assert "Elite already has 12 teams this season." in errors(response)
    assert Entry.objects.filter(division=divisions["elite"]).count() == DIVISION_SIZE
    assert not StockMovement.objects.filter(entry__team__slug="thirteenth").exists()


def test_a_duplicate_code_is_refused(
    admin_client: Client,
    enter_team: Callable[..., Entry],
    season: Season,
    divisions: dict[str, Division],
) -> None:
    enter_team("Sleigh Dogs", code=7)
    response = _post_entry(admin_client, season, divisions["elite"], code=7, name="Snowmen")
    assert "Code 07 is already Sleigh Dogs's in Elite." in errors(response)
    assert not Entry.objects.filter(team__slug="snowmen").exists()


def test_a_code_outside_01_to_12_is_refused(
    admin_client: Client, season: Season, divisions: dict[str, Division]
) -> None:
    response = _post_entry(admin_client, season, divisions["elite"], code=13)
    assert "Ensure this value is less than or equal to 12." in errors(response)
    assert not Entry.objects.exists()


def test_stocks_are_not_edited_in_the_entry_form(admin_client: Client, coach: User) -> None:
    entry = Entry.objects.get(team__coach=coach)
    page = admin_client.get(change_url(entry))
    form = page.context["adminform"].form
    assert "extra_goals" not in form.fields and "great_saves" not in form.fields
    response = admin_client.post(change_url(entry), form_data(page, extra_goals=99))
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.extra_goals == 3


def stock_url(entry: Entry) -> str:
    return reverse("admin:league_entry_stock", args=[entry.pk])


def test_an_admin_moves_a_stock_with_a_reason(
    admin_client: Client, coach: User, admin_user: User
) -> None:
    entry = Entry.objects.get(team__coach=coach)
    response = admin_client.post(
        stock_url(entry),
        {"kind": "extra_goals", "delta": "-2", "reason": "admin", "note": "double entry"},
    )
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.extra_goals == 1
    movement = entry.movements.get(reason="admin")
    assert (movement.delta, movement.note, movement.created_by) == (-2, "double entry", admin_user)


def test_a_stock_below_zero_is_refused_with_a_message(admin_client: Client, coach: User) -> None:
    entry = Entry.objects.get(team__coach=coach)
    before = entry.movements.count()
    response = admin_client.post(
        stock_url(entry), {"kind": "extra_goals", "delta": "-4", "reason": "admin", "note": "x"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["delta"] == [
        "Sleigh Dogs has 3 extra goals: -4 would leave -1."
    ]
    entry.refresh_from_db()
    assert entry.extra_goals == 3
    assert entry.movements.count() == before


def test_a_stock_movement_needs_a_change_and_a_note(admin_client: Client, coach: User) -> None:
    entry = Entry.objects.get(team__coach=coach)
    response = admin_client.post(
        stock_url(entry), {"kind": "great_saves", "delta": "0", "reason": "admin", "note": ""}
    )
    assert set(response.context["form"].errors) == {"delta", "note"}
    assert not entry.movements.filter(reason="admin").exists()


def test_a_second_current_season_is_refused(admin_client: Client, season: Season) -> None:
    other = Season.objects.create(number=2, starts_on=season.starts_on.replace(year=2027, day=1))
    page = admin_client.get(change_url(other))
    response = admin_client.post(change_url(other), form_data(page, is_current="on"))
    assert response.status_code == 200
    assert "Another season is already the current one." in errors(response)
    other.refresh_from_db()
    assert not other.is_current


def test_the_make_current_action_switches_the_current_season(
    admin_client: Client, season: Season
) -> None:
    other = Season.objects.create(number=2, starts_on=season.starts_on.replace(year=2027, day=1))
    admin_client.post(
        reverse("admin:league_season_changelist"),
        {"action": "make_current", "_selected_action": [other.pk]},
    )
    assert Season.objects.get(is_current=True) == other


@pytest.fixture
def history(coach: User, championship_round: Round, admin_user: User) -> list[object]:
    entry = Entry.objects.get(team__coach=coach)
    pick = pick_record(
        entry=entry, round=championship_round, notation="F+(2)", normalized="F+(2)", channel="web"
    )
    log = audit_record(actor=admin_user, action="test", obj=entry, payload={"a": 1})
    return [pick, entry.movements.first(), log]


@pytest.mark.parametrize("model", [Pick, StockMovement, AuditLog])
def test_histories_are_read_only_in_the_admin(
    admin_client: Client, history: list[object], model: type
) -> None:
    row = next(obj for obj in history if isinstance(obj, model))
    meta = model._meta
    assert admin_client.get(add_url(model)).status_code == 403
    view = admin_client.get(change_url(row))
    assert view.status_code == 200 and not view.context["has_change_permission"]
    assert admin_client.post(change_url(row), {}).status_code == 403
    delete = reverse(f"admin:{meta.app_label}_{meta.model_name}_delete", args=[row.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=row.pk).exists()


def test_the_french_admin_says_modifier_not_the_site_s_own_words(
    admin_client: Client, coach: User
) -> None:
    admin_client.cookies["django_language"] = "fr"
    index = admin_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="fr").text
    assert '<html lang="fr"' in index
    # Django's own French for the link (its admin catalogue says « Modification »).
    links = set(re.findall(r'class="changelink"[^>]*>([^<]+)</a>', index))
    assert links and links <= {"Modifier", "Modification"}, links
    assert "Variation" not in index
    team = reverse("admin:league_team_changelist")
    assert "Variation" not in admin_client.get(team, HTTP_ACCEPT_LANGUAGE="fr").text
