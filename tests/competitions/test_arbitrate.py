"""pool_round_arbitrate and pool_round_replay: what is stored is what the engine returns (R1–R8,
R11), stocks (R6), ONR sanctions (R14, R15), cups (R15, R17, R18), claims and refusals, R23."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, connections
from django.utils import timezone

from competitions import selectors
from competitions import services as competitions
from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    OnrSanction,
    PoolMember,
    PoolRound,
    Round,
    StockKind,
    StockMovement,
    StockReason,
    TeamResult,
)
from engine import Dice, Pick, TeamEntry, best_of, kdh, play_round
from engine import Round as EngineRound
from league.models import AuditLog, Division, Season, WaitingListEntry
from tests.competitions.arbitration_league import (
    League,
    add_kdh,
    add_wg,
    build_league,
    matrix_values,
    plain_pick,
)


@pytest.fixture
def referee_user(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee_user: User) -> League:
    """The Elite's twelve teams, each with 2 extra goals and 2 great saves."""
    return build_league(season=season, divisions=divisions, referee=referee_user)


def stored_teams(pool_round: PoolRound) -> dict[str, tuple]:
    return {
        r.entry.team.slug: (
            r.column or None,
            r.extra_time or None,
            r.shootout or None,
            r.extra_goals_used,
            r.great_saves_used,
            r.onr,
            r.redrawn,
            r.bonus_goal,
            r.goals,
            r.display,
        )
        for r in TeamResult.objects.filter(pool_round=pool_round).select_related("entry__team")
    }


def stored_matches(pool_round: PoolRound) -> list[tuple]:
    results = FixtureResult.objects.filter(fixture__pool_round=pool_round).order_by("fixture_id")
    return [
        (
            r.fixture.home.team.slug,
            r.fixture.away.team.slug,
            r.home_goals,
            r.away_goals,
            r.decided,
            r.winner.team.slug if r.winner else None,
        )
        for r in results.select_related("fixture__home__team", "fixture__away__team", "winner")
    ]


def engine_teams(result) -> dict[str, tuple]:
    return {team: (*played, played.display) for team, played in result.teams.items()}


def engine_matches(result) -> list[tuple]:
    return [
        (m.home, m.away, m.home_goals, m.away_goals, m.decided.value, m.winner)
        for m in result.matches
    ]


def play_draws(pool_round: PoolRound) -> list[dict]:
    """The draw log's draws made by the pool round's own seed (the game draws, R23)."""
    log = PoolRound.objects.get(pk=pool_round.pk).draw_log
    return [
        {k: v for k, v in d.items() if k != "seed"} for d in log if d["seed"] == pool_round.seed
    ]


def assert_replay_matches(pool_round: PoolRound) -> None:
    replayed = competitions.pool_round_replay(pool_round=pool_round)
    assert stored_teams(pool_round) == engine_teams(replayed)
    assert stored_matches(pool_round) == engine_matches(replayed)
    assert play_draws(pool_round) == [d.as_dict() for d in replayed.draws]


# --- What is stored ------------------------------------------------------------------------------


def test_arbitration_stores_exactly_what_the_engine_returns(elite: League) -> None:
    picks = {
        "elite-01": "A++(1)",
        "elite-02": "A#(2)",
        "elite-03": "B+++(X)",
        "elite-04": "C(3)",
        "elite-05": "C##(0)",
    }
    elite.send_all("elite", 1, picks=picks, skip=["elite-12"])
    pool_round = elite.pool_round("elite", 1)

    arbitrated = competitions.pool_round_arbitrate(pool_round=pool_round, by=elite.referee)

    # The same round built here by hand: round 1, nothing used, every stock 2, elite-12 ONR.
    sent = {team: Pick.parse(notation) for team, notation in picks.items()}
    expected = play_round(
        EngineRound(
            competition="championship",
            seed=pool_round.seed,
            matrix_row=matrix_values(Competition.CHAMPIONSHIP)[1],
            teams={
                team: TeamEntry(
                    None
                    if team == "elite-12"
                    else sent.get(team)
                    or Pick.parse(
                        plain_pick(Competition.CHAMPIONSHIP, 1, elite.entries[team].code)
                    ),
                    extra_goals=2,
                    great_saves=2,
                )
                for team in elite.entries
            },
            fixtures=elite.games("elite", 1),
        )
    )
    assert arbitrated.status == PoolRound.Status.ARBITRATED
    assert arbitrated.arbitrated_by == elite.referee
    assert stored_teams(pool_round) == engine_teams(expected)
    assert stored_matches(pool_round) == engine_matches(expected)
    assert play_draws(pool_round) == [d.as_dict() for d in expected.draws]
    onr = TeamResult.objects.get(pool_round=pool_round, entry__team__slug="elite-12")
    assert onr.onr and onr.pick is None and onr.display.startswith("ONR : ")


