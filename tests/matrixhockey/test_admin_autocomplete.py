"""The admin's autocomplete fields take any value without a server error: a value that names no
row (``?coach=abc`` on an add page, a forged POST to a change form or its inlines) shows as no
choice, and the form says what is wrong (``matrixhockey.admin.CheckedAutocompleteSelect``)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.admin.options import InlineModelAdmin
from django.test import Client
from django.urls import reverse

from competitions import services
from competitions.models import PoolRound
from matrixhockey.admin import CheckedAutocomplete

pytestmark = pytest.mark.django_db

NO_ROWS = ["abc", "99999999999999999999999", "-1", "1.5", "\u00e9"]


def _autocompleted() -> list[tuple[str, str]]:
    """(add page's URL, field) for every registered admin with autocomplete fields."""
    found = []
    for model, model_admin in admin.site._registry.items():
        for field in model_admin.autocomplete_fields:
            opts = model._meta
            found.append((reverse(f"admin:{opts.app_label}_{opts.model_name}_add"), field))
    return found


def test_every_admin_with_autocomplete_fields_is_checked() -> None:
    """Each admin and inline naming ``autocomplete_fields`` uses the checked widget."""
    unchecked = []
    for model_admin in admin.site._registry.values():
        inlines: list[type[InlineModelAdmin]] = list(model_admin.inlines)
        for admin_class in [type(model_admin), *inlines]:
            if admin_class.autocomplete_fields and not issubclass(admin_class, CheckedAutocomplete):
                unchecked.append(admin_class.__name__)
    assert unchecked == []


@pytest.mark.parametrize(("url", "field"), _autocompleted())
@pytest.mark.parametrize("value", NO_ROWS)
def test_an_add_page_given_a_value_that_names_no_row_answers(
    admin_client: Client, url: str, field: str, value: str
) -> None:
    response = admin_client.get(url, {field: value})
    assert response.status_code == 200


def test_a_forged_post_to_a_team_answers_with_the_form_s_error(admin_client: Client) -> None:
    response = admin_client.post(
        reverse("admin:league_team_add"), {"name": "X", "slug": "x", "coach": "abc"}
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["coach"]


def test_a_forged_post_to_a_pool_round_s_fixtures_answers_with_the_form_s_error(
    admin_client: Client, elite_pool: object, championship_round: object
) -> None:
    pool_round = services.pool_round_create(pool=elite_pool, round=championship_round)
    assert isinstance(pool_round, PoolRound)
    url = reverse("admin:competitions_poolround_change", args=[pool_round.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    prefix = next(
        formset.formset.prefix
        for formset in page.context["inline_admin_formsets"]
        if "home" in formset.formset.form.base_fields
    )
    data = {
        f"{prefix}-TOTAL_FORMS": "1",
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-0-home": "abc",
        f"{prefix}-0-away": "99999999999999999999999",
        f"{prefix}-0-label": "",
    }
    for form in page.context["adminform"].form.visible_fields():
        value = form.value()
        if value is not None:
            data.setdefault(form.html_name, value)
    response = admin_client.post(url, data)
    assert response.status_code == 200
