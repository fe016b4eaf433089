"""R18: the WG's twelve, its groups, semi-finals and final."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.competitions import Competition
from engine.dice import Dice
from engine.errors import InputError
from engine.game import Decided, MatchResult
from engine.standings import StandingRow
from engine.wg import (
    Berth,
    GoalRecord,
    admin_qualifiers,
    draw_groups,
    draw_semi_finals,
    final_games,
    final_ranking,
    group_rounds,
    qualifiers,
    round_kind,
    semi_finalists,
)

WINNERS = [f"w{i}" for i in range(1, 8)]
OTHERS = [f"o{i}" for i in range(1, 15)]
TWELVE = [f"t{i:02d}" for i in range(1, 13)]


def records(scorers: list[str], defenders: list[str]) -> list[GoalRecord]:
    """Everyone scores 20 and concedes 30, except ``scorers`` (100, 99, … goals, in that order)
    and ``defenders`` (0, 1, … against, in that order)."""
    return [
        GoalRecord(
            team,
            100 - scorers.index(team) if team in scorers else 20,
            defenders.index(team) if team in defenders else 30,
        )
        for team in [*WINNERS, "k1", "k2", "h", *OTHERS]
    ]


@pytest.mark.parametrize(
    ("kdh", "holder", "scorers", "defenders", "expected_extra"),
    [
        pytest.param(
            ["k1", "k2"], "h", ["o1"], ["o4"], ["o1", "o4"], id="R18-no-overlap-twelve-berths"
        ),
        pytest.param(
            ["k1", "k2"],
            "h",
            ["w1", "o1", "o2"],
            ["o4", "o5"],
            ["o4", "o1"],
            id="R18-top-scorer-won-its-division-next-scorer-in",
        ),
        pytest.param(
            ["k1", "k2"],
            "h",
            ["w1", "o1", "o2"],
            ["w2", "o4", "o5"],
            ["o1", "o4"],
            id="R18-scorer-and-defence-both-winners-alternate",
        ),
        pytest.param(
            ["k1", "k2"],
            "h",
            ["o1", "o2"],
            ["w2", "o4", "o5"],
            ["o1", "o2"],
            id="R18-first-freed-place-goes-by-goals-even-from-defence",
        ),
        pytest.param(
            ["w3", "k2"],
            "k2",
            ["o1", "o2", "o3"],
            ["o4", "o5"],
            ["o1", "o4", "o2", "o5"],
            id="R18-kdh-finalist-and-holder-twice",
        ),
        pytest.param(
            ["k1", "k2"],
            None,
            ["w1", "o1", "o2"],
            ["w1", "o4"],
            ["o1", "o4", "o2"],
            id="R18-vacant-holder-is-a-freed-place",
        ),
        pytest.param(
            ["w1", "w2"],
            "w1",
            ["w1", "o1", "o2", "o3"],
            ["w1", "o4", "o5", "o6"],
            ["o1", "o4", "o2", "o5", "o3"],
            id="R18-one-team-everywhere-five-freed-places",
        ),
        pytest.param(
            ["k1", "k2"],
            "h",
            ["w1", "o1"],
            ["w2", "o1", "o4"],
            ["o1", "o4"],
            id="R18-next-team-skips-one-already-in",
        ),
    ],
)
def test_overlaps_free_places_by_goals_then_goals_against_alternating(
    kdh: list[str],
    holder: str | None,
    scorers: list[str],
    defenders: list[str],
    expected_extra: list[str],
) -> None:
    teams = qualifiers(
        division_winners=WINNERS,
        kdh_finalists=kdh,
        holder=holder,
        records=records(scorers, defenders),
        dice=Dice("s"),
    )
    named = list(dict.fromkeys([*WINNERS, *kdh, *([holder] if holder else [])]))
    assert len(teams) == 12 and len({q.team for q in teams}) == 12
    assert [q.team for q in teams] == named + expected_extra
    freed = [q for q in teams if q.freed_place]
    # Freed places alternate: most goals, fewest against, most goals…
    assert [q.berth for q in freed] == [
        (Berth.MOST_GOALS, Berth.FEWEST_GOALS_AGAINST)[i % 2] for i in range(len(freed))
    ]


def test_berths_name_why_each_team_is_in() -> None:
    teams = qualifiers(
        division_winners=WINNERS,
        kdh_finalists=["k1", "k2"],
        holder="h",
        records=records(["o1"], ["o4"]),
        dice=Dice("s"),
    )
    assert Counter(q.berth for q in teams) == {
        Berth.DIVISION_WINNER: 7,
        Berth.KDH_FINALIST: 2,
        Berth.HOLDER: 1,
        Berth.MOST_GOALS: 1,
        Berth.FEWEST_GOALS_AGAINST: 1,
    }
    assert not any(q.freed_place for q in teams)


def test_most_goals_tie_broken_by_fewest_against_then_the_die() -> None:
    base = [GoalRecord(t, 10, 40) for t in [*WINNERS, "k1", "k2", "h"]]
    rest = [GoalRecord("a", 50, 20), GoalRecord("b", 50, 19), GoalRecord("c", 1, 0)]
    rest += [GoalRecord(f"x{i}", 5, 45) for i in range(5)]
    teams = qualifiers(
        division_winners=WINNERS,
        kdh_finalists=["k1", "k2"],
        holder="h",
        records=base + rest,
        dice=Dice("s"),
    )
    # a and b scored 50 each; b conceded fewer.
    assert [q.team for q in teams if q.berth is Berth.MOST_GOALS] == ["b"]


def test_a_full_tie_is_settled_by_a_logged_die() -> None:
    base = [GoalRecord(t, 10, 40) for t in [*WINNERS, "k1", "k2", "h"]]
    tied = [GoalRecord("a", 50, 20), GoalRecord("b", 50, 20), GoalRecord("c", 1, 0)]
    picked = set()
    for i in range(20):
        dice = Dice(f"tie-{i}")
        teams = qualifiers(
            division_winners=WINNERS,
            kdh_finalists=["k1", "k2"],
            holder="h",
            records=base + tied,
            dice=dice,
        )
        top = next(q.team for q in teams if q.berth is Berth.MOST_GOALS)
        assert [d.what for d in dice.draws] == ["wg.most_goals"]
        assert dice.draws[0].options == ("a", "b")
        picked.add(top)
    assert picked == {"a", "b"}


def test_a_tie_for_a_freed_place_is_settled_by_a_logged_die() -> None:
    # w1 scores most and concedes least: two freed places; o-teams tie for the first one.
    recs = [GoalRecord(t, 10, 40) for t in [*WINNERS, "k1", "k2", "h"]]
    recs[0] = GoalRecord("w1", 99, 0)
    recs += [GoalRecord("p", 30, 35), GoalRecord("q", 30, 35), GoalRecord("r", 1, 5)]
    dice = Dice("s")
    teams = qualifiers(
        division_winners=WINNERS, kdh_finalists=["k1", "k2"], holder="h", records=recs, dice=dice
    )
    assert [d.what for d in dice.draws] == ["wg.freed_place.1"]
    assert {q.team for q in teams if q.freed_place} == {dice.draws[0].result, "r"}


team_records = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=14, max_size=40
).map(lambda goals: [GoalRecord(f"team-{i}", gf, ga) for i, (gf, ga) in enumerate(goals)])


@given(team_records, st.data())
def test_always_twelve_distinct_teams_with_every_named_one(
    recs: list[GoalRecord], data: st.DataObject
) -> None:
    names = [r.team for r in recs]
    winners = data.draw(st.lists(st.sampled_from(names), min_size=7, max_size=7, unique=True))
    kdh = data.draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
    holder = data.draw(st.one_of(st.none(), st.sampled_from(names)))
    teams = qualifiers(
        division_winners=winners,
        kdh_finalists=kdh,
        holder=holder,
        records=recs,
        dice=Dice(data.draw(st.text(max_size=5))),
    )
    chosen = [q.team for q in teams]
    assert len(chosen) == 12 == len(set(chosen))
    named = {*winners, *kdh, *([holder] if holder else [])}
    assert named <= set(chosen)
    best_gf = max(r.goals_for for r in recs)
    best_ga = min(r.goals_against for r in recs)
    assert any(r.team in chosen for r in recs if r.goals_for == best_gf)
    assert any(r.team in chosen for r in recs if r.goals_against == best_ga)
    # A freed place never goes to a team a better one (by its own criterion) was left out for.
    for q in teams:
        if q.freed_place:
            mine = next(r for r in recs if r.team == q.team)
            left_out = [r for r in recs if r.team not in chosen]
            if q.berth is Berth.MOST_GOALS:
                assert all(r.goals_for <= mine.goals_for for r in left_out)
            else:
                assert all(r.goals_against >= mine.goals_against for r in left_out)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        pytest.param({"division_winners": ["ghost"]}, "division_winners[0]", id="unknown-winner"),
        pytest.param({"kdh_finalists": ["k1", "ghost"]}, "kdh_finalists[1]", id="unknown-kdh"),
        pytest.param({"holder": "ghost"}, "holder", id="unknown-holder"),
        pytest.param(
            {"division_winners": [*WINNERS, "o1", "o2", "o3"]}, "division_winners", id="too-many"
        ),
        pytest.param(
            {"records": [*records([], []), GoalRecord("w1", 1, 1)]}, "records[24]", id="dup-record"
        ),
        pytest.param(
            {"records": [GoalRecord("w1", -1, 0)]}, "records[0].goals_for", id="negative-goals"
        ),
        pytest.param(
            {"records": [GoalRecord("w1", 1, True)]}, "records[0].goals_against", id="bool-goals"
        ),
        pytest.param(
            {
                "division_winners": ["a"],
                "kdh_finalists": [],
                "holder": None,
                "records": [GoalRecord(t, 1, 1) for t in "abcdefghijk"],
            },
            "records",
            id="too-few-teams-for-twelve",
        ),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, object], field: str) -> None:
    arguments: dict[str, object] = {
        "division_winners": WINNERS,
        "kdh_finalists": ["k1", "k2"],
        "holder": "h",
        "records": records([], []),
        "dice": Dice("s"),
        **kwargs,
    }
    with pytest.raises(InputError) as error:
        qualifiers(**arguments)  # type: ignore[arg-type]
    assert error.value.field == field


def test_admin_picks_the_first_seasons_twelve() -> None:
    assert admin_qualifiers(TWELVE) == tuple(TWELVE)


@pytest.mark.parametrize(
    ("teams", "field"),
    [
        pytest.param(TWELVE[:11], "teams", id="R18-eleven"),
        pytest.param([*TWELVE, "t13"], "teams", id="R18-thirteen"),
        pytest.param([*TWELVE[:11], "t01"], "teams[11]", id="R18-twice"),
        pytest.param([*TWELVE[:11], 12], "teams[11]", id="not-an-id"),
        pytest.param("t" * 12, "teams", id="a-string"),
    ],
)
def test_admin_twelve_must_be_twelve_distinct_teams(teams: list[str], field: str) -> None:
    with pytest.raises(InputError) as error:
        admin_qualifiers(teams)
    assert error.value.field == field


@given(st.text(max_size=8))
def test_groups_three_of_four_same_seed_same_draw(seed: str) -> None:
    groups = draw_groups(TWELVE, Dice(seed))
    assert [len(g) for g in groups] == [4, 4, 4]
    assert sorted(t for g in groups for t in g) == TWELVE
    assert draw_groups(list(reversed(TWELVE)), Dice(seed)) == groups


def test_groups_vary_with_the_seed() -> None:
    assert len({draw_groups(TWELVE, Dice(str(i))) for i in range(10)}) > 1


def test_group_stage_every_pair_home_and_away_within_its_group() -> None:
    groups = draw_groups(TWELVE, Dice("s"))
    rounds = group_rounds(groups)
    assert len(rounds) == 6
    for games in rounds:
        assert sorted(t for g in games for t in (g.home, g.away)) == TWELVE
    group_of = {t: i for i, g in enumerate(groups) for t in g}
    played = Counter((g.home, g.away) for games in rounds for g in games)
    expected = {pair for g in groups for pair in itertools.permutations(g, 2)}
    assert set(played) == expected and set(played.values()) == {1}
    assert all(group_of[h] == group_of[a] for h, a in played)


@pytest.mark.parametrize(
    ("round_number", "kind"),
    [
        *[
            pytest.param(r, Competition.WG_GROUP, id=f"R18-round-{r}-group-stage")
            for r in range(1, 7)
        ],
        pytest.param(7, Competition.WG_KNOCKOUT, id="R18-round-7-semi-finals"),
        pytest.param(8, Competition.WG_KNOCKOUT, id="R18-round-8-final-and-third-place"),
    ],
)
def test_round_kinds(round_number: int, kind: Competition) -> None:
    assert round_kind(round_number) is kind


@pytest.mark.parametrize("round_number", [0, 9])
def test_round_kind_outside_the_wg(round_number: int) -> None:
    with pytest.raises(InputError) as error:
        round_kind(round_number)
    assert error.value.field == "round"


def row(team: str, rank: int, points: int, wins: int = 0, goals_for: int = 5) -> StandingRow:
    draws = points - 2 * wins
    return StandingRow(team, rank, points, 6, wins, wins, draws, 0, 6 - wins - draws, goals_for, 5)


def tables(seconds: list[StandingRow]) -> list[list[StandingRow]]:
    return [
        [row(f"{g}1", 1, 10, 5), second, row(f"{g}3", 3, 2, 1), row(f"{g}4", 4, 0)]
        for g, second in zip("abc", seconds, strict=True)
    ]


@pytest.mark.parametrize(
    ("seconds", "best"),
    [
        pytest.param(
            [row("a2", 2, 6, 3), row("b2", 2, 7, 3), row("c2", 2, 5, 2)], "b2", id="R18-R9-points"
        ),
        pytest.param(
            [row("a2", 2, 6, 2), row("b2", 2, 6, 3), row("c2", 2, 6, 1)], "b2", id="R18-R9-wins"
        ),
        pytest.param(
            [row("a2", 2, 6, 3, 9), row("b2", 2, 6, 3, 7), row("c2", 2, 6, 3, 8)],
            "a2",
            id="R18-R9-goals",
        ),
    ],
)
def test_group_winners_and_the_best_second_go_through(
    seconds: list[StandingRow], best: str
) -> None:
    semi = semi_finalists(tables(seconds), Dice("s"))
    assert semi == {"a1": "A", "b1": "B", "c1": "C", best: best[0].upper()}


def test_best_second_tie_settled_by_a_logged_die() -> None:
    seconds = [row("a2", 2, 6, 3), row("b2", 2, 6, 3), row("c2", 2, 5, 2)]
    picked = set()
    for i in range(20):
        dice = Dice(str(i))
        semi = semi_finalists(tables(seconds), dice)
        assert [d.what for d in dice.draws] == ["wg.best_second"]
        (second,) = set(semi) - {"a1", "b1", "c1"}
        assert semi[second] == second[0].upper()
        picked.add(second)
    assert picked == {"a2", "b2"}


@pytest.mark.parametrize(
    ("given_tables", "field"),
    [
        pytest.param(tables([row("a2", 2, 1), row("b2", 2, 1), row("c2", 2, 1)])[:2], "tables"),
        pytest.param([[row("a1", 1, 1)], [row("b1", 1, 1), row("b2", 2, 1)], []], "tables.A"),
    ],
)
def test_semi_finalists_need_three_tables(
    given_tables: list[list[StandingRow]], field: str
) -> None:
    with pytest.raises(InputError) as error:
        semi_finalists(given_tables, Dice("s"))
    assert error.value.field == field


@given(st.text(max_size=8), st.sampled_from("ABC"))
def test_semis_never_pair_two_teams_of_one_group(seed: str, second_group: str) -> None:
    semi = {"a1": "A", "b1": "B", "c1": "C", f"{second_group.lower()}2": second_group}
    dice = Dice(seed)
    games = draw_semi_finals(semi, dice)
    assert len(games) == 2
    assert sorted(t for g in games for t in (g.home, g.away)) == sorted(semi)
    assert all(semi[g.home] != semi[g.away] for g in games)
    assert draw_semi_finals(semi, Dice(seed)) == games
    assert [d.what for d in dice.draws] == ["wg.semi_finals"]


def test_best_second_meets_either_other_winner() -> None:
    semi = {"a1": "A", "b1": "B", "c1": "C", "a2": "A"}
    opponents = Counter()
    for i in range(200):
        for game in draw_semi_finals(semi, Dice(str(i))):
            if "a2" in (game.home, game.away):
                opponents[game.away if game.home == "a2" else game.home] += 1
    assert set(opponents) == {"b1", "c1"}
    assert min(opponents.values()) > 60  # about half each


def test_semis_need_four_teams() -> None:
    with pytest.raises(InputError) as error:
        draw_semi_finals({"a1": "A", "b1": "B"}, Dice("s"))
    assert error.value.field == "semi"


def match(
    home: str, away: str, winner: str | None, decided: Decided = Decided.REGULATION
) -> MatchResult:
    goals = (2, 1) if winner == home else (1, 2)
    return MatchResult(home, away, *goals, decided, winner)  # fmt: skip


def test_final_and_third_place_from_the_semis() -> None:
    final, third = final_games([match("a1", "b1", "b1"), match("c1", "a2", "c1")])
    assert (final.home, final.away) == ("b1", "c1")
    assert (third.home, third.away) == ("a1", "a2")
    assert final_ranking(match("b1", "c1", "c1"), match("a1", "a2", "a1")) == {
        "c1": 1,
        "b1": 2,
        "a1": 3,
        "a2": 4,
    }


@pytest.mark.parametrize(
    ("semis", "field"),
    [
        pytest.param([match("a", "b", "a")], "semis", id="one-semi"),
        pytest.param(
            [match("a", "b", "a"), MatchResult("c", "d", 0, 0, Decided.FORFEIT, None)],
            "semis[1].winner",
            id="no-winner",
        ),
    ],
)
def test_final_games_need_two_decided_semis(semis: list[MatchResult], field: str) -> None:
    with pytest.raises(InputError) as error:
        final_games(semis)
    assert error.value.field == field


@pytest.mark.parametrize("which", ["final", "third_place"])
def test_final_ranking_needs_decided_games(which: str) -> None:
    undecided = MatchResult("c", "d", 0, 0, Decided.FORFEIT, None)
    games = {"final": match("a", "b", "a"), "third_place": match("e", "f", "f"), which: undecided}
    with pytest.raises(InputError) as error:
        final_ranking(games["final"], games["third_place"])
    assert error.value.field == f"{which}.winner"
