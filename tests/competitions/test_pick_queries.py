"""What one pick costs the database (``bench/bench_picks.py`` measures its speed): a handful of
queries whether it comes through the API or the web form, however many rounds the team played,
and no email written in the request (the receipt is a task queued once the pick commits)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from competitions.models import Pool, PoolRound, Round
from mail.models import OutboundEmail
from tests.competitions.open_rounds import OpenLeague, picks_sent
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db

API_PICK_QUERIES = 11
"""The token and its user; the coach's team with the round and its season; BEGIN; the pool
round, locked (found through the entry's division); the entry, locked, with its team and
season; what the team played (R7, R19, with its own picks in the rounds arbitrated and not
published); the team's stocks as the published rounds left them (R23: only while one of its
rounds is arbitrated and not published, as the league's round 2 is here); the INSERT; the
receipt's due row (the receipts' outbox, instead of a task on the broker a pick); the team's
earlier unplayed rounds (the R11 warning the service answers with; their picks too, a query
more, when there are some); COMMIT. (It was 23, the receipt email rendered and stored in the
request, then 9, the team and the round read apart, then 8, then 9 without the R11 warning,
then 10.)"""

FORM_PICK_QUERIES = 12
"""The session; its user; then as the API less the token (10, the R11 warning's read included).
The receipt shown after the redirect travels in a signed cookie, so the session is not
written. (It was 29, then 15, then 14, then 15 with the receipt's due row and a session
write.)"""


@pytest.fixture
def league(league: OpenLeague, elite_pool: Pool) -> OpenLeague:
    """The shared league (rounds 1–2 played, round 3 open), with round 3's pool round drawn, as
    a season's start draws them all."""
    PoolRound.objects.get_or_create(pool=elite_pool, round=league.this_week)
    return league


def api_pick(client: APIClient, round: Round, pick: str) -> CaptureQueriesContext:
    url = f"/api/picks/{round.competition}/{round.number}/"
    with CaptureQueriesContext(connection) as queries:
        answer = client.put(url, {"pick": pick}, format="json")
    assert answer.status_code == 200, answer.content
    return queries


def form_pick(client: Client, round: Round, pick: str) -> CaptureQueriesContext:
    prefix = f"{round.competition}-{round.number}"
    url = reverse("pick_send", args=[round.competition, round.number])
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(url, {f"{prefix}-notation": pick, f"{prefix}-extra_goals": 0})
    assert answer.status_code == 302, answer.content
    return queries


def sql(queries: CaptureQueriesContext) -> str:
    return "\n".join(query["sql"] for query in queries.captured_queries)


def test_an_api_pick_costs_a_handful_of_queries(
    api_as: Callable[[User | None], APIClient], coach: User, league: OpenLeague
) -> None:
    queries = api_pick(api_as(coach), league.this_week, "F+(2)")
    assert len(queries) <= API_PICK_QUERIES, sql(queries)
    assert picks_sent().get().normalized == "F+(2)"


def test_a_web_form_pick_costs_a_handful_of_queries(
    client: Client, coach: User, league: OpenLeague
) -> None:
    client.force_login(coach)
    queries = form_pick(client, league.this_week, "F+(2)")
    assert len(queries) <= FORM_PICK_QUERIES, sql(queries)
    # The receipt on the next page comes from a signed cookie: the session is read, not written.
    assert not [q for q in queries if q["sql"].startswith("UPDATE")], sql(queries)
    assert picks_sent().get().normalized == "F+(2)"


def test_a_pick_costs_the_same_queries_however_many_rounds_were_played(
    api_as: Callable[[User | None], APIClient],
    coach: User,
    league: OpenLeague,
    record_played: ResultRecorder,
) -> None:
    client = api_as(coach)
    # Both picks are for round 4, with the KDH's round 1 earlier and not played: the R11
    # warning reads the same rounds and picks each time.
    before = len(api_pick(client, league.next_week, "F(1)"))
    record_played(
        league.coach_entry, league.this_week, pool=league.elite, column="F", extra_time="1"
    )
    after = len(api_pick(client, league.next_week, "G(2)"))
    assert after == before


def test_the_request_renders_no_email_the_receipt_is_queued_with_the_pick(
    api_as: Callable[[User | None], APIClient],
    coach: User,
    league: OpenLeague,
    django_capture_on_commit_callbacks: Callable,
    eager: None,
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        queries = api_pick(api_as(coach), league.this_week, "F+(2)")
    # One INSERT in the pick's transaction: the receipt's kind and the pick's id, not rendered.
    written = [q["sql"] for q in queries.captured_queries if "mail_outboundemail" in q["sql"]]
    assert len(written) == 1 and written[0].startswith("INSERT"), written
    email = OutboundEmail.objects.get()
    assert (email.template, email.status, email.subject, email.body_text) == (
        "pick-receipt",
        "queued",
        "",
        "",
    )
    for callback in callbacks:  # the commit: the worker is woken (here, eagerly)
        callback()
    email.refresh_from_db()
    assert email.status == OutboundEmail.Status.SENT
    assert picks_sent().get().receipt in email.body_text


def test_a_refused_pick_is_still_refused_next_to_its_form_with_what_the_team_has_left(
    client: Client, coach: User, league: OpenLeague
) -> None:
    # Column D was played in round 2 (arbitrated): the service refuses it, the form says what
    # is left, as the page shows it.
    client.force_login(coach)
    prefix = f"championship-{league.this_week.number}"
    url = reverse("pick_send", args=["championship", league.this_week.number])
    answer = client.post(url, {f"{prefix}-notation": "D(1)", f"{prefix}-extra_goals": 0})
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "Column D is already used" in page
    assert not picks_sent().exists()
