"""Week 3 of the test season for the week's clock (``league.weekly``).

The conftest's season starts on Monday 2 March 2026, so week 3 runs from Monday 16 to Sunday 22
March 2026 (winter time in Paris, UTC+1): Wednesday's email at 08:00 is 07:00 UTC, Friday's
reminder at 08:00 is 07:00 UTC, the deadline (R13) Friday 17:00 is 16:00 UTC.

The Elite plays championship round 3 and the KDH its round of 64 (round 2) that week. The KDH's
games are drawn: Sleigh Dogs – Freezing Ass and Igloos – Groggs. Snowmen are not in the KDH.
A dummy team (R14) and a team whose coach has no address complete the division.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User

from competitions import services as competitions
from competitions import services as league
from competitions.models import Competition, Pick, Pool, PoolMember, Round, Stage
from league.models import Entry, Profile, Season
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.conftest import TeamMaker

PARIS = ZoneInfo("Europe/Paris")
WEDNESDAY = datetime(2026, 3, 18, 8, 0, tzinfo=PARIS)
FRIDAY = datetime(2026, 3, 20, 8, 0, tzinfo=PARIS)
DEADLINE = datetime(2026, 3, 20, 17, 0, tzinfo=PARIS)

# Distinctive picks: none of them may ever appear in a weekly email or a reminder.
SECRET_PICKS = {"championship": "K+#(X)", "kdh": "G++(2)(5)"}


@dataclass
class WeekLeague:
    season: Season
    championship: Round
    kdh: Round
    elite: Pool
    kdh_pool: Pool
    sleigh: Entry  # coach (French by default), in the KDH
    freezing: Entry  # other_coach, in the KDH
    snowmen: Entry  # an English-speaking coach, not in the KDH
    igloos: Entry  # in the KDH
    groggs: Entry  # in the KDH
    dummy: Entry  # a dummy team (R14): no coach
    no_address: Entry  # its coach has no email address

    def send(self, entry: Entry, *rounds: Round) -> list[Pick]:
        """``entry``'s coach sends a pick for each of ``rounds`` (web, before the deadline)."""
        return [
            league.pick_record(
                entry=entry,
                round=round,
                notation=SECRET_PICKS[round.competition],
                normalized=SECRET_PICKS[round.competition],
                channel=Pick.Channel.WEB,
                received_at=WEDNESDAY.replace(hour=6),
            )
            for round in rounds
        ]


def user(username: str, *, language: str | None = None, email: str | None = None) -> User:
    person = User.objects.create_user(
        username=username,
        email=f"{username}@example.org" if email is None else email,
        password="secret-password",
    )
    if language:
        Profile.objects.create(user=person, language=language)
    return person


def week_league(
    *, season: Season, enter_team: TeamMaker, coach: User, other_coach: User, elite_pool: Pool
) -> WeekLeague:
    sleigh = Entry.objects.get(team__coach=coach)
    freezing = Entry.objects.get(team__coach=other_coach)
    snowmen = enter_team("Snowmen", code=3, coach=user("snow-coach", language="en"))
    igloos = enter_team("Igloos", code=4, coach=user("igloo-coach"))
    groggs = enter_team("Groggs", code=5, coach=user("grogg-coach"))
    dummy = enter_team("Dummy Pucks", code=6)
    dummy.team.is_dummy = True
    dummy.team.save(update_fields=["is_dummy"])
    no_address = enter_team("Icebergs", code=7, coach=user("iceberg-coach", email=""))
    championship = competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=3, week=3
    )
    kdh = competitions.round_create(
        season=season, competition=Competition.KDH, number=2, week=3, stage=Stage.ROUND_OF_64
    )
    kdh_pool = competitions.pool_create(season=season, competition=Competition.KDH)
    for entry in (sleigh, freezing, igloos, groggs):
        PoolMember.objects.create(pool=kdh_pool, entry=entry)
    drawn = competitions.pool_round_create(pool=kdh_pool, round=kdh)
    competitions.fixture_create(pool_round=drawn, home=sleigh, away=freezing)
    competitions.fixture_create(pool_round=drawn, home=igloos, away=groggs)
    return WeekLeague(
        season=season,
        championship=championship,
        kdh=kdh,
        elite=elite_pool,
        kdh_pool=kdh_pool,
        sleigh=sleigh,
        freezing=freezing,
        snowmen=snowmen,
        igloos=igloos,
        groggs=groggs,
        dummy=dummy,
        no_address=no_address,
    )


def rendered(**filters: object) -> list[OutboundEmail]:
    """The outbox's rows matching ``filters`` once rendered and sent, as the worker woken by
    their commit does it (its sweep, run here)."""
    emails_send_due()
    return list(OutboundEmail.objects.filter(**filters).order_by("id"))


def emails_to(address: str, template: str) -> list[OutboundEmail]:
    return rendered(template=template, to=[address])


def recipients(template: str) -> list[str]:
    return sorted(a for e in OutboundEmail.objects.filter(template=template) for a in e.to)


def links_in(text: str) -> list[str]:
    return re.findall(r"https?://\S+", text)
