"""R9: points and tie-breaks, for division tables, WG groups and the WG's best second."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import Dice
from engine.errors import InputError
from engine.game import Decided, MatchResult
from engine.standings import (
    TIE_CRITERIA,
    StandingRow,
    best_of,
    deciding_criterion,
    standings,
    standings_from_json,
    tie_key,
)

R = Decided.REGULATION
ET = Decided.EXTRA_TIME


def game(
    home: str, away: str, score: str, decided: Decided = R, winner: str | None = ""
) -> MatchResult:
    """A game as ``"3-2"``; the winner defaults to the side with more goals (none if tied)."""
    home_goals, away_goals = (int(goals) for goals in score.split("-"))
    if winner == "":
        winner = None if home_goals == away_goals else (home if home_goals > away_goals else away)
    return MatchResult(home, away, home_goals, away_goals, decided, winner)


def table(teams: str, *games: MatchResult, seed: str = "table") -> list[StandingRow]:
    return standings(list(teams), games, Dice(seed))


def row_of(rows: list[StandingRow], team: str) -> StandingRow:
    return next(row for row in rows if row.team == team)


@pytest.mark.parametrize(
    ("match", "home", "away"),
    [
        (game("h", "a", "3-2"), (2, 1, 1, 0, 0, 0), (0, 0, 0, 0, 0, 1)),
        (game("h", "a", "4-3", ET), (2, 1, 0, 0, 0, 0), (1, 0, 0, 0, 1, 1)),
        (game("h", "a", "3-3", Decided.SHOOTOUT, "a"), (1, 0, 0, 0, 1, 1), (2, 1, 0, 0, 0, 0)),
        (game("h", "a", "3-3", Decided.DIE, "h"), (2, 1, 0, 0, 0, 0), (1, 0, 0, 0, 1, 1)),
        (game("h", "a", "2-2", Decided.GROUP_GOALS, "h"), (2, 1, 0, 0, 0, 0), (1, 0, 0, 0, 1, 1)),
        (game("h", "a", "2-2", Decided.DRAW), (1, 0, 0, 1, 0, 0), (1, 0, 0, 1, 0, 0)),
        (game("h", "a", "0-5", Decided.FORFEIT), (0, 0, 0, 0, 0, 1), (2, 1, 1, 0, 0, 0)),
        (game("h", "a", "0-0", Decided.FORFEIT, None), (0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1)),
    ],
    ids=["R9-regulation-win-2-loss-0", "R9-extra-time-win-2-loss-1",
         "R9-shootout-loss-counts-as-extra-time-loss", "R9-die-after-regulation",
         "R9-group-goals-after-regulation", "R9-draw-1-each", "R9-forfeit-win-is-regulation",
         "R15-double-forfeit-both-lose"],
)  # fmt: skip
def test_points_per_game(match: MatchResult, home: tuple[int, ...], away: tuple[int, ...]) -> None:
    rows = table("ha", match)
    for team, expected in (("h", home), ("a", away)):
        row = row_of(rows, team)
        figures = (row.points, row.wins, row.regulation_wins, row.draws,
                   row.extra_time_losses, row.losses)  # fmt: skip
        assert figures == expected
        assert row.played == 1
    assert row_of(rows, "h").goals_for == match.home_goals == row_of(rows, "a").goals_against


@pytest.mark.parametrize(
    ("games", "first", "second"),
    [
        # A: win + loss; B: two draws (more goals, fewer losses): most wins first.
        ((game("a", "x", "1-0"), game("a", "y", "0-1"), game("b", "x", "5-5", Decided.DRAW),
          game("b", "y", "5-5", Decided.DRAW)), "a", "b"),
        # Same wins; A's in regular time, B's in extra time (B scored more).
        ((game("a", "x", "1-0"), game("a", "y", "0-1"), game("b", "x", "9-8", ET),
          game("b", "y", "5-6")), "a", "b"),
        # Same wins; A drew where B lost in extra time: fewest losses before the rest.
        ((game("a", "x", "1-0"), game("a", "y", "0-0", Decided.DRAW), game("b", "x", "9-0"),
          game("b", "y", "5-6", ET)), "a", "b"),
        # A: one game, lost in extra time. B: a draw and a regulation loss, more goals and a
        # better difference. Same points, wins, regulation wins and losses: MOST extra-time
        # losses puts A first (the French original; the English translation says fewest).
        ((game("a", "x", "3-4", ET), game("b", "y", "5-5", Decided.DRAW), game("b", "z", "4-5")),
         "a", "b"),
        # Same record; A scored more, B has the better difference: goals come first.
        ((game("a", "x", "5-4"), game("b", "y", "3-0")), "a", "b"),
        # Same record and goals: the better goal difference.
        ((game("a", "x", "3-2"), game("b", "y", "3-0")), "b", "a"),
    ],
    ids=["R9-most-wins", "R9-most-regulation-wins", "R9-fewest-losses",
         "R9-most-extra-time-losses-french-original", "R9-most-goals-before-difference",
         "R9-best-goal-difference"],
)  # fmt: skip
def test_tie_breaks_criterion_by_criterion(
    games: tuple[MatchResult, ...], first: str, second: str
) -> None:
    rows = table("abxyz", *games)
    assert row_of(rows, first).points == row_of(rows, second).points
    assert row_of(rows, first).rank < row_of(rows, second).rank


def test_the_french_original_wins_over_the_english_translation() -> None:
    # R9: "Plus grand nombre de défaites après prolongations" (fr) vs "lowest number of losses in
    # extra time" (en). Everything else equal, the team with more extra-time losses goes first.
    rows = table("abxyz", game("a", "x", "3-4", ET), game("b", "y", "5-5", Decided.DRAW),
                 game("b", "z", "4-5"))  # fmt: skip
    a, b = row_of(rows, "a"), row_of(rows, "b")
    assert (a.points, a.wins, a.regulation_wins, a.losses) == (
        b.points,
        b.wins,
        b.regulation_wins,
        b.losses,
    )
    assert a.extra_time_losses > b.extra_time_losses
    assert a.goals_for < b.goals_for
    assert a.rank < b.rank


def test_criteria_apply_to_the_whole_tied_group() -> None:
    # Three teams on 2 points: most wins sets C apart, most regulation wins then splits A and B.
    rows = table(
        "abcxyz",
        game("a", "x", "1-0"),
        game("a", "y", "0-1"),
        game("b", "x", "4-3", ET),
        game("b", "z", "0-1"),
        game("c", "y", "2-2", Decided.DRAW),
        game("c", "z", "9-9", Decided.DRAW),
    )
    order = [row.team for row in rows if row.team in "abc"]
    assert order == ["a", "b", "c"]


def test_a_die_orders_a_group_still_tied() -> None:
    dice = Dice("die")
    rows = standings(["c", "b", "a"], [game("a", "b", "1-1", Decided.DRAW)], dice)
    # c never played: alone below. a and b are identical: one logged shuffle, options in id order.
    assert [(d.what, d.options) for d in dice.draws] == [("standings_die", ("a", "b"))]
    assert [row.team for row in rows[:2]] == dice.draws[0].result.split()
    assert [row.rank for row in rows] == [1, 2, 3]


def test_rows_come_in_rank_order_with_distinct_ranks() -> None:
    rows = table("abcd", game("a", "b", "1-0"), game("c", "d", "2-2", Decided.DRAW))
    assert [row.rank for row in rows] == [1, 2, 3, 4]
    assert rows[0].team == "a" and rows[-1].team == "b"
    assert rows[0].goal_difference == 1


@pytest.mark.parametrize(
    ("teams", "match", "field"),
    [
        ("ab", game("a", "x", "1-0"), "matches[0].away"),
        ("ab", game("x", "b", "1-0"), "matches[0].home"),
        ("ab", game("a", "a", "1-0"), "matches[0].away"),
        ("ab", game("a", "b", "1-0", winner="x"), "matches[0].winner"),
        ("ab", game("a", "b", "1-1", Decided.DRAW, winner="a"), "matches[0].winner"),
        ("ab", game("a", "b", "1-1", Decided.SHOOTOUT, winner=None), "matches[0].winner"),
        ("ab", MatchResult("a", "b", -1, 0, R, "b"), "matches[0].home_goals"),
        ("ab", MatchResult("a", "b", 1, "0", R, "a"), "matches[0].away_goals"),  # type: ignore[arg-type]
        ("ab", MatchResult("a", "b", 1, 0, "regulation", "a"), "matches[0].decided"),  # type: ignore[arg-type]
        ("aa", game("a", "b", "1-0"), "teams"),
    ],
    ids=["unknown-away", "unknown-home", "plays-itself", "winner-not-in-game",
         "draw-with-winner", "shootout-without-winner", "negative-goals", "goals-not-int",
         "decided-not-enum", "duplicate-team"],
)  # fmt: skip
def test_bad_games_are_refused_naming_the_field(teams: str, match: MatchResult, field: str) -> None:
    with pytest.raises(InputError) as caught:
        table(teams, match)
    assert caught.value.field == field


def test_a_given_winner_is_trusted() -> None:
    rows = table("ab", game("a", "b", "1-3", R, winner="a"))
    assert rows[0].team == "a" and rows[0].points == 2


def second(team: str, points: int, goals_for: int = 9) -> StandingRow:
    return StandingRow(team, 2, points, 6, points // 2, points // 2, 0, 0, 6 - points // 2,
                       goals_for, 9)  # fmt: skip


def test_best_of_picks_the_best_row_by_the_same_criteria() -> None:
    dice = Dice("best")
    rows = [second("a", 6), second("b", 8), second("c", 8, goals_for=12)]
    assert best_of(rows, dice).team == "c"
    assert dice.draws == []


def test_best_of_a_tie_goes_to_a_die() -> None:
    dice = Dice("best")
    rows = [second("a", 6), second("b", 6), second("c", 4)]
    best = best_of(rows, dice, "wg.best_second")
    assert [(d.what, d.result) for d in dice.draws] == [("wg.best_second", str(best))]
    assert best.team in ("a", "b")


def test_best_of_nothing_is_refused() -> None:
    with pytest.raises(InputError):
        best_of([], Dice("s"))


def test_the_deciding_criterion_is_the_first_that_differs() -> None:
    assert deciding_criterion(second("b", 8), second("a", 6)) == "points"
    assert deciding_criterion(second("c", 8, goals_for=12), second("b", 8)) == "goals_for"
    assert deciding_criterion(second("a", 6), second("b", 6)) is None


def test_the_criteria_name_each_part_of_the_tie_key() -> None:
    """R9: each named criterion is the row's figure that its place in the key holds."""
    row = StandingRow("a", 1, 11, 8, 5, 4, 0, 1, 3, 12, 6)  # every figure distinct
    figures = [getattr(row, name) for name in TIE_CRITERIA]
    assert [abs(part) for part in tie_key(row)] == [abs(figure) for figure in figures]


