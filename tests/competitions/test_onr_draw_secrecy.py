"""A team with no pick learns nothing of the referee's ONR draw before publication (R4, R23).

The demo at week 3 (``tests/demo_worlds.py``): weeks 1–2 published, week 3's deadline passed,
four teams sent nothing. D3B's 07 is one of them. Once its division's round 3 is arbitrated,
the referee has drawn it a column and an extra-time value (R4), and the round waits for its
publication. Until then, what the team may still play is read from the published rounds and
its own picks only (:class:`competitions.selectors.Sight`): its pick page, the API's answers and
refusals, « infos équipes », its ledger and the replies to its picks by email are the same
before and after the arbitration. A later pick that repeats the draw is an R11 stale pick,
redrawn at that later round's arbitration.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from itertools import count

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone
from pytest_django import DjangoDbBlocker
from rest_framework.test import APIClient

from competitions import services
from competitions.demo import DemoLeague
from competitions.models import (
    Competition,
    Pick,
    Pool,
    PoolRound,
    Round,
    TeamResult,
)
from league import services as league_services
from league.models import Entry
from mail.intake import email_ingest
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.demo_worlds import demo_world

week_3 = demo_world(3)

CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')
CHART_ID = re.compile(r"(chart-(?:goals|stocks)-)\d+")
"""A chart's element ids, numbered by the process that draws it."""
TIME_LEFT = re.compile(r"(<strong data-countdown-text>)[^<]*")
"""The time left before a deadline, which moves on between two readings."""
MESSAGE_IDS = count()


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test reads the database, each in its own transaction, rolled back."""


@dataclass(frozen=True)
class Draw:
    """What the referee's arbitration drew for the ONR team in round 3 (R4)."""

    column: str
    extra_time: str


@dataclass(frozen=True)
class Seen:
    """Everything the ONR team's coach reads, before and after the arbitration of round 3."""

    league: DemoLeague
    entry: Entry
    coach: User
    pool_round: PoolRound
    draw: Draw
    before: dict[str, str]
    after: dict[str, str]


def _onr_entry(league: DemoLeague) -> Entry:
    entry = Entry.objects.select_related("team__coach", "division").get(
        season=league.season, division__slug="d3b", code=7
    )
    assert entry.team.slug in league.onr_week_3
    return entry


def _pool_round(entry: Entry, number: int) -> PoolRound:
    return PoolRound.objects.select_related("round").get(
        pool__competition=Competition.CHAMPIONSHIP,
        pool__division=entry.division,
        round__season=entry.season,
        round__number=number,
    )


def _published_column(entry: Entry) -> str:
    """A column the team played in a published round (round 1)."""
    played = TeamResult.objects.get(entry=entry, pool_round=_pool_round(entry, 1))
    return played.column


def _free(entry: Entry, draw: Draw) -> tuple[str, str]:
    """A column and an extra-time value the team still has, whoever looks: neither played in a
    published round nor drawn in round 3."""
    used = set(
        TeamResult.objects.filter(
            entry=entry, pool_round__pool__competition=Competition.CHAMPIONSHIP
        ).values_list("column", flat=True)
    )
    column = next(
        c for c in Competition.CHAMPIONSHIP.rules.columns if c not in used | {draw.column}
    )
    return column, "2" if draw.extra_time != "2" else "1"


def _email(coach: User, lines: str) -> bytes:
    return (
        f"From: {coach.email}\nTo: picks@matrixhockey.test\nSubject: picks\n"
        f"Message-ID: <onr-secrecy-{next(MESSAGE_IDS)}@example.org>\n"
        f"Content-Type: text/plain; charset=utf-8\n\n{lines}\n"
    ).encode()


def _reply(coach: User, lines: str) -> str:
    """The reply to an email of ``lines`` from ``coach``, as sent: received an hour after round
    3's deadline (the reply says when, to the minute)."""
    round_3 = Round.objects.get(
        season__is_current=True, competition=Competition.CHAMPIONSHIP, number=3
    )
    with override_settings(MAIL_AUTH_REQUIRED=False):
        email_ingest(raw=_email(coach, lines), received_at=round_3.deadline + timedelta(hours=1))
    emails_send_due()
    reply = OutboundEmail.objects.filter(template="pick-reply").latest("id")
    return f"{reply.subject}\n{reply.body_text}\n{reply.body_html}"


def _views(entry: Entry, coach: User, draw: Draw) -> dict[str, str]:
    """Every page and answer of the coach and of the public about what the team may still play,
    each a text (CSRF tokens, chart ids and the time left blanked); nothing here stores a pick."""
    browser = Client(headers={"accept-language": "fr"})
    browser.force_login(coach)
    visitor = Client(headers={"accept-language": "fr"})
    api = APIClient(headers={"accept-language": "fr"})
    api.credentials(HTTP_AUTHORIZATION=f"Token {league_services.api_token_obtain(user=coach)}")
    pool = Pool.objects.get(
        season=entry.season, competition=Competition.CHAMPIONSHIP, division=entry.division
    )
    used = _published_column(entry)
    free, value = _free(entry, draw)
    views: dict[str, str] = {}

    def page(name: str, client: Client, path: str) -> None:
        response = client.get(path)
        assert response.status_code == 200, (name, response.status_code)
        html = CSRF.sub(r"\1\2", response.content.decode())
        views[name] = TIME_LEFT.sub(r"\1", CHART_ID.sub(r"\1", html))

    def put(name: str, pick: str) -> None:
        response = api.put("/api/picks/championship/4/", {"pick": pick}, format="json")
        assert response.status_code == 400, (name, response.content)
        views[name] = response.content.decode()

    page("pick page", browser, "/picks/")
    page("team page (ledger)", browser, f"/teams/{entry.team.slug}/")
    page("infos équipes, the coach", browser, f"/infos/championship/{pool.slug}/")
    page("infos équipes, a visitor", visitor, f"/infos/championship/{pool.slug}/")
    views["api infos"] = api.get(f"/api/infos/championship/{pool.slug}/").content.decode()
    views["api pick"] = api.get("/api/picks/championship/4/").content.decode()
    # Refusals that list what is left, and the stock the team has (R6, R7, R19).
    put("api: a column played", f"{used}({value})")
    put("api: more extra goals than the stock", f"{free}{'+' * 30}({value})")
    views["email reply"] = _reply(
        coach, f"Championnat J4 : {used}({value})\nChampionnat J5 : {free}{'+' * 30}({value})"
    )
    return views


