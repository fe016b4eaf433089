"""Published results are final: once a pool round is arbitrated, its games, results and draws,
its cup's qualified teams and its ONR sanctions change by nothing but the void-and-redo path —
the admin shows them read-only and PostgreSQL refuses any other UPDATE or DELETE (competitions
migrations 0012_published_results_final and 0014_published_results_final_cups_onr)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from competitions import services as competitions
from competitions.models import Fixture, FixtureResult, OnrSanction, PoolRound, TeamResult
from league.models import Division, Entry, Season
from tests.competitions.arbitration_league import League, add_kdh, build_league
from tests.final_results import unguarded


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


# --- A cup's qualified teams and the ONR sanctions (migration 0014) -------------------------------

QUALIFIED = "competitions_poolround_qualified"


@pytest.fixture
def cup(season: Season, divisions: dict[str, Division], referee: User) -> League:
    """Two divisions and the KDH, its first round arbitrated: the teams it sends on stored."""
    made = build_league(
        season=season, divisions=divisions, referee=referee, division_slugs=["elite", "d2a"]
    )
    add_kdh(made)
    made.play("kdh", 1)
    return made


def changed(statement: str, params: list[int]) -> int:
    """``statement`` goes through; how many rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.rowcount


def other_entry(pool_round: PoolRound) -> Entry:
    """An entry of the season that ``pool_round`` does not send on."""
    return Entry.objects.filter(season_id=pool_round.pool.season_id).exclude(
        qualified_in=pool_round
    )[0]


@pytest.mark.parametrize(
    "statement",
    [
        f"UPDATE {QUALIFIED} SET entry_id = %s WHERE poolround_id = %s",
        f"DELETE FROM {QUALIFIED} WHERE poolround_id = %s AND entry_id <> %s",
    ],
)
def test_the_database_refuses_to_rewrite_an_arbitrated_cup_rounds_qualified_teams(
    cup: League, statement: str
) -> None:
    played = cup.pool_round("kdh", 1)
    assert played.status == PoolRound.Status.ARBITRATED
    went_on = set(played.qualified.values_list("pk", flat=True))
    assert went_on
    params = [other_entry(played).pk, played.pk]
    if statement.startswith("DELETE"):
        params.reverse()
    refused(statement, params)
    assert set(played.qualified.values_list("pk", flat=True)) == went_on


def test_the_database_refuses_it_once_the_cup_round_is_published(cup: League) -> None:
    published = competitions.pool_round_publish(pool_round=cup.pool_round("kdh", 1), by=cup.referee)
    refused(f"DELETE FROM {QUALIFIED} WHERE poolround_id = %s", [published.pk])


def test_a_cup_round_not_yet_arbitrated_keeps_its_qualified_teams_open(cup: League) -> None:
    """A bye (R17) is written on the next round while it is pending: still open there."""
    pending = cup.pool_round("kdh", 2)
    assert pending.status == PoolRound.Status.PENDING
    entry = other_entry(pending)
    pending.qualified.add(entry)
    team = Entry.objects.exclude(pk=entry.pk).filter(season_id=entry.season_id)[0]
    assert changed(
        f"UPDATE {QUALIFIED} SET entry_id = %s WHERE poolround_id = %s", [team.pk, pending.pk]
    )
    assert changed(f"DELETE FROM {QUALIFIED} WHERE poolround_id = %s", [pending.pk])


def test_the_void_path_takes_qualified_teams_back_and_the_redo_makes_them_final(
    cup: League, referee: User
) -> None:
    played = cup.pool_round("kdh", 1)
    went_on = set(played.qualified.values_list("pk", flat=True))
    assert went_on
    same = f"UPDATE {QUALIFIED} SET entry_id = entry_id WHERE poolround_id = %s"
    refused(same, [played.pk])
    with unguarded():
        assert changed(same, [played.pk]) == len(went_on)

    voided = competitions.pool_round_void(pool_round=played, by=referee, reason="wrong value")
    assert not voided.qualified.exists()
    redone = competitions.pool_round_arbitrate(pool_round=voided, by=referee)
    assert set(redone.qualified.values_list("pk", flat=True)) == went_on
    refused(f"DELETE FROM {QUALIFIED} WHERE poolround_id = %s", [redone.pk])


