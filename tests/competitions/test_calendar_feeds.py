"""The calendar feeds (``competitions.feeds``), read back with the icalendar library: the
league's public feed of every round's deadline, across the end of summer time and when the season
desk moves a week; and a coach's private feed at its signed address — only the rounds their team
plays, a cup's rounds as long as the published results leave the team in it, with a reminder —
that nobody else may open."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client
from django.utils import timezone
from icalendar import Calendar, Event

from competitions import services as competitions
from competitions.feeds import FEED_SALT, coach_feed_url
from competitions.models import Competition, PoolMember, PoolRound, Round, Stage
from league import services as league
from league.models import Entry, Season, Team
from tests.admin_forms import form_data
from tests.conftest import TeamMaker

pytestmark = pytest.mark.django_db

PARIS = ZoneInfo("Europe/Paris")


def calendar_of(response) -> Calendar:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return Calendar.from_ical(response.content)


def events(calendar: Calendar) -> dict[str, Event]:
    """The calendar's events by their UID's round part (``season-1-championship-3``)."""
    found = {}
    for event in calendar.walk("VEVENT"):
        uid = str(event["UID"]).split("@")[0]
        found[uid.split("-team-")[0]] = event
    return found


def start(event: Event) -> datetime:
    return event.decoded("DTSTART")


def path_of(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[1].join(["/", ""])


# --- The league's feed, across the end of summer time and a moved week --------------------------


@pytest.fixture
def autumn_season(db: None) -> Season:
    """A season in preparation, current, from Monday 5 October 2026: week 3's deadline is Friday
    23 October (summer time, UTC+2), week 4's Friday 30 October (winter time, UTC+1) — summer
    time ends on Sunday 25 October."""
    season = league.season_create(number=7, name="Autumn", starts_on=date(2026, 10, 5))
    season = league.season_make_current(season=season)
    competitions.season_rounds_create(season=season)
    # Created a day ago: a move now must show as a later LAST-MODIFIED (whole seconds in iCal).
    Round.objects.filter(season=season).update(
        calendar_changed_at=timezone.now() - timedelta(days=1)
    )
    return season


def test_the_league_feed_lists_every_round_at_five_pm_paris_time_on_both_sides_of_the_change(
    client: Client, autumn_season: Season
) -> None:
    calendar = calendar_of(client.get("/calendar/league.ics"))
    found = events(calendar)
    assert len(found) == Round.objects.filter(season=autumn_season).count() == 26
    [zone] = calendar.walk("VTIMEZONE")
    assert str(zone["TZID"]) == "Europe/Paris"
    by_week = {}
    for round in Round.objects.filter(season=autumn_season):
        event = found[f"season-7-{round.competition}-{round.number}"]
        assert start(event) == round.deadline
        assert event["DTSTART"].params["TZID"] == "Europe/Paris"
        by_week[round.week] = start(event)
    before, after = by_week[3], by_week[4]
    assert before.astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 10, 23, 17, 0)
    assert after.astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 10, 30, 17, 0)
    assert before.astimezone(UTC).hour == 15
    assert after.astimezone(UTC).hour == 16


def test_a_week_skipped_on_the_season_desk_moves_the_events_keeping_their_uid_and_wall_time(
    admin_client: Client, autumn_season: Season
) -> None:
    before = events(calendar_of(admin_client.get("/calendar/league.ics")))
    moved_uid = "season-7-championship-3"  # week 3: Friday 23 October, summer time
    kept_uid = "season-7-championship-1"  # week 1: before the skipped week
    response = admin_client.post("/desk/season/calendar/", {"starts_on": "2026-10-05", "skip": "3"})
    assert response.status_code == 302
    assert Season.objects.get(pk=autumn_season.pk).skipped_weeks == [3]
    after = events(calendar_of(admin_client.get("/calendar/league.ics")))
    assert set(after) == set(before)  # the same UIDs: calendar apps update, not duplicate
    old, new = before[moved_uid], after[moved_uid]
    # A week on, over the change of hour: 168 hours and one more in absolute time.
    assert start(new).astimezone(UTC) - start(old).astimezone(UTC) == timedelta(days=7, hours=1)
    assert start(new).astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 10, 30, 17, 0)
    assert int(new["SEQUENCE"]) == int(old["SEQUENCE"]) + 1 == 1
    assert new.decoded("LAST-MODIFIED") > old.decoded("LAST-MODIFIED")
    assert new.decoded("DTSTAMP") == new.decoded("LAST-MODIFIED")
    assert start(after[kept_uid]) == start(before[kept_uid])
    assert int(after[kept_uid]["SEQUENCE"]) == 0


def test_the_league_feed_speaks_the_language_asked_and_is_empty_without_a_season(
    client: Client, autumn_season: Season
) -> None:
    english = events(calendar_of(client.get("/calendar/league.ics?lang=en")))
    french = events(calendar_of(client.get("/calendar/league.ics?lang=fr")))
    assert str(english["season-7-kdh-5"]["SUMMARY"]) == (
        "Picks deadline · KDH cup round 5 (quarter-finals)"
    )
    assert str(french["season-7-kdh-5"]["SUMMARY"]) != str(english["season-7-kdh-5"]["SUMMARY"])
    Season.objects.update(is_current=False)
    assert events(calendar_of(client.get("/calendar/league.ics"))) == {}


# --- A coach's private feed ---------------------------------------------------------------------


@pytest.fixture
def kdh(season: Season, coach: User, other_coach: User, enter_team: TeamMaker) -> dict:
    """Championship rounds 1–2 and KDH rounds 1–2. The KDH's round 1 is drawn: Sleigh Dogs –
    Freezing Ass. The Snowmen's coach (English) is not in the KDH."""
    snow = User.objects.create_user("snow-coach", "snow@example.org", "secret-password")
    snowmen = enter_team("Snowmen", code=3, coach=snow)
    sleigh = Entry.objects.get(team__coach=coach)
    freezing = Entry.objects.get(team__coach=other_coach)
    rounds = {
        ("championship", n): competitions.round_create(
            season=season, competition=Competition.CHAMPIONSHIP, number=n, week=n
        )
        for n in (1, 2)
    }
    for n, stage in ((1, Stage.QUALIFYING), (2, Stage.ROUND_OF_64)):
        rounds[("kdh", n)] = competitions.round_create(
            season=season, competition=Competition.KDH, number=n, week=n, stage=stage
        )
    pool = competitions.pool_create(season=season, competition=Competition.KDH)
    for entry in (sleigh, freezing):
        PoolMember.objects.create(pool=pool, entry=entry)
    first = competitions.pool_round_create(pool=pool, round=rounds[("kdh", 1)])
    competitions.fixture_create(pool_round=first, home=sleigh, away=freezing)
    return {
        "rounds": rounds,
        "pool": pool,
        "first": first,
        "sleigh": sleigh,
        "freezing": freezing,
        "snow": snow,
        "snowmen": snowmen,
    }


