"""While a cup round is arbitrated and not published, the teams that may still play the cup's
later rounds by the published results keep them: in their private calendar feed, in Friday's
reminder and in Wednesday's list of the teams still missing picks (R23: who plays them follows
the published results, :func:`engine.cups.plays_round`, so the winners and the losers of the
unpublished round keep them alike, and nobody learns who went on).

The demo at week 3 (``tests/demo_worlds.py``): weeks 1–2 published; week 3 (the KDH's round 2,
the WG's round 1) waits for its referee; week 4 (the KDH's round 3, the WG's round 2) is open.
Each reader is read before and after the referee arbitrates the week's two cup rounds, not
publishing them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from django.db import transaction
from django.db.models import Q
from django.test import Client
from icalendar import Calendar
from pytest_django import DjangoDbBlocker

from competitions import services as competitions
from competitions.demo import DemoLeague
from competitions.feeds import coach_feed_url
from competitions.models import Competition, Fixture, PoolMember, PoolRound, Round
from league.models import Entry
from mail.models import OutboundEmail
from mail.weekly import Week, reminders_send, week_teams_missing
from tests.demo_worlds import demo_world

week_3 = demo_world(3)


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test reads the database, each in its own transaction, rolled back."""


@dataclass(frozen=True)
class Reads:
    """What the cups' teams are told of the rounds they play."""

    feeds: dict[str, frozenset[str]]
    """Each team's (by slug) private feed: its events' rounds (``season-1-kdh-3``)."""
    reminders: dict[str, frozenset[str]]
    """Each team's Friday reminder (by slug): the rounds it names."""
    missing: frozenset[str]
    """Wednesday's list: the teams still missing a pick for the week."""


@dataclass(frozen=True)
class Seen:
    league: DemoLeague
    before: Reads
    after: Reads


def _cup_teams(league: DemoLeague) -> list[Entry]:
    """The WG's twelve, and the teams of the KDH's round 2 (the week arbitrated)."""
    kdh_games = Fixture.objects.filter(
        pool_round__pool__competition=Competition.KDH,
        pool_round__round__number=2,
        pool_round__pool__season=league.season,
    )
    return list(
        Entry.objects.filter(season=league.season, team__coach__isnull=False)
        .filter(
            Q(pool_members__pool__competition=Competition.WG)
            | Q(pk__in=kdh_games.values("home_id"))
            | Q(pk__in=kdh_games.values("away_id"))
        )
        .select_related("team__coach")
        .distinct()
    )


def _feed(client: Client, entry: Entry) -> frozenset[str]:
    assert entry.team.coach is not None
    url = coach_feed_url(entry.team.coach)
    response = client.get("/" + url.split("://", 1)[1].split("/", 1)[1])
    assert response.status_code == 200
    return frozenset(
        str(event["UID"]).split("@")[0].split("-team-")[0]
        for event in Calendar.from_ical(response.content).walk("VEVENT")
    )


def _friday(league: DemoLeague) -> datetime:
    """Three hours before week 4's deadline (R13)."""
    deadline = Round.objects.filter(season=league.season, week=4).earliest("deadline").deadline
    return deadline - timedelta(hours=3)


def _read(league: DemoLeague, teams: list[Entry]) -> Reads:
    client = Client()
    rounds = {round.pk: round for round in Round.objects.filter(season=league.season)}
    names = {pk: f"{round.competition}-{round.number}" for pk, round in rounds.items()}
    with transaction.atomic():
        reminders_send(now=_friday(league))
        reminders: dict[str, set[str]] = {}
        for email in OutboundEmail.objects.filter(template="reminder").select_related("user"):
            entry = Entry.objects.select_related("team").get(pk=email.context["entry"])
            reminders.setdefault(entry.team.slug, set()).update(
                names[pk] for pk in email.context["rounds"]
            )
        transaction.set_rollback(True)
    week = Week(
        season=league.season,
        number=4,
        rounds=list(Round.objects.filter(season=league.season, week=4).select_related("season")),
    )
    return Reads(
        feeds={entry.team.slug: _feed(client, entry) for entry in teams},
        reminders={slug: frozenset(rounds) for slug, rounds in reminders.items()},
        missing=frozenset(entry.team.slug for entry in week_teams_missing(week=week)),
    )


@pytest.fixture(scope="module")
def seen(week_3: DemoLeague, django_db_blocker: DjangoDbBlocker) -> Iterator[Seen]:
    with django_db_blocker.unblock(), transaction.atomic():
        teams = _cup_teams(week_3)
        before = _read(week_3, teams)
        for pool_round in PoolRound.objects.filter(
            pool__season=week_3.season,
            pool__competition__in=[Competition.KDH, Competition.WG],
            round__week=3,
        ):
            competitions.pool_round_arbitrate(pool_round=pool_round, by=week_3.referee)
        after = _read(week_3, teams)
        yield Seen(week_3, before, after)
        transaction.set_rollback(True)


def test_the_cup_rounds_were_arbitrated_and_not_published(seen: Seen) -> None:
    statuses = set(
        PoolRound.objects.filter(
            pool__season=seen.league.season,
            pool__competition__in=[Competition.KDH, Competition.WG],
            round__week=3,
        ).values_list("status", flat=True)
    )
    assert statuses == {PoolRound.Status.ARBITRATED}


def test_every_cup_team_keeps_the_rounds_of_its_feed(seen: Seen) -> None:
    assert seen.after.feeds == seen.before.feeds
    wg = PoolMember.objects.filter(
        pool__season=seen.league.season, pool__competition=Competition.WG
    ).values_list("entry__team__slug", flat=True)
    for slug in wg:
        if slug in seen.after.feeds:
            assert {f"season-1-wg-{n}" for n in range(1, 7)} <= seen.after.feeds[slug], slug


def test_every_team_gets_the_same_reminder(seen: Seen) -> None:
    assert seen.after.reminders == seen.before.reminders
    named = set().union(*seen.after.reminders.values())
    assert {"kdh-3", "wg-2"} <= named


def test_wednesday_s_list_names_the_same_teams(seen: Seen) -> None:
    assert seen.after.missing == seen.before.missing
