"""Every standings table of the demo league on a phone (390 px), in real Chromium: a long team
name (« Les Patinoires Perdues ») wraps legibly, never cut off with an ellipsis, its badges
beside it take no room from it, and nothing passes the screen's edge outside a scroller."""

from __future__ import annotations

import pytest

from league.models import Division
from tests.browser.conftest import DemoSite, Launch, overflowing, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]

CUT_NAMES = """() => [...document.querySelectorAll(".standings .team-col")].flatMap((cell) => {
  const name = cell.querySelector(".team-name");
  if (!name) return [];
  const style = getComputedStyle(cell);
  const own = cell.getBoundingClientRect(), box = name.getBoundingClientRect();
  const cut = cell.scrollWidth > cell.clientWidth + 1
    || (style.textOverflow === "ellipsis" && style.overflow !== "visible")
    || box.right > own.right + 1 || box.left < own.left - 1;
  const sizes = `${Math.round(box.width)}px in ${Math.round(own.width)}px`;
  return cut ? [`${name.textContent.trim()}: ${sizes}`] : [];
})"""


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_no_team_name_is_cut_in_a_standings_table_on_a_phone(
    demo_site: DemoSite, browser: Launch, locale: str
) -> None:
    page = browser(locale=locale, phone=True)
    assert page.viewport_size is not None and page.viewport_size["width"] == 390
    slugs = [*Division.objects.order_by("tier", "slug").values_list("slug", flat=True), "wg"]
    problems = []
    for slug in slugs:
        page.goto(f"{demo_site.url}/standings/{slug}/")
        names = page.locator(".standings .team-name").all_inner_texts()
        assert names, slug
        screenshot(page, f"standings-phone-{locale}-{slug}", full_page=True)
        cut = page.evaluate(CUT_NAMES)
        wide = overflowing(page)
        if cut or wide:
            problems.append(f"{slug}: cut {cut[:5]} · too wide {wide[:5]}")
    assert not problems, "\n".join(problems)