def test_tie_key_orders_by_r9() -> None:
    assert tie_key(second("a", 8)) < tie_key(second("b", 6))


@st.composite
def seasons(draw: st.DrawFn) -> tuple[list[str], list[MatchResult]]:
    teams = draw(st.lists(st.sampled_from("abcdefgh"), min_size=2, max_size=8, unique=True))
    matches = []
    for _ in range(draw(st.integers(0, 20))):
        home, away = draw(st.permutations(teams))[:2]
        decided = draw(st.sampled_from([d for d in Decided if d is not Decided.FORFEIT]))
        home_goals, away_goals = draw(st.integers(0, 9)), draw(st.integers(0, 9))
        winner = None if decided is Decided.DRAW else draw(st.sampled_from([home, away]))
        matches.append(MatchResult(home, away, home_goals, away_goals, decided, winner))
    return teams, matches


@given(seasons(), st.text(max_size=5))
def test_any_table_adds_up(season: tuple[list[str], list[MatchResult]], seed: str) -> None:
    teams, matches = season
    rows = standings(teams, matches, Dice(seed))
    assert sorted(row.team for row in rows) == sorted(teams)
    assert [row.rank for row in rows] == list(range(1, len(teams) + 1))
    assert [tie_key(row) for row in rows] == sorted(tie_key(row) for row in rows)
    for row in rows:
        assert row.points == 2 * row.wins + row.draws + row.extra_time_losses
        assert row.played == row.wins + row.draws + row.losses
        assert row.regulation_wins <= row.wins and row.extra_time_losses <= row.losses
    assert sum(row.played for row in rows) == 2 * len(matches)
    assert rows == standings(teams, matches, Dice(seed))  # R23


