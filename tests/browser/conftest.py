"""Real headless Chromium (Debian's ``chromium``) driven by Playwright, against pytest-django's
live server. Never ``playwright install``: the browser is the system's.

When Chromium is missing the browser tests are skipped, or fail with ``REQUIRE_SERVICES=1``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import BrowserContext, Page, sync_playwright

from matrixhockey.celery import app
from tests.conftest import services_required

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


Launch = Callable[..., Page]


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Launch]:
    """``browser(locale="fr-FR", phone=False, timezone_id=…)``: a page in a fresh Chromium
    profile (a new user-data directory each time)."""
    contexts: list[BrowserContext] = []
    with sync_playwright() as playwright:

        def launch(
            *, locale: str = "en-GB", phone: bool = False, timezone_id: str = "Europe/Paris"
        ) -> Page:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path / f"profile-{len(contexts)}"),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS,
                headless=True,
                locale=locale,
                timezone_id=timezone_id,
                **(PHONE if phone else DESKTOP),
            )
            context.set_default_timeout(15_000)
            contexts.append(context)
            return context.pages[0] if context.pages else context.new_page()

        try:
            yield launch
        finally:
            for context in contexts:
                context.close()
            # While Playwright's loop runs, the ORM keeps its connections in that loop's context
            # (asgiref's Local): close them here, or they outlive the test database.
            connections.close_all()


def screenshot(page: Page, name: str, *, full_page: bool = False) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
