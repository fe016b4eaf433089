"""A team's week: extra-goal and great-save priority (R6), ONR sanctions (R14, R15)."""

from __future__ import annotations

import pytest

from engine.competitions import Competition
from engine.errors import InputError
from engine.game import Round, TeamEntry, play_round
from engine.notation import Pick
from engine.week import (
    Replacement,
    Sanction,
    StockRequest,
    allot_stocks,
    late_placement,
    onr_sanction,
    week_onr_count,
)


@pytest.mark.parametrize(
    ("stock", "requests", "granted", "left"),
    [
        (3, [("kdh", 1, 2), ("wg-group", 1, 2), ("championship", 1, 2)], [0, 1, 2], 0),
        (5, [("kdh", 1, 2), ("wg-group", 1, 2), ("championship", 1, 2)], [1, 2, 2], 0),
        (9, [("kdh", 1, 2), ("wg-knockout", 7, 2), ("championship", 1, 2)], [2, 2, 2], 3),
        (3, [("championship", 11, 2), ("championship", 10, 2)], [1, 2], 0),
        (2, [("wg-knockout", 8, 2), ("kdh", 6, 2)], [2, 0], 0),
        (None, [("kdh", 1, 4), ("championship", 1, 7)], [4, 7], None),
        (0, [("championship", 1, 1)], [0], 0),
        (4, [], [], 4),
    ],
    ids=["R6-championship-then-wg-then-kdh", "R6-kdh-gets-what-is-left",
         "R6-enough-for-everyone", "R6-last-week-rounds-in-order", "R6-wg-knockout-before-kdh",
         "R6-no-limit", "R6-empty-stock", "R6-no-request"],
)  # fmt: skip
def test_extra_goals_are_granted_championship_first_then_wg_then_kdh(
    stock: int | None,
    requests: list[tuple[str, int, int]],
    granted: list[int],
    left: int | None,
) -> None:
    asked = [StockRequest(c, r, extra_goals=n) for c, r, n in requests]
    allotment = allot_stocks(asked, extra_goals=stock, great_saves=None)
    assert [grant.extra_goals for grant in allotment.grants] == granted
    assert [grant.request for grant in allotment.grants] == asked
    assert allotment.extra_goals_left == left


def test_great_saves_go_to_the_last_weeks_rounds_in_round_order() -> None:
    allotment = allot_stocks(
        [
            StockRequest("championship", 11, extra_goals=1, great_saves=2),
            StockRequest("championship", 10, great_saves=2),
            StockRequest("kdh", 7, extra_goals=1),
        ],
        extra_goals=1,
        great_saves=3,
    )
    assert [(g.extra_goals, g.great_saves) for g in allotment.grants] == [(1, 1), (0, 2), (0, 0)]
    assert (allotment.extra_goals_left, allotment.great_saves_left) == (0, 0)


@pytest.mark.parametrize(
    ("requests", "stocks", "field"),
    [
        ([StockRequest("kdh", 1, great_saves=1)], (None, None), "requests[0].great_saves"),
        ([StockRequest("wg-group", 1, great_saves=1)], (None, None), "requests[0].great_saves"),
        ([StockRequest("kdh", 1, extra_goals=-1)], (None, None), "requests[0].extra_goals"),
        ([StockRequest("kdh", 1, extra_goals=True)], (None, None), "requests[0].extra_goals"),
        ([], (-1, None), "extra_goals"),
        ([], (None, "2"), "great_saves"),
    ],
    ids=["R6-no-great-saves-in-kdh", "R6-no-great-saves-in-wg", "negative-request",
         "bool-request", "negative-stock", "string-stock"],
)  # fmt: skip
def test_bad_requests_are_refused(
    requests: list[StockRequest], stocks: tuple[object, object], field: str
) -> None:
    with pytest.raises(InputError) as caught:
        allot_stocks(requests, extra_goals=stocks[0], great_saves=stocks[1])  # type: ignore[arg-type]
    assert caught.value.field == field


def test_a_request_names_its_competition() -> None:
    assert StockRequest("wg-group", 2).competition is Competition.WG_GROUP
    with pytest.raises(InputError):
        StockRequest("nhl", 1)


