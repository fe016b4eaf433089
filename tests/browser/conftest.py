"""Real headless Chromium (Debian's ``chromium``) driven by Playwright, against pytest-django's
live server. Never ``playwright install``: the browser is the system's.

When Chromium is missing the browser tests are skipped, or fail with ``REQUIRE_SERVICES=1``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core import mail
from django.core.mail import EmailMessage
from django.core.management import call_command
from django.db import connections
from django.test.utils import modify_settings
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from pytest_django import DjangoDbBlocker
from pytest_django.live_server_helper import LiveServer

from competitions.demo import DemoLeague
from league.models import Entry
from matrixhockey.celery import app
from tests.conftest import database_problem, services_required
from tests.demo_worlds import DemoWorlds, content_types_forget

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
SCREENSHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/matrixhockey-screenshots"))
DEMO_WEEK = 6
"""The demo league the public pages are checked on: weeks 1–5 published (the KDH at its
quarter-finals, the WG three group rounds in), week 6 played and waiting for its referee."""


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("browser") is None or CHROMIUM.exists():
        return
    problem = f"Chromium is not installed at {CHROMIUM} (Debian package: chromium)"
    if services_required():
        pytest.fail(f"REQUIRE_SERVICES=1 and {problem}", pytrace=False)
    pytest.skip(problem)


@pytest.fixture(autouse=True)
def _browser_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # still plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    # Receipt emails go out in the live server's process (locmem backend), not to a broker.
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = saved


MAIL_DEADLINE = 10.0
"""Seconds :func:`mail_sent` waits for the emails of an action the page has answered."""


def mail_sent(count: int) -> list[EmailMessage]:
    """Django's in-memory outbox once it holds ``count`` emails (at least), waited for with a
    deadline: with eager tasks the live server sends an action's emails just after its answer
    (``matrixhockey.after_response``), so the page may be back before they are."""
    deadline = time.monotonic() + MAIL_DEADLINE
    while len(mail.outbox) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(mail.outbox) >= count, f"{len(mail.outbox)} of {count} emails sent in time"
    return list(mail.outbox)


Launch = Callable[..., Page]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """One Chromium for a module's tests (a module runs on one xdist worker, in one go); each
    test's pages open in browser contexts of their own, which share nothing with one another:
    cookies, storage, cache and permissions are a context's (Chromium's incognito profiles). A
    launch costs about a second of CPU, more than most browser tests' own work."""
    # Playwright's sync API runs an event loop in this thread for as long as it is started, and
    # Django refuses its ORM where a loop runs: the module's other fixtures (its demo site) may
    # be set up or torn down while it runs. The test's own ORM calls are plain synchronous code.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield launched
        finally:
            launched.close()
            connections.close_all()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Launch]:
    """``browser(locale="fr-FR", phone=False, timezone_id=…)``: a page in a fresh browser
    context of the module's Chromium (no cookie, storage or cache of any other page)."""
    contexts: list[BrowserContext] = []

    def launch(
        *, locale: str = "en-GB", phone: bool = False, timezone_id: str = "Europe/Paris"
    ) -> Page:
        context = chromium.new_context(
            locale=locale, timezone_id=timezone_id, **(PHONE if phone else DESKTOP)
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    try:
        yield launch
    finally:
        for context in contexts:
            context.close()
        # While Playwright's loop runs, the ORM keeps its connections in that loop's context
        # (asgiref's Local): close them here, or they outlive the test database.
        connections.close_all()


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


def overflowing(page: Page) -> list[str]:
    """What passes the right edge of ``page``'s screen outside a designated scroller (and the
    page's own width when it scrolls sideways); empty when the page fits."""
    seen = page.evaluate(OVERFLOWING, SCROLLERS)
    problems = list(seen["found"])
    if seen["scrollWidth"] > seen["width"]:
        problems.insert(0, f"the page is {seen['scrollWidth']}px wide for {seen['width']}px")
    return problems


def screenshot(page: Page, name: str, *, full_page: bool = False) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@dataclass(frozen=True)
class DemoSite:
    """The demo league at :data:`DEMO_WEEK`, served by a live server of its own."""

    url: str
    league: DemoLeague
    team: str
    """The slug of the Elite's first team (code 1)."""

    def public_pages(self) -> dict[str, str]:
        """Every public page, by name: its path on the site. ``/results/`` and ``/infos/``
        redirect to a week and to the Elite's infos; the last one answers 404."""
        week = DEMO_WEEK
        return {
            "home": "/",
            "standings elite": "/standings/elite/",
            "standings kdh": "/standings/kdh/",
            "standings wg": "/standings/wg/",
            "results latest": "/results/",
            "results week waiting": f"/results/week/1/{week}/",
            "results elite round": f"/results/championship/elite/{week - 1}/",
            "results kdh round": f"/results/kdh/kdh/{week - 2}/",
            "infos index": "/infos/",
            "infos kdh": "/infos/kdh/kdh/",
            "matrices": "/matrices/",
            "seasons": "/seasons/",
            "season": "/seasons/1/",
            "season team": f"/seasons/teams/{self.team}/",
            "team": f"/teams/{self.team}/",
            "wg race": "/wg/race/",
            "rules": "/rules/",
            "rulings": "/rules/rulings/",
            "sign in": "/accounts/login/",
            "join": "/join/",
            "password reset": "/accounts/password_reset/",
            "not found": "/no-such-page/",
        }


@pytest.fixture(scope="module")
def demo_site(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> Iterator[DemoSite]:
    """The demo league loaded once for a module's tests, committed and served by
    pytest-django's live server on a port of its own. (The ``live_server`` fixture flushes the
    database after every test: the pages of a module are read, never changed, so they share one
    load.) Afterwards the database is flushed and given back the rows the migrations made, as
    Django's serialized rollback does: the module marks its tests
    ``django_db(serialized_rollback=True)`` so that they are kept at the session's start."""
    problem = database_problem()
    if problem is not None:
        if services_required():
            pytest.fail(f"REQUIRE_SERVICES=1 and {problem}", pytrace=False)
        pytest.skip(problem)
    connection = connections["default"]
    assert connection.settings_dict["NAME"].startswith("test_"), "not on a test database"
    with django_db_blocker.unblock(), modify_settings(ALLOWED_HOSTS={"append": "localhost"}):
        league = demo_worlds.load(week=DEMO_WEEK)
        first = Entry.objects.select_related("team").get(
            season=league.season, division__slug="elite", code=1
        )
        server = LiveServer("localhost")
        try:
            yield DemoSite(url=server.url, league=league, team=first.team.slug)
        finally:
            server.stop()
            kept = getattr(connection, "_test_serialized_contents", None)
            call_command("flush", interactive=False, verbosity=0, inhibit_post_migrate=bool(kept))
            if kept:
                connection.creation.deserialize_db_from_string(kept)
            content_types_forget()
