"""Every refusal is a code worded from one table (``services.errors.MESSAGES``), in the reader's
language: each notation fault (R10) on the pick form and the API, and nothing decides on a
message's words."""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.functional import lazy
from rest_framework.test import APIClient

import league.services as league_services
from competitions import services
from competitions.models import Round
from competitions.services import errors
from engine import NotationFault, Refusal
from engine.season_plan import PlanFault
from tests.competitions.open_rounds import OpenLeague, picks_sent

pytestmark = pytest.mark.django_db

NOTATION_CASES = [
    (
        "+(2)",
        NotationFault.NO_COLUMN,
        "“+”: a pick starts with its column, a letter, e.g. F+(2).",
        "« + » : un ordre commence par sa colonne, une lettre, par exemple F+(2).",
    ),
    (
        "FF(2)",
        NotationFault.COLUMN,
        "“FF”: the column is a single letter, e.g. F+(2).",
        "« FF » : la colonne est une seule lettre, par exemple F+(2).",
    ),
    (
        "F+",
        NotationFault.EXTRA_TIME_MISSING,
        "“F+”: the extra-time value is missing, in brackets: F+(2).",
        "« F+ » : il manque la valeur de prolongation, entre parenthèses : F+(2).",
    ),
    (
        "F-(2)",
        NotationFault.UNKNOWN_CHARACTER,
        "“-” is not part of a pick: extra goals are +, great saves are #, values go in brackets.",
        "« - » ne fait pas partie d’un ordre : les extra-buts s’écrivent +, les super-arrêts #, "
        "les valeurs entre parenthèses.",
    ),
    (
        "F(2",
        NotationFault.UNCLOSED,
        "“(2”: a bracket is not closed.",
        "« (2 » : une parenthèse n’est pas fermée.",
    ),
    (
        "F(1)(2)(3)",
        NotationFault.TOO_MANY_VALUES,
        "“(3)”: too many values in brackets; a pick has its extra-time value and, in the KDH "
        "only, its shootout value.",
        "« (3) » : trop de valeurs entre parenthèses ; un ordre a sa valeur de prolongation et, "
        "en KDH seulement, sa valeur de tirs au but.",
    ),
    (
        "F(7)",
        NotationFault.EXTRA_TIME_VALUE,
        "“(7)”: the extra-time value must be 0, 1, 2, 3 or X.",
        "« (7) » : la valeur de prolongation doit être 0, 1, 2, 3 ou X.",
    ),
    (
        "F(1)(9)",
        NotationFault.SHOOTOUT_VALUE,
        "“(9)”: the shootout value must be 0, 1, 2, 3, 4, 5 or X.",
        "« (9) » : la valeur de tirs au but doit être 0, 1, 2, 3, 4, 5 ou X.",
    ),
]
"""A pick for each notation fault a coach can send, with its message worked out by hand in
English and in French (the faults of a pick built in code, extra goals and great saves that are
no whole number, cannot be typed)."""

IDS = [fault.value for _text, fault, _en, _fr in NOTATION_CASES]


# --- The table ----------------------------------------------------------------------------------


def placeholders(message: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)s", message))


def said(code: errors.Code) -> str:
    """``code``'s message in the active language; a plural one (counted by its ``asked``) said
    of two."""
    message = errors.MESSAGES[code]
    return str(message) or str(message % {"asked": 2, "have": 1})


def test_every_code_has_its_message_in_french_and_in_english() -> None:
    codes = [*NotationFault, *Refusal, *errors.PickFault, *PlanFault, *errors.REFUSALS.values()]
    assert set(errors.MESSAGES) == set(codes)
    for code in codes:
        english = said(code)
        with translation.override("fr"):
            french = said(code)
        assert french != english, code
        assert placeholders(french) == placeholders(english), code


def test_each_arbitration_refusal_has_its_own_code() -> None:
    kinds = list(errors.REFUSALS.values())
    assert len({kind.code for kind in kinds}) == len(kinds)
    assert all(errors.REFUSALS[kind.code] is kind for kind in kinds)


def test_an_empty_pick_is_worded_from_its_code(league: OpenLeague, coach: User) -> None:
    # The form and the API refuse an empty field themselves; the service words the fault.
    for language, message in [
        ("en", "Your pick is empty: write a column and a value, e.g. F+(2)."),
        ("fr", "Votre ordre est vide : écrivez une colonne et une valeur, par exemple F+(2)."),
    ]:
        with translation.override(language), pytest.raises(services.PickRejected) as caught:
            services.pick_submit(
                team=league.coach_entry.team,
                round=league.this_week,
                notation="   ",
                channel="web",
                entered_by=coach,
            )
        assert (caught.value.code, caught.value.message) == ("notation", message)


