"""A team's week: extra-goal and great-save priority (R6), ONR sanctions (R14, R15)."""

from __future__ import annotations

import pytest

from engine.competitions import Competition
from engine.errors import InputError
from engine.week import Replacement, Sanction, StockRequest, allot_stocks, onr_sanction


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
) -> Sanction:
    return onr_sanction(
        onr_before=before,
        onr_in=onr_in,
        tier=tier,
        extra_goals=stocks[0],
        great_saves=stocks[1],
        waiting_list=waiting_list,
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
    ],
    ids=["R14-first-onr-one-of-each", "R14-first-onr-never-below-zero",
         "R14-first-onr-empty-stocks", "R14-second-onr-everything-and-barred",
         "R14-wg-group-onr-counts", "R14-third-onr-elite-dummy", "R14-third-onr-d2-dummy",
         "R14-third-onr-d3-waiting-list", "R14-third-onr-d3-no-list-dummy",
         "R14-championship-and-wg-same-week-once", "R14-wg-group-alone",
         "R15-kdh-onr-not-counted", "R15-wg-knockout-onr-not-counted",
         "R14-still-barred-after-second", "R14-no-onr-no-sanction"],
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
    ],
    ids=["negative-count", "unknown-tier", "negative-stock", "missing-stock"],
)
def test_bad_sanction_input_is_refused(kwargs: dict[str, object], field: str) -> None:
    arguments: dict[str, object] = {"before": 0, "onr_in": ["championship"]} | kwargs
    with pytest.raises(InputError) as caught:
        sanction(**arguments)  # type: ignore[arg-type]
    assert caught.value.field == field
