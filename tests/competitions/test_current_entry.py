"""« A team's current entry » (``Entry.objects.current_of`` / ``current_for``), through every
page, API read and email that looks for it: a deputy acts for the team (R12), and a team that
replaced another (R14) plays its own entry — each path once, with both.

The league: the Huskies (D2 group A, code 01; a coach and a deputy) and the Igloos, who
replaced the Cybérians (D2A, code 02) under R14; both in the KDH (the Cybérians' place there is
the Igloos' now). The championship's round 1 closed yesterday and is not arbitrated; its round 2
and the KDH's round 1 are open, three days ahead.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from email.utils import format_datetime

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.desk_forms import WgTwelveForm, WithdrawForm
from competitions.feeds import coach_feed_token
from competitions.models import Competition, LatePick, Pick, Pool, PoolMember, Round, Stage
from competitions.selectors.rounds import pool_entries
from competitions.selectors.standings import pool_entries_current
from league import services as league
from league.models import Division, Entry, Season
from league.selectors import season_divisions
from mail.weekly import Week, week_entries
from tests.competitions.open_rounds import paris_17h
from tests.conftest import TeamMaker

pytestmark = pytest.mark.django_db

AUTHSERV_ID = "mx.matrixhockey.test"


@dataclass
class World:
    deputy: User
    """The Huskies' deputy."""
    newcomer: User
    """The coach of the Igloos, who replaced the Cybérians (R14)."""
    replaced: User
    """The coach of the Cybérians, replaced."""
    dogs: Entry
    igloos: Entry
    closed: Round
    """The championship's round 1: closed yesterday, not arbitrated."""
    championship: Round
    kdh: Round


def _user(username: str) -> User:
    return User.objects.create_user(
        username=username, email=f"{username}@example.org", password="secret-password"
    )


@pytest.fixture
def world(season: Season, divisions: dict[str, Division], enter_team: TeamMaker) -> World:
    d2a = divisions["d2a"]
    for division in (divisions["elite"], d2a):
        competitions.pool_create(
            season=season, competition=Competition.CHAMPIONSHIP, division=division
        )
    # The teams play D2A: a page that falls back to the Elite when it finds no entry says so.
    dogs_coach, deputy, replaced, newcomer = (
        _user(name) for name in ("dogs-coach", "dogs-deputy", "cyber-coach", "igloo-coach")
    )
    dogs = enter_team("Huskies", code=1, coach=dogs_coach, division=d2a)
    league.team_deputy_set(team=dogs.team, by=dogs_coach, who=deputy.username)
    cyberians = enter_team("Cybérians", code=2, coach=replaced, division=d2a)
    closed = competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=1,
        week=1,
        deadline=paris_17h(-1),
    )
    championship = competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=2,
        week=2,
        deadline=paris_17h(3),
    )
    kdh = competitions.round_create(
        season=season,
        competition=Competition.KDH,
        number=1,
        week=2,
        stage=Stage.ROUND_OF_64,
        deadline=paris_17h(3),
    )
    cup = competitions.pool_create(season=season, competition=Competition.KDH)
    for entry in (dogs, cyberians):
        PoolMember.objects.create(pool=cup, entry=entry)
    igloos = competitions.entry_replace(
        entry=cyberians, team=league.team_create(name="Igloos", coach=newcomer)
    )
    return World(
        deputy=deputy,
        newcomer=newcomer,
        replaced=replaced,
        dogs=dogs,
        igloos=igloos,
        closed=closed,
        championship=championship,
        kdh=kdh,
    )


WHO = ["deputy", "newcomer"]
"""The deputy acts for the Huskies' entry (R12); the newcomer plays the Igloos' (R14)."""


def person(world: World, who: str) -> tuple[User, Entry]:
    """The person, and the entry they act for."""
    return (world.deputy, world.dogs) if who == "deputy" else (world.newcomer, world.igloos)


def browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("who", WHO)
def test_the_pick_page_shows_the_rounds_of_their_entry(world: World, who: str) -> None:
    user, _entry = person(world, who)
    html = browser(user).get(reverse("picks")).content.decode()
    assert 'id="round-championship-2"' in html
    assert 'id="round-kdh-1"' in html  # the Igloos hold the Cybérians' place in the cup (R14)


@pytest.mark.parametrize("who", WHO)
def test_a_cup_pick_sent_on_the_form_is_stored_for_their_entry(world: World, who: str) -> None:
    user, entry = person(world, who)
    url = reverse("pick_send", args=[Competition.KDH, 1])
    response = browser(user).post(url, {"kdh-1-notation": "C(1)(4)", "kdh-1-extra_goals": 0})
    assert response.status_code == 302, response.content.decode()
    pick = Pick.objects.get()
    assert (pick.entry, pick.normalized, pick.entered_by) == (entry, "C(1)(4)", user)


@pytest.mark.parametrize("who", WHO)
def test_infos_equipes_opens_on_their_division(world: World, who: str) -> None:
    user, _entry = person(world, who)
    response = browser(user).get(reverse("infos_index"))
    assert response.status_code == 302
    assert response["Location"].startswith("/infos/championship/d2a/")


