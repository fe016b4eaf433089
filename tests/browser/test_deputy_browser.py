"""The deputy's journey in a real browser (R12): signed in, they land on their team's pick page
with « Mes ordres » in the header, send a pick on the tiles, and the receipt goes to the coach
and to them, once each, the coach's naming the deputy; the home page does not offer them to
join the league."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from playwright.sync_api import expect
from pytest_django.live_server_helper import LiveServer

from competitions.models import Pool
from league.models import Team
from mail.models import OutboundEmail
from tests.browser.conftest import Launch, mail_sent, screenshot
from tests.competitions.open_rounds import OpenLeague, coaches_open_league, picks_sent
from tests.conftest import ResultRecorder

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def league(
    coach: User, other_coach: User, elite_pool: Pool, record_played: ResultRecorder
) -> OpenLeague:
    return coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )


@pytest.fixture
def deputy(league: OpenLeague) -> User:
    user = User.objects.create_user("friend", email="friend@example.org", password="secret-pw-1")
    Team.objects.filter(pk=league.coach_entry.team_id).update(deputy=user)
    return user


def test_a_deputy_signs_in_sends_a_pick_and_both_get_the_receipt(
    browser: Launch, live_server: LiveServer, deputy: User
) -> None:
    page = browser(locale="fr-FR")
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("input[name=username]").fill("friend")
    page.locator("input[name=password]").fill("secret-pw-1")
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/picks/")
    nav = page.get_by_role("navigation", name="Menu principal")
    expect(nav.get_by_role("link", name="Mes ordres")).to_have_attribute("aria-current", "page")

    card = page.locator("#round-championship-3")
    card.locator("label.tile", has_text=re.compile(r"^F$")).click()
    card.locator(".tiles-values label.tile", has_text=re.compile(r"^2")).click()
    card.get_by_role("button", name="Envoyer cet ordre").click()
    expect(page).to_have_url(f"{live_server.url}/picks/#receipt")
    receipt = page.locator("#receipt")
    expect(receipt.locator("[data-sender]")).to_have_text("friend (l’adjoint de l’équipe)")
    pick = picks_sent().get()
    assert pick.entered_by == deputy
    # The form now shows the pick that counts.
    expect(page.locator("#round-championship-3 input[data-part=column][value=F]")).to_be_checked()

    assert sorted(m.to[0] for m in mail_sent(2)) == [
        "friend@example.org",
        "sleigh-coach@example.org",
    ]
    assert OutboundEmail.objects.filter(template="pick-receipt").count() == 2
    [to_coach] = [m for m in mail.outbox if m.to == ["sleigh-coach@example.org"]]
    assert "Envoyé par : friend, l’adjoint de l’équipe" in to_coach.body
    screenshot(page, "deputy-receipt-fr")

    page.goto(f"{live_server.url}/")
    expect(page.locator("#glance-coach")).to_be_visible()
    expect(page.get_by_role("link", name="Rejoindre la ligue")).to_have_count(0)
