"""Published results are final: once a pool round is arbitrated, its games, results and draws
change by nothing but the void-and-redo path — the admin shows them read-only and PostgreSQL
refuses any other UPDATE or DELETE (migration competitions/0012_published_results_final)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from competitions import services as competitions
from competitions.models import Fixture, FixtureResult, PoolRound, TeamResult
from league.models import Division, Season
from tests.competitions.arbitration_league import League, build_league


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return build_league(
        season=season, divisions=divisions, referee=referee, stocks=lambda d, c: (3, 4)
    )


@pytest.fixture
def published(elite: League) -> PoolRound:
    """The Elite's first round, arbitrated and published."""
    return elite.play_published("elite", 1)


def refused(statement: str, params: list[int]) -> None:
    """``statement`` is refused by the database, which says why."""
    with (
        pytest.raises(IntegrityError, match="final; only voiding the round"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, params)


def first_game(pool_round: PoolRound) -> Fixture:
    return Fixture.objects.filter(pool_round=pool_round).order_by("id")[0]


# --- The admin ------------------------------------------------------------------------------------


def test_the_admin_shows_a_published_game_read_only(
    admin_client: Client, published: PoolRound
) -> None:
    game = first_game(published)
    home, away = game.home_id, game.away_id
    url = reverse("admin:competitions_fixture_change", args=[game.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    swapped = admin_client.post(url, {"pool_round": published.pk, "home": away, "away": home})
    assert swapped.status_code == 403
    delete = reverse("admin:competitions_fixture_delete", args=[game.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    game.refresh_from_db()
    assert (game.home_id, game.away_id) == (home, away)


def test_the_pool_rounds_page_shows_its_published_games_read_only(
    admin_client: Client, published: PoolRound
) -> None:
    game = first_game(published)
    home, away = game.home_id, game.away_id
    url = reverse("admin:competitions_poolround_change", args=[published.pk])
    page = admin_client.get(url)
    inline = page.context["inline_admin_formsets"][0]
    assert inline.formset.model is Fixture
    assert not (inline.has_add_permission or inline.has_change_permission)
    assert not inline.has_delete_permission
    games = Fixture.objects.filter(pool_round=published).count()
    data = {
        "fixtures-TOTAL_FORMS": str(games),
        "fixtures-INITIAL_FORMS": str(games),
        "fixtures-MIN_NUM_FORMS": "0",
        "fixtures-MAX_NUM_FORMS": "1000",
        "fixtures-0-id": str(game.pk),
        "fixtures-0-pool_round": str(published.pk),
        "fixtures-0-home": str(away),
        "fixtures-0-away": str(home),
        "fixtures-0-DELETE": "on",
        "team_results-TOTAL_FORMS": "0",
        "team_results-INITIAL_FORMS": "0",
    }
    admin_client.post(url, data)
    game.refresh_from_db()
    assert (game.home_id, game.away_id) == (home, away)
    assert PoolRound.objects.filter(pk=published.pk).exists()
    assert not admin_client.get(url).context["has_delete_permission"]


def test_the_admin_adds_no_game_to_a_published_round(
    admin_client: Client, published: PoolRound, elite: League
) -> None:
    page = admin_client.get(reverse("admin:competitions_fixture_add"))
    choices = page.context["adminform"].form.fields["pool_round"].queryset
    assert published not in choices
    assert elite.pool_round("elite", 2) in choices


def test_a_game_not_yet_arbitrated_stays_editable_in_the_admin(
    admin_client: Client, published: PoolRound, elite: League
) -> None:
    game = first_game(elite.pool_round("elite", 2))
    page = admin_client.get(reverse("admin:competitions_fixture_change", args=[game.pk]))
    assert b'name="_save"' in page.content


# --- The database ---------------------------------------------------------------------------------


def test_the_database_refuses_to_swap_a_published_games_teams(published: PoolRound) -> None:
    game = first_game(published)
    refused(
        "UPDATE competitions_fixture SET home_id = away_id, away_id = home_id WHERE id = %s",
        [game.pk],
    )
    game.refresh_from_db()
    assert Fixture.objects.get(pk=game.pk).home_id == game.home_id


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM competitions_fixture WHERE pool_round_id = %s",
        "UPDATE competitions_fixtureresult SET home_goals = home_goals + 1"
        " WHERE fixture_id IN (SELECT id FROM competitions_fixture WHERE pool_round_id = %s)",
        "DELETE FROM competitions_fixtureresult"
        " WHERE fixture_id IN (SELECT id FROM competitions_fixture WHERE pool_round_id = %s)",
        "UPDATE competitions_teamresult SET goals = goals + 1 WHERE pool_round_id = %s",
        "DELETE FROM competitions_teamresult WHERE pool_round_id = %s",
        "UPDATE competitions_poolround SET draw_log = '[]'::jsonb WHERE id = %s",
        "UPDATE competitions_poolround SET status = 'pending' WHERE id = %s",
        "UPDATE competitions_poolround SET void_reason = 'never happened' WHERE id = %s",
        "UPDATE competitions_poolround SET voided_at = now() WHERE id = %s",
        "DELETE FROM competitions_poolround WHERE id = %s",
    ],
)
def test_the_database_refuses_to_rewrite_a_published_round(
    published: PoolRound, statement: str
) -> None:
    refused(statement, [published.pk])


def test_the_database_refuses_it_for_an_arbitrated_round_too(elite: League) -> None:
    arbitrated = elite.play("elite", 1)
    assert arbitrated.status == PoolRound.Status.ARBITRATED
    refused(
        "UPDATE competitions_fixture SET home_id = away_id, away_id = home_id"
        " WHERE pool_round_id = %s",
        [arbitrated.pk],
    )
    refused("DELETE FROM competitions_teamresult WHERE pool_round_id = %s", [arbitrated.pk])


def test_a_round_not_yet_arbitrated_can_still_be_changed(
    published: PoolRound, elite: League
) -> None:
    pending = elite.pool_round("elite", 2)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE competitions_fixture SET home_id = away_id, away_id = home_id"
            " WHERE pool_round_id = %s",
            [pending.pk],
        )
        assert cursor.rowcount == Fixture.objects.filter(pool_round=pending).count() > 0


# --- The void-and-redo path -----------------------------------------------------------------------


def test_void_and_redo_still_works_and_the_round_is_final_again(
    published: PoolRound, elite: League, referee: User
) -> None:
    games = sorted(FixtureResult.objects.filter(fixture__pool_round=published).values_list())
    voided = competitions.pool_round_void(pool_round=published, by=referee, reason="wrong value")
    assert voided.status == PoolRound.Status.VOID
    assert not TeamResult.objects.filter(pool_round=published).exists()

    redone = competitions.pool_round_publish(
        pool_round=competitions.pool_round_arbitrate(pool_round=voided, by=referee), by=referee
    )
    again = FixtureResult.objects.filter(fixture__pool_round=redone)
    assert [r[2:5] for r in sorted(again.values_list())] == [r[2:5] for r in games]
    # The void's leave ended with it: the redone round is final again in this transaction.
    refused("DELETE FROM competitions_teamresult WHERE pool_round_id = %s", [redone.pk])
