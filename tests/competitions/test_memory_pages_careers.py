"""A coach's page and its opt-out (issue 25), and the memory's API reads: the career the closes
stored (teams, seasons, promotions, titles, records), open to everyone until the coach hides it
in « My account »; then a 404 for a visitor, another coach and staff alike (staff read the
seasons' coaches in the admin), the page still theirs with a note, their name linked nowhere.

The league: :mod:`tests.competitions.memory_pages_league` — Camille coaches the Élans,
Dominique the Castors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from league.models import Profile, PublicVersion
from tests.competitions.memory_league import History
from tests.competitions.memory_pages_league import history_for_module

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def history(django_db_setup: None, django_db_blocker: Any) -> Iterator[History]:
    with history_for_module(django_db_blocker) as made:
        yield made


@pytest.fixture
def camille(history: History) -> User:
    return User.objects.get(username="camille")


@pytest.fixture
def dominique(history: History) -> User:
    """Another coach (the Castors')."""
    return User.objects.get(username="dominique")


def hide(user: User) -> None:
    Profile.objects.update_or_create(user=user, defaults={"career_public": False, "language": "en"})


def test_a_coach_s_page_shows_every_season_they_coached_and_what_it_adds_up_to(
    camille: User, open_as: Callable[..., Client]
) -> None:
    response = open_as(None).get("/coaches/camille/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Camille Martin" in html
    assert "data-seasons>2<" in html
    assert 'data-teams><a href="/teams/elans/">Élans</a><' in html
    assert "data-promotions>0<" in html
    assert "data-kdh-titles>1<" in html  # season 1: the KDH won on the shootout
    assert "data-elite-titles>0<" in html
    assert '<tr data-season="1">' in html and '<tr data-season="2">' in html
    assert 'href="/teams/elans/?season=1"' in html
    assert "KDH winner" in html
    assert "data-career-hidden" not in html


def test_the_coach_s_page_reads_in_french(camille: User, open_as: Callable[..., Client]) -> None:
    html = open_as(None, "fr").get("/coaches/camille/").content.decode()
    assert "Saisons entraînées" in html
    assert "Vainqueur KDH" in html


def test_an_unknown_coach_is_a_404(history: History, open_as: Callable[..., Client]) -> None:
    assert open_as(None).get("/coaches/nobody/").status_code == 404
    assert open_as(None).get("/api/coaches/nobody/").status_code == 404


@pytest.mark.parametrize("reader", ["visitor", "another coach", "staff"])
def test_an_opted_out_coach_s_page_is_a_404_for_everyone_else(
    history: History,
    camille: User,
    dominique: User,
    open_as: Callable[..., Client],
    reader: str,
) -> None:
    hide(camille)
    who = {"visitor": None, "another coach": dominique, "staff": history.admin}[reader]
    response = open_as(who).get("/coaches/camille/")
    assert response.status_code == 404
    assert "Élans" not in response.content.decode()


def test_an_opted_out_coach_still_reads_their_own_page_with_a_note(
    camille: User, open_as: Callable[..., Client]
) -> None:
    hide(camille)
    html = open_as(camille).get("/coaches/camille/").content.decode()
    assert "data-career-hidden" in html
    assert "Only you see this page" in html
    assert "data-seasons>2<" in html


def test_an_opted_out_coach_s_name_is_linked_nowhere(
    camille: User, open_as: Callable[..., Client]
) -> None:
    before = open_as(None).get("/teams/elans/").content.decode()
    assert '<a href="/coaches/camille/">Camille Martin</a>' in before
    hide(camille)
    after = open_as(None).get("/teams/elans/").content.decode()
    assert "/coaches/camille/" not in after
    assert "Camille Martin" in after  # still named: the season's coach at the close


def test_my_account_hides_the_page_and_retires_the_cached_pages(
    camille: User, open_as: Callable[..., Client]
) -> None:
    browser = open_as(camille)
    form = browser.get("/accounts/").content.decode()
    tick = re.search(r'<input type="checkbox" name="career_public"[^>]*>', form)
    assert tick is not None and " checked" in tick.group(0)
    assert 'href="/coaches/camille/"' in form
    version = PublicVersion.objects.filter(pk=1).values_list("published", flat=True).first() or 0
    response = browser.post("/accounts/", {"language": "en"})  # unticked: not sent
    assert response.status_code == 302
    assert Profile.objects.get(user=camille).career_public is False
    assert PublicVersion.objects.get(pk=1).published == version + 1
    assert open_as(None).get("/coaches/camille/").status_code == 404
    # Ticked again: public again; saving without a change moves nothing.
    browser.post("/accounts/", {"language": "en", "career_public": "on"})
    assert open_as(None).get("/coaches/camille/").status_code == 200
    browser.post("/accounts/", {"language": "fr", "career_public": "on"})
    assert PublicVersion.objects.get(pk=1).published == version + 2


# --- The API ------------------------------------------------------------------------------------


def api() -> APIClient:
    return APIClient(headers={"accept-language": "en"})


def test_the_all_time_read_gives_the_table_in_the_order_asked(history: History) -> None:
    response = api().get("/api/all-time/?scope=elite&order=goals_for")
    assert response.status_code == 200
    data = response.json()
    assert (data["scope"], data["order"], data["through"]) == ("elite", "goals_for", 2)
    first = data["rows"][0]
    assert first["team"] == {"slug": "boucs", "name": "Boucs"}
    assert set(first) == {
        "position", "team", "seasons", "games", "wins", "regulation_wins", "draws",
        "extra_time_losses", "losses", "goals_for", "goals_against", "goal_difference",
        "points", "elite_titles", "kdh_titles", "wg_titles", "seasons_without_onr",
    }  # fmt: skip
    assert (first["goals_for"], first["games"]) == (15, 6)


@pytest.mark.parametrize("query", ["?scope=d9", "?order=wins;drop", "?scope=elite&order=Points"])
def test_the_all_time_read_refuses_a_bad_scope_or_order_with_a_400(
    history: History, query: str
) -> None:
    response = api().get("/api/all-time/" + query)
    assert response.status_code == 400
    assert set(response.json()) <= {"scope", "order"}


def test_a_team_s_history_read_lists_its_closed_seasons_up_to_the_one_asked(
    history: History,
) -> None:
    data = api().get("/api/teams/castors/history/").json()
    assert data["team"] == {"slug": "castors", "name": "Castors"}
    assert [(s["season"], s["division"], s["rank"], s["moved"]) for s in data["seasons"]] == [
        (1, "elite", 4, "down"),
        (2, "d2a", 1, None),
    ]
    assert data["seasons"][1]["kdh_place"] == 2
    assert data["seasons"][1]["coach_name"] == "dominique"
    until = api().get("/api/teams/castors/history/?season=1").json()
    assert [s["season"] for s in until["seasons"]] == [1]
    assert api().get("/api/teams/castors/history/?season=7").status_code == 404
    assert api().get("/api/teams/nobody/history/").status_code == 404


def test_a_coach_s_career_read_and_its_404_once_hidden(history: History, camille: User) -> None:
    data = api().get("/api/coaches/camille/").json()
    assert (data["username"], data["name"]) == ("camille", "Camille Martin")
    assert [(s["season"], s["team"]["slug"], s["kdh_place"]) for s in data["seasons"]] == [
        (1, "elans", 1),
        (2, "elans", None),
    ]
    assert (data["promotions"], data["kdh_titles"], data["teams"]) == (
        0,
        1,
        [{"slug": "elans", "name": "Élans"}],
    )
    hide(camille)
    assert api().get("/api/coaches/camille/").status_code == 404
    # Their own token does not open it: the read is one answer for everyone (the page is theirs).
    own = api()
    own.force_authenticate(camille)
    assert own.get("/api/coaches/camille/").status_code == 404


def test_the_schema_documents_the_memory_s_reads(history: History) -> None:
    schema = api().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in ("/api/all-time/", "/api/teams/{slug}/history/", "/api/coaches/{username}/"):
        assert path in schema["paths"], path
        assert "404" in schema["paths"][path]["get"]["responses"] or path == "/api/all-time/"
    assert "400" in schema["paths"]["/api/all-time/"]["get"]["responses"]
