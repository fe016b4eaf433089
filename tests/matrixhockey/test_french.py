"""French with names, numbers and dates (``matrixhockey.french``): « de l’Élite », « des
Harfangs », « d’Ottawa »; « 1re place »; « 1er janvier » in every date a template prints, the
emails' included; English untouched."""

from __future__ import annotations

import doctest
from datetime import UTC, date, datetime, time
from types import SimpleNamespace

import pytest
from django.template import engines
from django.utils import translation

from mail.outbox import email_render
from matrixhockey import french


def render(source: str, language: str, **context: object) -> str:
    with translation.override(language):
        return engines["django"].from_string(source).render(context)


def test_the_module_s_examples_hold() -> None:
    assert doctest.testmod(french).failed == 0


@pytest.mark.parametrize(
    ("preposition", "name", "said"),
    [
        ("de", "Les Harfangs", "des Harfangs"),
        ("à", "Les Harfangs", "aux Harfangs"),
        ("de", "Le Canadien", "du Canadien"),
        ("à", "Le Canadien", "au Canadien"),
        ("de", "La Tuque", "de la Tuque"),
        ("de", "L'Ours", "de l’Ours"),
        ("à", "L’Ours", "à l’Ours"),
        ("de", "Ottawa", "d’Ottawa"),
        ("de", "Écureuils Volants", "d’Écureuils Volants"),
        ("de", "Ice Crocodiles", "d’Ice Crocodiles"),
        ("de", "Hiver Rouge", "d’Hiver Rouge"),
        ("de", "Hat Trick Hamsters", "de Hat Trick Hamsters"),
        ("de", "Sleigh Dogs", "de Sleigh Dogs"),
        ("à", "Ottawa", "à Ottawa"),
        ("de", "Lesley Lions", "de Lesley Lions"),
    ],
)
def test_de_and_a_contract_with_the_name_s_article_and_elide_before_a_vowel(
    preposition: french.Preposition, name: str, said: str
) -> None:
    assert french.contracted(preposition, name) == said


def test_a_name_after_de_is_contracted_in_french_and_bare_in_english() -> None:
    elite = SimpleNamespace(name="Elite", tier=1)
    d2a = SimpleNamespace(name="D2A", tier=2)
    source = (
        "{{ team|of_name }} · {{ team|to_name }} · {{ elite|of_division }} · {{ d2a|of_division }}"
    )
    context = {"team": "Les Harfangs", "elite": elite, "d2a": d2a}
    assert render(source, "fr", **context) == "des Harfangs · aux Harfangs · de l’Élite · de la D2A"
    assert render(source, "en", **context) == "Les Harfangs · Les Harfangs · Elite · D2A"


def test_places_are_ordinals_in_words() -> None:
    source = "{{ 1|place }}, {{ 2|place }}, {{ 3|place }}, {{ 11|place }}"
    assert render(source, "fr") == "1re place, 2e place, 3e place, 11e place"
    assert render(source, "en") == "1st place, 2nd place, 3rd place, 11th place"


FIRST = datetime(2027, 1, 1, 16, 0, tzinfo=UTC)  # 17:00 in Paris


@pytest.mark.parametrize(
    ("format", "french_text", "english_text"),
    [
        ("DATE_FORMAT", "vendredi 1er janvier 2027", "Friday 1 January 2027"),
        ("l j F Y, H:i", "vendredi 1er janvier 2027, 17:00", "Friday 1 January 2027, 17:00"),
        ("D j M", "ven 1er Jan", "Fri 1 Jan"),
        (r"\j j", "j 1er", "j 1"),
    ],
)
def test_the_first_of_the_month_is_1er_in_every_french_date_a_template_prints(
    format: str, french_text: str, english_text: str
) -> None:
    source = "{% load tz %}{% timezone 'Europe/Paris' %}{{ moment|date:format }}{% endtimezone %}"
    assert render(source, "fr", moment=FIRST, format=format) == french_text
    assert render(source, "en", moment=FIRST, format=format) == english_text


def test_the_other_days_and_dates_without_a_day_are_as_django_writes_them() -> None:
    source = "{{ day|date:'j F Y' }} · {{ day|date:'F Y' }} · {{ none|date:'j F' }}"
    assert (
        render(source, "fr", day=date(2027, 1, 2), none=None) == "2 janvier 2027 · janvier 2027 · "
    )
    assert render(source, "fr", day=date(2027, 3, 1), none="") == "1er mars 2027 · mars 2027 · "


def test_an_email_dated_the_first_of_the_month_says_1er() -> None:
    team = SimpleNamespace(name="Les Harfangs")
    round = SimpleNamespace(get_competition_display="championnat", number=3)
    person = SimpleNamespace(get_short_name="Ana", get_username="ana")
    _subject, text, html = email_render(
        template="deadline-moved",
        context={
            "person": person,
            "team": team,
            "round": round,
            "before": FIRST,
            "after": datetime(2027, 1, 8, 16, 0, tzinfo=UTC),
            "time_zone": "Europe/Paris",
            "picks_url": "https://example.org/picks/",
        },
        language="fr",
        time_zone="Europe/Paris",
    )
    assert "vendredi 1er janvier 2027, 17:00" in text
    assert "vendredi 1er janvier 2027, 17:00" in html
    assert "vendredi 8 janvier 2027, 17:00" in text


def test_a_time_and_a_value_that_is_no_date_are_as_django_writes_them() -> None:
    source = "{{ at|date:'H:i' }}|{{ text|date:'j F' }}"
    assert render(source, "fr", at=time(17, 0), text="2027-01-01") == "17:00|"