def feed(client: Client, user: User) -> dict[str, Event]:
    return events(calendar_of(client.get(path_of(coach_feed_url(user)))))


def test_a_coachs_feed_lists_their_rounds_each_with_a_reminder_the_day_before(
    client: Client, coach: User, kdh: dict
) -> None:
    response = client.get(path_of(coach_feed_url(coach)))
    assert response["Cache-Control"] == "private, no-store"
    assert response["Referrer-Policy"] == "no-referrer"
    found = events(calendar_of(response))
    # The KDH's round 2 too: nothing published puts the Sleigh Dogs out (R15, R17).
    assert set(found) == {
        "season-1-championship-1",
        "season-1-championship-2",
        "season-1-kdh-1",
        "season-1-kdh-2",
    }
    for event in found.values():
        [alarm] = event.walk("VALARM")
        assert str(alarm["ACTION"]) == "DISPLAY"
        assert alarm.decoded("TRIGGER") == -timedelta(days=1)
    assert "Sleigh Dogs" in str(Calendar.from_ical(response.content)["X-WR-CALNAME"])


def test_another_coachs_cup_rounds_are_absent_from_a_coachs_feed(client: Client, kdh: dict) -> None:
    assert set(feed(client, kdh["snow"])) == {
        "season-1-championship-1",
        "season-1-championship-2",
    }


def test_a_cup_round_drawn_by_an_unpublished_arbitration_stays_in_both_teams_feeds_until_published(
    client: Client, coach: User, other_coach: User, enter_team: TeamMaker, kdh: dict
) -> None:
    igloos = enter_team("Igloos", code=4)
    PoolMember.objects.create(pool=kdh["pool"], entry=igloos)
    # Arbitrated, not published: the Sleigh Dogs went on and are drawn against the Igloos.
    first: PoolRound = kdh["first"]
    now = timezone.now()
    PoolRound.objects.filter(pk=first.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=now
    )
    first.qualified.add(kdh["sleigh"], igloos)
    second = competitions.pool_round_create(pool=kdh["pool"], round=kdh["rounds"][("kdh", 2)])
    competitions.fixture_create(pool_round=second, home=kdh["sleigh"], away=igloos)
    # Who went on is not public: the winner and the loser keep round 2 alike (R23).
    for user in (coach, other_coach):
        found = feed(client, user)
        assert "season-1-kdh-1" in found
        assert "season-1-kdh-2" in found
    PoolRound.objects.filter(pk=first.pk).update(
        status=PoolRound.Status.PUBLISHED, published_at=now
    )
    assert "season-1-kdh-2" in feed(client, coach)
    assert "season-1-kdh-2" not in feed(client, other_coach)  # knocked out, now public


