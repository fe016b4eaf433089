"""« Join the league » in real Chromium on a phone: the form, the emailed link, the place, and
leaving the list."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.cache import cache
from playwright.sync_api import expect
from pytest_django.live_server_helper import LiveServer

from league.models import WaitingListEntry
from tests.browser.conftest import Launch, mail_sent, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_joins_the_waiting_list_and_leaves_it_on_a_phone(
    browser: Launch, live_server: LiveServer
) -> None:
    cache.clear()
    page = browser(locale="en-GB", phone=True)
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Join the league").first.click()
    expect(page).to_have_url(f"{live_server.url}/join/")
    page.get_by_label("Your name").fill("Jeanne Puck")
    page.get_by_label("Your email").fill("jeanne@example.org")
    page.get_by_label("The name you wish for your team").fill("Les Castors")
    page.locator("label.tile", has_text="English").click()
    # Nothing sticks out of a phone's width.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, "join-form-phone")
    page.get_by_role("button", name="Join the waiting list").click()

    expect(page).to_have_url(f"{live_server.url}/join/sent/")
    expect(page.get_by_role("heading", name="Check your inbox")).to_be_visible()
    expect(page.locator("main")).to_contain_text("jeanne@example.org")
    [email] = mail_sent(1)
    [link] = re.findall(r"http\S+/join/confirm/\S+/", email.body)
    page.goto(live_server.url + link.removeprefix(settings.SITE_URL.rstrip("/")))

    expect(page.get_by_role("heading", name="Your place on the waiting list")).to_be_visible()
    expect(page.locator("main")).to_contain_text("Your email address is confirmed")
    expect(page.locator("#waiting-place")).to_have_text("1 of 1")
    screenshot(page, "join-place-phone")
    page.get_by_role("link", name="Leave the waiting list").click()
    page.get_by_role("button", name="Yes, leave the list").click()
    expect(page.locator("main")).to_contain_text("Les Castors left the waiting list.")
    assert WaitingListEntry.objects.get().status == WaitingListEntry.Status.WITHDRAWN
