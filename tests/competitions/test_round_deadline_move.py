"""A round's deadline moved in the admin (``competitions.services.round_deadline_move``): on the
record with the deadline before and after, the calendar feeds' event moved with a new SEQUENCE,
and — once the season runs — one email to each coach and deputy of a team that plays the round,
in their language, and a notice on the home page for a week."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import cast
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone
from icalendar import Calendar, Event

from competitions import services as competitions
from competitions.models import Competition, PoolMember, Round, Stage
from league.models import AuditLog, Entry, Profile, Season, Team
from mail import outbox
from mail.models import OutboundEmail
from tests.admin_forms import form_data
from tests.conftest import TeamMaker

pytestmark = pytest.mark.django_db

PARIS = ZoneInfo("Europe/Paris")
OLD = datetime(2026, 3, 20, 17, 0, tzinfo=PARIS)  # week 3's Friday, 17:00 (R13)
NEW = datetime(2026, 3, 22, 20, 30, tzinfo=PARIS)


def speaks(user: User, language: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"language": language})


def move_in_admin(client: Client, round: Round, when: datetime) -> None:
    url = f"/admin/competitions/round/{round.pk}/change/"
    local = when.astimezone(PARIS)
    data = form_data(
        cast(HttpResponse, client.get(url)),
        deadline_0=local.strftime("%Y-%m-%d"),
        deadline_1=local.strftime("%H:%M:%S"),
    )
    assert client.post(url, data).status_code == 302


def league_event(client: Client, round: Round) -> Event:
    response = client.get("/calendar/league.ics")
    assert response.status_code == 200
    uid = f"season-{round.season.number}-{round.competition}-{round.number}@"
    calendar = Calendar.from_ical(response.content)
    [event] = [e for e in calendar.walk("VEVENT") if isinstance(e, Event) and uid in str(e["UID"])]
    return event


def sequence_of(event: Event) -> int:
    return int(str(event["SEQUENCE"]))


@pytest.fixture
def deputy(coach: User) -> User:
    """The Sleigh Dogs' deputy, who reads French."""
    user = User.objects.create_user("sleigh-deputy", "deputy@example.org", "secret-password")
    Team.objects.filter(coach=coach).update(deputy=user)
    speaks(user, "fr")
    return user


@pytest.fixture
def round_3(season: Season, coach: User, other_coach: User, deputy: User) -> Round:
    """Championship round 3 of the running season, its deadline Friday 20 March 17:00."""
    round = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=3, week=3
    )
    assert round.deadline == OLD
    return round


