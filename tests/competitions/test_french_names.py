"""French with names (``matrixhockey.french``): a message that puts « de » before a team, a
division or a pool contracts it — « des Harfangs » for a team named « Les Harfangs », « de
l’Élite », « d’Igloos » —, never « de Les Harfangs » or « de Elite »; the English keeps the bare
name. Pages, emails and the referee's messages alike."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.utils import translation

from competitions.charts import places_chart
from competitions.models import Pool, Round
from competitions.selectors.charts import PlacesSeries, PoolPlaces
from league.models import Entry, Team
from mail.models import OutboundEmail
from mail.outbox import email_render_queued
from tests.conftest import TeamMaker

pytestmark = pytest.mark.django_db


@pytest.fixture
def harfangs(enter_team: TeamMaker, elite_pool: Pool) -> Entry:
    coach = User.objects.create_user("harfang-coach", email="harfang@example.org", password="x")
    return enter_team("Les Harfangs", code=5, coach=coach)


def page(open_as: Callable[..., object], path: str, language: str) -> str:
    response = open_as(None, language).get(path)  # type: ignore[attr-defined]
    assert response.status_code == 200
    return response.content.decode()


def test_the_team_page_links_the_standings_of_the_elite(
    harfangs: Entry, open_as: Callable[..., object]
) -> None:
    french = page(open_as, f"/teams/{harfangs.team.slug}/", "fr")
    assert "Le classement de l’Élite" in french
    assert "de Elite" not in french
    assert "The Elite standings" in page(open_as, f"/teams/{harfangs.team.slug}/", "en")


def test_the_honours_page_is_the_honours_des_harfangs(
    harfangs: Entry, open_as: Callable[..., object]
) -> None:
    french = page(open_as, f"/seasons/teams/{harfangs.team.slug}/", "fr")
    assert "Palmarès des Harfangs" in french
    assert "de Les Harfangs" not in french
    english = page(open_as, f"/seasons/teams/{harfangs.team.slug}/", "en")
    assert "Honours of Les Harfangs" in english


@pytest.mark.parametrize(
    ("name", "french"),
    [("Les Harfangs", "les ordres des Harfangs"), ("Igloos", "les ordres d’Igloos")],
)
def test_the_reminder_names_the_team_after_de_contracted(
    harfangs: Entry, championship_round: Round, name: str, french: str
) -> None:
    Team.objects.filter(pk=harfangs.team_id).update(name=name)
    email = OutboundEmail(
        template="reminder",
        user=harfangs.team.coach,
        context={"entry": harfangs.pk, "week": 1, "rounds": [championship_round.pk]},
    )
    assert email_render_queued(email=email, memo={})
    assert email.language == "fr"
    assert french in email.body_text and french in email.body_html
    assert "de Les" not in email.body_text and "de Igloos" not in email.body_text


def test_the_places_chart_describes_the_lines_of_the_elite(elite_pool: Pool) -> None:
    places = PoolPlaces(rounds=(1,), series=(PlacesSeries(team="a", name="A", places=(1,)),))
    with translation.override("fr"):
        chart = places_chart(places=places, division="Elite", of_division=elite_pool.of_name)
    assert chart is not None
    assert "Une ligne par équipe de l’Élite" in chart.description


def test_a_cup_pool_after_de_takes_its_article(season: object) -> None:
    pool = Pool(competition="kdh", slug="kdh")
    with translation.override("fr"):
        assert pool.of_name == "de la coupe KDH"
    with translation.override("en"):
        assert pool.of_name == "KDH cup"