@pytest.mark.parametrize("who", WHO)
def test_the_standings_open_on_their_division(world: World, who: str) -> None:
    user, _entry = person(world, who)
    response = browser(user).get(reverse("standings_index"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("standings", kwargs={"pool": "d2a"}))


@pytest.mark.parametrize("who", WHO)
def test_the_api_reads_their_entry_s_picks(world: World, who: str) -> None:
    user, entry = person(world, who)
    competitions.pick_send(
        team=entry.team, round=world.championship, notation="F(1)", entered_by=user
    )
    client = APIClient()
    client.force_authenticate(user)
    answer = client.get("/api/picks/championship/2/")
    assert answer.status_code == 200, answer.content
    assert answer.json()["current"]["pick"] == "F(1)"


def test_the_api_reads_no_entry_for_the_replaced_team_s_coach(world: World) -> None:
    # R14: the Cybérians' entry stays with its results, but it is the Igloos' place now.
    client = APIClient()
    client.force_authenticate(world.replaced)
    answer = client.get("/api/picks/championship/2/")
    assert answer.status_code == 403, answer.content


@pytest.mark.parametrize("who", WHO)
def test_their_private_calendar_has_their_entry_s_rounds(world: World, who: str) -> None:
    user, _entry = person(world, who)
    response = Client().get(reverse("calendar_coach", args=[coach_feed_token(user)]))
    assert response.status_code == 200
    summaries = [
        str(event["SUMMARY"]) for event in Calendar.from_ical(response.content).walk("VEVENT")
    ]
    # In the person's language, French by default.
    assert any("Championnat, journée 2" in summary for summary in summaries), summaries
    assert any("Coupe KDH, journée 1" in summary for summary in summaries), summaries


@pytest.mark.parametrize("who", WHO)
def test_the_home_page_lists_their_entry_s_games(world: World, who: str) -> None:
    user, _entry = person(world, who)
    html = browser(user).get(reverse("home")).content.decode()
    assert 'id="glance-coach"' in html
    assert 'data-game="championship-2"' in html
    assert 'data-game="kdh-1"' in html


def message_from(user: User, lines: list[str]) -> bytes:
    """A message from ``user``, received now by the league's server, which vouches for it."""
    received = format_datetime(timezone.now())
    address = user.email
    return (
        f"Authentication-Results: {AUTHSERV_ID};\n"
        f"\tdkim=pass header.d=example.org header.s=mail;\n"
        f"\tspf=pass smtp.mailfrom={address};\n"
        f"\tdmarc=pass (p=quarantine dis=none) header.from=example.org\n"
        f"Received: from mail.example.org (mail.example.org [192.0.2.10])\n"
        f"\tby {AUTHSERV_ID} (Postfix) with ESMTPS id CURRENT01\n"
        f"\tfor <picks@matrixhockey.test>; {received}\n"
        f"From: {address}\n"
        "To: Matrix Hockey <picks@matrixhockey.test>\n"
        "Subject: picks\n"
        f"Date: {received}\n"
        f"Message-ID: <current-{user.username}@mail.example.org>\n"
        "MIME-Version: 1.0\n"
        'Content-Type: text/plain; charset="utf-8"\n'
        "\n" + "\n".join(lines) + "\n"
    ).encode()


@pytest.mark.parametrize("who", WHO)
def test_their_emailed_picks_go_to_their_entry_in_time_and_late(
    world: World, who: str, settings: Settings
) -> None:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    user, entry = person(world, who)
    raw = message_from(user, ["KDH J1 : C(1)(4)", "Championnat J1 : E(1)"])
    call_command("ingest_email", stdin=io.BytesIO(raw), stdout=io.StringIO())
    pick = Pick.objects.get()
    assert (pick.entry, pick.round, pick.channel) == (entry, world.kdh, "email")
    # Round 1 closed yesterday: the line waits for its referee, for the same entry (R13).
    late = LatePick.objects.get()
    assert (late.entry, late.round, late.notation) == (entry, world.closed, "E(1)")


def test_the_season_s_readers_list_the_replacement_in_the_replaced_team_s_place(
    world: World, season: Season
) -> None:
    # R14: each reader of the teams playing the season (``Entry.objects.current`` /
    # ``playing``) has the Igloos where the Cybérians were; ``replaced`` has the Cybérians only.
    d2a = Pool.objects.get(season=season, division__slug="d2a")
    cyberians = Entry.objects.get(replaced_by=world.igloos)
    week = Week(season=season, number=2, rounds=[world.championship])
    readers = {
        "divisions": [e for table in season_divisions(season=season) for e in table.entries],
        "week": week_entries(week=week),
        "pool": pool_entries(pool=d2a),
        "pool, current": pool_entries_current(pool=d2a),
        "playing": list(Entry.objects.playing().filter(season=season)),
    }
    for name, entries in readers.items():
        assert world.igloos in entries and cyberians not in entries, name
    assert list(Entry.objects.current(season=season)) == sorted(
        readers["playing"], key=lambda e: e.pk
    )
    assert list(Entry.objects.replaced()) == [cyberians]


def test_the_season_desk_s_forms_offer_the_replacement_not_the_replaced_team(
    world: World, season: Season
) -> None:
    # R14: the desk lists the teams playing the season; its forms take no other.
    cyberians = Entry.objects.get(replaced_by=world.igloos)
    assert WithdrawForm(data={"entry": world.igloos.pk, "confirm": True}, season=season).is_valid()
    withdraw = WithdrawForm(data={"entry": cyberians.pk, "confirm": True}, season=season)
    assert withdraw.has_error("entry", code="invalid_choice")
    wg = WgTwelveForm(data={"wg": [cyberians.pk]}, season=season)
    assert wg.has_error("wg", code="invalid_choice")
