"""Every public page of the demo league fits the screen, on a desktop (1280×900) and a phone
(390×844): no element passes the right edge of the viewport, but inside a scroller — an element
of class ``scroller`` (or ``table-scroll``, ``chips``: see ``static/css/site.css``), scrolled
sideways on its own, which itself fits. Each page is kept as a full-page screenshot in
``SCREENSHOT_DIR``."""

from __future__ import annotations

import pytest

from tests.browser.conftest import DemoSite, Launch, overflowing, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]


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
        found = overflowing(page)
        if found:
            problems.append(f"{name} ({path}):\n    " + "\n    ".join(found[:10]))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("username", "password", "paths"),
    [
        ("referee", "referee", ["/referee/"]),
        ("coach", "demo", ["/", "/picks/", "/standings/elite/"]),
    ],
    ids=["referee", "coach"],
)
def test_the_signed_in_screens_fit_a_phone_in_french(
    demo_site: DemoSite, browser: Launch, username: str, password: str, paths: list[str]
) -> None:
    """French words are the longer ones (« ouvert jusqu'au vendredi 27 novembre, 17:00 »)."""
    page = browser(locale="fr-FR", phone=True)
    page.goto(demo_site.url + "/accounts/login/")
    page.fill("input[name=username]", demo_site.team if username == "coach" else username)
    page.fill("input[name=password]", password)
    page.press("input[name=password]", "Enter")
    page.wait_for_load_state()
    problems = []
    for path in paths:
        page.goto(demo_site.url + path)
        assert "/accounts/login/" not in page.url
        screenshot(
            page, f"overflow-phone-fr-{username}-{path.strip('/') or 'home'}", full_page=True
        )
        found = overflowing(page)
        if found:
            problems.append(f"{path}:\n    " + "\n    ".join(found[:10]))
    assert not problems, "\n".join(problems)
