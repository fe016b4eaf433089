"""A private PostgreSQL restarted under the site: the site runs under gunicorn on a cluster of
its own with the demo league, the league's coaches send a burst of picks through the API, and
PostgreSQL is restarted (``pg_ctl restart -m fast``) in the middle of it. Every pick the API
acknowledged (200) is stored; a request that met the database down got a JSON 503 with
``Retry-After``, never a 500; a page got the site's 503 page."""

from __future__ import annotations

import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psycopg2
import pytest
from django.db import connections

from tests.conftest import database_problem, redis_problem, redis_url
from tests.faults.conftest import need
from tests.faults.services import (
    PrivatePostgres,
    Process,
    base_env,
    gunicorn_site,
    manage,
    wait_for,
)

# The test database (its schema is copied from it) must be set up: pytest-django sets up the
# databases its collected tests are marked for.
pytestmark = [pytest.mark.faults, pytest.mark.django_db]

DATABASE = "mh_faults_site"
PICKS_PER_COACH = 4
SENDERS = 16

# In the site's process: the demo league at week 1 (week 2's picks open), and for each coach
# with a pick sent in advance, their token and that pick (sent again in the burst).
LEAGUE_SCRIPT = """
import json
from django.core.management import call_command
from competitions.models import Pick, Round
from league.models import Entry
from league.services import api_token_obtain
call_command("load_demo", "--week", "1", verbosity=0)
open_round = Round.objects.filter(competition="championship", status="open").order_by("number")[0]
coaches = []
entries = Entry.objects.filter(season=open_round.season, team__coach__isnull=False)
for entry in entries.select_related("team__coach"):
    pick = Pick.objects.filter(entry=entry, round=open_round).order_by("-received_at").first()
    if pick is not None:
        coaches.append({"token": api_token_obtain(user=entry.team.coach), "pick": pick.normalized})
print("LEAGUE " + json.dumps({"round": open_round.number, "coaches": coaches}))
"""


@dataclass
class Site:
    postgres: PrivatePostgres
    url: str
    round: int
    coaches: list[dict[str, str]]
    server: Process

    def database(self) -> psycopg2.extensions.connection:
        return psycopg2.connect(host="127.0.0.1", port=self.postgres.port, user="postgres",
                                dbname=DATABASE, connect_timeout=5)  # fmt: skip


@dataclass
class Answer:
    status: int
    body: bytes
    retry_after: str | None
    content_type: str


def call(url: str, *, method: str = "GET", token: str = "", body: object = None,
         language: str = "en") -> Answer:  # fmt: skip
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept-Language", language)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Answer(response.status, response.read(), response.headers.get("Retry-After"),
                          response.headers.get("Content-Type", ""))  # fmt: skip
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.read(), error.headers.get("Retry-After"),
                      error.headers.get("Content-Type", ""))  # fmt: skip


