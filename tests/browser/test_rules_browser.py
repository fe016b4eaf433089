"""The rules' guide in real Chromium on a phone: a citation's link (/rules/#r14) lands on its
ruling, in view, and the guide fits the screen in both languages."""

from __future__ import annotations

import pytest
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import Launch, overflowing, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IN_VIEW = """(id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  const header = document.querySelector(".site-header").getBoundingClientRect();
  const sticky = getComputedStyle(document.querySelector(".site-header")).position === "sticky";
  return {top: box.top, height: window.innerHeight, scrolled: window.scrollY,
          below: sticky ? header.bottom : 0};
}"""


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_a_link_to_r14_scrolls_to_it_on_a_phone(
    live_server: LiveServer, browser: Launch, locale: str
) -> None:
    page = browser(locale=locale, phone=True)
    page.goto(live_server.url + "/rules/#r14")
    seen = page.evaluate(IN_VIEW, "r14")
    screenshot(page, f"rules-r14-phone-{locale}")
    # Far down the guide, R14's section is brought to the top of the screen, below the header.
    assert seen["scrolled"] > 1000
    assert seen["below"] - 1 <= seen["top"] < seen["height"] / 3
    assert page.locator("#r14 h3").inner_text().startswith("R14")
    assert page.evaluate("() => document.querySelector(':target').id") == "r14"


def test_a_citation_on_another_page_leads_to_its_ruling(
    live_server: LiveServer, browser: Launch
) -> None:
    # The rulings page lists R1–R25, each a link to the guide's section.
    page = browser(locale="en-GB", phone=True)
    page.goto(live_server.url + "/rules/rulings/")
    page.locator('a[href="/rules/#r9"]').click()
    page.wait_for_url("**/rules/#r9")
    seen = page.evaluate(IN_VIEW, "r9")
    assert -1 <= seen["top"] < seen["height"] / 3


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_guide_fits_the_screen(
    live_server: LiveServer, browser: Launch, locale: str, phone: bool
) -> None:
    page = browser(locale=locale, phone=phone)
    for path in ("/rules/", "/rules/rulings/"):
        page.goto(live_server.url + path)
        assert overflowing(page) == [], path
