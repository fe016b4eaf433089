"""« Your time » in real Chromium (``static/js/countdown.js``): a deadline on the first of the
month reads « 1er » in French, as the server writes it (``matrixhockey.french``), and as the
browser's own format in English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Launch

pytestmark = [pytest.mark.browser]

SCRIPT = Path(__file__).resolve().parents[2] / "static" / "js" / "countdown.js"

# Friday 1 January 2027, 17:00 in Paris: 11:00 in Toronto.
PAGE = """<!doctype html><html lang="{lang}"><body>
<p data-local-time data-deadline="2027-01-01T16:00:00Z" data-zone="Europe/Paris">
  <span data-local hidden><span data-local-text></span></span></p>
<div data-countdown data-deadline="2027-01-01T16:00:00Z" data-zone="Europe/Paris">
  <span data-local hidden><span data-local-text></span></span></div>
</body></html>"""


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_deadline_on_the_first_reads_1er_in_french_in_the_visitor_s_time(
    browser: Launch, lang: str
) -> None:
    page = browser(locale="fr-FR" if lang == "fr" else "en-GB", timezone_id="America/Toronto")
    page.set_content(PAGE.format(lang=lang))
    page.add_script_tag(content=SCRIPT.read_text())
    row = page.locator("[data-local-time] [data-local-text]")
    box = page.locator("[data-countdown] [data-local-text]")
    for local in (row, box):
        expect(local).to_contain_text("11:00")
        expect(local).to_contain_text("(America/Toronto)")
    if lang == "fr":
        expect(row).to_contain_text("vendredi 1er janvier 2027, 11:00")
        expect(box).to_contain_text("vendredi 1er janvier")
    else:
        expect(row).to_contain_text(re.compile(r"\b1\b"))
        expect(row).not_to_contain_text("1er")