def test_the_last_pick_received_by_the_deadline_counts_and_a_referees_late_one_too(
    elite: League,
) -> None:
    """R12, R13: latest by received time among those in time; after the deadline only a pick a
    referee entered counts."""
    round = elite.round(Competition.CHAMPIONSHIP, 1)
    elite.send_all("elite", 1, skip=["elite-01", "elite-02"])
    elite.send(
        "elite-01",
        Competition.CHAMPIONSHIP,
        1,
        "A(1)",
        received_at=round.deadline - timedelta(0, 60),
    )
    elite.send(
        "elite-01", Competition.CHAMPIONSHIP, 1, "B(1)", received_at=round.deadline - timedelta(1)
    )
    elite.send(
        "elite-02", Competition.CHAMPIONSHIP, 1, "C(2)", received_at=round.deadline - timedelta(1)
    )
    elite.send(
        "elite-02",
        Competition.CHAMPIONSHIP,
        1,
        "D(0)",
        received_at=round.deadline + timedelta(hours=2),
    )  # by email, after the deadline: not counted
    late = elite.send(
        "elite-02",
        Competition.CHAMPIONSHIP,
        1,
        "E(3)",
        channel="referee",
        received_at=round.deadline + timedelta(hours=1),
    )
    pool_round = elite.play("elite", 1, skip=list(elite.entries))
    results = {r.entry.team.slug: r for r in TeamResult.objects.filter(pool_round=pool_round)}
    assert results["elite-01"].column == "A"
    assert results["elite-02"].column == "E" and results["elite-02"].pick == late


def test_a_stale_advance_pick_is_redrawn(elite: League) -> None:
    """R11: a pick sent in advance with a column already played is redrawn, no penalty."""
    elite.play("elite", 1, picks={"elite-01": "K(1)"})
    elite.send_all("elite", 2, picks={"elite-01": "K(2)"})
    pool_round = competitions.pool_round_arbitrate(
        pool_round=elite.pool_round("elite", 2), by=elite.referee
    )
    result = TeamResult.objects.get(pool_round=pool_round, entry__team__slug="elite-01")
    assert result.redrawn and result.column != "K" and not result.onr
    assert selectors.entry_used(
        entry=elite.entries["elite-01"], competition="championship", sight=selectors.Sight.REFEREE
    ).columns == ("K", result.column)


def test_the_stocks_played_are_taken_from_the_ledger(elite: League) -> None:
    """R6: what is played, up to the stock, leaves as ``played`` movements of the round."""
    elite.play("elite", 1, picks={"elite-01": "A+++(1)", "elite-02": "B#(2)"})
    round = elite.round(Competition.CHAMPIONSHIP, 1)
    one, two = elite.entry("elite-01"), elite.entry("elite-02")
    assert (one.extra_goals, one.great_saves) == (0, 2)  # asked 3, had 2
    assert (two.extra_goals, two.great_saves) == (2, 1)
    played = StockMovement.objects.filter(reason=StockReason.PLAYED, round=round)
    assert sorted(played.values_list("entry__team__slug", "kind", "delta")) == [
        ("elite-01", StockKind.EXTRA_GOALS, -2),
        ("elite-02", StockKind.GREAT_SAVES, -1),
    ]


# --- ONR (R14, R15) ------------------------------------------------------------------------------


@pytest.fixture
def stocked(season: Season, divisions: dict[str, Division], referee_user: User) -> League:
    """The Elite, every team with 3 extra goals and 4 great saves."""
    return build_league(
        season=season, divisions=divisions, referee=referee_user, stocks=lambda d, c: (3, 4)
    )