def test_a_refusal_recorded_as_a_code_is_raised_again_with_its_facts() -> None:
    again = errors.arbitration_refusal_of({"code": "too_early", "facts": {"number": 4}})
    assert isinstance(again, services.ArbitrationTooEarly) and again.facts == {"number": 4}
    assert str(again) == (
        "The deadline of round 4 has not passed yet: it cannot be arbitrated before."
    )
    with translation.override("fr"):
        assert str(again) == (
            "La date limite de la journée 4 n’est pas encore passée : elle ne peut pas être "
            "arbitrée avant."
        )
    copied = pickle.loads(pickle.dumps(again))
    assert (type(copied), copied.facts) == (services.ArbitrationTooEarly, {"number": 4})
    unknown = errors.arbitration_refusal_of({"code": "no-such-code"})
    assert type(unknown) is services.ArbitrationRefused
    assert unknown.message == "This round cannot be arbitrated now."


# --- The pick form ------------------------------------------------------------------------------


def send(browser: Client, round: Round, notation: str) -> str:
    prefix = f"{round.competition}-{round.number}"
    response = browser.post(
        reverse("pick_send", args=[round.competition, round.number]),
        {f"{prefix}-notation": notation, f"{prefix}-extra_goals": 0},
    )
    assert response.status_code == 400
    return response.content.decode()


@pytest.mark.parametrize(("text", "fault", "english", "french"), NOTATION_CASES, ids=IDS)
def test_the_pick_form_says_each_fault_in_the_page_s_language(
    league: OpenLeague,
    coach: User,
    open_as: Callable[..., Client],
    text: str,
    fault: NotationFault,
    english: str,
    french: str,
) -> None:
    assert english in send(open_as(coach, "en"), league.this_week, text)
    assert french in send(open_as(coach, "fr"), league.this_week, text)
    assert not picks_sent().exists()


# --- The API -------------------------------------------------------------------------------------


def api_client(user: User, language: str) -> APIClient:
    client = APIClient(headers={"accept-language": language})
    client.credentials(HTTP_AUTHORIZATION=f"Token {league_services.api_token_obtain(user=user)}")
    return client


@pytest.mark.parametrize(("text", "fault", "english", "french"), NOTATION_CASES, ids=IDS)
def test_the_api_says_each_fault_in_the_caller_s_language(
    league: OpenLeague, coach: User, text: str, fault: NotationFault, english: str, french: str
) -> None:
    url = f"/api/picks/{league.this_week.competition}/{league.this_week.number}/"
    for language, message in [("en", english), ("fr", french)]:
        response = api_client(coach, language).put(url, {"pick": text}, format="json")
        assert response.status_code == 400
        # API.md: {"field": ["message", …]}, and each message's codes beside them; the
        # notation's fault first, then what else is wrong (F(1)(2)(3): a shootout value too).
        said = response.json()
        assert said["pick"][0] == message
        assert said["faults"][0]["fault"] == fault.value
        assert len(said["faults"]) == len(said["pick"]) == (2 if text == "F(1)(2)(3)" else 1)
    assert not picks_sent().exists()


# --- Nothing decides on the words -----------------------------------------------------------------


def test_a_message_worded_otherwise_changes_nothing_but_the_words(
    league: OpenLeague, coach: User, open_as: Callable[..., Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    reworded = lazy(lambda: "Bracket trouble at “%(part)s”.", str)()
    monkeypatch.setitem(errors.MESSAGES, NotationFault.UNCLOSED, reworded)
    monkeypatch.setitem(
        errors.MESSAGES, services.ArbitrationTooEarly, lazy(lambda: "Wait for it.", str)()
    )
    with pytest.raises(services.PickRejected) as caught:
        services.pick_submit(
            team=league.coach_entry.team,
            round=league.this_week,
            notation="F(2",
            channel="web",
            entered_by=coach,
        )
    assert (caught.value.code, caught.value.message) == ("notation", "Bracket trouble at “(2”.")
    assert "Bracket trouble at “(2”." in send(open_as(coach, "en"), league.this_week, "F(2")
    url = f"/api/picks/{league.this_week.competition}/{league.this_week.number}/"
    response = api_client(coach, "en").put(url, {"pick": "F(2"}, format="json")
    assert response.status_code == 400
    assert response.json()["pick"] == ["Bracket trouble at “(2”."]
    refused = services.ArbitrationTooEarly(number=1)
    assert (refused.code, refused.message) == ("too_early", "Wait for it.")
    assert not picks_sent().exists()
