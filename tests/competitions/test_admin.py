"""The competitions in the admin: matrices (R19), pool rounds and their seed (R23), fixtures."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    Matrix,
    MatrixCell,
    Pool,
    PoolRound,
    Round,
    SeasonPlanDraft,
    SeasonStartJob,
    TeamResult,
)
from competitions.services import fixture_create, matrix_create, pool_round_create
from league.models import Entry, Season
from tests.admin_forms import errors, form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def preparing(season: Season) -> Season:
    season.status = Season.Status.PREPARING
    season.save()
    return season


def matrix_url(matrix: Matrix) -> str:
    return reverse("admin:competitions_matrix_change", args=[matrix.pk])


def cell_index(page: object, round_number: int, column: str) -> int:
    forms = page.context["inline_admin_formsets"][0].formset.forms
    return next(
        i
        for i, form in enumerate(forms)
        if (form.instance.round_number, form.instance.column) == (round_number, column)
    )


def test_adding_a_matrix_draws_every_cell(admin_client: Client, preparing: Season) -> None:
    url = reverse("admin:competitions_matrix_add")
    page = admin_client.get(url)
    response = admin_client.post(url, form_data(page, season=preparing.pk, competition="kdh"))
    assert response.status_code == 302, errors(response)
    matrix = Matrix.objects.get(competition="kdh")
    assert matrix.cells.count() == 7 * 7


def test_a_matrix_value_can_be_changed_before_the_season(
    admin_client: Client, preparing: Season
) -> None:
    matrix = matrix_create(season=preparing, competition=Competition.WG)
    page = admin_client.get(matrix_url(matrix))
    i = cell_index(page, 3, "B")
    response = admin_client.post(matrix_url(matrix), form_data(page, **{f"cells-{i}-value": 6}))
    assert response.status_code == 302, errors(response)
    assert MatrixCell.objects.get(matrix=matrix, round_number=3, column="B").value == 6


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "Ensure this value is greater than or equal to 1."),
        (7, "Ensure this value is less than or equal to 6."),
    ],
)
def test_a_matrix_value_outside_1_to_6_is_refused_and_nothing_is_saved(
    admin_client: Client, preparing: Season, value: int, message: str
) -> None:
    matrix = matrix_create(season=preparing, competition=Competition.WG)
    before = dict(matrix.cells.values_list("id", "value"))
    page = admin_client.get(matrix_url(matrix))
    bad, good = cell_index(page, 3, "B"), cell_index(page, 1, "A")
    good_cell = page.context["inline_admin_formsets"][0].formset.forms[good].instance
    response = admin_client.post(
        matrix_url(matrix),
        form_data(
            page, **{f"cells-{bad}-value": value, f"cells-{good}-value": good_cell.value % 6 + 1}
        ),
    )
    assert response.status_code == 200
    assert message in errors(response)
    assert dict(matrix.cells.values_list("id", "value")) == before


def test_a_cell_outside_the_matrix_is_refused(admin_client: Client, preparing: Season) -> None:
    matrix = matrix_create(season=preparing, competition=Competition.KDH)
    page = admin_client.get(matrix_url(matrix))
    i = cell_index(page, 1, "A")
    response = admin_client.post(matrix_url(matrix), form_data(page, **{f"cells-{i}-column": "H"}))
    assert "This matrix's columns are A to G." in errors(response)
    assert matrix.cells.filter(column="H").count() == 0


def test_a_running_seasons_matrix_is_read_only(admin_client: Client, season: Season) -> None:
    matrix = matrix_create(season=season, competition=Competition.WG)
    before = dict(matrix.cells.values_list("id", "value"))
    page = admin_client.get(matrix_url(matrix))
    assert not page.context["inline_admin_formsets"][0].has_change_permission
    admin_client.post(
        matrix_url(matrix), form_data(page, **{"cells-0-value": 6, "cells-1-value": 6})
    )
    assert dict(matrix.cells.values_list("id", "value")) == before


def test_a_new_rounds_deadline_defaults_to_the_seasons_for_its_week(
    admin_client: Client, season: Season
) -> None:
    url = reverse("admin:competitions_round_add")
    page = admin_client.get(url)
    data = form_data(
        page, season=season.pk, competition="championship", number=5, week=5, stage="regular"
    )
    response = admin_client.post(url, {**data, "deadline_0": "", "deadline_1": ""})
    assert response.status_code == 302, errors(response)
    assert Round.objects.get(number=5).deadline == season.deadline_for_week(5)


def test_adding_a_pool_round_keeps_its_seed_secret(
    admin_client: Client, elite_pool: Pool, championship_round: Round
) -> None:
    url = reverse("admin:competitions_poolround_add")
    page = admin_client.get(url)
    response = admin_client.post(
        url, form_data(page, pool=elite_pool.pk, round=championship_round.pk)
    )
    assert response.status_code == 302, errors(response)
    pool_round = PoolRound.objects.get()
    change = admin_client.get(reverse("admin:competitions_poolround_change", args=[pool_round.pk]))
    html = change.content.decode()
    assert pool_round.seed_hash in html
    assert pool_round.seed not in html
    assert "secret until published" in html


def test_a_team_twice_in_a_pool_round_is_refused(
    admin_client: Client,
    elite_pool: Pool,
    championship_round: Round,
    enter_team: Callable[..., Entry],
) -> None:
    a, b, c, d = (enter_team(n, code=i) for i, n in enumerate("ABCD", start=1))
    pool_round = pool_round_create(pool=elite_pool, round=championship_round)
    fixture_create(pool_round=pool_round, home=a, away=b)
    url = reverse("admin:competitions_poolround_change", args=[pool_round.pk])
    page = admin_client.get(url)
    data = form_data(page)
    data.update(
        {
            "fixtures-TOTAL_FORMS": "3",
            "fixtures-1-home": str(c.pk),
            "fixtures-1-away": str(d.pk),
            "fixtures-1-pool_round": str(pool_round.pk),
            "fixtures-2-home": str(d.pk),
            "fixtures-2-away": str(a.pk),
            "fixtures-2-pool_round": str(pool_round.pk),
        }
    )
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert any("plays twice in this round" in e for e in errors(response)), errors(response)
    assert Fixture.objects.count() == 1


@pytest.mark.parametrize("model", [FixtureResult, TeamResult])
def test_results_are_read_only_in_the_admin(admin_client: Client, model: type) -> None:
    name = model._meta.model_name
    assert admin_client.get(reverse(f"admin:competitions_{name}_add")).status_code == 403
    assert admin_client.get(reverse(f"admin:competitions_{name}_changelist")).status_code == 200


@pytest.mark.parametrize("model", [SeasonPlanDraft, SeasonStartJob])
def test_the_season_desks_rows_are_shown_read_only_in_the_admin(
    admin_client: Client, season: Season, model: type
) -> None:
    if model is SeasonPlanDraft:
        row = SeasonPlanDraft.objects.create(season=season, swaps=[["groggs", "snowmen"]])
    else:
        row = SeasonStartJob.objects.create(plan=None, total=3, done=1)
    name = model._meta.model_name
    assert admin_client.get(reverse(f"admin:competitions_{name}_add")).status_code == 403
    listing = admin_client.get(reverse(f"admin:competitions_{name}_changelist"))
    assert listing.status_code == 200
    change = reverse(f"admin:competitions_{name}_change", args=[row.pk])
    assert change in listing.content.decode()
    page = admin_client.get(change)
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
