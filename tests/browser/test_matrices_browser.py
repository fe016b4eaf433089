"""R25 in a real browser: each column tile of the pick page shows its value in the round's row
of the matrix and how many of the pool's other teams still have it, as the matrix says — on a
desktop and on a phone, in French and English; ``/matrices/`` with the round picks are open for
highlighted and each deadline in the visitor's own time too."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from competitions.models import Pool
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.matrix_values import matrices_create
from tests.competitions.open_rounds import OpenLeague, coaches_open_league
from tests.conftest import ResultRecorder

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOCALES = {"en": "en-GB", "fr": "fr-FR"}
WORTH = {"en": "worth 6 goals", "fr": "vaut 6 buts"}
HELD = {
    "en": "1 of the 1 other teams of the pool still has it",
    "fr": "1 des 1 autres équipes de la poule l’a encore",
}


@pytest.fixture
def league(
    coach: User, other_coach: User, elite_pool: Pool, record_played: ResultRecorder
) -> OpenLeague:
    made = coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )
    matrices_create(season=elite_pool.season)
    return made


def sign_in(page: Page, live_server: LiveServer) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next=/picks/")
    page.locator("input[name=username]").fill("sleigh-coach")
    page.locator("input[name=password]").fill("secret-password")
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/picks/")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_tile_shows_its_value_in_the_rounds_row(
    browser: Launch, live_server: LiveServer, league: OpenLeague, language: str, phone: bool
) -> None:
    page = browser(locale=LOCALES[language], phone=phone)
    sign_in(page, live_server)
    card = page.locator("#round-championship-3")
    tiles = card.locator(".tiles-columns label.tile")
    # Championship round 3's row, (3 + c) % 6 + 1 from A: A4 B5 C6 D1 E2 F3 G4 H5 I6 J1 K2;
    # A (published) and D (arbitrated) are played already.
    expected = {"B": 5, "C": 6, "E": 2, "F": 3, "G": 4, "H": 5, "I": 6, "J": 1, "K": 2}
    expect(tiles).to_have_count(len(expected))
    shown = {
        tile.get_attribute("data-column"): tile.locator(".tile-worth [aria-hidden]").inner_text()
        for tile in tiles.all()
    }
    assert shown == {column: str(value) for column, value in expected.items()}
    # The other team of the pool played B in the published round: 0 of 1 still has it.
    b = tiles.and_(page.locator("[data-column=B]"))
    expect(b.locator(".tile-held [aria-hidden]")).to_have_text("0/1")
    c = tiles.and_(page.locator("[data-column=C]"))
    expect(c.locator(".tile-held [aria-hidden]")).to_have_text("1/1")
    # What a screen reader reads on the tile, in the page's language.
    expect(c.locator(".tile-worth .visually-hidden")).to_have_text(WORTH[language])
    expect(c.locator(".tile-held .visually-hidden")).to_have_text(HELD[language])
    # Every value visible on its tile, the tile still tappable.
    expect(c.locator(".tile-worth [aria-hidden]")).to_be_visible()
    c.click()
    card.locator(".tiles-values label.tile", has_text=re.compile(r"^2")).click()
    expect(card.locator("[data-preview]")).to_have_text("C(2)")
    assert overflowing(page) == []
    screenshot(page, f"matrix-tiles-{language}-{'phone' if phone else 'desktop'}")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_matrices_page_highlights_the_current_round_and_gives_the_visitors_time(
    browser: Launch, live_server: LiveServer, league: OpenLeague, phone: bool
) -> None:
    page = browser(phone=phone, timezone_id="Asia/Tokyo")
    page.goto(f"{live_server.url}/matrices/")
    current = page.locator("[data-matrix=championship] tr.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-round", "3")
    cells = current.locator("td.cell")
    expect(cells).to_have_text(["4", "5", "6", "1", "2", "3", "4", "5", "6", "1", "2"])
    local = current.locator("[data-local]")
    expect(local).to_be_visible()
    # 17:00 in Paris (UTC+1 in winter, +2 in summer) is 01:00 or 00:00 the next day in Tokyo.
    expect(local).to_contain_text("(Asia/Tokyo)")
    expect(local).to_contain_text(re.compile(r"0[01]:00"))
    assert overflowing(page) == []
    screenshot(page, f"matrices-{'phone' if phone else 'desktop'}", full_page=True)