# --- JSON -------------------------------------------------------------------------------------


def doc_game(home: str, away: str, score: str, decided: str, **extra: Any) -> dict[str, Any]:
    home_goals, away_goals = (int(goals) for goals in score.split("-"))
    return {"home": home, "away": away, "home_goals": home_goals, "away_goals": away_goals,
            "decided": decided, **extra}  # fmt: skip


def test_standings_from_json_derives_winners_and_gives_the_documented_rows() -> None:
    out = standings_from_json(
        {
            "seed": "s",
            "teams": ["a", "b", "c"],
            "matches": [
                doc_game("a", "b", "3-2", "regulation"),
                doc_game("b", "c", "1-2", "extra_time"),
                doc_game("c", "a", "0-0", "draw", winner=None),
                doc_game("a", "c", "2-2", "shootout", winner="c"),
            ],
        }
    )
    assert [row["team"] for row in out["table"]] == ["c", "a", "b"]
    assert out["table"][0] == {
        "team": "c", "rank": 1, "points": 5, "played": 3, "wins": 2, "regulation_wins": 0,
        "draws": 1, "extra_time_losses": 0, "losses": 0, "goals_for": 4, "goals_against": 3,
    }  # fmt: skip
    assert out["draws"] == []


def test_standings_from_json_two_onr_cup_teams_both_lose() -> None:
    doc = {"seed": "s", "teams": ["a", "b"], "matches": [doc_game("a", "b", "0-0", "forfeit")]}
    rows = standings_from_json(doc)["table"]
    assert [row["losses"] for row in rows] == [1, 1]


