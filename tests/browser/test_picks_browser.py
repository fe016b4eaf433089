"""A coach's week in a real browser: sign in, send a pick on the tiles, see the receipt; send a
wrong one, see why; in French and English, on a desktop and on a phone."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.utils import timezone, translation
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from competitions.models import Pick, Pool
from matrixhockey.french import date_format
from tests.browser.conftest import Launch, mail_sent, screenshot
from tests.competitions.open_rounds import OpenLeague, coaches_open_league, picks_sent
from tests.conftest import ResultRecorder

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = {
    "en": {
        "sign_in": "Sign in",
        "received": "Pick received",
        "send": "Send this pick",
        "bad_value": "the extra-time value must be 0, 1, 2, 3 or X",
        "week": "Week 3",
    },
    "fr": {
        "sign_in": "Se connecter",
        "received": "Ordre reçu",
        "send": "Envoyer cet ordre",
        "bad_value": "la valeur de prolongation doit être 0, 1, 2, 3 ou X",
        "week": "Semaine 3",
    },
}
LOCALES = {"en": "en-GB", "fr": "fr-FR"}


@pytest.fixture
def league(
    coach: User, other_coach: User, elite_pool: Pool, record_played: ResultRecorder
) -> OpenLeague:
    """The open-rounds league of the competitions' tests (``tests/competitions/conftest.py``)."""
    return coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )


def sign_in(page: Page, live_server: LiveServer, language: str) -> None:
    page.goto(f"{live_server.url}/picks/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/picks/$"))
    expect(page.get_by_role("heading", name=TEXT[language]["sign_in"])).to_be_visible()
    page.locator("input[name=username]").fill("sleigh-coach")
    page.locator("input[name=password]").fill("secret-password")
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/picks/")
    expect(page.get_by_role("heading", name=TEXT[language]["week"])).to_be_visible()


def this_week_card(page: Page):
    return page.locator("#round-championship-3")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_coach_sends_a_pick_on_the_tiles_and_sees_the_receipt(
    browser: Launch, live_server: LiveServer, league: OpenLeague, language: str, phone: bool
) -> None:
    page = browser(locale=LOCALES[language], phone=phone)
    sign_in(page, live_server, language)
    card = this_week_card(page)
    card.locator("label.tile", has_text=re.compile(r"^F$")).click()
    card.locator(".tiles-values label.tile", has_text=re.compile(r"^2")).click()
    card.locator("[data-stepper]").first.locator("[data-step='1']").click()
    expect(card.locator("[data-preview]")).to_have_text("F+(2)")
    card.get_by_role("button", name=TEXT[language]["send"]).click()

    expect(page).to_have_url(f"{live_server.url}/picks/#receipt")
    receipt = page.locator("#receipt")
    expect(receipt).to_be_visible()
    expect(receipt).to_contain_text(TEXT[language]["received"])
    pick = picks_sent().get()
    assert pick.normalized == "F+(2)"
    expect(receipt.locator("[data-receipt-hash]")).to_have_text(pick.receipt)
    expect(receipt).to_be_focused()
    expect(this_week_card(page).locator(".current .notation")).to_have_text("F+(2)")
    assert [m.to for m in mail_sent(1)] == [["sleigh-coach@example.org"]]
    screenshot(page, f"receipt-{language}-{'phone' if phone else 'desktop'}")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_wrong_pick_is_refused_next_to_its_form_and_what_was_typed_stays(
    browser: Launch, live_server: LiveServer, league: OpenLeague, language: str
) -> None:
    page = browser(locale=LOCALES[language])
    sign_in(page, live_server, language)
    card = this_week_card(page)
    card.locator("details.expert summary").click()
    card.locator("input[data-part=notation]").fill("f+(7)")
    expect(card.locator("[data-preview]")).to_have_text("F+(7)")
    card.get_by_role("button", name=TEXT[language]["send"]).click()

    card = this_week_card(page)
    alert = card.get_by_role("alert")
    expect(alert).to_contain_text(TEXT[language]["bad_value"])
    expect(card.locator("input[data-part=notation]")).to_have_value("f+(7)")
    assert not picks_sent().exists()
    assert mail.outbox == []


def test_a_double_click_sends_one_pick(
    browser: Launch, live_server: LiveServer, league: OpenLeague
) -> None:
    page = browser()
    sign_in(page, live_server, "en")
    card = this_week_card(page)
    card.locator("label.tile", has_text=re.compile(r"^C$")).click()
    card.locator(".tiles-values label.tile", has_text=re.compile(r"^1")).click()
    card.get_by_role("button", name="Send this pick").dblclick()
    expect(page.locator("#receipt")).to_be_visible()
    assert picks_sent().count() == 1