@pytest.fixture(scope="module")
def seen(week_3: DemoLeague, django_db_blocker: DjangoDbBlocker) -> Iterator[Seen]:
    """The ONR team's pages and answers before and after its round 3 is arbitrated, not
    published; the draw learnt from an arbitration rolled back first (R23: the same seed
    draws the same again)."""
    with django_db_blocker.unblock(), transaction.atomic():
        entry = _onr_entry(week_3)
        coach = entry.team.coach
        assert coach is not None
        pool_round = _pool_round(entry, 3)
        with transaction.atomic():
            services.pool_round_arbitrate(pool_round=pool_round, by=week_3.referee)
            drawn = TeamResult.objects.get(entry=entry, pool_round=pool_round)
            draw = Draw(column=drawn.column, extra_time=drawn.extra_time)
            assert drawn.onr
            transaction.set_rollback(True)
        before = _views(entry, coach, draw)
        services.pool_round_arbitrate(pool_round=pool_round, by=week_3.referee)
        drawn = TeamResult.objects.get(entry=entry, pool_round=pool_round)
        assert (drawn.column, drawn.extra_time) == (draw.column, draw.extra_time)
        after = _views(entry, coach, draw)
        yield Seen(week_3, entry, coach, pool_round, draw, before, after)
        transaction.set_rollback(True)


VIEWS = [
    "pick page",
    "team page (ledger)",
    "infos équipes, the coach",
    "infos équipes, a visitor",
    "api infos",
    "api pick",
    "api: a column played",
    "api: more extra goals than the stock",
    "email reply",
]


@pytest.mark.parametrize("view", VIEWS)
def test_the_onr_team_reads_the_same_before_and_after_the_unpublished_arbitration(
    seen: Seen, view: str
) -> None:
    assert seen.pool_round.round.number == 3
    assert PoolRound.objects.get(pk=seen.pool_round.pk).status == PoolRound.Status.ARBITRATED
    assert seen.after[view] == seen.before[view]


def test_the_pick_page_still_offers_the_drawn_column(seen: Seen) -> None:
    card = seen.after["pick page"].split('id="round-championship-4"', 1)[1].split("</article>")[0]
    assert f'value="{seen.draw.column}"' in card


def _round(seen: Seen, number: int) -> Round:
    return Round.objects.get(
        season=seen.entry.season, competition=Competition.CHAMPIONSHIP, number=number
    )


def test_the_drawn_column_and_value_are_accepted_for_the_next_round(seen: Seen) -> None:
    api = APIClient(headers={"accept-language": "fr"})
    api.force_authenticate(seen.coach)
    pick = f"{seen.draw.column}({seen.draw.extra_time})"
    response = api.put("/api/picks/championship/4/", {"pick": pick}, format="json")
    assert response.status_code == 200, response.content
    assert Pick.objects.filter(entry=seen.entry, round=_round(seen, 4)).exists()


def test_the_drawn_column_by_email_is_accepted(seen: Seen) -> None:
    pick = f"{seen.draw.column}({seen.draw.extra_time})"
    _reply(seen.coach, f"Championnat J4 : {pick}")
    [stored] = Pick.objects.filter(entry=seen.entry, round=_round(seen, 4))
    assert stored.normalized == pick


def test_a_later_pick_repeating_the_draw_is_redrawn_at_its_round_s_arbitration(
    seen: Seen,
) -> None:
    """R11: the draw of round 3 is used by the time round 4 is played, published or not."""
    pick = f"{seen.draw.column}({seen.draw.extra_time})"
    now = timezone.now()
    services.pick_submit(
        team=seen.entry.team,
        round=_round(seen, 4),
        notation=pick,
        channel=Pick.Channel.WEB,
        entered_by=seen.coach,
        received_at=now - timedelta(minutes=2),
    )
    # Round 4's deadline passes; the referee arbitrates it, round 3 still unpublished.
    Round.objects.filter(pk=_round(seen, 4).pk).update(deadline=now - timedelta(minutes=1))
    fourth = _pool_round(seen.entry, 4)
    services.pool_round_arbitrate(pool_round=fourth, by=seen.league.referee)
    played = TeamResult.objects.get(entry=seen.entry, pool_round=fourth)
    assert played.redrawn and not played.onr
    assert played.column != seen.draw.column
    third = TeamResult.objects.get(entry=seen.entry, pool_round=seen.pool_round)
    assert third.onr and third.column == seen.draw.column
