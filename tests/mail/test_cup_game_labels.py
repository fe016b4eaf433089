"""The WG's final week holds two games (R18): a team of its third-place game is told so, in both
languages, wherever its own game is named — Friday's reminder and the coach's calendar feed —,
never « (final) »; the final's teams read « final ». Until the semi-finals are published nobody
knows who plays which (R23): the week is then named by its stage alone.

One season played to its end through the real services serves the whole module
(:mod:`tests.competitions.season_league`); each test runs in its own rolled-back transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation
from icalendar import Calendar

from competitions.feeds import coach_feed_url
from competitions.models import Competition, Fixture, PoolRound
from competitions.selectors import entry_games, game_stage_name
from engine import wg
from league.models import Entry, Language, Profile
from mail.models import OutboundEmail
from mail.outbox import email_render_queued
from tests.competitions.season_league import PlayedSeason, season_played_for_module
from tests.final_results import unguarded

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[PlayedSeason]:
    with season_played_for_module(django_db_blocker) as made:
        yield made


def wg_final_week_game(label: str) -> Fixture:
    return Fixture.objects.select_related("home__team", "pool_round__round").get(
        pool_round__pool__competition=Competition.WG,
        pool_round__round__number=wg.FINAL_ROUND,
        label=label,
    )


def coach_of(entry: Entry, language: str) -> User:
    coach = User.objects.create_user(
        f"coach-{entry.pk}", email=f"coach-{entry.pk}@example.org", password="x"
    )
    Profile.objects.update_or_create(user=coach, defaults={"language": language})
    entry.team.coach = coach
    entry.team.save(update_fields=["coach"])
    return coach


def reminder(game: Fixture, language: str) -> OutboundEmail:
    """Friday's reminder to the home team's coach for the WG's final week, rendered."""
    entry = game.home
    round = game.pool_round.round
    email = OutboundEmail(
        template="reminder",
        user=coach_of(entry, language),
        context={"entry": entry.pk, "week": round.week, "rounds": [round.pk]},
    )
    assert email_render_queued(email=email, memo={})
    return email


def semi_finals_unpublished() -> None:
    with unguarded():
        PoolRound.objects.filter(
            pool__competition=Competition.WG, round__number=wg.SEMI_FINAL_ROUND
        ).update(status=PoolRound.Status.ARBITRATED)


def test_the_reminder_names_the_third_place_game_in_french(played: PlayedSeason) -> None:
    email = reminder(wg_final_week_game(Fixture.Label.THIRD_PLACE), Language.FRENCH)
    for body in (email.body_text, email.body_html):
        assert "Coupe WG (match pour la troisième place)" in body
        assert "(finale)" not in body


def test_the_reminder_names_the_third_place_game_in_english(played: PlayedSeason) -> None:
    email = reminder(wg_final_week_game(Fixture.Label.THIRD_PLACE), Language.ENGLISH)
    for body in (email.body_text, email.body_html):
        assert "WG cup (third-place game)" in body
        assert "(final)" not in body


def test_the_reminder_of_a_finalist_names_the_final(played: PlayedSeason) -> None:
    email = reminder(wg_final_week_game(Fixture.Label.FINAL), Language.ENGLISH)
    assert "WG cup (final)" in email.body_text


def test_before_the_semi_finals_are_published_the_reminder_names_the_week_only(
    played: PlayedSeason,
) -> None:
    semi_finals_unpublished()
    email = reminder(wg_final_week_game(Fixture.Label.THIRD_PLACE), Language.ENGLISH)
    assert "WG cup (final)" in email.body_text
    assert "third-place" not in email.body_text


def test_the_coach_s_calendar_names_the_third_place_game(
    played: PlayedSeason, client: Client
) -> None:
    game = wg_final_week_game(Fixture.Label.THIRD_PLACE)
    coach = coach_of(game.home, Language.ENGLISH)
    url = coach_feed_url(coach)
    response = client.get("/" + url.split("://", 1)[1].split("/", 1)[1])
    assert response.status_code == 200
    summaries = [
        str(event["SUMMARY"])
        for event in Calendar.from_ical(response.content).walk("VEVENT")
        if f"WG cup round {wg.FINAL_ROUND} " in str(event["SUMMARY"])
    ]
    assert summaries == [f"Picks deadline · WG cup round {wg.FINAL_ROUND} (third-place game)"]


def test_the_pick_page_and_turn_sheet_s_stage_is_the_team_s_game(played: PlayedSeason) -> None:
    """The pick page's cards and the turn sheet word a round's stage with ``game_stage_name``
    on the team's public game (``entry_games``), as the reminder does."""
    for label, french in (
        (Fixture.Label.THIRD_PLACE, "match pour la troisième place"),
        (Fixture.Label.FINAL, "finale"),
    ):
        game = wg_final_week_game(label)
        round = game.pool_round.round
        games = entry_games(entry=game.away, rounds=[round])
        with translation.override("fr"):
            assert str(game_stage_name(round, games.get(round.pk))) == french
