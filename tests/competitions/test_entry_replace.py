"""``entry_replace``: R14's replacement takes the place, the record and the stocks."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from competitions.models import Competition, Fixture, Pool, PoolRound, Round, StockMovement
from competitions.services import entry_replace, fixture_create, pool_round_create, round_create
from league.models import AuditLog, Entry, Season
from league.services import team_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def leaving(enter_team: Callable[..., Entry]) -> Entry:
    return enter_team("Cybérians", code=3, extra_goals=2, great_saves=1)


def test_the_replacement_takes_the_code_and_the_stocks(leaving: Entry, admin_user: User) -> None:
    dummy = team_create(name="Dummy 1", is_dummy=True)
    new = entry_replace(entry=leaving, team=dummy, by=admin_user)
    leaving.refresh_from_db()

    assert (new.division, new.code, new.replaces) == (leaving.division, 3, leaving)
    assert (new.extra_goals, new.great_saves) == (2, 1)
    assert (leaving.extra_goals, leaving.great_saves) == (0, 0)
    assert not leaving.is_playing and new.is_playing
    reasons = set(StockMovement.objects.filter(entry=new).values_list("reason", flat=True))
    assert reasons == {"replacement"}
    assert AuditLog.objects.get(action="entry_replace").payload["team"] == "dummy-1"


def test_the_newcomer_does_not_inherit_the_onr_sanctions(leaving: Entry) -> None:
    Entry.objects.filter(pk=leaving.pk).update(onr_count=3, promotion_barred=True)
    leaving.refresh_from_db()
    new = entry_replace(entry=leaving, team=team_create(name="Igloos"))
    assert (new.onr_count, new.promotion_barred) == (0, False)


def test_fixtures_not_yet_played_move_to_the_replacement(
    leaving: Entry,
    enter_team: Callable[..., Entry],
    season: Season,
    championship_round: Round,
    elite_pool: Pool,
) -> None:
    opponent = enter_team("Groggs", code=4)
    played = pool_round_create(pool=elite_pool, round=championship_round)
    fixture_create(pool_round=played, home=leaving, away=opponent)
    PoolRound.objects.filter(pk=played.pk).update(
        status="published",
        arbitrated_at=season.deadline_for_week(1),
        published_at=season.deadline_for_week(1),
    )
    later = pool_round_create(
        pool=elite_pool,
        round=round_create(season=season, competition=Competition.CHAMPIONSHIP, number=2, week=2),
    )
    fixture_create(pool_round=later, home=opponent, away=leaving)

    new = entry_replace(entry=leaving, team=team_create(name="Igloos"))

    assert Fixture.objects.get(pool_round=played).home == leaving
    assert Fixture.objects.get(pool_round=later).away == new


def test_an_entry_is_replaced_once(leaving: Entry) -> None:
    entry_replace(entry=leaving, team=team_create(name="Igloos"))
    with pytest.raises(ValidationError, match="already replaced"):
        entry_replace(entry=leaving, team=team_create(name="Icebergs"))
