"""A coach's flow on the pick page: once sent, the form shows the pick that counts, filled in;
a pick that repeats what an earlier unplayed round's pick already uses warns on its emailed
receipt too (R11); a wrong pick is told every wrong part at once, on the page and in the API."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from competitions import services
from competitions.services import StalePick
from mail.outbox import emails_send_due
from tests.competitions.open_rounds import OpenLeague, picks_sent

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


def checked(page: str, anchor: str) -> dict[str, str]:
    """The radios checked and the steppers' values of round ``anchor``'s form."""
    form = page[page.index(f'id="round-{anchor}"') :]
    form = form[: form.index("</form>")]
    found = dict(re.findall(r'name="[\w-]+-(\w+)" value="([^"]+)" data-part="\w+" checked', form))
    found.update(
        re.findall(r'name="[\w-]+-(extra_goals|great_saves)" id="[^"]+" value="(\d+)"', form)
    )
    return found


def test_after_sending_the_form_shows_the_pick_that_counts(
    league: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    browser = open_as(coach)
    assert checked(browser.get(reverse("picks")).content.decode(), "championship-3") == {
        "extra_goals": "0",
        "great_saves": "0",
    }
    url = reverse("pick_send", args=["championship", 3])
    assert browser.post(url, {"championship-3-notation": "c + # (1)"}).status_code == 302
    page = browser.get(reverse("picks")).content.decode()
    assert checked(page, "championship-3") == {
        "column": "C",
        "extra_time": "1",
        "extra_goals": "1",
        "great_saves": "1",
    }
    # The other rounds' forms stay blank until they have a pick of their own.
    assert "column" not in checked(page, "championship-4")


def test_a_pick_repeating_a_value_promised_to_an_earlier_round_warns_on_its_receipt(
    league: OpenLeague, coach: User
) -> None:
    team = league.coach_entry.team
    # R7: one use of extra-time 3 left (round 2's own pick used one), promised to round 3.
    services.pick_send(team=team, round=league.this_week, notation="C(3)", entered_by=coach)
    sent = services.pick_send(team=team, round=league.next_week, notation="C(3)", entered_by=coach)
    assert sent.stale == StalePick(column="C", round_number=3, extra_time="3")
    emails_send_due()
    first, second = sorted(mail.outbox, key=lambda email: "4" in email.subject)
    with translation.override("fr"):  # the coach's language, the league's by default
        warning = sent.stale.message
    assert "colonne C" in warning and "valeurs de prolongation 3" in warning
    assert "Attention" not in first.body
    assert f"Attention : {warning}" in second.body
    assert escape(warning) in second.alternatives[0][0]


def test_the_page_marks_the_value_the_warning_names(
    league: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    browser = open_as(coach)
    url = reverse("pick_send", args=["championship", 3])
    assert browser.post(url, {"championship-3-notation": "E(3)"}).status_code == 302
    page = browser.get(reverse("picks")).content.decode()
    card = page[page.index('id="round-championship-4"') :]
    assert re.search(r'<label class="tile tile-spoken"[^>]*><input [^>]*value="3"', card)


def test_a_wrong_pick_is_told_its_column_and_its_value_at_once_on_the_page(
    league: OpenLeague, coach: User, open_as: Callable[..., Client]
) -> None:
    browser = open_as(coach)
    url = reverse("pick_send", args=["championship", 3])
    response = browser.post(url, {"championship-3-notation": "Z++(9)"})
    assert response.status_code == 400
    page = response.content.decode()
    errors = page[page.index('id="errors-championship-3"') :]
    errors = errors[: errors.index("</div>")]
    assert "“(9)”: the extra-time value must be 0, 1, 2, 3 or X." in errors
    assert "Column Z is not played in the championship" in errors
    assert errors.count("<p>") == 2
    assert not picks_sent().exists()


def test_a_wrong_pick_is_told_every_wrong_part_in_the_api(
    league: OpenLeague, coach: User, api_as: Callable[[User | None], APIClient]
) -> None:
    client = api_as(coach)
    answer = client.put("/api/picks/championship/3/", {"pick": "Z++(9)"}, format="json")
    assert answer.status_code == 400
    body = answer.json()
    assert body["pick"] == [
        "“(9)”: the extra-time value must be 0, 1, 2, 3 or X.",
        "Column Z is not played in the championship: its columns are A to K.",
    ]
    assert [(f["code"], f["fault"]) for f in body["faults"]] == [
        ("notation", "extra_time_value"),
        ("not_allowed", "column"),
    ]
    assert body["faults"][0]["part"] == "(9)" and body["faults"][1]["column"] == "Z"
    # A pick that reads but breaks several rules of its competition: each said.
    answer = client.put("/api/picks/kdh/1/", {"pick": "Z#(3)"}, format="json")
    assert [f["fault"] for f in answer.json()["faults"]] == [
        "column",
        "great_saves",
        "extra_time",
        "shootout_missing",
    ]
    assert not picks_sent().exists()
