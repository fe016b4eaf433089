"""Every public page of the demo league fits the screen, on a desktop (1280×900) and a phone
(390×844): no element passes the right edge of the viewport, but inside a scroller — an element
of class ``scroller`` (or ``table-scroll``, ``chips``: see ``static/css/site.css``), scrolled
sideways on its own, which itself fits. Each page is kept as a full-page screenshot in
``SCREENSHOT_DIR``."""

from __future__ import annotations

import pytest

from tests.browser.conftest import DemoSite, Launch, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]

SCROLLERS = ".scroller, .table-scroll, .chips"
"""The designated scrollers (docs/ARCHITECTURE.md, « Pages on a phone »)."""

OVERFLOWING = """(scrollers) => {
  const width = document.documentElement.clientWidth;
  const passes = (element) => {
    const box = element.getBoundingClientRect();
    return (box.width > 0 || box.height > 0) && box.right > width + 0.5;
  };
  const found = [];
  for (const element of document.body.querySelectorAll("*")) {
    const parent = element.parentElement;
    if (parent && parent.closest(scrollers)) continue;  // inside a scroller
    if (!passes(element) || (parent && parent !== document.body && passes(parent))) continue;
    const box = element.getBoundingClientRect();
    const name = element.tagName.toLowerCase()
      + (element.id ? "#" + element.id : "")
      + [...element.classList].map((c) => "." + c).join("");
    const text = (element.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
    found.push(`${name} ends at ${Math.round(box.right)}px: «${text}»`);
  }
  return {found, scrollWidth: document.documentElement.scrollWidth, width};
}"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_every_public_page_fits_the_screen_but_its_scrollers(
    demo_site: DemoSite, browser: Launch, phone: bool
) -> None:
    page = browser(locale="en-GB", phone=phone)
    size = "phone" if phone else "desktop"
    problems = []
    for name, path in demo_site.public_pages().items():
        page.goto(demo_site.url + path)
        screenshot(page, f"overflow-{size}-{name.replace(' ', '-')}", full_page=True)
        seen = page.evaluate(OVERFLOWING, SCROLLERS)
        if seen["found"] or seen["scrollWidth"] > seen["width"]:
            problems.append(
                f"{name} ({path}): the page is {seen['scrollWidth']}px wide for "
                f"{seen['width']}px\n    " + "\n    ".join(seen["found"][:10])
            )
    assert not problems, "\n".join(problems)
