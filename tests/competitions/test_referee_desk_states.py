"""The referee's desk says truthfully where an arbitration stands: queued and not taken by any
worker (since when), refused (why), taken by a worker that stopped before finishing; and its
« Ask again » re-queues safely — one result whatever the number of requests."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone, translation

from competitions import selectors, services
from competitions.models import ArbitrationRequest, PoolRound, TeamResult
from league.models import AuditLog, Division, Season
from matrixhockey.db import work_lock
from tests.competitions.desk_league import Desk, desk_build
from tests.conftest import eager_tasks

DESK_URL = "/referee/championship/elite/1/"
ARBITRATE_URL = "/referee/championship/elite/1/arbitrate/"


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, skip=["elite-07"])
    return made


def browser_of(user: User) -> Client:
    return browser_of_in(user, "en")


def browser_of_in(user: User, language: str) -> Client:
    browser = Client(headers={"accept-language": language})
    browser.force_login(user)
    return browser


def text_of(response: object) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def last_request(desk: Desk) -> ArbitrationRequest:
    return ArbitrationRequest.objects.latest("id")


def test_a_request_no_worker_took_says_since_when(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    browser = browser_of(desk.referee)
    with django_capture_on_commit_callbacks(execute=False):  # no worker takes it
        browser.post(ARBITRATE_URL)
    at = timezone.localtime(last_request(desk).requested_at).strftime("%H:%M")
    html = text_of(browser.get(DESK_URL))
    assert f"Queued since {at}, no worker has taken it yet" in html
    assert 'data-arbitration="queued"' in html
    assert ARBITRATE_URL not in html  # not offered again at once


def test_a_request_left_in_the_queue_for_a_while_may_be_asked_again(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    pool_round = desk.pool_round(1)
    stale = ArbitrationRequest.objects.create(  # a request queued long ago that no worker took
        pool_round=pool_round,
        requested_by=desk.referee,
        task_id="never-taken",
        requested_at=timezone.now() - selectors.ARBITRATION_REQUEST_STALE - timedelta(seconds=5),
    )
    browser = browser_of(desk.referee)
    html = text_of(browser.get(DESK_URL))
    assert "the league's workers may be stopped" in html
    assert "Ask again" in html and ARBITRATE_URL in html

    with eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        answer = text_of(browser.post(ARBITRATE_URL, follow=True))
    assert "Asked again: the arbitration is queued; it is stored once." in answer
    assert desk.pool_round(1).status == PoolRound.Status.ARBITRATED
    assert TeamResult.objects.filter(pool_round=desk.pool_round(1)).count() == 12
    stale.refresh_from_db()  # the same request, queued again under a new task
    assert (stale.status, stale.asks, stale.attempts) == ("done", 2, 1)
    assert stale.task_id != "never-taken"
    assert ArbitrationRequest.objects.count() == 1


def test_an_arbitration_whose_worker_stopped_says_so_and_is_asked_again_once(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    """A worker took the task (recorded) and holds no lock any more, with no result: lost."""
    pool_round = desk.pool_round(1)
    lost = ArbitrationRequest.objects.create(
        pool_round=pool_round,
        task_id="lost-task",
        status=ArbitrationRequest.Status.STARTED,
        started_at=timezone.now(),
        attempts=1,
    )
    state = selectors.pool_round_arbitration_state(pool_round=pool_round)
    assert state.lost and state.ask_again and not state.running
    browser = browser_of(desk.referee)
    html = text_of(browser.get(DESK_URL))
    assert 'data-arbitration="lost"' in html
    assert "stopped before finishing: nothing of it was stored" in html
    assert "within 10 minutes" in html
    assert "Ask again" in html

    with eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        browser.post(ARBITRATE_URL)
        browser.post(ARBITRATE_URL)  # a double click
    assert TeamResult.objects.filter(pool_round=pool_round).count() == 12
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1
    lost.refresh_from_db()  # asked again once, taken by a second worker: its second attempt
    assert (lost.status, lost.asks, lost.attempts) == ("done", 2, 2)
    assert selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1)) == (
        selectors.ArbitrationState()
    )


def test_while_a_worker_holds_the_arbitration_the_desk_says_it_runs(desk: Desk) -> None:
    pool_round = desk.pool_round(1)
    ArbitrationRequest.objects.create(
        pool_round=pool_round, status="started", started_at=timezone.now(), attempts=1
    )
    with work_lock(selectors.ARBITRATION_WORK, pool_round.pk):
        # Another connection would see the lock; this one holds it (a session lock is seen
        # by every session, its own included).
        state = selectors.pool_round_arbitration_state(pool_round=pool_round)
        assert state.running and not state.lost
        html = text_of(browser_of(desk.referee).get(DESK_URL))
        assert 'data-arbitration="running"' in html
    assert selectors.pool_round_arbitration_state(pool_round=pool_round).lost


def test_a_refused_arbitration_says_why_and_offers_to_ask_again(desk: Desk) -> None:
    request = ArbitrationRequest.objects.create(pool_round=desk.pool_round(1), task_id="t")
    services.pool_round_arbitration_refused(
        request=request,
        by=None,
        refusal=services.ArbitrationQueueUnavailable(error="OperationalError"),
    )
    html = text_of(browser_of(desk.referee).get(DESK_URL))
    assert (
        "The last arbitration was refused: The arbitration could not be queued"
        " (OperationalError): try again later." in html
    )
    assert "Ask again" in html


def test_a_stored_refusal_is_worded_in_the_readers_language(desk: Desk) -> None:
    """Stored as its code and facts, no words, the refusal is worded when shown: in French for a
    French reader, whatever language the worker spoke."""
    request = ArbitrationRequest.objects.create(pool_round=desk.pool_round(1), task_id="t")
    services.pool_round_arbitration_refused(
        request=request,
        by=None,
        refusal=services.ArbitrationOutOfOrder(number=4),
    )
    request.refresh_from_db()
    assert (request.refusal_code, request.refusal_facts) == ("out_of_order", {"number": 4})
    history = AuditLog.objects.get(action=selectors.ARBITRATION_REFUSED)  # history only
    assert history.payload == {
        "request": request.pk,
        "task": "t",
        "code": "out_of_order",
        "facts": {"number": 4},
    }
    english = text_of(browser_of(desk.referee).get(DESK_URL))
    assert "Round 4 of this pool is not arbitrated yet: arbitrate it first." in english
    with translation.override("fr"):
        state = selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1))
        assert str(state.refusal) == (
            "La journée 4 de cette poule n’est pas encore arbitrée : arbitrez-la d’abord."
        )
    french = text_of(browser_of_in(desk.referee, "fr").get(DESK_URL))
    assert "La journée 4 de cette poule n’est pas encore arbitrée : arbitrez-la d’abord." in french
    assert "Round 4 of this pool" not in french


def test_a_refusal_recorded_without_its_facts_is_said_in_general_words(desk: Desk) -> None:
    # A row whose facts do not fit its code's message (recorded before it changed) is never a 500.
    ArbitrationRequest.objects.create(
        pool_round=desk.pool_round(1),
        task_id="t",
        status=ArbitrationRequest.Status.REFUSED,
        refusal_code="too_early",
        refusal_facts={"detail": "old words"},
    )
    html = text_of(browser_of(desk.referee).get(DESK_URL))
    assert "The last arbitration was refused: This round cannot be arbitrated now." in html