def test_a_first_onr_costs_one_extra_goal_and_one_great_save(stocked: League) -> None:
    stocked.play("elite", 1, skip=["elite-05"])
    entry = stocked.entry("elite-05")
    assert (entry.onr_count, entry.extra_goals, entry.great_saves) == (1, 2, 3)
    assert not entry.promotion_barred
    sanction = OnrSanction.objects.get(entry=entry)
    assert (sanction.week, sanction.onr_count, sanction.replacement) == (1, 1, "")
    assert sorted(
        StockMovement.objects.filter(entry=entry, reason=StockReason.ONR_SANCTION).values_list(
            "kind", "delta"
        )
    ) == [(StockKind.EXTRA_GOALS, -1), (StockKind.GREAT_SAVES, -1)]


def test_a_second_onr_takes_every_stock_and_bars_promotion(stocked: League) -> None:
    stocked.play("elite", 1, skip=["elite-05"])
    stocked.play("elite", 2, skip=["elite-05"])
    entry = stocked.entry("elite-05")
    assert (entry.onr_count, entry.extra_goals, entry.great_saves) == (2, 0, 0)
    assert entry.promotion_barred
    assert not AuditLog.objects.filter(action="onr_replacement_proposed").exists()


def test_a_third_onr_proposes_a_dummy_for_an_elite_team(stocked: League) -> None:
    for number in (1, 2, 3):
        stocked.play("elite", number, skip=["elite-05"])
    entry = stocked.entry("elite-05")
    sanction = OnrSanction.objects.get(entry=entry, week=3)
    assert (entry.onr_count, sanction.replacement) == (3, OnrSanction.Replacement.DUMMY)
    proposal = AuditLog.objects.get(action="onr_replacement_proposed")
    assert proposal.object_id == str(entry.pk)
    assert proposal.payload["replacement"] == "dummy"
    assert entry.replaced_at is None  # only proposed: an admin confirms (issue 5)


def test_a_third_onr_proposes_the_waiting_list_for_a_d3_team(
    season: Season, divisions: dict[str, Division], referee_user: User
) -> None:
    made = build_league(
        season=season, divisions=divisions, referee=referee_user, division_slugs=["d3a"]
    )
    WaitingListEntry.objects.create(name="Les Remplaçants", email="r@example.org")
    for number in (1, 2, 3):
        made.play("d3a", number, skip=["d3a-07"])
    sanction = OnrSanction.objects.get(entry=made.entries["d3a-07"], week=3)
    assert sanction.replacement == OnrSanction.Replacement.WAITING_LIST


@pytest.mark.parametrize("first", ["wg", "elite"])
def test_an_onr_in_the_championship_and_the_wg_the_same_week_is_sanctioned_once(
    stocked: League, first: str
) -> None:
    """R14: championship round 3 and WG round 1 are both week 3, whichever is arbitrated first."""
    add_wg(stocked, list(stocked.entries))
    stocked.play("elite", 1)
    stocked.play("elite", 2)
    for pool in (first, "wg" if first == "elite" else "elite"):
        stocked.play(pool, 3 if pool == "elite" else 1, skip=["elite-04"])
    entry = stocked.entry("elite-04")
    assert TeamResult.objects.filter(entry=entry, onr=True).count() == 2
    assert OnrSanction.objects.filter(entry=entry).count() == 1
    assert (entry.onr_count, entry.extra_goals, entry.great_saves) == (1, 2, 3)


def test_the_database_refuses_two_sanctions_of_one_team_in_one_round(stocked: League) -> None:
    stocked.play("elite", 1, skip=["elite-05"])
    sanction = OnrSanction.objects.get()
    with pytest.raises(IntegrityError):
        OnrSanction.objects.create(entry=sanction.entry, week=1, round=sanction.round, onr_count=2)


# --- R6: a week's stocks, whichever pool is arbitrated first ------------------------------------


@pytest.fixture
def one_goal(season: Season, divisions: dict[str, Division], referee_user: User) -> League:
    """The Elite in the WG too, championship rounds 1–2 played; elite-01 has 1 extra goal,
    the others 2."""
    made = build_league(
        season=season,
        divisions=divisions,
        referee=referee_user,
        stocks=lambda d, c: (1 if c == 1 else 2, 2),
    )
    add_wg(made, list(made.entries))
    made.play("elite", 1)
    made.play("elite", 2)
    return made