def schema_dump(pg_bin: Path) -> bytes:
    """The test database as pytest-django migrated it: the site's schema, in seconds rather
    than a full ``migrate``."""
    db = connections["default"].settings_dict  # the test database's name, once it is set up
    env = base_env(PGPASSWORD=db.get("PASSWORD") or "")
    done = subprocess.run(
        [str(pg_bin / "pg_dump"), "-Fc", "--no-owner", "-h", db.get("HOST") or "127.0.0.1",
         "-p", str(db.get("PORT") or 5432), "-U", db.get("USER") or "postgres", db["NAME"]],
        capture_output=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture(scope="module")
def site(
    pg_bin: Path, django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    need(database_problem())
    need(redis_problem())
    logs = tmp_path_factory.mktemp("site")
    postgres = PrivatePostgres(pg_bin)
    server = None
    try:
        postgres.start()
        postgres.restore_database(DATABASE, schema_dump(pg_bin))
        env = base_env(
            DATABASE_URL=postgres.url(DATABASE),
            # As in production: tasks (the receipts) go to the broker; no worker is needed here.
            REDIS_URL=redis_url(),
            API_THROTTLE_USER="100000/minute",
            API_THROTTLE_ANON="100000/minute",
            EMAIL_BACKEND="file",
            EMAIL_FILE_PATH=str(logs / "mail"),
            LOG_LEVEL="warning",
        )
        output = manage(env, "shell", "-c", LEAGUE_SCRIPT, timeout=180)
        league = json.loads(output.split("LEAGUE ", 1)[1])
        server, url = gunicorn_site(env, logs / "gunicorn.log", workers=2, threads=8, timeout=60)
        yield Site(postgres, url, league["round"], league["coaches"], server)
    finally:
        if server is not None:
            server.stop()
        postgres.stop()


def assert_database_unavailable(answer: Answer) -> None:
    assert answer.status == 503, answer.body[:500]
    assert answer.retry_after is not None and int(answer.retry_after) > 0
    assert answer.content_type.startswith("application/json")
    body = json.loads(answer.body)
    assert body["code"] == "database_unavailable"
    assert "database" in body["detail"]


def test_every_pick_acknowledged_during_a_restart_is_stored(site: Site) -> None:
    path = f"{site.url}/api/picks/championship/{site.round}/"
    sends = [coach for _ in range(PICKS_PER_COACH) for coach in site.coaches]
    answers: list[Answer] = []
    lock = threading.Lock()
    restarted = threading.Event()

    def send(coach: dict[str, str]) -> None:
        answer = call(path, method="PUT", token=coach["token"], body={"pick": coach["pick"]})
        with lock:
            answers.append(answer)

    def restart_when_under_way() -> None:
        wait_for(lambda: len(answers) >= len(sends) // 4, timeout=60, what="the burst's start")
        site.postgres.restart()
        restarted.set()

    restarter = threading.Thread(target=restart_when_under_way)
    restarter.start()
    with ThreadPoolExecutor(max_workers=SENDERS) as senders:
        list(senders.map(send, sends))
    restarter.join()
    assert restarted.is_set()

    statuses = sorted({answer.status for answer in answers})
    assert set(statuses) <= {200, 503}, statuses
    acknowledged = [json.loads(a.body)["receipt"] for a in answers if a.status == 200]
    refused = [a for a in answers if a.status == 503]
    assert refused, "no request met the restart: the burst did not overlap it"
    assert len(acknowledged) >= len(sends) // 4
    for answer in refused:
        assert_database_unavailable(answer)

    with site.database() as connection, connection.cursor() as cursor:
        cursor.execute(
            "SELECT receipt FROM competitions_pick WHERE receipt = ANY(%s)", [acknowledged]
        )
        stored = {row[0] for row in cursor.fetchall()}
    assert stored == set(acknowledged)
    assert "Traceback" not in site.server.text()


def test_while_the_database_is_down_the_api_and_pages_answer_503(site: Site) -> None:
    coach = site.coaches[0]
    path = f"{site.url}/api/picks/championship/{site.round}/"
    site.postgres.stop_server()
    try:
        assert_database_unavailable(
            call(path, method="PUT", token=coach["token"], body={"pick": coach["pick"]})
        )
        assert_database_unavailable(call(f"{site.url}/api/standings/elite/"))
        for language, title in (("en", "Back in a moment"), ("fr", '<html lang="fr">')):
            page = call(f"{site.url}/standings/elite/", language=language)
            assert page.status == 503
            assert page.retry_after is not None
            assert page.content_type.startswith("text/html")
            assert title in page.body.decode()
        health = call(f"{site.url}/healthz")
        assert health.status == 503
        assert json.loads(health.body)["database"] == "down"
    finally:
        site.postgres.start_server()
    # Back up: the next request is served (the broken connections are replaced).
    answer = call(path, method="PUT", token=coach["token"], body={"pick": coach["pick"]})
    assert answer.status == 200, answer.body[:500]
    started = time.monotonic()
    assert call(f"{site.url}/standings/elite/").status == 200
    assert time.monotonic() - started < 10
