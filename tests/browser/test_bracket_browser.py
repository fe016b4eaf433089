"""The KDH bracket in real Chromium at a desktop's and a phone's size: nothing wider than the
screen but the bracket's own scroller, the current round's column in view on load — without
the page's script, from CSS alone —, and the games' links reached with Tab, their focus visible.

A league of twelve teams (R17: a qualifying round, then the quarter-finals, the semi-finals and
the final), its qualifying round and quarter-finals published: the semi-finals are drawn.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, Route
from pytest_django.live_server_helper import LiveServer

from competitions import services
from league.models import Division, Season
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.arbitration_league import add_kdh, build_league

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _without_script(route: Route) -> None:
    route.abort()


def _followed_bracket(season: Season, divisions: dict[str, Division]) -> str:
    """The league, its first two KDH rounds published; a team of the semi-finals (a slug)."""
    referee = User.objects.create_user("cup-referee", password="x")
    made = build_league(season=season, divisions=divisions, referee=referee)
    add_kdh(made)
    for number in (1, 2):
        pool_round = made.play("kdh", number)
        services.pool_round_publish(pool_round=pool_round, by=referee)
    return made.games("kdh", 3)[0][0]


def _tab_to_a_game(page: Page) -> dict[str, object]:
    """Tab from the top of the page until a game's link has the focus; its focus ring."""
    for _ in range(80):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            """() => {
              const e = document.activeElement;
              if (!e.matches(".bracket .slot a")) return null;
              const style = getComputedStyle(e);
              const box = e.getBoundingClientRect();
              return {outline: style.outlineStyle, width: parseFloat(style.outlineWidth),
                      color: style.outlineColor, left: box.left, right: box.right,
                      text: e.textContent};
            }"""
        )
        if focused:
            return focused
    raise AssertionError("Tab never reached a game of the bracket")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_bracket_fits_opens_at_the_current_round_and_takes_the_keyboard(
    browser: Launch,
    live_server: LiveServer,
    season: Season,
    divisions: dict[str, Division],
    phone: bool,
) -> None:
    team = _followed_bracket(season, divisions)
    page = browser(locale="en-GB", phone=phone)
    # The no-script reading: the page's small script is not loaded at all.
    page.route("**/js/bracket.js", _without_script)
    page.goto(f"{live_server.url}/standings/kdh/?team={team}")
    size = "phone" if phone else "desktop"
    screenshot(page, f"bracket-{size}", full_page=True)
    width = page.viewport_size["width"]  # type: ignore[index]

    # The page itself never scrolls sideways: only the bracket's scroller (a designated one)
    # and the menus' rows of links hold anything wider than the screen.
    assert overflowing(page) == []
    if phone:
        assert page.evaluate(
            "(s => s.scrollWidth > s.clientWidth)(document.querySelector('.bracket-scroller'))"
        )

    current = page.locator(".bracket-round.is-current")
    assert current.get_attribute("id") == "round-3"  # the semi-finals, drawn
    box = current.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    assert box["y"] < page.viewport_size["height"]  # type: ignore[index]
    # The followed team's semi-final is outlined.
    assert current.locator(".slot.is-followed").count() == 1

    focused = _tab_to_a_game(page)
    assert focused["outline"] == "solid" and focused["width"] >= 2  # type: ignore[operator]
    assert focused["left"] >= 0 and focused["right"] <= width + 1  # type: ignore[operator]
    screenshot(page, f"bracket-{size}-focus")