def sanction(
    before: int,
    onr_in: list[str],
    tier: int = 1,
    stocks: tuple[int, int] = (3, 2),
    waiting_list: bool = True,
    sanctioned: int = 0,
) -> Sanction:
    return onr_sanction(
        onr_before=before,
        onr_in=onr_in,
        tier=tier,
        extra_goals=stocks[0],
        great_saves=stocks[1],
        waiting_list=waiting_list,
        sanctioned=sanctioned,
    )


@pytest.mark.parametrize(
    ("before", "onr_in", "tier", "stocks", "waiting_list", "expected"),
    [
        (0, ["championship"], 1, (3, 2), True, (1, 1, 1, False, None)),
        (0, ["championship"], 2, (0, 1), True, (1, 0, 1, False, None)),
        (0, ["championship"], 3, (0, 0), True, (1, 0, 0, False, None)),
        (1, ["championship"], 1, (3, 2), True, (2, 3, 2, True, None)),
        (1, ["wg-group"], 3, (5, 0), True, (2, 5, 0, True, None)),
        (2, ["championship"], 1, (0, 0), True, (3, 0, 0, True, Replacement.DUMMY)),
        (2, ["championship"], 2, (0, 0), True, (3, 0, 0, True, Replacement.DUMMY)),
        (2, ["championship"], 3, (0, 0), True, (3, 0, 0, True, Replacement.WAITING_LIST)),
        (2, ["championship"], 3, (0, 0), False, (3, 0, 0, True, Replacement.DUMMY)),
        (0, ["championship", "wg-group"], 1, (3, 2), True, (1, 1, 1, False, None)),
        (0, ["wg-group"], 1, (3, 2), True, (1, 1, 1, False, None)),
        (0, ["kdh"], 1, (3, 2), True, (0, 0, 0, False, None)),
        (1, ["wg-knockout", "kdh"], 1, (3, 2), True, (1, 0, 0, False, None)),
        (2, [], 1, (3, 2), True, (2, 0, 0, True, None)),
        (0, [], 1, (3, 2), True, (0, 0, 0, False, None)),
        (0, ["championship", "championship"], 3, (3, 2), True, (2, 3, 2, True, None)),
        (1, ["championship", "championship"], 3, (3, 2), True,
         (3, 3, 2, True, Replacement.WAITING_LIST)),
        (0, ["championship", "wg-group", "championship"], 1, (3, 2), True,
         (2, 3, 2, True, None)),
    ],
    ids=["R14-first-onr-one-of-each", "R14-first-onr-never-below-zero",
         "R14-first-onr-empty-stocks", "R14-second-onr-everything-and-barred",
         "R14-wg-group-onr-counts", "R14-third-onr-elite-dummy", "R14-third-onr-d2-dummy",
         "R14-third-onr-d3-waiting-list", "R14-third-onr-d3-no-list-dummy",
         "R14-championship-and-wg-same-week-once", "R14-wg-group-alone",
         "R15-kdh-onr-not-counted", "R15-wg-knockout-onr-not-counted",
         "R14-still-barred-after-second", "R14-no-onr-no-sanction",
         "R14-R20-last-week-both-rounds-two-onrs", "R14-R20-last-week-second-and-third",
         "R14-R20-wg-merges-with-one-championship-round"],
)  # fmt: skip
def test_onr_sanctions(
    before: int,
    onr_in: list[str],
    tier: int,
    stocks: tuple[int, int],
    waiting_list: bool,
    expected: tuple[object, ...],
) -> None:
    result = sanction(before, onr_in, tier, stocks, waiting_list)
    assert (
        result.onr_count,
        result.extra_goals_removed,
        result.great_saves_removed,
        result.barred_from_promotion,
        result.replacement,
    ) == expected


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"before": -1}, "onr_before"),
        ({"tier": 4}, "tier"),
        ({"stocks": (-1, 0)}, "extra_goals"),
        ({"stocks": (0, None)}, "great_saves"),
        ({"sanctioned": -1}, "sanctioned"),
    ],
    ids=["negative-count", "unknown-tier", "negative-stock", "missing-stock",
         "negative-sanctioned"],
)  # fmt: skip
def test_bad_sanction_input_is_refused(kwargs: dict[str, object], field: str) -> None:
    arguments: dict[str, object] = {"before": 0, "onr_in": ["championship"]} | kwargs
    with pytest.raises(InputError) as caught:
        sanction(**arguments)  # type: ignore[arg-type]
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("onr_in", "count"),
    [
        (["championship", "championship"], 2),
        (["championship", "wg-group"], 1),
        (["wg-group", "championship", "championship"], 2),
        (["kdh", "wg-knockout"], 0),
        ([], 0),
    ],
    ids=["R20-last-week-two-rounds-two-onrs", "R14-championship-and-wg-merge",
         "R14-wg-merges-with-one-of-two", "R15-cup-forfeits-never", "no-onr"],
)  # fmt: skip
def test_each_championship_round_counts_and_other_competitions_merge(
    onr_in: list[str], count: int
) -> None:
    assert week_onr_count(onr_in) == count