def test_the_deadline_counts_down_and_shows_the_visitor_s_own_time(
    browser: Launch, live_server: LiveServer, league: OpenLeague
) -> None:
    page = browser(timezone_id="Asia/Tokyo")
    page.clock.install()
    sign_in(page, live_server, "en")
    box = page.locator("section:has(#week-3) [data-countdown]")
    countdown = box.locator("[data-countdown-text]")
    expect(countdown).to_have_text(re.compile(r"^\d+\u00a0d \d\d\u00a0h \d\d\u00a0min$"))
    local = box.locator("[data-local]")
    expect(local).to_be_visible()
    tokyo = league.this_week.deadline.astimezone(ZoneInfo("Asia/Tokyo"))
    expect(local).to_contain_text(f"{tokyo:%A} {tokyo.day} {tokyo:%B %Y, %H:%M} (Asia/Tokyo)")
    days, hours, minutes = map(int, re.findall(r"\d+", countdown.text_content() or ""))
    left = league.this_week.deadline - timezone.now()
    assert abs((days * 1440 + hours * 60 + minutes) - left.total_seconds() / 60) < 2
    page.clock.run_for(61_000)
    expect(countdown).not_to_have_text(f"{days}\u00a0d {hours:02d}\u00a0h {minutes:02d}\u00a0min")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_visitor_s_own_time_is_written_in_the_site_s_shape_of_a_moment(
    browser: Launch, live_server: LiveServer, league: OpenLeague, language: str
) -> None:
    # The script writes the visitor's time as the server writes the league's
    # (matrixhockey/formats/): « Friday 27 November 2026, 17:00 », « vendredi 27 novembre… ».
    page = browser(locale=LOCALES[language], timezone_id="Asia/Tokyo")
    sign_in(page, live_server, language)
    box = page.locator("section:has(#week-3) [data-countdown]")
    tokyo = timezone.localtime(league.this_week.deadline, ZoneInfo("Asia/Tokyo"))
    paris = timezone.localtime(league.this_week.deadline, ZoneInfo("Europe/Paris"))
    with translation.override(language):
        there = date_format(tokyo, "DATETIME_FORMAT")
        here = date_format(paris, "DATETIME_FORMAT")
    assert re.fullmatch(r"\w+ \d{1,2}(er)? \w+ \d{4}, \d\d:\d\d", there), there
    expect(box.locator("[data-local-text]")).to_have_text(f"{there} (Asia/Tokyo)")
    expect(box.locator("time").first).to_have_text(here)


def test_the_week_s_forms_close_when_its_deadline_passes_on_screen(
    browser: Launch, live_server: LiveServer, league: OpenLeague
) -> None:
    page = browser()
    page.clock.install()
    sign_in(page, live_server, "en")
    box = page.locator("section:has(#week-3) [data-countdown]")
    send = this_week_card(page).get_by_role("button", name="Send this pick")
    expect(send).to_be_enabled()
    left = league.this_week.deadline - timezone.now()
    page.clock.fast_forward(int(left.total_seconds() * 1000) + 2_000)
    expect(box.locator("[data-countdown-text]")).to_have_text("Deadline passed: picks are closed.")
    expect(this_week_card(page).locator("button[type=submit]")).to_be_disabled()


def test_a_visitor_in_paris_is_not_shown_the_same_time_twice(
    browser: Launch, live_server: LiveServer, league: OpenLeague
) -> None:
    page = browser(timezone_id="Europe/Paris")
    sign_in(page, live_server, "en")
    expect(page.locator("[data-local]").first).to_be_hidden()


def test_the_pick_page_and_infos_look_right_on_a_phone_and_a_desktop(
    browser: Launch, live_server: LiveServer, league: OpenLeague
) -> None:
    phone = browser(locale="fr-FR", phone=True)
    sign_in(phone, live_server, "fr")
    screenshot(phone, "picks-phone")
    # Nothing on the page is wider than the phone's screen.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.goto(f"{live_server.url}/infos/championship/elite/")
    team_cell = phone.locator("table.infos tbody th").first
    assert team_cell.evaluate("cell => getComputedStyle(cell).position") == "sticky"
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(phone, "infos-phone")

    desktop = browser(locale="en-GB")
    sign_in(desktop, live_server, "en")
    screenshot(desktop, "picks-desktop")
    desktop.goto(f"{live_server.url}/infos/championship/elite/")
    expect(desktop.locator("table.infos tbody tr")).to_have_count(2)
    screenshot(desktop, "infos-desktop")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_next_week_s_form_marks_what_this_week_s_pick_already_uses(
    browser: Launch, live_server: LiveServer, league: OpenLeague, phone: bool
) -> None:
    page = browser(locale="en-GB", phone=phone)
    sign_in(page, live_server, "en")
    card = this_week_card(page)
    card.locator("label.tile", has_text=re.compile(r"^C$")).click()
    card.locator(".tiles-values label.tile", has_text=re.compile(r"^1")).click()
    card.get_by_role("button", name=TEXT["en"]["send"]).click()
    expect(page.locator("#receipt")).to_contain_text(TEXT["en"]["received"])

    later = page.locator("#round-championship-4")
    later.locator("summary").first.click()  # the advance form opens
    spoken = later.locator("label.tile-spoken", has=page.locator("input[value=C]"))
    expect(spoken).to_be_visible()
    expect(spoken).to_have_attribute("title", "Already in your pick for round 3")
    expect(later.locator("[data-spoken]")).to_be_visible()
    # The page still fits the screen: no element wider than the viewport.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"]
    screenshot(page, f"picks-spoken-{'phone' if phone else 'desktop'}", full_page=True)

    # Sent anyway, the advance pick is kept and the coach is warned (R11).
    later.locator("label.tile", has=page.locator("input[value=C]")).click()
    later.locator(".tiles-values label.tile", has_text=re.compile(r"^0")).click()
    later.get_by_role("button", name=TEXT["en"]["send"]).click()
    expect(page.get_by_text("Your pick for round 3 already uses column C")).to_be_visible()
    assert Pick.objects.filter(round=league.next_week, normalized="C(0)").exists()


@pytest.mark.parametrize("width", [390, 1024, 1440])
def test_the_account_link_is_named_at_every_width(
    browser: Launch, live_server: LiveServer, league: OpenLeague, width: int
) -> None:
    """Only the avatar shows where the header is short of room, but the link keeps its name for
    screen readers; the header's links fit one row on a 1440-wide screen, « My account » shown."""
    page = browser(locale="en-GB", phone=width < 640)
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server, "en")
    account = page.get_by_role("link", name="My account")
    expect(account).to_have_count(1)
    expect(account).to_be_visible()
    shown = page.evaluate(
        "getComputedStyle(document.querySelector('.account-link .visually-hidden-narrow')).width"
    )
    assert (shown != "1px") is (width >= 1440)