@pytest.fixture
def sanctioned(elite: League) -> OnrSanction:
    """elite-05 sent no pick in the Elite's first round, arbitrated: its first ONR (R14)."""
    elite.play("elite", 1, skip=["elite-05"])
    return OnrSanction.objects.get(entry=elite.entries["elite-05"])


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE competitions_onrsanction SET extra_goals_removed = 0 WHERE id = %s",
        "UPDATE competitions_onrsanction SET barred_from_promotion = NOT barred_from_promotion"
        " WHERE id = %s",
        "UPDATE competitions_onrsanction SET replacement = 'dummy' WHERE id = %s",
        "DELETE FROM competitions_onrsanction WHERE id = %s",
    ],
)
def test_the_database_refuses_to_rewrite_an_arbitrated_rounds_onr_sanction(
    sanctioned: OnrSanction, statement: str
) -> None:
    refused(statement, [sanctioned.pk])
    assert OnrSanction.objects.get(pk=sanctioned.pk).onr_count == sanctioned.onr_count


def test_the_database_refuses_to_move_a_sanction_onto_an_arbitrated_round(
    sanctioned: OnrSanction, elite: League
) -> None:
    """A sanction of a round not played moved onto a played one is refused too (its new row)."""
    later = elite.round(sanctioned.round.competition, 2)
    other = OnrSanction.objects.create(
        entry=elite.entries["elite-05"], week=later.week, round=later, onr_count=2
    )
    refused(
        "UPDATE competitions_onrsanction SET round_id = %s WHERE id = %s",
        [sanctioned.round_id, other.pk],
    )


def test_the_database_refuses_it_once_published_too(sanctioned: OnrSanction, elite: League) -> None:
    competitions.pool_round_publish(pool_round=elite.pool_round("elite", 1), by=elite.referee)
    refused("DELETE FROM competitions_onrsanction WHERE id = %s", [sanctioned.pk])


def test_a_sanction_of_a_round_not_yet_arbitrated_stays_open(
    sanctioned: OnrSanction, elite: League
) -> None:
    later = elite.round(sanctioned.round.competition, 2)
    other = OnrSanction.objects.create(
        entry=elite.entries["elite-05"], week=later.week, round=later, onr_count=2
    )
    assert changed(
        "UPDATE competitions_onrsanction SET extra_goals_removed = 1 WHERE id = %s", [other.pk]
    )
    assert changed("DELETE FROM competitions_onrsanction WHERE id = %s", [other.pk])


def test_the_void_path_takes_a_sanction_back_and_the_redo_makes_it_final(
    sanctioned: OnrSanction, elite: League, referee: User
) -> None:
    same = "UPDATE competitions_onrsanction SET week = week WHERE id = %s"
    refused(same, [sanctioned.pk])
    with unguarded():
        assert changed(same, [sanctioned.pk]) == 1
    voided = competitions.pool_round_void(
        pool_round=elite.pool_round("elite", 1), by=referee, reason="a late pick came in"
    )
    assert not OnrSanction.objects.exists()
    competitions.pool_round_arbitrate(pool_round=voided, by=referee)
    again = OnrSanction.objects.get(entry=elite.entries["elite-05"])
    assert (again.round_id, again.onr_count) == (sanctioned.round_id, sanctioned.onr_count)
    refused("DELETE FROM competitions_onrsanction WHERE id = %s", [again.pk])


def test_the_admin_refuses_to_change_or_delete_an_onr_sanction(
    admin_client: Client, sanctioned: OnrSanction
) -> None:
    url = reverse("admin:competitions_onrsanction_change", args=[sanctioned.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert admin_client.post(url, {"extra_goals_removed": "0"}).status_code == 403
    delete = reverse("admin:competitions_onrsanction_delete", args=[sanctioned.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert OnrSanction.objects.get(pk=sanctioned.pk).extra_goals_removed == (
        sanctioned.extra_goals_removed
    )


def test_the_pool_rounds_page_shows_its_qualified_teams_read_only(
    admin_client: Client, cup: League
) -> None:
    played = cup.pool_round("kdh", 1)
    went_on = set(played.qualified.values_list("pk", flat=True))
    url = reverse("admin:competitions_poolround_change", args=[played.pk])
    page = admin_client.get(url)
    form = page.context["adminform"]
    assert "qualified_teams" in form.readonly_fields
    assert "qualified" not in form.form.fields
    shown = next(
        field
        for fieldset in form
        for line in fieldset
        for field in line
        if field.field["name"] == "qualified_teams"
    )
    html = str(shown.contents())
    for entry in played.qualified.select_related("team"):
        assert str(entry.team) in html
    admin_client.post(url, {"qualified": [other_entry(played).pk]})
    assert set(played.qualified.values_list("pk", flat=True)) == went_on
