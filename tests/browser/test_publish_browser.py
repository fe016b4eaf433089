"""The referee's « Publier » in a real browser: once clicked, the button says the round is being
published and a second click sends nothing; the desk comes back saying the round is public and
its results emails on their way, which the coaches then get (``matrixhockey.after_response``:
with eager tasks the live server sends them just after its answer)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from pytest_django.live_server_helper import LiveServer

from competitions import services
from competitions.models import PoolRound
from league.models import Division, Season
from tests.browser.conftest import Launch, mail_sent, overflowing, screenshot
from tests.competitions.desk_league import Desk, desk_sent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    """The referee's desk league with the Elite's first round sent (:func:`desk_sent`)."""
    return desk_sent(season=season, divisions=divisions)


TEXT = {
    "en": {"publish": "Publish", "busy": "Publishing…", "sent": "on their way to the pool"},
    "fr": {"publish": "Publier", "busy": "Publication…", "sent": "partent vers les entraîneurs"},
}


RECORD_SUBMITS = """() => {
  const submits = [];
  window.addEventListener("submit", (event) => {
    const form = event.target;
    const button = form.querySelector("button[type=submit]");
    submits.push([button.textContent, button.getAttribute("aria-disabled"),
                  form.getAttribute("aria-busy"), event.defaultPrevented]);
    sessionStorage.setItem("submits", JSON.stringify(submits));
    if (submits.length === 1) setTimeout(() => form.requestSubmit(), 0);
  });
}"""


@pytest.mark.parametrize(("language", "phone"), [("en", False), ("fr", True)])
def test_publishing_shows_it_is_under_way_and_the_desk_says_the_emails_follow(
    browser: Launch, live_server: LiveServer, desk: Desk, language: str, phone: bool
) -> None:
    pool_round = desk.pool_round(1)
    services.pool_round_arbitrate(pool_round=pool_round, by=desk.referee)
    page = browser(locale="fr-FR" if language == "fr" else "en-GB", phone=phone)
    page.goto(f"{live_server.url}/accounts/login/?next=/referee/championship/elite/1/")
    page.locator("input[name=username]").fill("referee")
    page.locator("input[name=password]").fill("secret-password")
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/referee/championship/elite/1/")

    # What the form shows once sent, read as the submit event leaves it (the page then goes),
    # and a second submission while the POST is on its way; kept over the navigation.
    page.evaluate(RECORD_SUBMITS)
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.method))
    page.get_by_role("button", name=TEXT[language]["publish"], exact=True).click()

    expect(page.locator(".alert-success")).to_contain_text(TEXT[language]["sent"])
    busy = TEXT[language]["busy"]
    submits = page.evaluate("JSON.parse(sessionStorage.getItem('submits'))")
    assert submits == [[busy, "true", "true", False], [busy, "true", "true", True]]
    assert posts.count("POST") == 1
    pool_round.refresh_from_db()
    assert pool_round.status == PoolRound.Status.PUBLISHED
    assert overflowing(page) == []
    screenshot(page, f"referee-published-{language}-{'phone' if phone else 'desktop'}")
    assert sorted(message.to[0] for message in mail_sent(2)) == sorted(
        [desk.coach.email, desk.other_coach.email]
    )
