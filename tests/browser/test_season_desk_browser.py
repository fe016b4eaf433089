"""The season desk in a real browser: an admin imports a first season, prepares it step by
step and starts it; another closes the demo's finished season, reads the next
season's plan, swaps two teams' groups and starts it; on a phone the desk fits the screen."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from competitions.models import Round
from league.models import Entry, Season
from tests.browser.conftest import Launch, screenshot
from tests.competitions.league_csv import csv_text, good_rows
from tests.demo_worlds import DemoWorlds

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
    close.click()

    expect(page.get_by_role("heading", name="Next step: start season 2")).to_be_visible()
    expect(page.get_by_role("heading", name="Groups (R22)")).to_be_visible()
    assert Season.objects.get(number=1).status == Season.Status.FINISHED
    screenshot(page, f"season-desk-plan-{'phone' if phone else 'desktop'}", full_page=True)
    assert fits_the_screen(page)

    # Two D3A and D3B teams that stay swap groups before the start.
    d3a = page.locator("select[name=first] optgroup[label=D3A] option", has_text="(stays)").first
    d3b = page.locator("select[name=second] optgroup[label=D3B] option", has_text="(stays)").first
    first, second = d3a.get_attribute("value"), d3b.get_attribute("value")
    page.locator("select[name=first]").select_option(first)
    page.locator("select[name=second]").select_option(second)
    page.get_by_role("button", name="Swap their groups").click()
    expect(page.get_by_role("button", name="Back to the default groups")).to_be_visible()

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

    page.get_by_role("button", name="Start Season 1").click()
    expect(page.locator("#start-job .job-status")).to_have_text("done")
    season = Season.objects.get(number=1)
    assert season.is_current and season.status == Season.Status.RUNNING
    assert Round.objects.get(season=season, competition="championship", number=4).week == 5
    screenshot(page, "season-desk-first-season-started")
