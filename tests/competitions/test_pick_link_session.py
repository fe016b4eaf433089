"""The session a reminder's one-click link opens sends picks only (``league.picks_only``): the
pick page, its submissions (the form and ``/api/picks/…``) and the public pages; everything
else — the deputy, « My account », the password, email choices, the calendar's address, the API
token, the desks, the admin — asks for the password first (``/accounts/confirm/``), which turns
the session into a full one."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from competitions.models import Pick, Round
from league.links import pick_link
from league.models import Profile, Team
from league.picks_only import PICKS_ONLY_ANY_METHOD, PICKS_ONLY_READS
from tests.competitions.open_rounds import OpenLeague

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

CONFIRM = "/accounts/confirm/"


@pytest.fixture
def friend(db: None) -> User:
    return User.objects.create_user("friend", email="friend@example.org", password="x")


@pytest.fixture
def by_link(league: OpenLeague, coach: User) -> Client:
    """A browser signed in by the coach's one-click link, and nothing else."""
    browser = Client(headers={"accept-language": "en"})
    assert browser.get(urlsplit(pick_link(coach)).path)["Location"] == "/picks/"
    return browser


def send(browser: Client, round: Round, column: str = "B") -> object:
    prefix = f"{round.competition}-{round.number}"
    data = {f"{prefix}-column": column, f"{prefix}-extra_time": "0", f"{prefix}-extra_goals": 0}
    return browser.post(reverse("pick_send", args=[round.competition, round.number]), data)


def asks_the_password(response: object, next_path: str) -> bool:
    location = response["Location"]  # type: ignore[index]
    return response.status_code == 302 and location == f"{CONFIRM}?next={next_path}"  # type: ignore[attr-defined]


def test_the_link_s_session_reads_the_pick_page_and_sends_picks(
    by_link: Client, league: OpenLeague
) -> None:
    assert by_link.get("/picks/").status_code == 200
    assert send(by_link, league.this_week).status_code == 302
    assert Pick.objects.filter(round=league.this_week).count() == 1


def test_the_link_s_session_sends_picks_through_the_api_too(
    by_link: Client, league: OpenLeague
) -> None:
    response = by_link.put(
        f"/api/picks/championship/{league.this_week.number}/",
        {"pick": "B(0)"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content


@pytest.mark.parametrize(
    "path", ["/", "/standings/elite/", "/teams/sleigh-dogs/", "/rules/", "/api/seasons/current/"]
)
def test_the_link_s_session_reads_the_public_pages(by_link: Client, path: str) -> None:
    assert by_link.get(path).status_code == 200


def test_naming_a_deputy_asks_for_the_password(by_link: Client, friend: User) -> None:
    response = by_link.post(
        reverse("team_deputy_set", args=["sleigh-dogs"]),
        {"who": "friend"},
        headers={"referer": "http://testserver/teams/sleigh-dogs/"},
    )
    assert asks_the_password(response, "/teams/sleigh-dogs/")
    assert Team.objects.get(slug="sleigh-dogs").deputy is None


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/accounts/"),
        ("post", "/accounts/"),
        ("get", "/accounts/password/"),
        ("post", "/accounts/api-token/"),
        ("get", "/emails/preferences/"),
        ("post", "/emails/preferences/"),
        ("post", "/calendar/coach/renew/"),
        ("post", "/teams/sleigh-dogs/deputy/remove/"),
        ("post", "/join/"),
        ("get", "/referee/"),
        ("get", "/desk/season/"),
        ("get", "/admin/"),
    ],
)
def test_everything_else_asks_for_the_password(by_link: Client, method: str, path: str) -> None:
    response = getattr(by_link, method)(path)
    assert response.status_code == 302
    assert response["Location"].startswith(f"{CONFIRM}?next=")


def test_the_api_s_other_operations_refuse_the_link_s_session(by_link: Client) -> None:
    response = by_link.get("/api/me/")
    assert response.status_code == 403
    assert set(response.json()) == {"detail"}


def test_the_password_upgrades_the_session(by_link: Client, coach: User, friend: User) -> None:
    page = by_link.get(f"{CONFIRM}?next=/teams/sleigh-dogs/")
    assert page.status_code == 200
    assert 'autocomplete="current-password"' in page.text
    assert "sleigh-coach" in page.text
    confirmed = by_link.post(
        CONFIRM, {"password": "secret-password", "next": "/teams/sleigh-dogs/"}
    )
    assert confirmed["Location"] == "/teams/sleigh-dogs/"
    assert by_link.get("/accounts/").status_code == 200
    by_link.post(reverse("team_deputy_set", args=["sleigh-dogs"]), {"who": "friend"})
    assert Team.objects.get(slug="sleigh-dogs").deputy == friend


