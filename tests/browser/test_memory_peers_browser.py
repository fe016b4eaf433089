"""The head-to-head, the records and the game rows' head-to-head links in real Chromium (issue
25), on a phone (390 px) and a wide desktop (1920 px), in English and French: nothing wider than
the screen, no two words on top of one another in a game, a meeting, a record; the arrow of a
game's head-to-head link leads to the head-to-head. The history is
``tests/competitions/memory_peers_league.py``'s (season 1 closed, season 2 running)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.memory_peers_league import peers_history

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = {
    "records": "/records/",
    "head-to-head": "/head-to-head/aigles/boucs/",
    "head-to-head-cup": "/head-to-head/elans/boucs/",
    "head-to-head-none": "/head-to-head/boucs/hiboux/",
    "head-to-head-form": "/head-to-head/",
    "head-to-head-same": "/head-to-head/aigles/aigles/",
    "home": "/",
    "results-week": "/results/week/2/1/",
    "results-round": "/results/championship/elite/1/?season=1",
    "results-to-come": "/results/championship/elite/2/",
    "team": "/teams/aigles/",
    "kdh": "/standings/kdh/?season=1",
}

OVERLAPS = """() => {
  // In each game, meeting, record or form: every pair of leaf boxes (their line fragments) that
  // cover one another, neither holding the other.
  const containers = document.querySelectorAll(
    ".game, .h2h-meeting, .record, .record-breaks li, .team-game, .h2h-facts, .h2h-fields, "
    + ".page-head, .home-breaks .card-head");
  const found = [];
  for (const container of containers) {
    const leaves = [...container.querySelectorAll("*")].filter(
      (e) => !e.children.length && e.getClientRects().length
        && getComputedStyle(e).visibility !== "hidden" && e.getBoundingClientRect().width > 1);
    for (let i = 0; i < leaves.length; i++) {
      for (let j = i + 1; j < leaves.length; j++) {
        const a = leaves[i], b = leaves[j];
        if (a.contains(b) || b.contains(a)) continue;
        for (const r of a.getClientRects()) for (const s of b.getClientRects()) {
          const w = Math.min(r.right, s.right) - Math.max(r.left, s.left);
          const h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
          if (w > 1 && h > 1) {
            const words = (e) => e.textContent.trim().slice(0, 25);
            found.push(`${words(a)} × ${words(b)}`);
          }
        }
      }
    }
  }
  return found;
}"""


def _check(page: Page, url: str, name: str) -> list[str]:
    page.goto(url)
    screenshot(page, name, full_page=True)
    problems = [f"{name}: {problem}" for problem in overflowing(page)]
    return problems + [f"{name}: {overlap}" for overlap in page.evaluate(OVERLAPS)]


@pytest.mark.parametrize("width", [390, 1920])
def test_the_memorys_pages_fit_the_screen_in_english_and_french(
    browser: Launch, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    peers_history(monkeypatch)
    problems = []
    for locale in ("en-GB", "fr-FR"):
        page = browser(locale=locale, phone=width == 390)
        if width != 390:
            page.set_viewport_size({"width": width, "height": 1080})
        for name, path in PAGES.items():
            found = _check(page, live_server.url + path, f"memory-{width}-{locale}-{name}")
            problems.extend(found)
    assert not problems, "\n".join(problems)


def test_a_games_head_to_head_link_leads_to_the_rivalry_and_back_to_the_game(
    browser: Launch, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    peers_history(monkeypatch)
    page = browser(phone=True)
    page.goto(f"{live_server.url}/results/week/2/1/")
    link = page.get_by_role("link", name="Head-to-head: Aigles – Boucs")
    expect(link).to_be_visible()
    link.click()
    expect(page.locator("h1")).to_contain_text("Aigles – Boucs")
    expect(page.locator("[data-meetings]")).to_have_text("2")
    page.get_by_role("link", name="How the goals were made").last.click()
    # The season 1 game, on its round's results page, at its anchor.
    assert "?season=1#game-" in page.url
    game = page.locator(".game:target")
    expect(game).to_be_visible()
    expect(game).to_contain_text("Aigles")