@pytest.mark.parametrize("first", ["wg", "elite"])
def test_the_week_grants_extra_goals_championship_first_whichever_pool_goes_first(
    one_goal: League, first: str
) -> None:
    one_goal.send_all("elite", 3, picks={"elite-01": "A+(1)", "elite-02": "A+(1)"})
    one_goal.send_all("wg", 1, picks={"elite-01": "B+(1)", "elite-02": "B+(1)"})
    for pool in (first, "wg" if first == "elite" else "elite"):
        competitions.pool_round_arbitrate(
            pool_round=one_goal.pool_round(pool, 3 if pool == "elite" else 1),
            by=one_goal.referee,
        )
    for team, granted in (("elite-01", {"championship": 1, "wg": 0}), ("elite-02", None)):
        used = dict(
            TeamResult.objects.filter(
                entry=one_goal.entries[team], pool_round__round__week=3
            ).values_list("pool_round__round__competition", "extra_goals_used")
        )
        assert used == (granted or {"championship": 1, "wg": 1})
        assert one_goal.entry(team).extra_goals == 0


@pytest.mark.parametrize("first", ["wg", "elite"])
def test_an_onr_sanction_leaves_the_weeks_other_picks_what_they_were_granted(
    season: Season, divisions: dict[str, Division], referee_user: User, first: str
) -> None:
    """R6, R14: ONR in the championship, an extra goal asked in the WG the same week."""
    made = build_league(
        season=season, divisions=divisions, referee=referee_user, stocks=lambda d, c: (2, 2)
    )
    add_wg(made, list(made.entries))
    made.play("elite", 1)
    made.play("elite", 2)
    made.send_all("elite", 3, skip=["elite-01"])
    made.send_all("wg", 1, picks={"elite-01": "B+(1)"})
    for pool in (first, "wg" if first == "elite" else "elite"):
        competitions.pool_round_arbitrate(
            pool_round=made.pool_round(pool, 3 if pool == "elite" else 1), by=made.referee
        )
    wg_result = TeamResult.objects.get(
        entry=made.entries["elite-01"], pool_round__round__competition="wg"
    )
    assert wg_result.extra_goals_used == 1
    entry = made.entry("elite-01")
    # 2 extra goals: 1 played in the WG, 1 taken by the first ONR (R14); 2 great saves − 1.
    assert (entry.extra_goals, entry.great_saves, entry.onr_count) == (0, 1, 1)


# --- Claims and refusals -------------------------------------------------------------------------


def test_a_second_arbitration_returns_the_stored_result(elite: League) -> None:
    first = elite.play("elite", 1)
    results = list(TeamResult.objects.filter(pool_round=first).values_list("pk", flat=True))
    again = competitions.pool_round_arbitrate(pool_round=first, by=elite.referee)
    assert again.pk == first.pk and again.arbitrated_at == first.arbitrated_at
    assert list(TeamResult.objects.filter(pool_round=first).values_list("pk", flat=True)) == (
        results
    )
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1


def test_arbitration_is_refused_before_the_deadline(elite: League) -> None:
    Round.objects.filter(pk=elite.round(Competition.CHAMPIONSHIP, 1).pk).update(
        deadline=timezone.now() + timedelta(hours=1)
    )
    elite.send_all("elite", 1)
    with pytest.raises(competitions.ArbitrationTooEarly):
        competitions.pool_round_arbitrate(pool_round=elite.pool_round("elite", 1), by=elite.referee)
    assert elite.pool_round("elite", 1).status == PoolRound.Status.PENDING
    assert not TeamResult.objects.exists()


def test_a_pool_round_waits_for_the_pools_earlier_rounds(elite: League) -> None:
    elite.send_all("elite", 2)
    with pytest.raises(competitions.ArbitrationOutOfOrder):
        competitions.pool_round_arbitrate(pool_round=elite.pool_round("elite", 2), by=elite.referee)


def test_a_seed_that_does_not_match_its_commitment_is_not_played(elite: League) -> None:
    """R23: nothing is stored, the claim is rolled back."""
    PoolRound.objects.filter(pk=elite.pool_round("elite", 1).pk).update(seed_hash="0" * 64)
    with pytest.raises(competitions.SeedCommitmentBroken):
        elite.play("elite", 1)
    assert elite.pool_round("elite", 1).status == PoolRound.Status.PENDING
    assert (
        not TeamResult.objects.exists()
        and not StockMovement.objects.filter(reason=StockReason.PLAYED).exists()
    )


