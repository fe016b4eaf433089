"""The calendar feeds (iCalendar, RFC 5545, written by the ``icalendar`` library): the league's
public feed of every round's deadline, and a coach's private feed of the rounds their team plays,
with a reminder a day before each deadline, at a signed address.

Both are computed from the rounds on each request: when the season desk moves a week (R20), the
rounds' deadlines move (R13) and so do the events. Each round keeps its UID, and its SEQUENCE and
LAST-MODIFIED (``Round.calendar_sequence`` and ``calendar_changed_at``) say it changed, so
calendar apps update the event rather than add a second one. Times carry their TZID with the
VTIMEZONE of the season's zone (Europe/Paris): 17:00 stays 17:00 across a change of hour.

The private address signs the person and their :class:`~competitions.models.CalendarFeedKey`
(``matrixhockey.tokens``, its own salt, like ``league.links``' pick link but without an expiry:
a subscription is polled for months); a new key makes the old address answer 404.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from icalendar import Alarm, Calendar, Event, vDuration

from competitions.models import CalendarFeedKey, Competition, Round, Stage
from competitions.selectors import EntryGame, game_stage_name
from league.models import Season, Team
from league.selectors import user_team
from matrixhockey.site import site_url
from matrixhockey.tokens import TokenInvalid, person_token, person_token_read

FEED_SALT = "competitions.feeds.coach-calendar"
REMINDER_BEFORE = timedelta(days=1)
"""The private feed's alarm: a day before each deadline."""
TIMEZONE_MARGIN = timedelta(days=366)
"""The VTIMEZONE spans the season's deadlines and a year either side."""
REFRESH_EVERY = timedelta(hours=6)
"""What the feeds suggest to calendar apps (REFRESH-INTERVAL, X-PUBLISHED-TTL)."""


class FeedInvalid(Exception):
    """The address is forged, altered, renewed since, or no coach's."""


def _key(user: User) -> str:
    row = CalendarFeedKey.objects.filter(user=user).first()
    return row.key if row is not None else ""


def coach_feed_token(user: User) -> str:
    """The signed token of ``user``'s private feed address."""
    return person_token(salt=FEED_SALT, user=user, word=_key(user))


def coach_feed_url(user: User) -> str:
    """The absolute address of ``user``'s private calendar feed."""
    return site_url(reverse("calendar_coach", args=[coach_feed_token(user)]))


def league_feed_url(language: str | None = None) -> str:
    """The absolute address of the league's public calendar feed (``language``: its words)."""
    url = site_url(reverse("calendar_league"))
    return f"{url}?lang={language}" if language else url


@dataclass(frozen=True)
class FeedHolder:
    user: User
    team: Team


def coach_feed_check(token: str) -> FeedHolder:
    """The coach whose feed ``token`` opens, or :class:`FeedInvalid`."""
    try:
        user, key = person_token_read(salt=FEED_SALT, token=token, active_only=True)
    except TokenInvalid as error:
        raise FeedInvalid(str(error)) from error
    if not hmac.compare_digest(key, _key(user)):
        raise FeedInvalid("the address was renewed")
    # R12: the deputy acts for the team, and follows its deadlines too.
    team = user_team(user=user)
    if team is None:
        raise FeedInvalid("not a coach")
    return FeedHolder(user=user, team=team)


# --- The iCalendar documents ---------------------------------------------------------------------


def _host() -> str:
    return urlsplit(settings.SITE_URL).hostname or "localhost"


def round_summary(round: Round, game: EntryGame | None = None) -> str:
    """« Picks deadline · KDH round 3 (quarter-final) » in the active language; with a team's
    public ``game``, the stage it plays (the WG's third-place game is not « the final »)."""
    label = _("%(competition)s round %(number)d") % {
        "competition": capfirst(Competition(round.competition).label),
        "number": round.number,
    }
    if round.stage != Stage.REGULAR:
        label = f"{label} ({game_stage_name(round, game)})"
    return _("Picks deadline · %(round)s") % {"round": label}


def _calendar(name: str, description: str) -> Calendar:
    calendar = Calendar()
    calendar.add("prodid", f"-//{settings.LEAGUE_NAME}//{_host()}//")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", name)
    calendar.add("x-wr-caldesc", description)
    calendar.add("refresh-interval", REFRESH_EVERY, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", vDuration(REFRESH_EVERY))
    return calendar


def _event(round: Round, uid: str, description: str, game: EntryGame | None = None) -> Event:
    zone = ZoneInfo(round.season.time_zone)
    changed = round.calendar_changed_at.astimezone(ZoneInfo("UTC"))
    event = Event()
    event.add("uid", f"{uid}@{_host()}")
    event.add("summary", round_summary(round, game))
    # A deadline is an instant: DTSTART alone (RFC 5545 §3.6.1), in the season's own zone.
    event.add("dtstart", timezone.localtime(round.deadline, zone))
    event.add("dtstamp", changed)
    event.add("last-modified", changed)
    event.add("sequence", round.calendar_sequence)
    event.add("description", description)
    event.add("url", site_url(reverse("picks")))
    event.add("transp", "TRANSPARENT")
    return event


def _document(calendar: Calendar, rounds: list[Round], events: Iterable[Event]) -> bytes:
    for event in events:
        calendar.add_component(event)
    if rounds:
        # The zone's changes of hour around the season only: a short VTIMEZONE.
        deadlines = [round.deadline.date() for round in rounds]
        calendar.add_missing_timezones(
            first_date=min(deadlines) - TIMEZONE_MARGIN, last_date=max(deadlines) + TIMEZONE_MARGIN
        )
    return calendar.to_ical()


def _round_uid(round: Round) -> str:
    return f"season-{round.season.number}-{round.competition}-{round.number}"


def league_calendar(*, season: Season | None, rounds: list[Round], language: str) -> bytes:
    """The league's public feed: every round of ``season`` and its deadline (R13)."""
    with translation.override(language):
        calendar = _calendar(
            _("%(league)s · deadlines") % {"league": settings.LEAGUE_NAME},
            _("Every round's picks deadline of the current season.")
            if season is not None
            else _("No season is under way yet."),
        )
        text = _("Send your picks before this deadline.")
        return _document(calendar, rounds, [_event(r, _round_uid(r), text) for r in rounds])


def coach_calendar(
    *, team: Team, rounds: list[Round], games: dict[int, EntryGame], language: str
) -> bytes:
    """``team``'s private feed: the rounds it plays, each with a reminder
    :data:`REMINDER_BEFORE` its deadline, named by its public ``games`` (by round id)."""
    with translation.override(language):
        calendar = _calendar(
            _("%(team)s · deadlines") % {"team": team.name},
            _("The rounds your team plays, with a reminder the day before each deadline."),
        )
        text = _("%(team)s: send your picks before this deadline.") % {"team": team.name}
        events = []
        for round in rounds:
            game = games.get(round.pk)
            event = _event(round, f"{_round_uid(round)}-team-{team.pk}", text, game)
            alarm = Alarm()
            alarm.add("action", "DISPLAY")
            alarm.add("description", round_summary(round, game))
            alarm.add("trigger", -REMINDER_BEFORE)
            event.add_component(alarm)
            events.append(event)
        return _document(calendar, rounds, events)
