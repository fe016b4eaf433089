"""The main menu in real Chromium, at 390 px (a phone) and at 1920 px: every entry reachable
(on the phone behind « Menu », a <details> that opens without script, from the keyboard too),
none clipped or off the screen, none over another, nothing wider than the screen; signed in as
the admin, whose menu is the longest, sign-out included."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from competitions.demo import ADMIN
from tests.browser.conftest import DemoSite, Launch, overflowing

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]

ENTRIES = [
    "Home",
    "Team infos",
    "Matrices",
    "Results",
    "Standings",
    "Seasons",
    "Rules",
    "Season desk",
    "Administration",
]

BOXES = """(nav) => [...nav.querySelectorAll("a, button")].map((e) => {
  const box = e.getBoundingClientRect();
  return {text: e.textContent.trim(), left: box.left, right: box.right, top: box.top,
          bottom: box.bottom, clipped: e.scrollWidth > e.clientWidth + 1};
})"""


def sign_in_as_admin(page: Page, site: DemoSite) -> None:
    page.goto(f"{site.url}/accounts/login/?next=/standings/elite/")
    page.locator("input[name=username]").fill(ADMIN[0])
    page.locator("input[name=password]").fill(ADMIN[1])
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{site.url}/standings/elite/")


def entries_shown_side_by_side(page: Page) -> list[dict[str, object]]:
    """The menu's entries' boxes, each checked wholly on the screen, unclipped, over no other."""
    width = page.viewport_size["width"]
    boxes = page.locator("nav.nav").evaluate(BOXES)
    shown = [box for box in boxes if box["right"] > box["left"]]
    for box in shown:
        assert box["left"] >= 0 and box["right"] <= width + 0.5, box
        assert not box["clipped"], box
    for index, one in enumerate(shown):
        for other in shown[index + 1 :]:
            apart = (
                one["right"] <= other["left"] + 0.5
                or other["right"] <= one["left"] + 0.5
                or one["bottom"] <= other["top"] + 0.5
                or other["bottom"] <= one["top"] + 0.5
            )
            assert apart, (one, other)
    return shown


def test_on_a_phone_the_menu_opens_with_every_entry_and_sign_out(
    demo_site: DemoSite, browser: Launch
) -> None:
    page = browser(phone=True)
    assert page.viewport_size["width"] == 390
    sign_in_as_admin(page, demo_site)
    summary = page.locator("details.menu > summary")
    expect(summary).to_be_visible()
    expect(summary).to_have_text("Menu")
    expect(page.get_by_role("link", name="Seasons", exact=True)).to_be_hidden()
    # From the keyboard: the summary is a stop, Enter opens it.
    summary.focus()
    page.keyboard.press("Enter")
    nav = page.get_by_role("navigation", name="Main menu")
    for name in ENTRIES:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(nav.get_by_role("button", name="Sign out")).to_be_visible()
    assert len(entries_shown_side_by_side(page)) == len(ENTRIES) + 1
    assert overflowing(page) == []
    page.keyboard.press("Tab")
    expect(nav.get_by_role("link", name="Home", exact=True)).to_be_focused()
    nav.get_by_role("link", name="Seasons", exact=True).click()
    expect(page).to_have_url(f"{demo_site.url}/seasons/")


def test_on_a_phone_the_menu_opens_without_script(demo_site: DemoSite, browser: Launch) -> None:
    page = browser(phone=True)
    page.context.route("**/*.js", lambda route: route.abort())
    page.goto(f"{demo_site.url}/")
    page.locator("details.menu > summary").click()
    nav = page.get_by_role("navigation", name="Main menu")
    for name in ("Home", "Team infos", "Standings", "Seasons", "Rules"):
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    assert overflowing(page) == []


def test_on_a_wide_screen_every_entry_shows_in_the_header(
    demo_site: DemoSite, browser: Launch
) -> None:
    page = browser()
    page.set_viewport_size({"width": 1920, "height": 1080})
    sign_in_as_admin(page, demo_site)
    expect(page.locator("details.menu > summary")).to_be_hidden()
    nav = page.get_by_role("navigation", name="Main menu")
    for name in ENTRIES:
        expect(nav.get_by_role("link", name=name, exact=True)).to_be_visible()
    # Sign-out is the header's own button there, not repeated in the menu.
    expect(nav.get_by_role("button", name="Sign out")).to_be_hidden()
    expect(page.locator(".tools").get_by_role("button", name="Sign out")).to_be_visible()
    assert len(entries_shown_side_by_side(page)) == len(ENTRIES)
    assert overflowing(page) == []
    # The menu's rows (it wraps where the header's width runs out) cover neither the brand nor
    # the account's tools.
    menu = page.locator("nav.nav").bounding_box()
    for other in (page.locator(".brand"), page.locator(".tools")):
        box = other.bounding_box()
        assert menu is not None and box is not None
        assert (
            menu["x"] + menu["width"] <= box["x"] + 0.5
            or box["x"] + box["width"] <= menu["x"] + 0.5
            or menu["y"] + menu["height"] <= box["y"] + 0.5
            or box["y"] + box["height"] <= menu["y"] + 0.5
        ), (menu, box)
