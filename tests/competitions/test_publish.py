"""pool_round_publish and the round statuses: arbitrated → published once (R23), a round follows
its pools, rounds close at their deadline (R13)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from competitions import services as competitions
from competitions.models import Competition, PoolRound, Round
from league.models import AuditLog, Division, Season
from tests.competitions.arbitration_league import League, build_league


@pytest.fixture
def referee_user(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def two_divisions(season: Season, divisions: dict[str, Division], referee_user: User) -> League:
    """The Elite and D2A: championship round 1 has two pool rounds."""
    return build_league(
        season=season, divisions=divisions, referee=referee_user, division_slugs=["elite", "d2a"]
    )


def round_status(made: League, number: int = 1) -> str:
    return made.round(Competition.CHAMPIONSHIP, number).status


def test_publishing_before_arbitration_is_refused(two_divisions: League) -> None:
    with pytest.raises(competitions.NotArbitrated):
        competitions.pool_round_publish(
            pool_round=two_divisions.pool_round("elite", 1), by=two_divisions.referee
        )
    assert two_divisions.pool_round("elite", 1).status == PoolRound.Status.PENDING


def test_publishing_makes_the_pool_round_public_once(two_divisions: League) -> None:
    arbitrated = two_divisions.play("elite", 1)
    assert arbitrated.public_seed is None

    published = competitions.pool_round_publish(pool_round=arbitrated, by=two_divisions.referee)
    assert published.status == PoolRound.Status.PUBLISHED
    assert published.published_by == two_divisions.referee
    assert published.public_seed == arbitrated.seed  # R23: the seed once published

    again = competitions.pool_round_publish(pool_round=arbitrated, by=None)
    assert again.published_at == published.published_at
    assert again.published_by == two_divisions.referee
    assert AuditLog.objects.filter(action="pool_round_publish").count() == 1


def test_a_round_is_arbitrated_then_published_when_all_its_pools_are(
    two_divisions: League,
) -> None:
    elite = two_divisions.play("elite", 1)
    assert round_status(two_divisions) == Round.Status.CLOSED  # D2A still to arbitrate
    d2a = two_divisions.play("d2a", 1)
    assert round_status(two_divisions) == Round.Status.ARBITRATED
    competitions.pool_round_publish(pool_round=elite, by=two_divisions.referee)
    assert round_status(two_divisions) == Round.Status.ARBITRATED
    competitions.pool_round_publish(pool_round=d2a, by=two_divisions.referee)
    assert round_status(two_divisions) == Round.Status.PUBLISHED


def test_the_publication_hook_fires_in_the_publications_transaction(
    two_divisions: League, django_capture_on_commit_callbacks: Callable
) -> None:
    """What the hook writes (the results emails' outbox rows) commits with the publication or
    not at all: the hook is heard inside the transaction, the round already published there."""
    heard: list[tuple[int, object, bool, str]] = []

    def receiver(sender: object, pool_round: PoolRound, by: object, **kwargs: object) -> None:
        status = PoolRound.objects.get(pk=pool_round.pk).status
        heard.append((pool_round.pk, by, connection.in_atomic_block, status))

    competitions.pool_round_published.connect(receiver)
    try:
        arbitrated = two_divisions.play("elite", 1)
        with django_capture_on_commit_callbacks(execute=False):
            competitions.pool_round_publish(pool_round=arbitrated, by=two_divisions.referee)
        assert heard == [(arbitrated.pk, two_divisions.referee, True, "published")]
        with django_capture_on_commit_callbacks(execute=True):
            competitions.pool_round_publish(pool_round=arbitrated, by=two_divisions.referee)
        assert len(heard) == 1  # publishing again sends nothing
    finally:
        competitions.pool_round_published.disconnect(receiver)


def test_a_publication_not_announced_tells_nobody(
    two_divisions: League, django_capture_on_commit_callbacks: Callable
) -> None:
    """The demo's past weeks: published, seed revealed, and no results email's hook fired."""
    heard: list[int] = []

    def receiver(sender: object, pool_round: PoolRound, **kwargs: object) -> None:
        heard.append(pool_round.pk)

    competitions.pool_round_published.connect(receiver)
    try:
        arbitrated = two_divisions.play("elite", 1)
        with django_capture_on_commit_callbacks(execute=True):
            published = competitions.pool_round_publish(
                pool_round=arbitrated, by=two_divisions.referee, announce=False
            )
        assert published.status == PoolRound.Status.PUBLISHED
        assert published.public_seed == arbitrated.seed
        assert heard == []
    finally:
        competitions.pool_round_published.disconnect(receiver)


def test_rounds_close_when_their_deadline_passes(two_divisions: League) -> None:
    now = timezone.now()
    rounds = Round.objects.filter(season=two_divisions.season)
    rounds.update(deadline=now + timedelta(days=7))
    past = rounds.filter(competition=Competition.CHAMPIONSHIP, number__in=[1, 2])
    past.update(deadline=now - timedelta(minutes=1))
    Round.objects.filter(pk=two_divisions.round(Competition.CHAMPIONSHIP, 2).pk).update(
        status=Round.Status.PUBLISHED
    )

    assert competitions.rounds_close_due(now=now) == 1
    assert round_status(two_divisions, 1) == Round.Status.CLOSED
    assert round_status(two_divisions, 2) == Round.Status.PUBLISHED  # untouched
    assert round_status(two_divisions, 3) == Round.Status.OPEN
    assert competitions.rounds_close_due(now=now) == 0