def test_a_wrong_password_keeps_the_session_to_picks(by_link: Client) -> None:
    response = by_link.post(CONFIRM, {"password": "wrong", "next": "/accounts/"})
    assert response.status_code == 200
    assert "not your password" in response.text
    assert by_link.get("/accounts/")["Location"].startswith(CONFIRM)


def test_the_confirmation_follows_only_a_path_of_the_site(by_link: Client) -> None:
    response = by_link.post(
        CONFIRM, {"password": "secret-password", "next": "https://evil.example/"}
    )
    assert response["Location"] == "/picks/"


def test_the_confirmation_speaks_french(by_link: Client) -> None:
    page = by_link.get(CONFIRM, headers={"accept-language": "fr"})
    assert "Confirmez votre mot de passe" in page.text


@pytest.mark.parametrize(("language", "heading"), [("en", "Sign in"), ("fr", "Se connecter")])
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_signed_out_visitor_is_sent_to_sign_in(
    client: Client, league: OpenLeague, method: str, language: str, heading: str
) -> None:
    """No session to confirm: the sign-in page, in the visitor's language, then where they
    were going (the confirmation, which a full session passes straight through)."""
    asked = getattr(client, method)(
        f"{CONFIRM}?next=/accounts/",
        {"password": "secret-password"} if method == "post" else None,
        headers={"accept-language": language},
    )
    assert asked.status_code == 302
    assert asked["Location"] == f"/accounts/login/?next={quote(f'{CONFIRM}?next=/accounts/')}"
    page = client.get(asked["Location"], headers={"accept-language": language})
    assert page.status_code == 200
    assert f'<h1 id="sign-in-title">{heading}</h1>' in page.text


def test_a_link_s_session_signed_out_is_sent_to_sign_in(by_link: Client, coach: User) -> None:
    by_link.post(reverse("sign_out"))
    asked = by_link.get(CONFIRM)
    assert asked.status_code == 302
    assert asked["Location"].startswith("/accounts/login/?next=")
    signed_in = by_link.post(
        asked["Location"], {"username": "sleigh-coach", "password": "secret-password"}
    )
    assert signed_in["Location"] == CONFIRM
    assert by_link.get(CONFIRM).status_code == 302  # a full session: nothing to confirm
    assert by_link.get("/accounts/").status_code == 200


def test_signing_in_with_the_password_is_not_limited(
    client: Client, league: OpenLeague, coach: User
) -> None:
    client.post("/accounts/login/", {"username": "sleigh-coach", "password": "secret-password"})
    assert client.get("/accounts/").status_code == 200


def test_the_language_switch_changes_the_page_not_the_profile(by_link: Client, coach: User) -> None:
    Profile.objects.create(user=coach, language="en")
    response = by_link.post("/i18n/setlang/", {"language": "fr", "next": "/picks/"})
    assert response.status_code == 302
    assert response["Location"] == "/picks/"
    assert Profile.objects.get(user=coach).language == "en"


def _names(patterns: list[URLPattern | URLResolver], namespace: str = "") -> set[str]:
    names: set[str] = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue
            names |= _names(pattern.url_patterns, namespace)
        elif pattern.name:
            names.add(namespace + pattern.name)
    return names


ASKS_THE_PASSWORD = {
    "account",
    "account_api_token",
    "password_change",
    "sign_in",
    "join",
    "join_sent",
    "team_deputy_set",
    "team_deputy_remove",
    "calendar_coach_renew",
    "email_preferences",
    "referee",
    "referee_late_pick",
    "referee_round",
    "referee_arbitrate",
    "referee_publish",
    "season_desk",
    "season_desk_import",
    "season_desk_matrices",
    "season_desk_calendar",
    "season_desk_pools",
    "season_desk_kdh",
    "season_desk_wg",
    "season_desk_start",
    "season_desk_close",
    "season_desk_swap",
    "season_desk_plan_calendar",
    "season_desk_withdraw",
    "season_desk_job",
    "season_desk_job_restart",
    "api-me",
    "api-arbitration",
    "api-arbitration-publish",
}
"""What the link's session may not do without the password: every named page is on one side or
the other, so a new page is decided when it is added (the admin asks for it too)."""


def test_every_page_is_either_picks_only_or_asks_for_the_password() -> None:
    every = _names(get_resolver().url_patterns)
    allowed = PICKS_ONLY_ANY_METHOD | PICKS_ONLY_READS
    assert not allowed & ASKS_THE_PASSWORD
    assert every == allowed | ASKS_THE_PASSWORD, every ^ (allowed | ASKS_THE_PASSWORD)
