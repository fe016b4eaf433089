"""The home page: the current season's divisions, in French or English, on any screen."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from competitions.services import entry_replace
from league.models import Division, Entry
from league.services import team_create

pytestmark = pytest.mark.django_db


def test_the_home_page_lists_the_current_seasons_divisions_and_teams(
    client: Client, enter_team: Callable[..., Entry], divisions: dict[str, Division]
) -> None:
    enter_team("Sleigh Dogs", code=1)
    enter_team("Igloos", code=9, division=divisions["d3c"])
    html = client.get(reverse("home")).content.decode()
    assert "Saison 2026" in html
    assert (
        html.index("Elite") < html.index("Sleigh Dogs") < html.index("D3C") < html.index("Igloos")
    )
    assert "D2A" not in html  # no team there this season
    assert '<span class="code">09</span> <a href="/teams/igloos/">Igloos</a>' in html


def test_a_replaced_team_is_no_longer_listed(
    client: Client, enter_team: Callable[..., Entry]
) -> None:
    gone = enter_team("Cybérians", code=3)
    entry_replace(entry=gone, team=team_create(name="Dummy 1", is_dummy=True))
    html = client.get(reverse("home")).content.decode()
    assert "Cybérians" not in html and "Dummy 1" in html


def test_the_home_page_says_when_no_season_is_under_way(client: Client, db: None) -> None:
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert "No season is under way yet." in response.content.decode()


def test_the_home_page_speaks_french_by_default(db: None) -> None:
    html = Client().get(reverse("home")).content.decode()
    assert '<html lang="fr">' in html
    assert "Aucune saison n’est en cours pour le moment." in html


def test_the_language_switcher_changes_the_language(db: None) -> None:
    browser = Client()
    response = browser.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert response.status_code == 302
    html = browser.get(reverse("home")).content.decode()
    assert '<html lang="en">' in html
    assert "No season is under way yet." in html


def test_the_page_is_made_for_phones(client: Client, db: None) -> None:
    html = client.get(reverse("home")).content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "/static/css/site.css" in html


def test_the_health_check_answers(client: Client, db: None) -> None:
    """The test settings run on PostgreSQL and Redis (REDIS_URL): every part answers."""
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok", "broker": "ok"}
