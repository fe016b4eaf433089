"""``/results/<competition>/<pool>/<round>/``: a pool's round in the rules' display (section
3.1.4, R10) and its fair-dice panel (R23) — the seed's SHA-256 before publication, the seed,
every draw and the engine input after; nothing of the games before, to anyone."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from competitions import services as competitions
from engine import commitment
from tests.competitions.results_league import (
    MISPRINT_CORRECTED,
    RULES_LINES,
    SEED,
    RulesWeek,
    game_lines,
)

pytestmark = pytest.mark.django_db

URL = "/results/championship/elite/1/"
PEOPLE = [None, "visitor", "coach", "other_coach", "referee", "admin_user"]
# What only the published results may show: played picks, scores, the seed.
SECRETS = ["[F+(2)]", "D++*(1)", "ONR : F(X)", "B(X)", "6-3", "4-3", SEED]


def page_as(client: Client, user: User | None, url: str = URL, language: str = "en") -> str:
    if user is not None:
        client.force_login(user)
    response = client.get(url, headers={"accept-language": language})
    assert response.status_code == 200
    return response.content.decode()


def test_the_rules_worked_example_reads_as_the_rules_print_it(
    client: Client, week: RulesWeek
) -> None:
    week.arbitrate()
    week.publish()
    lines = game_lines(page_as(client, None))
    # Section 3.1.4's first five lines, character for character (its dashes are en dashes).
    assert lines[:5] == RULES_LINES[:5]
    # Its last line is the examples' misprint (J = 3, K = 2, nobody else on them): the page
    # shows the game as the stated rules play it, not "6-7 AP".
    assert lines[5] != RULES_LINES[5]
    assert lines[5] == MISPRINT_CORRECTED
    assert len(lines) == 6


def test_the_page_names_the_bonus_goal_and_explains_the_notation(
    client: Client, week: RulesWeek
) -> None:
    week.arbitrate()
    week.publish()
    html = page_as(client, None)
    assert "Bonus goal (*): Freezing Ass." in html
    assert "AP: after extra time" in html


def test_the_page_is_in_french_too(client: Client, week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    html = page_as(client, None, language="fr")
    assert '<html lang="fr">' in html
    assert "Résultats" in html
    assert "But bonus (*) : Freezing Ass." in html
    assert game_lines(html)[:5] == RULES_LINES[:5]  # the notation and AP are the same in French
    # The fair-dice panel is French to its last paragraph (how to redo the dice by hand).
    assert "Les dés sont assez simples pour être refaits à la main" in html
    assert "The dice are simple enough" not in html


def test_a_coach_sees_their_own_game_first(
    client: Client, week: RulesWeek, other_coach: User
) -> None:
    week.arbitrate()
    week.publish()
    lines = game_lines(page_as(client, other_coach))
    assert lines[0] == "Freezing Ass [D++*(1)] – Groggs [B(X)] : 6-3 your game"
    assert sum("your game" in line for line in lines) == 1


@pytest.mark.parametrize("who", PEOPLE)
def test_before_publication_nobody_sees_a_score_a_pick_or_the_seed(
    client: Client, week: RulesWeek, who: str | None, request: pytest.FixtureRequest
) -> None:
    week.arbitrate()
    user = request.getfixturevalue(who) if who else None
    html = page_as(client, user)
    for secret in SECRETS:
        assert secret not in html
    assert "Not published yet." in html
    assert commitment(SEED) in html  # the seed's SHA-256 is public all along
    # The calendar's games are public (R20), their results are not.
    assert game_lines(html)[0] == "Sleigh Dogs – Ice Crocodiles : to come"
    assert client.get(URL + "input.json").status_code == 404


def test_before_the_deadline_the_seed_hash_is_already_published(
    client: Client, week: RulesWeek
) -> None:
    later = competitions.round_create(
        season=week.season,
        competition="championship",
        number=2,
        week=2,
        deadline=timezone.now() + timedelta(days=2),
    )
    pool_round = competitions.pool_round_create(pool=week.pool, round=later)
    html = page_as(client, None, "/results/championship/elite/2/")
    assert pool_round.seed_hash in html
    assert pool_round.seed not in html
    assert "Picks are open until the deadline." in html


def test_after_publication_the_seed_every_draw_and_the_input_are_shown(
    client: Client, week: RulesWeek
) -> None:
    week.arbitrate()
    week.publish()
    html = page_as(client, None)
    assert SEED in html and commitment(SEED) in html
    assert "its SHA-256 is the fingerprint above" in html
    assert "3 draws, in order" in html
    for what in ("bonus_goal", "onr_column:cyberians", "onr_extra_time:cyberians"):
        assert f'<code class="muted draw-code">{what}</code>' in html
    assert "python -m engine round championship-elite-round-1-input.json" in html
    download = client.get(URL + "input.json")
    assert download.status_code == 200
    assert download["content-disposition"] == (
        'attachment; filename="championship-elite-round-1-input.json"'
    )
    document = json.loads(download.content)
    assert document == competitions.pool_round_input_document(pool_round=week.pool_round)
    assert document["seed"] == SEED


@pytest.mark.parametrize(
    "url",
    [
        "/results/championship/elite/7/",
        "/results/championship/d2a/1/",
        "/results/hockey/elite/1/",
        "/results/kdh/elite/1/",
    ],
)
def test_an_unknown_round_or_pool_is_a_404(client: Client, week: RulesWeek, url: str) -> None:
    assert client.get(url).status_code == 404
