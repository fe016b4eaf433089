"""The home page's week at a glance in real Chromium, on the demo league at week 3: the
countdown visible and ticking, the deadline in the visitor's own time beside Paris time, and
nothing wider than the screen, for a visitor and for a coach, on a desktop and on a phone."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect
from pytest_django.live_server_helper import LiveServer

from competitions.demo import PASSWORD, DemoLeague
from competitions.models import Round
from tests.browser.conftest import Launch, screenshot
from tests.demo_worlds import DemoWorlds

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_YORK = "America/New_York"


@pytest.fixture
def league(demo_worlds: DemoWorlds) -> DemoLeague:
    return demo_worlds.load(week=3)


def fits(page: Page) -> None:
    """No horizontal overflow: the page and each card of the glance within the viewport."""
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for card in page.locator(".glance-card").all():
        box = card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5


@pytest.mark.parametrize("phone", [False, True], ids=["desktop-1280", "phone-390"])
def test_the_week_at_a_glance_fits_and_shows_the_countdown_in_the_visitor_s_time(
    browser: Launch, live_server: LiveServer, league: DemoLeague, phone: bool
) -> None:
    page = browser(locale="en-US", phone=phone, timezone_id=NEW_YORK)
    assert page.viewport_size["width"] == (390 if phone else 1280)
    messages: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        messages.append(message.text)

    page.on("console", heard)
    page.clock.install()
    page.goto(f"{live_server.url}/")
    box = page.locator("#glance-deadline [data-countdown]")
    countdown = box.locator("[data-countdown-text]")
    expect(countdown).to_be_visible()
    # The script took over the server's "3 days, 15 hours": days, hours and minutes; under a
    # day (a Thursday evening, the demo's next deadline being Friday's), hours, minutes and
    # seconds.
    expect(countdown).to_have_text(
        re.compile(
            r"^(\d+\u00a0d \d\d\u00a0h \d\d\u00a0min|(\d+\u00a0h \d\d|\d+)\u00a0min \d\d\u00a0s)$"
        )
    )
    deadline = Round.objects.filter(season=league.season, week=4).first().deadline
    local = box.locator("[data-local]")
    expect(local).to_be_visible()
    there = deadline.astimezone(ZoneInfo(NEW_YORK))
    expect(local).to_contain_text(f"{there:%A} {there.day} {there:%B %Y, %H:%M} ({NEW_YORK})")
    expect(box.locator("time")).to_contain_text("17:00")
    shown = countdown.text_content() or ""
    page.clock.run_for(61_000)
    expect(countdown).not_to_have_text(shown)
    expect(page.locator("#glance-played")).to_be_visible()
    expect(page.locator("#glance-results")).to_be_visible()
    expect(page.locator("#glance-coach")).to_have_count(0)
    size = "phone" if phone else "desktop"
    fits(page)
    screenshot(page, f"home-visitor-{size}", full_page=True)

    # A coach of the Elite, in both cups: the team's games, the page still within the screen.
    entry = league.season.entries.select_related("team").get(division__slug="elite", code=1)
    page.goto(f"{live_server.url}/accounts/login/?next=/")
    page.locator("input[name=username]").fill(entry.team.slug)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/")
    coach = page.locator("#glance-coach")
    expect(coach).to_be_visible()
    expect(coach.locator("li[data-game]")).to_have_count(3)
    expect(page.locator("#glance-deadline [data-local]")).to_be_visible()
    fits(page)
    screenshot(page, f"home-coach-{size}", full_page=True)
    page.locator("#glance-title").scroll_into_view_if_needed()
    screenshot(page, f"home-coach-{size}-glance")
    assert not [text for text in messages if "Content Security Policy" in text]


def test_a_visitor_in_paris_is_shown_the_deadline_once(
    browser: Launch, live_server: LiveServer, league: DemoLeague
) -> None:
    page = browser(locale="en-GB", timezone_id="Europe/Paris")
    page.goto(f"{live_server.url}/")
    expect(page.locator("#glance-deadline [data-countdown-text]")).to_be_visible()
    expect(page.locator("#glance-deadline [data-local]")).to_be_hidden()
