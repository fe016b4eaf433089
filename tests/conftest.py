"""Shared test set-up: the services the suite needs, and the people of the league.

Database tests run on PostgreSQL (``DATABASE_URL``) and Celery worker tests on Redis
(``REDIS_URL``); ``make test`` points both at 127.0.0.1 when they are unset. Both services are
checked once at session start: when one is unreachable the tests that need it are skipped with
the reason, or fail when ``REQUIRE_SERVICES=1`` (as in CI).
"""

from __future__ import annotations

import os
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

import psycopg2
import pytest
import redis
from celery import Celery
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, User
from django.core.cache import cache as django_cache
from django.test import Client
from django.utils import timezone, translation
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import (
    Competition,
    Pick,
    Pool,
    PoolRound,
    Round,
    StockKind,
    StockReason,
    TeamResult,
)
from engine import Pick as EnginePick
from league import services as league
from league.models import Division, Entry, Season
from mail import outbox
from matrixhockey.celery import app
from matrixhockey.redis_breaker import redis_breaker
from tests.demo_worlds import DemoWorlds, content_types_forget
from tests.final_results import unguarded
from tests.redis_per_worker import worker_redis_url

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/15"
DB_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
}


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashing() -> None:
    """The fixtures create users by the hundred, and Django's default hasher costs about half a
    second each here: tests hash with MD5, as Django's testing documentation advises (the
    production hasher is Django's own, tested there)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def _public_cache_off() -> None:
    """Tests change rows directly and read pages again within one test, so the cache of public
    reads (league.public_cache) is off unless a test turns it on (tests/league/
    test_public_cache.py's ``public_cache``)."""
    settings.PUBLIC_CACHE_SECONDS = 0


def services_required() -> bool:
    return os.environ.get("REQUIRE_SERVICES", "") == "1"


def redis_url() -> str:
    """The test Redis: ``REDIS_URL``, the pytest-xdist worker's own database of it when several
    run (:mod:`tests.redis_per_worker`)."""
    return os.environ.get("REDIS_URL") or worker_redis_url(DEFAULT_REDIS_URL)


@contextmanager
def redis_commands(url: str) -> Iterator[Counter[str]]:
    """The commands Redis runs on ``url``'s database while the block runs, counted by name
    (``"exec"``, ``"subscribe"``…; read the count after the block). Redis's own statistics
    (``INFO commandstats``) count the whole server, another pytest-xdist worker's commands
    included; its ``MONITOR`` feed names each command's database."""
    server = redis.Redis.from_url(url)
    database = server.connection_pool.connection_kwargs.get("db", 0)
    end = f"ECHO end-of-count-{uuid.uuid4().hex}"
    counted: Counter[str] = Counter()
    with server.monitor() as monitor:

        def count() -> None:
            while (command := monitor.next_command())["command"] != end:
                if command["db"] == database:
                    counted[command["command"].split(" ", 1)[0].lower()] += 1

        reader = threading.Thread(target=count, daemon=True)
        reader.start()
        try:
            yield counted
        finally:
            server.echo(end.removeprefix("ECHO "))
            reader.join(timeout=30)
            assert not reader.is_alive(), "Redis's MONITOR feed stopped"


@cache
def database_problem() -> str | None:
    """Why database tests cannot run here, or ``None`` when PostgreSQL answers."""
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        return "database tests run on PostgreSQL: set DATABASE_URL=postgresql://… (make test does)"
    try:
        psycopg2.connect(
            dbname="postgres",
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
            connect_timeout=3,
        ).close()
    except psycopg2.Error as error:
        return f"PostgreSQL at {db.get('HOST')}:{db.get('PORT')} is unreachable: {error}".strip()
    return None


@cache
def redis_problem() -> str | None:
    """Why Celery worker tests cannot run here, or ``None`` when Redis answers."""
    try:
        redis.Redis.from_url(redis_url(), socket_connect_timeout=3).ping()
    except redis.RedisError as error:
        return f"Redis at {redis_url()} is unreachable: {error}"
    return None


def _needs_database(item: pytest.Item) -> bool:
    return item.get_closest_marker("django_db") is not None or bool(
        DB_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Iterator[None]:
    """Under pytest-xdist (``make test``: ``--dist loadgroup``) the tests of a module run on one
    worker, which sets up the module's fixtures once (a demo world, a live server); a test
    given a group of its own keeps it. The fault tests (``faults``) are one group: each starts
    PostgreSQL clusters, Celery workers and gunicorn and times what a killed part does, so they
    run one after the other. First, before xdist reads the groups.

    Then, after every other plugin's ordering (pytest-django's mixes the groups), the groups
    heaviest first, each group's tests together and in the order they were given. ``make test``
    keeps that order (``--no-loadscope-reorder``); xdist would otherwise hand the groups out by
    their number of tests, leaving a long group of few tests (Lighthouse's) to start when the
    other worker is nearly done. A worker takes the next group when it is free, so the last ones
    handed out, short, end nearly together. (In one process, pytest-django's order stays.)"""
    for item in items:
        if item.get_closest_marker("faults") is not None:
            item.add_marker(pytest.mark.xdist_group("faults"))
        elif item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    yield
    if not hasattr(config, "workerinput"):  # not an xdist worker
        return
    weights: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        group = _group(item)
        weights[group] = weights.get(group, 0) + _weight(item)
        first.setdefault(group, index)
    items.sort(key=lambda item: (-weights[_group(item)], first[_group(item)]))


HEAVY = ("browser", "faults", "celery_worker")
"""Markers of tests that start a browser, servers or workers: seconds each, against a
fraction of a second for most others."""


def _group(item: pytest.Item) -> str:
    marker = item.get_closest_marker("xdist_group")
    assert marker is not None
    return str(marker.args[0] if marker.args else marker.kwargs["name"])


def _weight(item: pytest.Item) -> int:
    return 10 if any(item.get_closest_marker(name) for name in HEAVY) else 1


@pytest.fixture(autouse=True)
def _content_types_after_flush(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test that ran outside a transaction (``transactional_db``, live servers), forget
    the cached content types: its flush either made them anew under new ids (``post_migrate``)
    or, with a serialized rollback, brought back the session's first ids without telling the
    cache (:func:`tests.demo_worlds.content_types_forget`)."""
    yield
    if {"transactional_db", "live_server"} & set(request.fixturenames) or (
        (marker := request.node.get_closest_marker("django_db")) is not None
        and (marker.kwargs.get("transaction") or marker.kwargs.get("serialized_rollback"))
    ):
        content_types_forget()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    problem = None
    if _needs_database(item):
        problem = database_problem()
    if problem is None and item.get_closest_marker("celery_worker") is not None:
        problem = redis_problem()
    if problem is None:
        return
    if services_required():
        pytest.fail(f"REQUIRE_SERVICES=1 and {problem}", pytrace=False)
    pytest.skip(problem)


@pytest.fixture(autouse=True)
def _redis_breaker_closed() -> Iterator[None]:
    """Each test starts with this process's Redis breaker closed: one that stopped a private
    Redis (tests/matrixhockey/test_redis_down.py) leaves the next one the test Redis."""
    yield
    redis_breaker().close()


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """Messages in English unless a test asks for French (the league's default language)."""
    with translation.override("en"):
        yield


@pytest.fixture
def client() -> Client:
    """A browser that asks for English pages."""
    return Client(headers={"accept-language": "en"})


@contextmanager
def eager_tasks() -> Iterator[None]:
    """Tasks run in the test's process as soon as they are queued, as without a broker (the
    worker has its own tests)."""
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = saved


def redis_empty() -> None:
    """Empty the test's Redis database (``REDIS_URL``, the test's own): the tasks still queued,
    those a stopped worker held unacknowledged (kombu's ``unacked``, which the next worker would
    take back and run), the tasks' results and the cache. Nothing a worker test leaves there
    reaches the next test, whatever the order.

    The app's queues are then declared again: kombu remembers, per pooled connection, the queues
    it declared, and would not bind them again, so a task sent before the next worker starts
    would find no queue bound and go to kombu's dead letters, never run. And this process forgets
    the outbox's wake-up it queued there (:func:`mail.outbox.email_outbox_wake_forget`): counting
    on that task, gone, the next test's first email would wake no worker for a second."""
    redis.Redis.from_url(redis_url()).flushdb()
    outbox.email_outbox_wake_forget()
    with app.connection_for_write(redis_url()) as connection:
        for queue in app.amqp.queues.values():
            queue(connection.default_channel).declare()


BROKER_KEYS = ("broker_url", "broker_read_url", "broker_write_url")
"""Where a Celery app connects to its broker: a test moving it sets all three (Celery reads
and writes at ``broker_url`` only when the other two were unset at its configuration)."""


@contextmanager
def celery_on_redis(*, empty: bool = True) -> Iterator[Celery]:
    """The project's Celery app on the test Redis, not eager, whatever the settings say; the
    Redis database emptied before (unless ``empty`` is false: tasks queued on purpose while no
    worker ran) and after, even when the test fails (:func:`redis_empty`)."""
    keys = ("task_always_eager", *BROKER_KEYS, "result_backend")
    saved = {key: app.conf[key] for key in keys}
    app.conf.update(
        task_always_eager=False,
        **dict.fromkeys(BROKER_KEYS, redis_url()),
        result_backend=redis_url(),
    )
    try:
        if empty:
            redis_empty()
        yield app
    finally:
        redis_empty()
        app.conf.update(saved)


@pytest.fixture
def eager() -> Iterator[None]:
    """:func:`eager_tasks` for a whole test; a module asks for it with
    ``pytestmark = pytest.mark.usefixtures("eager")``."""
    with eager_tasks():
        yield


@pytest.fixture
def open_as() -> Callable[..., Client]:
    """``open_as(user, language="en", **client_options)``: a browser signed in as ``user``
    (nobody when ``None``) that asks for pages in ``language``."""

    def open_for(user: AbstractBaseUser | None, language: str = "en", **options: object) -> Client:
        browser = Client(headers={"accept-language": language}, **options)
        if user is not None:
            browser.force_login(user)
        return browser

    return open_for


# --- The league: a current season, its divisions, a pool ----------------------------------------


@pytest.fixture
def divisions(db: None) -> dict[str, Division]:
    """The seven divisions, by slug."""
    return {d.slug: d for d in league.divisions_create_standard()}


@pytest.fixture
def season(db: None) -> Season:
    """Season 1, current and running; week 1 starts on Monday 2 March 2026."""
    season = league.season_create(number=1, name="Saison 2026", starts_on=date(2026, 3, 2))
    season.status = Season.Status.RUNNING
    season.save(update_fields=["status"])
    return league.season_make_current(season=season)


@dataclass
class TeamMaker:
    season: Season
    division: Division

    def __call__(
        self,
        name: str,
        *,
        code: int,
        coach: AbstractBaseUser | None = None,
        division: Division | None = None,
        extra_goals: int = 0,
        great_saves: int = 2,
    ) -> Entry:
        team = league.team_create(name=name, coach=coach)
        return competitions.entry_create(
            season=self.season,
            team=team,
            division=division or self.division,
            code=code,
            extra_goals=extra_goals,
            great_saves=great_saves,
        )


@pytest.fixture
def enter_team(season: Season, divisions: dict[str, Division]) -> TeamMaker:
    """Make a team and enter it in the current season (the Elite unless told otherwise)."""
    return TeamMaker(season=season, division=divisions["elite"])


@pytest.fixture
def fill_division(enter_team: TeamMaker) -> Callable[..., list[Entry]]:
    """Enter ``count`` teams in a division (the Elite by default), codes 1…count."""

    def fill(count: int = 12, division: Division | None = None) -> list[Entry]:
        prefix = (division.slug if division else "elite").upper()
        return [
            enter_team(f"{prefix} Team {code:02d}", code=code, division=division)
            for code in range(1, count + 1)
        ]

    return fill


@pytest.fixture
def championship_round(season: Season) -> Round:
    """Championship round 1, in week 1."""
    return competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=1, week=1
    )


# --- The people ---------------------------------------------------------------------------------


def _user(username: str, **extra: object) -> User:
    return User.objects.create_user(
        username=username, email=f"{username}@example.org", password="secret-password", **extra
    )


@pytest.fixture
def coach(enter_team: TeamMaker) -> User:
    """The coach of the Sleigh Dogs (Elite, code 01)."""
    user = _user("sleigh-coach")
    enter_team("Sleigh Dogs", code=1, coach=user, extra_goals=3)
    return user


@pytest.fixture
def other_coach(enter_team: TeamMaker) -> User:
    """The coach of the Freezing Ass (Elite, code 02)."""
    user = _user("freezing-coach")
    enter_team("Freezing Ass", code=2, coach=user)
    return user


@pytest.fixture
def elite_pool(season: Season, divisions: dict[str, Division]) -> Pool:
    return competitions.pool_create(
        season=season, competition=Competition.CHAMPIONSHIP, division=divisions["elite"]
    )


@pytest.fixture
def referee(elite_pool: Pool) -> User:
    """A referee of the Elite's pool."""
    user = _user("referee")
    elite_pool.referees.add(user)
    return user


@pytest.fixture
def admin_user(db: None) -> User:
    """A league admin: staff and superuser."""
    return User.objects.create_superuser(
        username="admin", email="admin@example.org", password="admin-password"
    )


@pytest.fixture
def visitor(db: None) -> User:
    """A signed-up user with no team and no pool: concerned by nothing."""
    return _user("visitor")


@pytest.fixture
def admin_client(client: Client, admin_user: User) -> Client:
    """A test client signed in as the league admin."""
    client.force_login(admin_user)
    return client


@pytest.fixture
def api_client(db: None) -> APIClient:
    """An API client asking for English, with the throttles' counters reset (they live in the
    cache, shared by every test of a run)."""
    django_cache.clear()
    return APIClient(headers={"accept-language": "en"})


@pytest.fixture
def api_as(api_client: APIClient) -> Callable[[AbstractBaseUser | None], APIClient]:
    """``api_as(user)``: an API client sending ``user``'s token (``None``: anonymous)."""

    def sign_in(user: AbstractBaseUser | None) -> APIClient:
        client = APIClient(headers={"accept-language": "en"})
        if user is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {league.api_token_obtain(user=user)}")
        return client

    return sign_in


@dataclass
class ResultRecorder:
    """Store what a team played in a pool's round, as an arbitration would (tests only)."""

    def __call__(
        self,
        entry: Entry,
        round: Round,
        *,
        pool: Pool,
        column: str,
        extra_time: str,
        shootout: str = "",
        status: str = PoolRound.Status.ARBITRATED,
        extra_goals: int = 0,
        great_saves: int = 0,
    ) -> TeamResult:
        pool_round = PoolRound.objects.filter(pool=pool, round=round).first()
        if pool_round is None:
            pool_round = competitions.pool_round_create(pool=pool, round=round)
        now = timezone.now()
        published = status == PoolRound.Status.PUBLISHED
        with unguarded():  # the round may be played already (another team's row)
            PoolRound.objects.filter(pk=pool_round.pk).update(
                status=status, arbitrated_at=now, published_at=now if published else None
            )
        for kind, spent in (
            (StockKind.EXTRA_GOALS, extra_goals),
            (StockKind.GREAT_SAVES, great_saves),
        ):
            if spent:
                competitions.stock_move(
                    entry=entry, kind=kind, delta=-spent, reason=StockReason.PLAYED, round=round
                )
        pick = None
        if not published:
            # The team's pick the arbitration played, received before the deadline (R12): all
            # the team itself knows of a round not published yet (Sight.TEAM).
            notation = f"{column}{'+' * extra_goals}{'#' * great_saves}({extra_time})"
            notation += f"({shootout})" if shootout else ""
            pick = competitions.pick_record(
                entry=entry,
                round=round,
                notation=notation,
                normalized=EnginePick.parse(notation).notation(),
                channel=Pick.Channel.WEB,
                received_at=round.deadline - timedelta(hours=1),
            )
        return TeamResult.objects.create(
            pool_round=pool_round,
            entry=entry,
            column=column,
            extra_time=extra_time,
            shootout=shootout,
            extra_goals_used=extra_goals,
            great_saves_used=great_saves,
            goals=0,
            display=column,
            pick=pick,
        )


@pytest.fixture
def record_played(db: None) -> ResultRecorder:
    """``record_played(entry, round, pool=…, column=…, extra_time=…)``: a team's played pick in
    an arbitrated (or, with ``status``, published) pool round, stocks spent with it; arbitrated,
    the pick itself is stored too, received before the deadline."""
    return ResultRecorder()


def pytest_report_header() -> list[str]:
    database = database_problem() or "PostgreSQL answers"
    broker = redis_problem() or f"Redis answers at {redis_url()}"
    strict = " (REQUIRE_SERVICES=1: missing services fail)" if services_required() else ""
    return [f"services{strict}: {database}; {broker}"]


@pytest.fixture(scope="session")
def demo_worlds() -> DemoWorlds:
    """``demo_worlds.load(week=N)``: the demo league at week N in the caller's transaction, played
    through the services once per session and restored from a copy afterwards
    (:mod:`tests.demo_worlds`)."""
    return DemoWorlds()
