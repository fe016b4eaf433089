"""Every score explained (R3) in real Chromium: on a published round's page each game opens (a
native ``<details>``, no script) on each team's steps, whose amounts add up to the score shown;
opened, the page still fits a phone's screen; French and English."""

from __future__ import annotations

import pytest

from tests.browser.conftest import DEMO_WEEK, DemoSite, Launch, overflowing, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]

SUMMARY = {"en-GB": "How the goals were made", "fr-FR": "Comment les buts ont été marqués"}
GOALS = {
    "en-GB": lambda n: "goal" if n == 1 else "goals",
    "fr-FR": lambda n: "but" if n <= 1 else "buts",
}
COLUMN_WORDS = {"en-GB": "in this round's row (R1)", "fr-FR": "dans la ligne de cette journée (R1)"}


def amount(text: str) -> int:
    """A step's amount as the page shows it: « +5 », « −3 » (a minus sign), « 0 »."""
    return int(text.replace("−", "-"))


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_a_game_opens_on_steps_that_add_up_to_its_score(
    demo_site: DemoSite, browser: Launch, locale: str, phone: bool
) -> None:
    page = browser(locale=locale, phone=phone)
    page.goto(f"{demo_site.url}/results/championship/elite/{DEMO_WEEK - 1}/")
    games = page.locator("li.game")
    assert games.count() == 6
    game = games.first
    steps = game.locator("table.steps")
    assert not steps.first.is_visible()  # closed until asked
    summary = game.locator("details.explain > summary")
    assert summary.inner_text().strip() == SUMMARY[locale]
    summary.click()
    assert steps.first.is_visible()
    shown = [
        int(game.locator(".home-goals").inner_text()),
        int(game.locator(".away-goals").inner_text()),
    ]
    assert steps.count() == 2
    for index, goals in enumerate(shown):
        table = steps.nth(index)
        amounts = [amount(cell) for cell in table.locator("tbody td.amount").all_inner_texts()]
        assert sum(amounts) == goals
        assert table.locator("tfoot").inner_text().split() == [
            "=",
            str(goals),
            GOALS[locale](goals),
        ]
        assert COLUMN_WORDS[locale] in table.locator("tbody").inner_text()
    size = "phone" if phone else "desktop"
    screenshot(page, f"explanation-{size}-{locale}", full_page=True)
    game.screenshot(path=str(screenshot(page, f"explanation-{size}-{locale}-game")))
    assert overflowing(page) == []
