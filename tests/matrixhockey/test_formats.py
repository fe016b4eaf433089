"""One shape for a date and a moment per language (``matrixhockey/formats/``): « Friday 27
November 2026, 17:00 », « vendredi 27 novembre 2026, 17:00 », and nothing else anywhere.

The pages' and the emails' dates are checked where they are shown (``tests/competitions/
test_dates_shown.py``, ``tests/mail/test_email_dates.py``, the visitor's own time in
``tests/browser/test_picks_browser.py``); here, the formats themselves and the rule that keeps
every template and module on them."""

from __future__ import annotations

import re
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.utils import translation
from django.utils.formats import date_format

from tests.matrixhockey.conftest import ROOT

MOMENT = datetime(2026, 11, 27, 17, 0, tzinfo=ZoneInfo("Europe/Paris"))

NAMED = {"DATETIME_FORMAT", "DATE_FORMAT", "c", "Y-m-d"}
"""What a template's ``|date:`` may name: the site's two formats, and the machine's ISO values
(a ``<time datetime>``, a date input's value)."""


@pytest.mark.parametrize(
    ("language", "moment", "day"),
    [
        ("en", "Friday 27 November 2026, 17:00", "Friday 27 November 2026"),
        ("fr", "vendredi 27 novembre 2026, 17:00", "vendredi 27 novembre 2026"),
    ],
)
def test_a_moment_and_a_date_read_with_weekday_day_month_year_and_the_24_hour_time(
    language: str, moment: str, day: str
) -> None:
    with translation.override(language):
        assert date_format(MOMENT, "DATETIME_FORMAT") == moment
        assert date_format(date(2026, 11, 27), "DATE_FORMAT") == day
        shown = Template('{{ at|date:"DATETIME_FORMAT" }} · {{ at|date }}').render(
            Context({"at": MOMENT.replace(tzinfo=None)})
        )
        assert shown == f"{moment} · {day}"


def test_every_template_prints_a_date_in_one_of_the_site_s_formats() -> None:
    patterns = re.compile(r"""\|date:["']([^"']*)["']""")
    odd = sorted(
        f"{path.relative_to(ROOT)}: {pattern}"
        for path in (ROOT / "templates").rglob("*")
        if path.is_file()
        for pattern in patterns.findall(path.read_text(encoding="utf-8"))
        if pattern not in NAMED
    )
    assert odd == []


def test_every_module_formats_a_date_with_one_of_the_site_s_formats() -> None:
    calls = re.compile(r"""date_format\([^,()]*(?:\([^()]*\))?[^,()]*,\s*["']([^"']*)["']""")
    odd = sorted(
        f"{path.relative_to(ROOT)}: {pattern}"
        for app in ("league", "competitions", "mail", "matrixhockey")
        for path in (ROOT / app).rglob("*.py")
        for pattern in calls.findall(path.read_text(encoding="utf-8"))
        if pattern not in {"DATETIME_FORMAT", "DATE_FORMAT"}
    )
    assert odd == []
    assert not [
        path
        for app in ("league", "competitions", "mail", "matrixhockey")
        for path in (ROOT / app).rglob("*.py")
        if ".strftime(" in path.read_text(encoding="utf-8")
    ]
