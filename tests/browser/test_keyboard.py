"""The public pages with the keyboard alone, in real Chromium: Tab stops at every interactive
element in the order of the page (its reading order: no positive ``tabindex``, nothing skipped),
each stop with a visible ring (a solid outline, by computed style) and not hidden under the
sticky header, even going back with Shift+Tab; the skip link leads to the content; the charts
(``competitions/charts.py``) are images named by their title and description whose table opens
from the keyboard and can then be scrolled (its box takes the focus)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DemoSite, Launch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]

SCRIPT = Path(__file__).with_name("keyboard.js").read_text()
TABBABLE = "() => window.tabbable()"
FOCUSED = "() => window.describe(document.activeElement)"


RECORD = """() => {
  window.stops = [];
  // Where the focus is when the Tab key comes back up: after the key's press moved it and
  // scrolled it into view (both done while the key is down), as read by an evaluate after it.
  window.addEventListener("keyup", (event) => {
    if (event.key === "Tab") window.stops.push(window.describe(document.activeElement));
  }, true);
}"""
RECORDED = "() => window.stops.splice(0)"


def prepare(page: Page) -> None:
    page.evaluate(f"() => {{ {SCRIPT} }}")
    page.evaluate(RECORD)


def tab_through(page: Page, count: int, key: str = "Tab") -> list[dict[str, Any]]:
    """Each stop of ``count`` presses of ``key``, read by the page as each press ends (one
    round trip to the page for them all, not one a press)."""
    page.evaluate(RECORDED)
    for _ in range(count):
        page.keyboard.press(key)
    stops: list[dict[str, Any]] = page.evaluate(RECORDED)
    assert len(stops) == count, f"{count} presses of {key}, {len(stops)} stops seen"
    return stops


def ring_problems(stops: list[dict[str, Any]]) -> list[str]:
    """Stops whose focus cannot be seen: no ring, a thin or transparent one, wholly off the
    screen or out of its scroller, or under something else (the sticky header). A stop partly
    shown at a scroller's edge is seen (WCAG 2.4.11, focus not obscured)."""
    problems = []
    for stop in stops:
        style, width, colour = stop["outline"]
        if not stop["focusVisible"] or style == "none" or width < 2 or colour.endswith(", 0)"):
            problems.append(f"{stop['name']}: no visible ring ({style} {width}px {colour})")
        if not stop["inView"] or stop["covered"]:
            problems.append(f"{stop['name']}: out of view or under {stop['coveredBy']}")
    return problems


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_tab_stops_at_every_interactive_element_in_page_order_with_a_visible_ring(
    demo_site: DemoSite, browser: Launch, phone: bool
) -> None:
    page = browser(locale="en-GB", phone=phone)
    problems = []
    for name, path in demo_site.public_pages().items():
        page.goto(demo_site.url + path)
        prepare(page)
        assert page.locator("[tabindex]:not([tabindex='0']):not([tabindex='-1'])").count() == 0
        expected = page.evaluate(TABBABLE)
        # From the first stop, the skip link (the sign-in page gives its first field the focus).
        page.locator("a.skip").focus()
        forward = [page.evaluate(FOCUSED), *tab_through(page, len(expected) - 1)]
        backward = tab_through(page, len(expected) - 1, "Shift+Tab")
        order = [stop["index"] for stop in forward]
        if order != [stop["index"] for stop in expected]:
            problems.append(
                f"{name}: Tab went {[s['name'] for s in forward]}, "
                f"the page's order is {[s['name'] for s in expected]}"
            )
        if [stop["index"] for stop in backward] != order[-2::-1]:
            problems.append(f"{name}: Shift+Tab went {[s['name'] for s in backward]}")
        problems += [f"{name}: {problem}" for problem in ring_problems(forward + backward)]
    assert not problems, "\n".join(problems)


def test_the_skip_link_is_the_first_stop_and_leads_to_the_content(
    demo_site: DemoSite, browser: Launch
) -> None:
    page = browser(locale="en-GB", phone=True)
    page.goto(f"{demo_site.url}/standings/elite/")
    prepare(page)
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    expect(skip).to_be_focused()
    expect(skip).to_have_text("Skip to content")
    assert not ring_problems([page.evaluate(FOCUSED)])
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{demo_site.url}/standings/elite/#main")
    page.keyboard.press("Tab")
    # The next stop is the content's first, past the whole header: the lead's link to R9 (the
    # table's points and tie-breaks), then the pools' chips.
    expect(page.locator('main .lead a[href="/rules/#r9"]')).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("main .chips a").first).to_be_focused()


def chart_by_keyboard(page: Page, key: str) -> None:
    """Tab to ``key``'s chart's « The numbers as a table », open it with Enter, Tab into the
    table's box: the table shows the chart's numbers."""
    figure = page.locator(f'figure[data-chart="{key}"]')
    chart = figure.locator("svg:visible")  # a chart drawn twice shows one drawing
    title = chart.locator(":scope > title").text_content()
    description = chart.locator(":scope > desc").text_content()
    assert title and description
    assert title == figure.locator("figcaption").inner_text()
    expect(page.get_by_role("img", name=title)).to_have_count(1)
    assert page.get_by_role("img", name=title).get_attribute("aria-labelledby") == (
        f"{chart.get_attribute('id')}-title {chart.get_attribute('id')}-desc"
    )
    summary = figure.locator("summary")
    for _ in range(200):
        page.keyboard.press("Tab")
        if summary.evaluate("e => e === document.activeElement"):
            break
    expect(summary).to_be_focused()
    assert not ring_problems([page.evaluate(FOCUSED)])
    table = figure.locator("table")
    expect(table).to_be_hidden()
    page.keyboard.press("Enter")
    expect(table).to_be_visible()
    page.keyboard.press("Tab")
    box = figure.locator(".table-scroll")
    expect(box).to_be_focused()
    expect(box).to_have_attribute("aria-label", title)
    assert not ring_problems([page.evaluate(FOCUSED)])
    expect(table.locator("caption")).to_have_text(description)
    assert table.locator("tbody tr").count() > 0


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_places_chart_is_named_and_its_table_opens_from_the_keyboard(
    demo_site: DemoSite, browser: Launch, phone: bool
) -> None:
    page = browser(locale="en-GB", phone=phone)
    page.goto(f"{demo_site.url}/standings/elite/")
    prepare(page)
    chart_by_keyboard(page, "places")
    # One line per team of the division in the chart, one row per team in its table.
    figure = page.locator('figure[data-chart="places"]')
    lines = figure.locator("svg:visible").evaluate(
        "svg => new Set([...svg.querySelectorAll('.series')].map("
        "  (g) => [...g.classList].find((c) => c.startsWith('serie-')))).size"
    )
    assert lines == figure.locator("tbody tr").count() == 12


def test_the_team_page_charts_open_from_the_keyboard_for_its_coach(
    demo_site: DemoSite, browser: Launch
) -> None:
    page = browser(locale="en-GB")
    page.goto(f"{demo_site.url}/accounts/login/?next=/teams/{demo_site.team}/")
    page.locator("input[name=username]").fill(demo_site.team)
    page.locator("input[name=password]").fill("demo")
    page.locator("form.stack button[type=submit]").press("Enter")
    expect(page).to_have_url(f"{demo_site.url}/teams/{demo_site.team}/")
    prepare(page)
    chart_by_keyboard(page, "goals")
    chart_by_keyboard(page, "stocks")