@pytest.mark.parametrize(
    ("before", "onr_in", "sanctioned", "expected"),
    [
        # Round 10 arbitrated: its ONR made the week's first (1 before it: the 2nd in all).
        (2, ["championship", "championship"], 1, (3, 0, 0, True, Replacement.DUMMY)),
        # The WG group ONR came first and was sanctioned; the championship's merges with it.
        (1, ["wg-group", "championship"], 1, (1, 0, 0, False, None)),
        # A championship round then the WG group: nothing more.
        (2, ["championship", "wg-group"], 1, (2, 0, 0, True, None)),
    ],
    ids=["R20-round-11-after-round-10", "R14-championship-after-wg", "R14-wg-after-championship"],
)
def test_a_weeks_rounds_arbitrated_one_at_a_time_add_up(
    before: int, onr_in: list[str], sanctioned: int, expected: tuple[object, ...]
) -> None:
    result = sanction(before, onr_in, stocks=(0, 0), sanctioned=sanctioned)
    assert (
        result.onr_count,
        result.extra_goals_removed,
        result.great_saves_removed,
        result.barred_from_promotion,
        result.replacement,
    ) == expected


# --- R14: a team placed after a round's deadline ----------------------------------------------

ROW = {"A": 3, "B": 3, "C": 1, "D": 4, "E": 3, "F": 5, "G": 1, "H": 1, "I": 4, "J": 3, "K": 2}


def late_round(placed: TeamEntry) -> Round:
    return Round(
        competition="championship",
        seed="late/round-4",
        matrix_row=ROW,
        teams={"placed": placed, "other": TeamEntry(Pick.parse("A(1)"))},
        fixtures=[("placed", "other")],
        bonus_goal=None,
    )


def test_a_team_placed_late_plays_the_pick_the_team_it_replaces_sent() -> None:
    """R14: F+(2) from the replaced team, with the replacement's stocks: F is worth 5, alone on
    it, one extra goal: 6 goals; not ONR, so no −1 (R4) and no sanction."""
    entry = late_placement(TeamEntry(Pick.parse("F+(2)"), extra_goals=1))
    played = play_round(late_round(entry)).teams["placed"]
    assert (played.column, played.extra_goals_used, played.onr, played.goals) == ("F", 1, False, 6)
    assert played.display == "F+(2)"


def test_a_team_placed_late_without_the_replaced_teams_pick_plays_a_dummys_pick() -> None:
    """R14: a random legal column as a regular pick: not ONR, no stocks, and its value in full —
    alone on its column it scores the matrix value (minus one per other team on it, R1)."""
    entry = late_placement(TeamEntry(None, used_columns=("A", "B"), extra_goals=3, great_saves=2))
    result = play_round(late_round(entry))
    played = result.teams["placed"]
    assert not played.onr and played.column not in ("A", "B")
    assert played.extra_goals_used == played.great_saves_used == 0
    assert not played.display.startswith("ONR")
    assert played.goals == ROW[played.column]  # "other" played A, which "placed" cannot
    assert "dummy_column:placed" in {draw.what for draw in result.draws}