def test_a_published_round_not_drawn_further_lists_the_next_round_for_who_went_on(
    client: Client, coach: User, other_coach: User, kdh: dict
) -> None:
    first: PoolRound = kdh["first"]
    now = timezone.now()
    PoolRound.objects.filter(pk=first.pk).update(
        status=PoolRound.Status.PUBLISHED, arbitrated_at=now, published_at=now
    )
    first.qualified.add(kdh["sleigh"])
    assert "season-1-kdh-2" in feed(client, coach)
    assert "season-1-kdh-2" not in feed(client, other_coach)


def test_a_forged_or_altered_address_is_a_404(client: Client, coach: User, kdh: dict) -> None:
    genuine = path_of(coach_feed_url(coach))
    token = genuine.removeprefix("/calendar/coach/").removesuffix(".ics")
    forged = signing.Signer(salt="another-salt").sign_object({"u": coach.pk, "k": ""})
    other_key = signing.Signer(salt=FEED_SALT, key="not-the-secret-key").sign_object(
        {"u": coach.pk, "k": ""}
    )
    for bad in (token[:-2] + "xx", forged, other_key, "nothing", token.replace(":", "")):
        assert client.get(f"/calendar/coach/{bad}.ics").status_code == 404


def test_a_signed_address_of_someone_who_coaches_no_team_is_a_404(
    client: Client, visitor: User
) -> None:
    assert client.get(path_of(coach_feed_url(visitor))).status_code == 404


def test_a_new_address_revokes_the_old_one(client: Client, coach: User, kdh: dict) -> None:
    old = path_of(coach_feed_url(coach))
    client.force_login(coach)
    response = client.post("/calendar/coach/renew/", {"next": "/picks/"})
    assert response.status_code == 302
    assert response["Location"] == "/picks/"
    new = path_of(coach_feed_url(coach))
    assert new != old
    assert client.get(old).status_code == 404
    assert client.get(new).status_code == 200


def test_renewing_needs_a_signed_in_person_and_a_post(client: Client, coach: User) -> None:
    old = path_of(coach_feed_url(coach))
    assert client.post("/calendar/coach/renew/").status_code == 302  # to the sign-in page
    assert client.get(old).status_code == 200
    client.force_login(coach)
    assert client.get("/calendar/coach/renew/").status_code == 405
    assert client.get(old).status_code == 200


def test_an_unsafe_next_after_renewing_goes_to_my_account(client: Client, coach: User) -> None:
    client.force_login(coach)
    response = client.post("/calendar/coach/renew/", {"next": "https://evil.example/"})
    assert response["Location"] == "/accounts/"


# --- The links ----------------------------------------------------------------------------------


def test_my_account_and_the_pick_page_show_both_feeds_to_a_coach(
    client: Client, coach: User, kdh: dict
) -> None:
    client.force_login(coach)
    private = coach_feed_url(coach)
    for page in ("/accounts/", "/picks/"):
        html = client.get(page).content.decode()
        assert "/calendar/league.ics?lang=en" in html
        assert private in html
        assert "webcal://" in html
        assert "Deadlines in your calendar" in html


def test_the_results_page_and_a_visitors_account_show_only_the_league_feed(
    client: Client, coach: User, visitor: User, kdh: dict
) -> None:
    html = client.get("/results/").content.decode()
    assert "/calendar/league.ics" in html
    assert "/calendar/coach/" not in html
    client.force_login(visitor)
    html = client.get("/accounts/").content.decode()
    assert "/calendar/league.ics" in html
    assert "/calendar/coach/" not in html


def test_a_deadline_moved_in_the_admin_bumps_the_events_sequence(
    admin_client: Client, autumn_season: Season
) -> None:
    round = Round.objects.get(season=autumn_season, competition="championship", number=3)
    url = f"/admin/competitions/round/{round.pk}/change/"
    page = admin_client.get(url)
    response = admin_client.post(
        url, form_data(page, **{"deadline_0": "2026-10-24", "deadline_1": "12:00:00"})
    )
    assert response.status_code == 302
    event = events(calendar_of(admin_client.get("/calendar/league.ics")))["season-7-championship-3"]
    assert start(event).astimezone(PARIS).replace(tzinfo=None) == datetime(2026, 10, 24, 12, 0)
    assert int(event["SEQUENCE"]) == 1
    # Saved again unchanged: no new revision.
    admin_client.post(url, form_data(admin_client.get(url)))
    assert Round.objects.get(pk=round.pk).calendar_sequence == 1


def test_a_coach_who_left_their_team_or_was_deactivated_loses_the_feed(
    client: Client, coach: User, other_coach: User, kdh: dict
) -> None:
    address = path_of(coach_feed_url(coach))
    coach.is_active = False
    coach.save(update_fields=["is_active"])
    assert client.get(address).status_code == 404
    coach.is_active = True
    coach.save(update_fields=["is_active"])
    Team.objects.filter(coach=coach).update(coach=None)
    assert client.get(address).status_code == 404


def test_the_league_feed_costs_the_same_few_queries_whatever_the_rounds(
    client: Client, autumn_season: Season, django_assert_max_num_queries: Callable
) -> None:
    with django_assert_max_num_queries(3):
        client.get("/calendar/league.ics")