def test_a_deadline_moved_while_the_season_runs_is_recorded_emailed_fed_and_shown_a_week(
    admin_client: Client, admin_user: User, coach: User, other_coach: User, deputy: User,
    round_3: Round,
) -> None:  # fmt: skip
    speaks(coach, "en")
    speaks(other_coach, "fr")
    sequence = sequence_of(league_event(admin_client, round_3))

    move_in_admin(admin_client, round_3, NEW)

    round = Round.objects.get(pk=round_3.pk)
    assert round.deadline == NEW
    [entry] = AuditLog.objects.filter(action="round_deadline_move", object_id=str(round.pk))
    assert entry.actor == admin_user
    [change] = entry.payload["changes"]
    assert change["field"] == "deadline"
    assert datetime.fromisoformat(change["before"]) == OLD
    assert datetime.fromisoformat(change["after"]) == NEW
    assert (entry.payload["via"], entry.kind) == ("admin", "round")
    assert entry.season_number == round.season.number
    # The admin's own record of the form holds no second copy of the move.
    assert not AuditLog.objects.filter(action="round_change", object_id=str(round.pk)).exists()

    event = league_event(admin_client, round)
    assert sequence_of(event) == sequence + 1
    assert event.decoded("DTSTART") == NEW

    # One email to each coach and deputy of the round's teams, in their language.
    rows = OutboundEmail.objects.filter(template="deadline-moved")
    assert sorted(rows.values_list("user__username", flat=True)) == [
        "freezing-coach",
        "sleigh-coach",
        "sleigh-deputy",
    ]
    outbox.emails_send_due()
    by_address = {message.to[0]: message for message in mail.outbox}
    english = by_address[coach.email]
    assert english.subject == "Deadline moved — Championship, round 3"
    assert "Former deadline: Friday 20 March 2026, 17:00 (Europe/Paris)" in english.body
    assert "New deadline: Sunday 22 March 2026, 20:30 (Europe/Paris)" in english.body
    for french in (by_address[other_coach.email], by_address[deputy.email]):
        assert french.subject == "Date limite déplacée — Championnat, journée 3"
        assert "Ancienne date limite : vendredi 20 mars 2026, 17:00 (Europe/Paris)" in french.body
        assert "Nouvelle date limite : dimanche 22 mars 2026, 20:30 (Europe/Paris)" in french.body

    # The home page says so, in either language, for a week.
    visitor = Client(headers={"accept-language": "en"})
    html = visitor.get("/").content.decode()
    assert (
        "The deadline of Championship, round 3 moved from Friday 20 March 2026, 17:00 "
        "to Sunday 22 March 2026, 20:30 (Europe/Paris)." in html
    )
    html = Client(headers={"accept-language": "fr"}).get("/").content.decode()
    assert (
        "La date limite (Championnat, journée 3) a été déplacée du vendredi 20 mars 2026, "
        "17:00 au dimanche 22 mars 2026, 20:30 (Europe/Paris)." in html
    )
    Round.objects.filter(pk=round.pk).update(
        deadline_moved_at=timezone.now() - timedelta(days=7, minutes=1)
    )
    assert "moved from" not in visitor.get("/").content.decode()


def test_a_deadline_saved_unchanged_is_no_move(admin_client: Client, round_3: Round) -> None:
    url = f"/admin/competitions/round/{round_3.pk}/change/"
    page = cast(HttpResponse, admin_client.get(url))
    assert admin_client.post(url, form_data(page)).status_code == 302
    assert not AuditLog.objects.filter(action="round_deadline_move").exists()
    assert not OutboundEmail.objects.filter(template="deadline-moved").exists()
    assert Round.objects.get(pk=round_3.pk).calendar_sequence == 0


def test_before_the_season_starts_a_move_is_recorded_and_fed_but_not_announced(
    admin_client: Client, round_3: Round, season: Season
) -> None:
    Season.objects.filter(pk=season.pk).update(status=Season.Status.PREPARING)
    move_in_admin(admin_client, round_3, NEW)
    round = Round.objects.get(pk=round_3.pk)
    assert (round.deadline, round.calendar_sequence) == (NEW, 1)
    assert AuditLog.objects.filter(action="round_deadline_move").count() == 1
    assert not OutboundEmail.objects.filter(template="deadline-moved").exists()
    assert round.deadline_moved_at is None
    assert "moved from" not in Client().get("/").content.decode()


def test_a_cup_rounds_move_is_emailed_only_to_the_teams_still_in_it(
    admin_client: Client, season: Season, coach: User, other_coach: User, enter_team: TeamMaker
) -> None:
    enter_team("Snowmen", code=3, coach=User.objects.create_user("snow", "snow@example.org"))
    round = competitions.round_create(
        season=season, competition=Competition.KDH, number=1, week=1, stage=Stage.QUALIFYING
    )
    pool = competitions.pool_create(season=season, competition=Competition.KDH)
    for user in (coach, other_coach):
        PoolMember.objects.create(pool=pool, entry=Entry.objects.get(team__coach=user))
    move_in_admin(admin_client, round, NEW)
    rows = OutboundEmail.objects.filter(template="deadline-moved")
    told = sorted(rows.values_list("user__username", flat=True))
    assert told == ["freezing-coach", "sleigh-coach"]