def json_doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "seed": "s",
        "teams": ["a", "b"],
        "matches": [
            {"home": "a", "away": "b", "home_goals": 1, "away_goals": 0, "decided": "regulation"}
        ],
    }
    doc.update(changes)
    return doc


def match_doc(**changes: Any) -> list[dict[str, Any]]:
    match = {"home": "a", "away": "b", "home_goals": 1, "away_goals": 0, "decided": "regulation"}
    match.update(changes)
    return [{k: v for k, v in match.items() if v is not None}]


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ([], "input"),
        ({"teams": [], "matches": []}, "seed"),
        (json_doc(seed=3), "seed"),
        (json_doc(teams=None), "teams"),
        (json_doc(teams="ab"), "teams"),
        (json_doc(matches=None), "matches"),
        (json_doc(matches={}), "matches"),
        (json_doc(matches=["a-b"]), "matches[0]"),
        (json_doc(matches=match_doc(home=None)), "matches[0].home"),
        (json_doc(matches=match_doc(decided=None)), "matches[0].decided"),
        (json_doc(matches=match_doc(decided="overtime")), "matches[0].decided"),
        (json_doc(matches=match_doc(home_goals=1, away_goals=1)), "matches[0].winner"),
        (json_doc(matches=match_doc(home_goals="1")), "matches[0].home_goals"),
        (json_doc(matches=match_doc(away_goals=-2)), "matches[0].away_goals"),
        (json_doc(matches=match_doc(home="x")), "matches[0].home"),
    ],
    ids=["not-an-object", "missing-seed", "seed-not-a-string", "missing-teams",
         "teams-not-a-list", "missing-matches", "matches-not-a-list", "match-not-an-object",
         "missing-home", "missing-decided", "unknown-decided", "tied-regulation-no-winner",
         "goals-not-numbers", "negative-goals", "unknown-team"],
)  # fmt: skip
def test_standings_from_json_names_the_bad_field(doc: Any, field: str) -> None:
    with pytest.raises(InputError) as caught:
        standings_from_json(doc)
    assert caught.value.field == field
