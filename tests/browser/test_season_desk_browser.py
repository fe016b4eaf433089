"""The season desk in a real browser: an admin imports a first season, prepares it step by
step and starts it; another closes the demo's finished season, reads the next
season's plan, swaps two teams' groups and starts it; on a phone the desk fits the screen."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from competitions.models import Round
from competitions.services import season_start as season_start_module
from league.models import Entry, Season
from matrixhockey.celery import app
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.desk_league import running_worker
from tests.competitions.league_csv import csv_text, good_rows
from tests.demo_worlds import DemoWorlds

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORKER_TIMEOUT = 90


def sign_in_as_admin(page: Page, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/desk/season/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/desk/season/$"))
    page.locator("input[name=username]").fill("admin")
    page.locator("input[name=password]").fill("admin")
    page.locator("form button[type=submit]").last.click()
    expect(page).to_have_url(re.compile(r"/desk/season/$"))


def fits_the_screen(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_an_admin_closes_the_season_and_starts_the_next_from_its_plan(
    browser: Launch, live_server: LiveServer, phone: bool, demo_worlds: DemoWorlds
) -> None:
    demo_worlds.load(week=11)
    page = browser(phone=phone)
    sign_in_as_admin(page, live_server)

    close = page.get_by_role("button", name=re.compile(r"^Close "))
    expect(close).to_be_visible()
    assert fits_the_screen(page)
    page.get_by_role("checkbox", name=re.compile(r"^Close .* cannot be undone")).check()
    close.click()

    expect(page.get_by_role("heading", name="Next step: start season 2")).to_be_visible()
    expect(page.get_by_role("heading", name="Groups (R22)")).to_be_visible()
    assert Season.objects.get(number=1).status == Season.Status.FINISHED
    screenshot(page, f"season-desk-plan-{'phone' if phone else 'desktop'}", full_page=True)
    assert fits_the_screen(page)

    # Two D3A and D3B teams that stay swap groups before the start.
    d3a = page.locator("select[name=first] [data-division=d3a] option", has_text="(stays)").first
    d3b = page.locator("select[name=second] [data-division=d3b] option", has_text="(stays)").first
    first, second = d3a.get_attribute("value"), d3b.get_attribute("value")
    page.locator("select[name=first]").select_option(first)
    page.locator("select[name=second]").select_option(second)
    page.get_by_role("button", name="Swap their groups").click()
    expect(page.get_by_role("button", name="Back to the default groups")).to_be_visible()

    page.get_by_role("checkbox", name=re.compile(r"^Start season 2 now")).check()
    page.get_by_role("button", name="Start season 2 from this plan").click()
    # The start ran (eagerly here); the desk shows it done and the new season playing.
    expect(page.locator("#start-job .job-status")).to_have_text("done")
    expect(page.locator(".stage.is-current")).to_have_text("Play")
    season = Season.objects.get(number=2)
    assert season.is_current and season.status == Season.Status.RUNNING
    assert Entry.objects.get(season=season, team__slug=first).division.slug == "d3b"
    assert Entry.objects.get(season=season, team__slug=second).division.slug == "d3a"
    assert fits_the_screen(page)


def test_an_admin_imports_a_first_season_prepares_it_and_starts_it(
    browser: Launch, live_server: LiveServer, tmp_path: Path
) -> None:
    User.objects.create_user("admin", password="admin", is_staff=True)
    league_file = tmp_path / "league.csv"
    league_file.write_text(csv_text(good_rows()), encoding="utf-8")
    page = browser()
    sign_in_as_admin(page, live_server)

    page.locator("input[type=file][name=file]").set_input_files(str(league_file))
    page.get_by_role("button", name="Import season 1").click()
    expect(page.locator(".stage.is-current")).to_have_text("Prepare")

    page.get_by_role("button", name="Draw the matrices").click()
    expect(page.get_by_role("heading", name=re.compile(r"Matrices \(R19\)\s+done"))).to_be_visible()

    monday = timezone.localdate() + timedelta(days=14 - timezone.localdate().weekday())
    page.locator("input[name=starts_on]").first.fill(monday.isoformat())
    page.locator("input[name=skip]").first.fill("4")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("tr.skipped")).to_have_count(1)
    page.get_by_role("button", name="Set this calendar").click()
    page.get_by_role("button", name="Create the pools").click()
    page.get_by_role("button", name="Commit this draw").click()  # the KDH's first round

    for box in page.locator(".wg-choice input[type=checkbox]").all()[:12]:
        box.check()
    page.get_by_role("button", name="Preview the groups").click()
    expect(page.locator(".wg-groups li")).to_have_count(12)
    page.get_by_role("button", name="Commit this draw").click()

    page.get_by_role("checkbox", name=re.compile(r"^Start Season 1 now")).check()
    page.get_by_role("button", name="Start Season 1").click()
    expect(page.locator("#start-job .job-status")).to_have_text("done")
    season = Season.objects.get(number=1)
    assert season.is_current and season.status == Season.Status.RUNNING
    assert Round.objects.get(season=season, competition="championship", number=4).week == 5
    screenshot(page, "season-desk-first-season-started")


OVERLAPS = """(selector) => {
  // Every pair of boxes matched by ``selector`` that share a parent and cover one another.
  const found = [];
  const boxes = [...document.querySelectorAll(selector)].filter((e) => e.getClientRects().length);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.parentElement !== b.parentElement) continue;
      const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
      const w = Math.min(r.right, s.right) - Math.max(r.left, s.left);
      const h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      const text = a.textContent.trim().slice(0, 30);
      if (w > 1 && h > 1) found.push(`${a.className} × ${b.className}: «${text}»`);
    }
  }
  return found;
}"""

PLAN_BOXES = (
    ".season-desk > *, .plan-divisions > *, .plan-teams > li, .plan-team > *, .plan-division > *"
)


def close_the_season(page: Page) -> None:
    page.get_by_role("checkbox", name=re.compile(r"^Close .* cannot be undone")).check()
    page.get_by_role("button", name=re.compile(r"^Close ")).click()
    expect(page.get_by_role("heading", name="Next step: start season 2")).to_be_visible()


@pytest.mark.parametrize("width", [390, 1920])
def test_the_plan_reads_a_division_a_card_at_390_and_1920_px(
    browser: Launch, live_server: LiveServer, width: int, demo_worlds: DemoWorlds
) -> None:
    demo_worlds.load(week=11)
    page = browser(phone=width == 390)
    if width != 390:
        page.set_viewport_size({"width": width, "height": 1080})
    sign_in_as_admin(page, live_server)
    # Without its box ticked, the browser does not send the close (the server refuses it too).
    page.get_by_role("button", name=re.compile(r"^Close ")).click()
    assert Season.objects.get(number=1).status == Season.Status.RUNNING
    close_the_season(page)

    cards = page.locator(".plan-division")
    expect(cards).to_have_count(7)
    expect(page.locator(".plan-team")).to_have_count(84)
    expect(cards.first.locator("h2")).to_contain_text("Elite")
    screenshot(page, f"season-desk-plan-{width}", full_page=True)
    assert overflowing(page) == []
    assert page.evaluate(OVERLAPS, PLAN_BOXES) == []
    if width == 1920:
        # Cards side by side on a wide screen: more than one on the first row.
        tops = cards.evaluate_all("(all) => all.map((card) => card.getBoundingClientRect().top)")
        assert tops.count(tops[0]) >= 3


@pytest.mark.celery_worker
def test_the_start_shows_its_progress_live_then_the_result(
    browser: Launch,
    live_server: LiveServer,
    demo_worlds: DemoWorlds,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    demo_worlds.load(week=11)
    # A real worker takes the start from Redis; it waits before the KDH's draw until the page
    # has shown the progress so far.
    # Set, not monkeypatched: the browser modules' own fixture puts its value back after the
    # test, and a monkeypatch undone after it would leave tasks eager for the next modules.
    app.conf.task_always_eager = False
    reached, go_on = threading.Event(), threading.Event()
    real = season_start_module.season_prepare_kdh

    def paused(**kwargs: object) -> object:
        reached.set()
        assert go_on.wait(WORKER_TIMEOUT)
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(season_start_module, "season_prepare_kdh", paused)
    page = browser()
    sign_in_as_admin(page, live_server)
    close_the_season(page)
    with running_worker():
        try:
            page.get_by_role("checkbox", name=re.compile(r"^Start season 2 now")).check()
            page.get_by_role("button", name="Start season 2 from this plan").click()
            page.evaluate("window.stayed = true")  # gone if the page loads again
            assert reached.wait(WORKER_TIMEOUT)
            card = page.locator("#start-job")
            # 18 of 21 steps done, read by the page's script from the job's JSON.
            expect(card.locator(".job-done")).to_have_text("18", timeout=10_000)
            expect(card.locator(".job-message")).to_contain_text("D3D")
            expect(card.locator("progress")).to_have_attribute("value", "85")
            expect(card.locator(".job-status")).to_have_text("running")
            assert page.evaluate("window.stayed") is True
            assert "queued" not in (page.locator(".messages").all_inner_texts() or [""])[0]
        finally:
            go_on.set()
        expect(page.locator("#start-job .job-status")).to_have_text("done", timeout=60_000)
    expect(page.locator("#start-job .job-result")).to_contain_text(
        "Season 2 started: it is current and running"
    )
    expect(page.locator("#start-job progress")).to_have_count(0)
    expect(page.locator(".stage.is-current")).to_have_text("Play")