def test_a_pool_round_claimed_elsewhere_is_not_arbitrated_twice(elite: League) -> None:
    elite.send_all("elite", 1)
    PoolRound.objects.filter(pk=elite.pool_round("elite", 1).pk).update(
        status=PoolRound.Status.ARBITRATING
    )
    with pytest.raises(competitions.ArbitrationInProgress):
        competitions.pool_round_arbitrate(pool_round=elite.pool_round("elite", 1), by=elite.referee)
    assert not TeamResult.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_referees_at_once_get_one_result(elite: League) -> None:
    """Two workers, two connections, one claim: exactly one arbitration is stored; the other
    gets the stored result (or hears the round is being arbitrated)."""
    elite.send_all("elite", 1)
    pool_round = elite.pool_round("elite", 1)
    start = threading.Barrier(2)
    outcomes: list[object] = []

    def referee() -> None:
        try:
            start.wait()
            outcomes.append(
                competitions.pool_round_arbitrate(pool_round=pool_round, by=elite.referee)
            )
        except Exception as error:
            outcomes.append(error)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=referee) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert TeamResult.objects.filter(pool_round=pool_round).count() == 12
    assert FixtureResult.objects.filter(fixture__pool_round=pool_round).count() == 6
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1
    stored = PoolRound.objects.get(pk=pool_round.pk)
    assert stored.status == PoolRound.Status.ARBITRATED
    for outcome in outcomes:
        if isinstance(outcome, PoolRound):
            assert outcome.arbitrated_at == stored.arbitrated_at
        else:
            assert isinstance(outcome, competitions.ArbitrationInProgress)
    assert any(isinstance(outcome, PoolRound) for outcome in outcomes)


# --- Cups ----------------------------------------------------------------------------------------

KDH_ROW_1 = {"A": 6, "B": 1, "C": 5, "D": 2, "E": 4, "F": 3, "G": 1}


def test_a_kdh_round_sends_on_its_winners_and_a_lucky_loser_then_draws_the_next(
    season: Season, divisions: dict[str, Division], referee_user: User
) -> None:
    """R15, R17: twelve teams → codes 05–12 play the qualifying round, 01–04 wait. One game
    lost by two ONR teams: the regulation loser with the smallest margin goes on."""
    made = build_league(
        season=season,
        divisions=divisions,
        referee=referee_user,
        matrix_rows={Competition.KDH: {1: KDH_ROW_1}},
    )
    first = add_kdh(made)
    games = made.games("kdh", 1)
    assert sorted(t for game in games for t in game) == [f"elite-{c:02d}" for c in range(5, 13)]
    (onr_home, onr_away), one, two, three = games
    picks = {
        one[0]: "A(1)(5)",  # 6 – 1
        one[1]: "B(0)(0)",
        two[0]: "C(1)(5)",  # 5 – 2
        two[1]: "D(0)(0)",
        three[0]: "E(1)(5)",  # 4 – 3: the smallest defeat
        three[1]: "F(0)(0)",
    }
    made.play("kdh", 1, picks=picks, skip=[onr_home, onr_away])

    first.refresh_from_db()
    qualified = {entry.team.slug for entry in first.qualified.all()}
    assert qualified == {one[0], two[0], three[0], three[1]}
    forfeit = FixtureResult.objects.get(
        fixture__pool_round=first, fixture__home__team__slug=onr_home
    )
    assert (forfeit.decided, forfeit.winner) == ("forfeit", None)
    onr = TeamResult.objects.get(pool_round=first, entry__team__slug=onr_home)
    assert (onr.column, onr.extra_time, onr.display) == ("", "", "ONR")
    assert not OnrSanction.objects.exists()  # R15: a cup forfeit is not sanctioned

    second = made.games("kdh", 2)
    exempt = {f"elite-{c:02d}" for c in range(1, 5)}
    assert {t for game in second for t in game} == qualified | exempt
    # R23: the draw is in the finished round's log, and re-running it gives the same games.
    draw_seed = f"{first.seed}/next-round-draw"
    assert [d["what"] for d in first.draw_log if d["seed"] == draw_seed] == ["kdh.pairings.2"]
    redrawn = kdh.draw_pairings(sorted(qualified | exempt), Dice(draw_seed), what="kdh.pairings.2")
    assert [(g.home, g.away) for g in redrawn] == second
    assert_replay_matches(first)


