"""The people around a referee's desk, on the arbitration tests' league (``arbitration_league``):
the Elite and D2A, each with its own referee, two Elite coaches and a visitor.

The names follow ``tests/conftest.py``'s people (coach, other_coach, referee, visitor); the
league's own teams are ``elite-01`` … ``d2a-12``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from celery.worker import WorkController
from django.contrib.auth.models import User
from django.db import connections
from django.urls import reverse

from competitions.models import Competition, PoolRound
from league.models import Division, Season, Team
from matrixhockey.celery import app
from tests.competitions.arbitration_league import League, build_league
from tests.conftest import celery_on_redis

PICKS = {"elite-01": "A++(1)", "elite-02": "K#(2)", "elite-03": "E+(X)"}
"""The Elite's first-round picks of :func:`desk_sent`, which no page text could contain by
chance (the others are the league's defaults)."""


@dataclass
class Desk:
    league: League
    referee: User
    """A referee of the Elite's pool (only)."""
    other_referee: User
    """A referee of D2A's pool, not of the Elite's."""
    coach: User
    """The coach of elite-01."""
    other_coach: User
    """The coach of elite-02."""
    visitor: User

    def pool_round(self, number: int = 1, pool: str = "elite") -> PoolRound:
        return self.league.pool_round(pool, number)


def _user(username: str) -> User:
    return User.objects.create_user(
        username=username, email=f"{username}@example.org", password="secret-password"
    )


def desk_build(*, season: Season, divisions: dict[str, Division]) -> Desk:
    referee = _user("referee")
    league = build_league(
        season=season, divisions=divisions, referee=referee, division_slugs=["elite", "d2a"]
    )
    other_referee = _user("other-referee")
    league.pools["d2a"].referees.set([other_referee])
    coach, other_coach = _user("sleigh-coach"), _user("freezing-coach")
    Team.objects.filter(slug="elite-01").update(coach=coach)
    Team.objects.filter(slug="elite-02").update(coach=other_coach)
    return Desk(
        league=league,
        referee=referee,
        other_referee=other_referee,
        coach=coach,
        other_coach=other_coach,
        visitor=_user("visitor"),
    )


def arbitration_url(number: int = 1, pool: str = "elite", *, publish: bool = False) -> str:
    competition = Competition.CHAMPIONSHIP if pool != "kdh" else Competition.KDH
    name = "api-arbitration-publish" if publish else "api-arbitration"
    return reverse(name, args=[competition.value, pool, number])


@contextmanager
def running_worker(*, concurrency: int = 1, purge: bool = True) -> Iterator[WorkController]:
    """A real Celery worker in this process (threads), on the test Redis (``REDIS_URL``) — as
    ``tests/matrixhockey/test_celery.py`` runs one — not eager, whatever the settings say.

    The test Redis is emptied before (unless ``purge`` is false: tasks queued while no worker
    ran) and after, even when the test fails (:func:`tests.conftest.celery_on_redis`), so no
    task, unacknowledged task or result outlives its test. Each task closes its
    thread's database connections when it ends, so the test database can be flushed.
    """

    def close_connections(**kwargs: object) -> None:
        connections.close_all()

    task_postrun.connect(close_connections, weak=False)
    try:
        with (
            celery_on_redis(empty=purge),
            start_worker(
                app,
                pool="threads" if concurrency > 1 else "solo",
                concurrency=concurrency,
                perform_ping_check=False,
                shutdown_timeout=20,
            ) as worker,
        ):
            yield worker
    finally:
        task_postrun.disconnect(close_connections)


def desk_sent(*, season: Season, divisions: dict[str, Division]) -> Desk:
    """The desk with the Elite's first round sent: :data:`PICKS`, defaults for the others, and
    no pick from elite-07."""
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, picks=PICKS, skip=["elite-07"])
    return made
