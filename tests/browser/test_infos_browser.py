"""« Infos équipes » as a grid in real Chromium, on the demo league at week 6, at 1280 and 390
pixels wide: nothing wider than the screen but the grid's own scroller, the team column still
in view once the grid is scrolled to its last column, and the keyboard's Tab order going through
the pools, the grid's region, then the teams in the order the grid lists them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from competitions.demo import PASSWORD
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.demo_worlds import DemoWorlds

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED = """() => {
  const e = document.activeElement;
  const box = e.getBoundingClientRect();
  return {
    tag: e.tagName.toLowerCase(),
    id: e.id,
    cls: e.className,
    text: e.textContent.trim().slice(0, 40),
    row: e.closest("tr") ? e.closest("tr").id : "",
    grid: e.closest(".infos-scroll") ? e.closest(".infos-scroll").id : "",
    // In view: at least partly on the screen; whole: all of it, side to side and top to bottom.
    visible: box.width > 0 && box.right > 0 && box.left < window.innerWidth
      && box.bottom > 0 && box.top < window.innerHeight,
    whole: box.left >= -1 && box.right <= window.innerWidth + 1
      && box.top >= -1 && box.bottom <= window.innerHeight + 1,
  };
}"""


def fits_the_screen(page: Page) -> None:
    assert overflowing(page) == []


def sign_in(page: Page, live_server: LiveServer, username: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next=/infos/")
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form.stack button[type=submit]").click()
    # Infos équipes opens on the coach's own division.
    expect(page).to_have_url(f"{live_server.url}/infos/championship/elite/")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_grid_scrolls_in_its_own_box_keeps_the_teams_in_view_and_tabs_in_order(
    browser: Launch, live_server: LiveServer, phone: bool, demo_worlds: DemoWorlds
) -> None:
    league = demo_worlds.load(week=6)
    entry = league.season.entries.select_related("team__coach").get(division__slug="elite", code=1)
    page = browser(phone=phone)
    size = "phone" if phone else "desktop"
    sign_in(page, live_server, entry.team.coach.username)

    scroller = page.locator("#infos-grid")
    expect(scroller).to_be_visible()
    expect(page.locator("#infos-grid tbody.infos-opponents th[scope=rowgroup]")).to_have_text(
        "Your next opponents"
    )
    expect(page.locator(f"#team-{entry.team.slug}")).to_have_class("mine")
    fits_the_screen(page)
    screenshot(page, f"infos-elite-{size}", full_page=True)

    # The grid scrolls inside its own box: to its last column, the teams' column stays put.
    box = scroller.bounding_box()
    assert (
        box is not None
        and box["x"] >= 0
        and box["x"] + box["width"] <= page.viewport_size["width"] + 0.5
    )
    overflows = scroller.evaluate("e => e.scrollWidth > e.clientWidth")
    assert overflows == phone  # a phone scrolls the grid; a desktop shows it whole
    scroller.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    page.wait_for_function(
        "() => { const e = document.querySelector('#infos-grid');"
        " return e.scrollLeft + e.clientWidth >= e.scrollWidth - 1; }"
    )
    first_team = page.locator("#infos-grid tbody tr[id] th[scope=row]").first
    team_box = first_team.bounding_box()
    assert team_box is not None
    assert box["x"] - 0.5 <= team_box["x"] and team_box["x"] + team_box["width"] <= (
        box["x"] + box["width"]
    )
    # The last column (great saves) is in view now, beside the team column, not under it.
    last = page.locator("#infos-grid tbody tr[id]").first.locator("td").last
    last_box = last.bounding_box()
    assert last_box is not None
    assert last_box["x"] >= team_box["x"] + team_box["width"] - 0.5
    assert last_box["x"] + last_box["width"] <= box["x"] + box["width"] + 0.5
    fits_the_screen(page)
    screenshot(page, f"infos-elite-scrolled-{size}")
    scroller.evaluate("e => { e.scrollLeft = 0; }")

    # The keyboard: no positive tabindex; Tab goes through the pools' links, then the grid's
    # region (scrollable with the arrow keys), then each team in the grid's order — each one
    # in view when it has the focus.
    assert (
        page.evaluate("document.querySelectorAll('[tabindex]:not([tabindex=\"0\"])').length") == 0
    )
    rows = page.locator("#infos-grid tbody tr[id]").evaluate_all("rows => rows.map(r => r.id)")
    page.locator("body").focus()
    page.evaluate("window.scrollTo(0, 0)")
    focused = []
    for _ in range(80):
        page.keyboard.press("Tab")
        focused.append(page.evaluate(FOCUSED))
        if len([f for f in focused if f["row"]]) == 6:
            break
    chips = [i for i, f in enumerate(focused) if "chip" in f["cls"]]
    region = next(i for i, f in enumerate(focused) if f["id"] == "infos-grid")
    teams = [f for f in focused if f["row"]]
    assert len(chips) == 9 and chips == list(range(chips[0], chips[0] + 9))
    assert chips[-1] < region and all(f["row"] for f in focused[region + 1 :])
    assert [f["row"] for f in teams] == rows[:6]
    assert all(f["grid"] == "infos-grid" and f["tag"] == "a" for f in teams)
    assert all(f["visible"] for f in focused[chips[0] :]), [
        f for f in focused[chips[0] :] if not f["visible"]
    ]
    # A team's link sits in the sticky column: all of it in view, on a phone too.
    assert all(f["whole"] for f in teams), [f for f in teams if not f["whole"]]
    ring = page.evaluate(
        "(s => [s.outlineStyle, parseFloat(s.outlineWidth)])"
        "(getComputedStyle(document.activeElement))"
    )
    assert ring[0] == "solid" and ring[1] >= 2  # the focus shows
    fits_the_screen(page)


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_kdh_grid_folds_the_teams_out_and_fits_the_screen_open_or_closed(
    browser: Launch, live_server: LiveServer, phone: bool, demo_worlds: DemoWorlds
) -> None:
    demo_worlds.load(week=6)
    page = browser(phone=phone)
    page.goto(f"{live_server.url}/infos/kdh/kdh/")
    folded = page.locator("details[data-eliminated]")
    expect(folded).to_be_visible()
    expect(folded.locator("#infos-out")).to_be_hidden()
    expect(page.locator("#infos-grid")).to_be_visible()
    fits_the_screen(page)
    folded.locator("summary").click()
    expect(folded.locator("#infos-out")).to_be_visible()
    expect(folded.locator("summary")).to_have_text(re.compile(r"^\d+ teams out of the cup$"))
    fits_the_screen(page)
    screenshot(page, f"infos-kdh-{'phone' if phone else 'desktop'}", full_page=True)
