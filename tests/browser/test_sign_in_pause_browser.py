"""The sign-in pause in real Chromium: what is paused and until when, in the league's time and,
for a visitor in another time zone, in theirs (``static/js/countdown.js``)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import Launch, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def fail_five_times(page: Page, url: str, *, password_label: str, button: str) -> None:
    for _ in range(5):
        page.goto(f"{url}/accounts/login/")
        page.locator("input[name=username]").fill("sleigh-coach")
        page.get_by_label(password_label).fill("guess")
        page.get_by_role("button", name=button).click()


def test_the_pause_says_until_when_in_the_visitor_s_own_time(
    browser: Launch, live_server: LiveServer, coach: User
) -> None:
    page = browser(locale="en-CA", timezone_id="America/Toronto", phone=True)
    fail_five_times(page, live_server.url, password_label="Password", button="Sign in")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(
        re.compile(r"signing in to this account from your address is paused until .+ \d\d:\d\d")
    )
    expect(alert).to_contain_text("(Europe/Paris time)")
    expect(alert).to_contain_text(re.compile(r"Your time: .+\(America/Toronto\)"))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "sign-in-paused-phone")


def test_a_visitor_in_paris_reads_the_pause_in_french_once(
    browser: Launch, live_server: LiveServer, coach: User
) -> None:
    page = browser(locale="fr-FR")
    fail_five_times(page, live_server.url, password_label="Mot de passe", button="Se connecter")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("la connexion à ce compte depuis votre adresse est suspendue")
    expect(alert).to_contain_text("(heure Europe/Paris)")
    expect(alert.locator("[data-local]")).to_be_hidden()
    screenshot(page, "sign-in-paused-fr")
