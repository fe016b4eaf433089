"""An arbitration request is a row (``ArbitrationRequest``): requested, started by the worker
that claims it, done or refused with its code; asked a second time while pending it queues
nothing; its attempts count the workers that took it. The referee's desk and the API read the
row and the worker's lock — never the audit log, which keeps the history."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, connections, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from competitions import selectors, services
from competitions.models import ArbitrationRequest, PoolRound, TeamResult
from competitions.services import queue
from league.models import AuditLog, Division, Season
from matrixhockey.db import work_lock
from tests.competitions.desk_league import Desk, desk_build
from tests.conftest import eager_tasks

DESK_URL = "/referee/championship/elite/1/"
ARBITRATE_URL = "/referee/championship/elite/1/arbitrate/"


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1)
    return made


def browser_of(user: User) -> Client:
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(user)
    return browser


def text_of(response: object) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def ask(desk: Desk, by: User | None = None) -> ArbitrationRequest:
    asked = services.pool_round_arbitration_request(
        pool_round=desk.pool_round(1), by=by or desk.referee
    )
    assert asked is not None
    return asked


def test_a_second_request_while_one_is_pending_queues_nothing(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = ask(desk)
        with pytest.raises(services.ArbitrationAlreadyRequested) as second:
            ask(desk, by=desk.other_referee)
    assert second.value.code == "already_requested"
    assert second.value.pending == first
    assert len(callbacks) == 1
    assert ArbitrationRequest.objects.get() == first


def test_a_pool_round_holds_one_pending_request_at_most(desk: Desk) -> None:
    """Two referees asking at the same instant both pass the read; the unique index lets one
    request in (the other hears it is already asked for)."""
    ArbitrationRequest.objects.create(pool_round=desk.pool_round(1))
    with pytest.raises(IntegrityError), transaction.atomic():
        ArbitrationRequest.objects.create(pool_round=desk.pool_round(1), status="started")
    ArbitrationRequest.objects.update(status="refused", refusal_code="too_early")
    ArbitrationRequest.objects.create(pool_round=desk.pool_round(1))  # one pending again
    assert ArbitrationRequest.objects.count() == 2


def test_a_second_click_says_it_is_under_way_and_the_desk_is_unchanged(
    desk: Desk, django_capture_on_commit_callbacks: Callable
) -> None:
    browser = browser_of(desk.referee)
    with django_capture_on_commit_callbacks(execute=False):  # no worker takes it
        browser.post(ARBITRATE_URL)
        again = text_of(browser.post(ARBITRATE_URL, follow=True))
    assert "This round&#x27;s arbitration is already asked for: it runs once" in again
    assert 'data-arbitration="queued"' in again
    assert ArbitrationRequest.objects.get().asks == 1


def test_the_request_lives_requested_started_done(desk: Desk) -> None:
    asked = ask(desk)  # its task is not run: the test's transaction never commits
    assert (asked.status, asked.attempts) == ("requested", 0)
    done = services.pool_round_arbitration_run(request_id=asked.pk, task_id="worker-task")
    assert done is not None
    assert (done.status, done.attempts, done.task_id) == ("done", 1, "worker-task")
    assert done.requested_at <= done.started_at <= done.finished_at
    assert desk.pool_round(1).status == PoolRound.Status.ARBITRATED
    again = services.pool_round_arbitration_run(request_id=asked.pk, task_id="sent-again")
    assert again is not None and (again.status, again.attempts) == ("done", 1)
    assert TeamResult.objects.filter(pool_round=desk.pool_round(1)).count() == 12


def test_a_request_whose_worker_stopped_is_taken_over_by_the_next(desk: Desk) -> None:
    """Started, and no live session holds the pool round's work lock: the worker that gets the
    task again (the broker hands it out after its visibility timeout) claims it, attempt 2."""
    lost = ArbitrationRequest.objects.create(
        pool_round=desk.pool_round(1), status="started", started_at=timezone.now(), attempts=1
    )
    assert selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1)).lost
    done = services.pool_round_arbitration_run(request_id=lost.pk)
    assert done is not None and (done.status, done.attempts) == ("done", 2)


def test_while_another_worker_holds_the_pool_round_nothing_is_claimed(desk: Desk) -> None:
    asked = ask(desk)
    holding, release = threading.Event(), threading.Event()

    def other_worker() -> None:
        try:
            with work_lock(selectors.ARBITRATION_WORK, asked.pool_round_id):
                holding.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    thread = threading.Thread(target=other_worker)
    thread.start()
    try:
        assert holding.wait(timeout=30)
        untouched = services.pool_round_arbitration_run(request_id=asked.pk)
        assert untouched is not None and (untouched.status, untouched.attempts) == ("requested", 0)
    finally:
        release.set()
        thread.join()
    assert desk.pool_round(1).status == PoolRound.Status.PENDING


def test_a_refusal_is_stored_as_its_code_and_facts(desk: Desk) -> None:
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="0" * 64)
    asked = ask(desk)
    refused = services.pool_round_arbitration_run(request_id=asked.pk)
    assert refused is not None
    assert (refused.status, refused.refusal_code, refused.refusal_facts) == (
        "refused",
        "seed_commitment",
        {},
    )
    with pytest.raises(services.SeedCommitmentBroken, match="does not match its published"):
        services.pool_round_arbitration_wait(
            pool_round=desk.pool_round(1), request=asked, timeout=0
        )
    # A refused request is over: asking again is a new request.
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(
        seed_hash=desk.pool_round(1).seed_hash
    )
    assert ask(desk).pk != asked.pk


def test_the_desk_reads_no_audit_log(desk: Desk) -> None:
    """The desk, the API's wait and the worker's claim decide from the request's row: the audit
    log's rows may all go (the history lost), the desk says the same; no query reads them."""
    audit = AuditLog._meta.db_table
    with CaptureQueriesContext(connection) as queries:
        asked = ask(desk)
        state = selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1))
        services.pool_round_arbitration_wait(
            pool_round=desk.pool_round(1), request=asked, timeout=0
        )
        html = text_of(browser_of(desk.referee).get(DESK_URL))
    reads = [q["sql"] for q in queries if f'FROM "{audit}"' in q["sql"]]
    assert reads == []
    assert state.requested_at == asked.requested_at and 'data-arbitration="queued"' in html

    with connection.cursor() as cursor:  # the history is append-only: its trigger set aside
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(f"DELETE FROM {audit}")
        cursor.execute("SET LOCAL session_replication_role = origin")
    assert not AuditLog.objects.exists()
    assert selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1)) == state
    again = text_of(browser_of(desk.referee).get(DESK_URL))
    assert 'data-arbitration="queued"' in again

    with eager_tasks():  # and a worker still runs it once
        done = queue.pool_round_arbitration_run(request_id=asked.pk)
    assert done is not None and done.status == "done"
    assert selectors.pool_round_arbitration_state(pool_round=desk.pool_round(1)) == (
        selectors.ArbitrationState()
    )


