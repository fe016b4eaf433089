"""``/results/`` and ``/results/week/<season>/<week>/``: every pool's published results of a
week, the others listed as to come — never their games before publication."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.competitions.results_league import RULES_LINES, SEED, RulesWeek, game_lines

pytestmark = pytest.mark.django_db


def test_before_any_publication_the_latest_results_page_says_so(
    client: Client, week: RulesWeek
) -> None:
    week.arbitrate()
    response = client.get("/results/")
    assert response.status_code == 200
    assert "No results yet." in response.content.decode()


@pytest.mark.parametrize("who", [None, "coach", "other_coach"])
def test_an_unpublished_pool_is_listed_without_its_games(
    client: Client, week: RulesWeek, who: str | None, request: pytest.FixtureRequest
) -> None:
    week.arbitrate()
    if who:
        client.force_login(request.getfixturevalue(who))
    html = client.get("/results/week/1/1/").content.decode()
    assert "Not published yet" in html
    assert "played, being checked" in html
    assert game_lines(html) == []
    for secret in ("D++*(1)", "F+(2)", "6-3", SEED):
        assert secret not in html


def test_the_latest_week_shows_the_published_results_in_the_rules_display(
    client: Client, week: RulesWeek
) -> None:
    week.arbitrate()
    week.publish()
    response = client.get("/results/", follow=True)
    assert response.redirect_chain == [("/results/week/1/1/", 302)]
    html = response.content.decode()
    assert game_lines(html)[:5] == RULES_LINES[:5]
    assert "Bonus goal (*): Freezing Ass." in html
    assert 'href="/results/championship/elite/1/#fairness"' in html
    assert 'href="/standings/elite/"' in html


def test_the_week_page_speaks_french(client: Client, week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    html = client.get("/results/week/1/1/", headers={"accept-language": "fr"}).content.decode()
    assert '<html lang="fr">' in html
    assert "Résultats" in html
    assert game_lines(html)[3] == RULES_LINES[3]


def test_a_week_without_rounds_or_an_unknown_season_is_a_404(
    client: Client, week: RulesWeek
) -> None:
    assert client.get("/results/week/1/9/").status_code == 404
    assert client.get("/results/week/7/1/").status_code == 404


def test_the_home_page_and_the_menu_lead_to_the_results_and_standings(
    client: Client, week: RulesWeek
) -> None:
    html = client.get("/").content.decode()
    assert html.count('href="/results/"') == 2  # the menu and the home page's button
    assert 'href="/standings/"' in html
