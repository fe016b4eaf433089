"""The memory's pages in real Chromium (issue 25), on a phone (390 px) and a desktop (1920 px),
in English and in French: the all-time tables, a team page's history with its elevator chart, a
coach's page and « My account »'s choice — nothing passes the screen's edge outside a scroller,
no two pieces of text or boxes overlap, and the chart draws without a Content-Security-Policy
violation."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import ConsoleMessage, Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.memory_pages_league import coaches_make, history_begin, season_played

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE = {"viewport": {"width": 1920, "height": 1080}}

OVERLAPS = """() => {
  const kinds = "h1, h2, p, a, th, td, dt, dd, li, span.badge, .chip, figcaption, summary, svg, "
    + "label, button, input";
  const picked = [...document.querySelectorAll(`main :is(${kinds})`)].filter((element) => {
    if (element.closest("svg") && element.tagName.toLowerCase() !== "svg") return false;
    if (element.closest("details:not([open])") && !element.closest("summary")) return false;
    return element.getClientRects().length > 0;
  });
  // An inline element that wraps has a box per line: its bounding box would cover both lines.
  const boxes = (element) => [...element.getClientRects()].filter((r) => r.width && r.height);
  const name = (e) => e.tagName.toLowerCase() + "«" + (e.textContent || "").trim().slice(0, 30)
    + "»";
  const found = [];
  for (let i = 0; i < picked.length; i++) {
    for (let j = i + 1; j < picked.length; j++) {
      const a = picked[i], b = picked[j];
      if (a.contains(b) || b.contains(a)) continue;
      for (const p of boxes(a)) {
        for (const q of boxes(b)) {
          const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
          const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
          if (x > 1 && y > 1) {
            found.push(`${name(a)} over ${name(b)} (${Math.round(x)}×${Math.round(y)}px)`);
          }
        }
      }
    }
  }
  return found;
}"""
"""Pairs of boxes in the page's main part that overlap (neither inside the other): text over
text, a badge over a number, a chart over a table."""


@pytest.fixture
def camille(monkeypatch: pytest.MonkeyPatch) -> User:
    """Seasons 1 and 2 played and closed; Camille (the Élans' coach) may sign in."""
    made = history_begin(monkeypatch, coaches_make())
    season_played(made, 1)
    season_played(made, 2)
    user = User.objects.get(username="camille")
    user.set_password("secret-password")
    user.save()
    return user


def checked(page: Page, name: str) -> list[str]:
    screenshot(page, name, full_page=True)
    problems = [f"too wide: {found}" for found in overflowing(page)[:5]]
    problems += [f"overlap: {found}" for found in page.evaluate(OVERLAPS)[:5]]
    return problems


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_the_memory_s_pages_fit_the_screen_with_nothing_overlapping(
    browser: Launch,
    live_server: LiveServer,
    camille: User,
    phone: bool,
    locale: str,
) -> None:
    page = browser(locale=locale, phone=phone)
    if not phone:
        page.set_viewport_size(WIDE["viewport"])
    heard: list[str] = []

    def listen(message: ConsoleMessage) -> None:
        heard.append(message.text)

    page.on("console", listen)
    page.goto(f"{live_server.url}/accounts/login/?next=/accounts/")
    page.locator("input[name=username]").fill("camille")
    page.locator("input[name=password]").fill("secret-password")
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/accounts/")
    size = "phone" if phone else "desktop"
    problems = []
    for name, path in (
        ("account", "/accounts/"),
        ("all-time", "/all-time/"),
        ("all-time-elite-by-name", "/all-time/?scope=elite&order=name"),
        ("team", "/teams/castors/"),
        ("team-season-1", "/teams/castors/?season=1"),
        ("coach", "/coaches/camille/"),
    ):
        page.goto(f"{live_server.url}{path}")
        if name == "team":
            page.locator('figure[data-chart="elevator"] summary').click()
            chart = page.locator('figure[data-chart="elevator"] svg')
            expect(chart).to_be_visible()
            box = chart.bounding_box()
            assert box is not None and 0 < box["width"] <= page.viewport_size["width"]
        found = checked(page, f"memory-{size}-{locale}-{name}")
        problems += [f"{path}: {problem}" for problem in found]
    assert not problems, "\n".join(problems)
    assert not [text for text in heard if "Content Security Policy" in text], heard