def test_the_admin_lists_the_requests_and_writes_none(
    desk: Desk, admin_user: User, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=False):
        asked = ask(desk)
    browser = browser_of(admin_user)
    listing = browser.get("/admin/competitions/arbitrationrequest/")
    assert listing.status_code == 200
    assert f"/admin/competitions/arbitrationrequest/{asked.pk}/change/" in listing.content.decode()
    assert browser.get("/admin/competitions/arbitrationrequest/add/").status_code == 403
    assert (
        browser_of(desk.referee).get("/admin/competitions/arbitrationrequest/").status_code == 302
    )


@pytest.mark.django_db(transaction=True)
def test_two_claims_at_once_touch_the_row_once(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """The claim alone, without the work lock (let through for both here, and nothing taken
    over): two runs read the request together and update it on the status and attempts they
    read — one row touched for one of them, the other runs nothing."""
    together = threading.Barrier(2, timeout=30)
    played: list[int] = []
    real = queue.pool_round_arbitrate

    @contextmanager
    def both_through(namespace: int, key: int) -> Iterator[bool]:
        together.wait()
        yield True

    def counted(**kwargs: object) -> PoolRound:
        played.append(1)
        return real(**kwargs)

    monkeypatch.setattr(queue, "work_lock", both_through)
    monkeypatch.setattr(queue, "work_locks_tell", lambda: False)
    monkeypatch.setattr(queue, "pool_round_arbitrate", counted)
    request = ArbitrationRequest.objects.create(
        pool_round=desk.pool_round(1), requested_by=desk.referee
    )

    def run() -> None:
        try:
            services.pool_round_arbitration_run(request_id=request.pk)
        finally:
            connections.close_all()

    runs = [threading.Thread(target=run) for _ in range(2)]
    for thread in runs:
        thread.start()
    for thread in runs:
        thread.join()
    request.refresh_from_db()
    assert (request.status, request.attempts, len(played)) == ("done", 1, 1)
    assert TeamResult.objects.filter(pool_round=desk.pool_round(1)).count() == 12
