"""A first season prepared piece by piece, as the season desk does it, then started without a
plan: matrices drawn with dice and editable (R19), the calendar moved and a week skipped (R20,
R13), pools with the referees an admin picks, the KDH's first round (R17) and the WG's groups of
the admin's twelve (R18), each draw exactly the one its preview showed.

The league is the import's good file (``league_csv``), imported once for the module; each test's
preparation is rolled back after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from competitions.models import (
    Competition,
    Fixture,
    Matrix,
    MatrixCell,
    Pool,
    PoolMember,
    PoolRound,
    Round,
)
from competitions.services.league_import import league_import
from competitions.services.season_start import (
    season_kdh_preview,
    season_matrices_preview,
    season_prepare_calendar,
    season_prepare_kdh,
    season_prepare_matrices,
    season_prepare_pools,
    season_prepare_wg,
    season_start,
    season_wg_preview,
)
from competitions.services.start_plan import SeasonStartRefused
from league.models import Entry, Season
from mail.models import OutboundEmail
from tests.competitions.league_csv import csv_text, good_rows

FUTURE_MONDAY = date(2030, 9, 2)


@pytest.fixture(scope="module")
def season(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> Iterator[Season]:
    with django_db_blocker.unblock(), transaction.atomic():  # type: ignore[attr-defined]
        yield league_import(text=csv_text(good_rows()), starts_on=FUTURE_MONDAY).season
        transaction.set_rollback(True)


def twelve(season: Season) -> list[Entry]:
    """The admin's WG twelve (R18, the first season): every division's code 01, and the Elite's
    02 to 06."""
    entries = Entry.objects.filter(season=season).select_related("team", "division")
    return [e for e in entries if e.code == 1 or (e.division.slug == "elite" and e.code <= 6)]


def test_the_matrices_are_the_previewed_dice_until_an_admin_edits_one(
    season: Season, db: None
) -> None:
    preview = season_matrices_preview(season=season)
    season_prepare_matrices(season=season)
    stored = {
        (m.competition, c.round_number, c.column): c.value
        for m in Matrix.objects.filter(season=season)
        for c in m.cells.all()
    }
    assert stored == {
        (competition, number, column): value
        for competition, matrix in preview.items()
        for number, row in enumerate(matrix.as_rows(), start=1)
        for column, value in row.items()
    }
    fours = {number: dict.fromkeys("ABCDEFG", 4) for number in range(1, 8)}
    season_prepare_matrices(season=season, values={"kdh": fours})
    kdh = MatrixCell.objects.filter(matrix__season=season, matrix__competition="kdh")
    assert kdh.count() == 49 and set(kdh.values_list("value", flat=True)) == {4}
    # The other two stay as drawn.
    championship = MatrixCell.objects.filter(matrix__competition="championship")
    assert {(c.round_number, c.column): c.value for c in championship} == {
        (n, col): v for (comp, n, col), v in stored.items() if comp == "championship"
    }


def test_the_calendar_moves_with_its_start_and_skipped_weeks(season: Season, db: None) -> None:
    rounds = season_prepare_calendar(season=season, skipped_weeks=[2])
    assert len(rounds) == 11 + 7 + 8
    second = Round.objects.get(season=season, competition="championship", number=2)
    assert second.week == 3
    assert second.deadline.date() == FUTURE_MONDAY + timedelta(weeks=2, days=4)
    # Given again without the skipped week and a week later, the same rounds move.
    season_prepare_calendar(
        season=season, starts_on=FUTURE_MONDAY + timedelta(weeks=1), skipped_weeks=[]
    )
    second.refresh_from_db()
    assert second.week == 2
    assert second.deadline.date() == FUTURE_MONDAY + timedelta(weeks=2, days=4)
    assert Round.objects.filter(season=season).count() == 26
    with pytest.raises(ValidationError, match="starts on a Monday"):
        season_prepare_calendar(season=season, starts_on=FUTURE_MONDAY + timedelta(days=1))
    with pytest.raises(ValidationError, match="Skipped weeks"):
        season_prepare_calendar(season=season, skipped_weeks=[1])


def test_pools_get_the_referees_an_admin_picks(season: Season, db: None) -> None:
    referee = User.objects.create_user(username="first-referee")
    pools = season_prepare_pools(season=season, referees={"elite": [referee], "kdh": [referee]})
    assert [p.slug for p in pools] == [
        "elite",
        "d2a",
        "d2b",
        "d3a",
        "d3b",
        "d3c",
        "d3d",
        "kdh",
        "wg",
    ]
    by_slug = {p.slug: list(p.referees.all()) for p in pools}
    assert by_slug["elite"] == [referee] and by_slug["kdh"] == [referee]
    assert by_slug["d2a"] == [] and by_slug["wg"] == []  # the first season: nobody else's


def test_the_cup_draws_are_committed_as_previewed(season: Season, db: None) -> None:
    season_prepare_calendar(season=season)
    season_prepare_pools(season=season)
    kdh = season_kdh_preview(season=season)
    assert len(kdh.qualifying) == 40 and len(kdh.exempt) == 44 and len(kdh.games) == 20
    assert kdh == season_kdh_preview(season=season)  # the same seed, the same draw
    first = season_prepare_kdh(season=season)
    games = Fixture.objects.filter(pool_round=first).order_by("id")
    assert [(g.home.team.slug, g.away.team.slug) for g in games] == list(kdh.games)
    with pytest.raises(SeasonStartRefused) as again:
        season_prepare_kdh(season=season)
    assert again.value.code == "already_drawn"

    picked = twelve(season)
    with pytest.raises(SeasonStartRefused) as short:
        season_prepare_wg(season=season, entries=picked[:11])
    assert short.value.code == "not_ready"
    wg = season_wg_preview(season=season, entries=picked)
    season_prepare_wg(season=season, entries=picked)
    members = PoolMember.objects.filter(pool__season=season, pool__slug="wg")
    assert [
        sorted(members.filter(group=name).values_list("entry__team__slug", flat=True))
        for name in "ABC"
    ] == [sorted(group) for group in wg.groups]


def test_the_first_season_needs_its_wg_twelve_to_start(season: Season, db: None) -> None:
    season_prepare_calendar(season=season)
    with pytest.raises(SeasonStartRefused) as refusal:
        season_start(by=None)
    assert refusal.value.code == "not_ready"
    assert refusal.value.problems == ["Pick the WG's twelve teams and draw its groups first (R18)."]
    assert not Pool.objects.exists() and not Matrix.objects.exists()
    assert Season.objects.get(pk=season.pk).status == Season.Status.PREPARING


def test_a_start_refused_at_its_last_step_leaves_the_preparation_as_it_was(
    season: Season, db: None
) -> None:
    """Everything is built (matrices, pools, schedules, both cups), then the first deadline
    turns out to be past: all of it rolled back, the calendar as the admin left it."""
    season_prepare_calendar(season=season, starts_on=date(2020, 1, 6))
    picked = [e.team.slug for e in twelve(season)]
    with pytest.raises(SeasonStartRefused) as refusal:
        season_start(by=None, wg_teams=picked)
    assert refusal.value.code == "deadline_passed"
    assert not Pool.objects.exists() and not PoolRound.objects.exists()
    assert not Matrix.objects.exists() and not Fixture.objects.exists()
    assert not OutboundEmail.objects.filter(template="season-started").exists()
    season.refresh_from_db()
    assert (season.status, season.starts_on) == ("preparing", date(2020, 1, 6))
    assert Round.objects.filter(season=season).count() == 26


def test_the_prepared_first_season_starts_without_a_plan(season: Season, db: None) -> None:
    referee = User.objects.create_user(username="first-referee")
    season_prepare_pools(season=season, referees={"d3b": [referee]})
    started = season_start(by=None, wg_teams=[e.team.slug for e in twelve(season)])
    assert (started.status, started.is_current) == ("running", True)
    # Defaults for what was not prepared: matrices drawn, the calendar from the import's Monday.
    assert Matrix.objects.filter(season=started).count() == 3
    first = Round.objects.get(season=started, competition="championship", number=1)
    assert first.deadline.date() == FUTURE_MONDAY + timedelta(days=4)
    assert first.deadline > timezone.now()
    assert list(Pool.objects.get(season=started, slug="d3b").referees.all()) == [referee]
    assert PoolRound.objects.filter(pool__season=started).count() == 7 * 11 + 1 + 6
    assert (
        PoolRound.objects.get(
            pool__season=started, round__competition=Competition.KDH
        ).fixtures.count()
        == 20
    )
    assert OutboundEmail.objects.filter(template="season-started").count() == 84
    with pytest.raises(SeasonStartRefused) as again:
        season_prepare_matrices(season=started)
    assert again.value.code == "not_preparing"
