"""A KDH lucky loser's reason (R15) in real Chromium, on a phone and a desktop: visible on the
bracket (in its slot, inside the bracket's own scroller) and on the round's results page,
nothing wider than the screen. The round is
:mod:`tests.competitions.test_lucky_loser_reason`'s: game 2's loser goes on by the smallest
shootout defeat margin, 1 against 2.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django.live_server_helper import LiveServer

from competitions import services
from competitions.models import Competition
from league.models import Division, Season
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.arbitration_league import add_kdh, build_league
from tests.competitions.test_lucky_loser_reason import ROW, play_lucky_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WHY = "the smallest shootout defeat margin: 1, against 2 for the best loser left out (R15)"


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_lucky_losers_reason_reads_on_a_phone(
    browser: Launch,
    live_server: LiveServer,
    season: Season,
    divisions: dict[str, Division],
    phone: bool,
) -> None:
    referee = User.objects.create_user("cup-referee", password="x")
    made = build_league(
        season=season, divisions=divisions, referee=referee, matrix_rows={Competition.KDH: {1: ROW}}
    )
    add_kdh(made)
    games, pool_round = play_lucky_round(made)
    services.pool_round_publish(pool_round=pool_round, by=referee)
    lucky = made.entries[games[2][1]].team.name
    size = "phone" if phone else "desktop"

    page = browser(locale="en-GB", phone=phone)
    page.goto(f"{live_server.url}/results/kdh/{made.pools['kdh'].slug}/1/")
    screenshot(page, f"lucky-loser-results-{size}", full_page=True)
    reason = page.locator("[data-lucky-losers] li")
    assert reason.is_visible()
    assert " ".join(reason.inner_text().split()) == f"Lucky loser: {lucky} — {WHY}"
    assert overflowing(page) == []

    page.goto(f"{live_server.url}/standings/kdh/")
    screenshot(page, f"lucky-loser-bracket-{size}", full_page=True)
    why = page.locator(".slot-why")
    why.scroll_into_view_if_needed()
    assert why.is_visible()
    assert " ".join(why.inner_text().split()) == f"{lucky} goes on: {WHY}"
    assert overflowing(page) == []
