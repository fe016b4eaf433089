"""The WG cup's page in real Chromium, the cup played to its end: no element wider than the
screen on a desktop or a phone (the group tables and the seconds' comparison fit without a
scroller), and the keyboard reaches every kind of link on it with a visible focus."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django.live_server_helper import LiveServer

from competitions import services as competitions
from league.models import Division, Season
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.arbitration_league import add_wg, build_league

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED = """() => {
  const element = document.activeElement;
  const style = getComputedStyle(element);
  const seen = element.dataset.tabbed === "1";
  element.dataset.tabbed = "1";
  return {
    seen,
    href: element.getAttribute("href") || "",
    where: element.closest(".wg-table, .wg-compare, .wg-slot, nav")?.className || "",
    visible: style.boxShadow !== "none"
      || (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0),
  };
}"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_wg_page_fits_the_screen_and_its_links_take_the_keyboard(
    browser: Launch,
    live_server: LiveServer,
    season: Season,
    divisions: dict[str, Division],
    phone: bool,
) -> None:
    referee = User.objects.create_user("wg-browser-referee", password="x")
    made = build_league(season=season, divisions=divisions, referee=referee)
    add_wg(made, list(made.entries))
    for number in range(1, 9):
        made.play("wg", number)
        competitions.pool_round_publish(pool_round=made.pool_round("wg", number), by=referee)

    page = browser(locale="en-GB", phone=phone)
    page.goto(f"{live_server.url}/standings/wg/")
    assert page.locator(".wg-table").count() == 3
    assert page.locator(".wg-slot .goals").count() == 8  # four games played, two scores each
    assert overflowing(page) == []
    screenshot(page, f"wg-{'phone' if phone else 'desktop'}", full_page=True)

    reached: dict[str, list[dict[str, object]]] = {}
    for _ in range(150):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused["seen"]:  # round the page once
            break
        for kind in ("wg-table", "wg-compare", "wg-slot"):
            if kind in str(focused["where"]):
                reached.setdefault(kind, []).append(focused)
    assert set(reached) == {"wg-table", "wg-compare", "wg-slot"}
    assert all(focused["visible"] for links in reached.values() for focused in links)
    assert len(reached["wg-table"]) == 12
    # The comparison's head cites R9 (a link to the rules), then the three seconds' teams.
    compared = [str(focused["href"]) for focused in reached["wg-compare"]]
    assert compared[0] == "/rules/#r9"
    assert sum(href.startswith("/teams/") for href in compared[1:]) == len(compared) - 1 == 3
    hrefs = [str(focused["href"]) for focused in reached["wg-slot"]]
    assert sum(href.startswith("/teams/") for href in hrefs) == 8
    assert {href for href in hrefs if href.startswith("/results/")} == {
        "/results/wg/wg/7/",
        "/results/wg/wg/8/",
    }