def test_the_wg_groups_send_their_winners_and_the_best_second_to_the_semi_finals(
    season: Season, divisions: dict[str, Division], referee_user: User
) -> None:
    """R18, R8: group stage → semi-finals (never two of one group) → final and third place."""
    made = build_league(season=season, divisions=divisions, referee=referee_user)
    add_wg(made, list(made.entries))
    for number in range(1, 7):
        made.play("wg", number)

    sixth = made.pool_round("wg", 6)
    tables = selectors.wg_group_standings(pool=made.pools["wg"], published_only=False)
    assert sorted(tables) == ["A", "B", "C"]
    assert all(len(rows) == 4 and {r.played for r in rows} == {6} for rows in tables.values())
    seconds = [tables[name][1] for name in "ABC"]
    expected = {tables[name][0].team for name in "ABC"}
    expected.add(best_of(seconds, Dice(f"{sixth.seed}/next-round-draw"), "wg.best_second").team)
    assert {e.team.slug for e in sixth.qualified.all()} == expected
    semis = made.games("wg", 7)
    assert {t for game in semis for t in game} == expected
    group = dict(
        PoolMember.objects.filter(pool=made.pools["wg"]).values_list("entry__team__slug", "group")
    )
    assert all(group[home] != group[away] for home, away in semis)

    seventh = made.play("wg", 7)
    winners = [r[5] for r in stored_matches(seventh)]
    losers = [r[0] if r[5] == r[1] else r[1] for r in stored_matches(seventh)]
    final_week = Fixture.objects.filter(pool_round=made.pool_round("wg", 8)).order_by("id")
    assert [(f.label, f.home.team.slug, f.away.team.slug) for f in final_week] == [
        ("final", *winners),
        ("third_place", *losers),
    ]
    eighth = made.play("wg", 8)
    assert_replay_matches(seventh)
    assert_replay_matches(eighth)
    assert not PoolRound.objects.filter(pool=made.pools["wg"], round__number=9).exists()


def test_a_wg_knockout_round_knows_each_teams_group_goals(
    season: Season, divisions: dict[str, Division], referee_user: User
) -> None:
    """R8: the replayed input of a knockout round carries each team's group-stage goals."""
    made = build_league(season=season, divisions=divisions, referee=referee_user)
    add_wg(made, list(made.entries))
    for number in range(1, 7):
        made.play("wg", number)
    semi = made.play("wg", 7)
    goals: dict[str, int] = {}
    for number in range(1, 7):
        for home, away, home_goals, away_goals, _, _ in stored_matches(
            made.pool_round("wg", number)
        ):
            goals[home] = goals.get(home, 0) + home_goals
            goals[away] = goals.get(away, 0) + away_goals
    built = competitions.pool_round_input(pool_round=semi, as_of=semi.arbitrated_at)
    assert {team: entry.group_goals for team, entry in built.round.teams.items()} == {
        team: goals[team] for team in built.round.teams
    }


# --- Replay (R23) --------------------------------------------------------------------------------


def test_a_replay_gives_what_was_stored_even_after_later_rounds(stocked: League) -> None:
    stocked.play("elite", 1, picks={"elite-01": "A++#(1)"}, skip=["elite-09"])
    stocked.play("elite", 2, picks={"elite-01": "B+#(2)"}, skip=["elite-09"])
    stocked.send("elite-02", Competition.CHAMPIONSHIP, 4, "A+++(1)")  # later, in advance
    stocked.play("elite", 3, skip=["elite-09"])
    for number in (1, 2, 3):
        assert_replay_matches(stocked.pool_round("elite", number))


def test_a_round_not_arbitrated_cannot_be_replayed(elite: League) -> None:
    with pytest.raises(competitions.NotArbitrated):
        competitions.pool_round_replay(pool_round=elite.pool_round("elite", 1))


def test_the_input_a_replay_rebuilds_is_the_arbitrations(elite: League) -> None:
    """One builder serves both: the week's other rounds and the stocks as they stood then."""
    elite.play("elite", 1, picks={"elite-03": "C++(1)"})
    pool_round = elite.pool_round("elite", 1)
    built = competitions.pool_round_input(pool_round=pool_round, as_of=pool_round.arbitrated_at)
    assert built.round.seed == pool_round.seed
    assert built.round.teams["elite-03"].extra_goals == 2  # the stock before the round
    assert {team: e.used_columns for team, e in built.round.teams.items()} == dict.fromkeys(
        elite.entries, ()
    )
