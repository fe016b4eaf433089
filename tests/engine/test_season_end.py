"""R21: next season's extra goals and great saves, and the ``season-end`` command's contract."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InputError
from engine.season_end import SeasonRecord, next_stocks, stocks_from_json

# The example of ENGINE_CLI.md: points 14, extra goals 4, great saves 5.
CLI_EXAMPLE = {
    "championship_wins": 7,
    "kdh_wins": 3,
    "kdh_winner": False,
    "division_rank": 1,
    "promoted": True,
    "relegated": False,
    "veteran": True,
    "wg_rank": 2,
    "shutouts": 3,
}
NOBODY = {
    "championship_wins": 0,
    "kdh_wins": 0,
    "kdh_winner": False,
    "division_rank": 7,
    "promoted": False,
    "relegated": False,
    "veteran": False,
    "wg_rank": None,
    "shutouts": 0,
}


def record(**changes: Any) -> SeasonRecord:
    return SeasonRecord(**{**NOBODY, **changes})


def test_cli_example_gives_14_points_4_extra_goals_5_great_saves() -> None:
    assert stocks_from_json({"teams": {"a": CLI_EXAMPLE}}) == {
        "teams": {"a": {"points": 14, "extra_goals": 4, "great_saves": 5}}
    }


@pytest.mark.parametrize(
    ("changes", "points"),
    [
        pytest.param({}, 0, id="R21-nothing"),
        pytest.param({"championship_wins": 5}, 5, id="R21-1-per-championship-win"),
        pytest.param({"kdh_wins": 4}, 4, id="R21-1-per-kdh-win"),
        pytest.param({"kdh_wins": 7, "kdh_winner": True}, 8, id="R21-kdh-winner-1-more"),
        pytest.param({"division_rank": 1}, 4, id="R21-division-1st-4"),
        pytest.param({"division_rank": 2}, 3, id="R21-division-2nd-3"),
        pytest.param({"division_rank": 3}, 2, id="R21-division-3rd-2"),
        pytest.param({"division_rank": 4}, 1, id="R21-division-4th-1"),
        pytest.param({"division_rank": 5}, 0, id="R21-division-5th-0"),
        pytest.param({"relegated": True}, 6, id="R21-relegated-plus-6"),
        pytest.param({"promoted": True}, -6, id="R21-promoted-minus-6"),
        pytest.param({"veteran": True}, 3, id="R21-veteran-3"),
        pytest.param({"wg_rank": 1}, 4, id="R21-wg-winner-4"),
        pytest.param({"wg_rank": 2}, 3, id="R21-wg-runner-up-3"),
        pytest.param({"wg_rank": 3}, 2, id="R21-wg-third-2"),
        pytest.param({"wg_rank": 4}, 1, id="R21-wg-fourth-1"),
        pytest.param({"wg_rank": 5}, 0, id="R21-wg-below-fourth-0"),
        pytest.param({"shutouts": 9}, 0, id="R21-shutouts-earn-no-points"),
    ],
)
def test_each_source_of_points(changes: dict[str, Any], points: int) -> None:
    assert record(**changes).points == points


@pytest.mark.parametrize(
    ("changes", "extra_goals", "great_saves"),
    [
        pytest.param({"championship_wins": 8}, 2, 2, id="R21-floor-of-a-third"),
        pytest.param({"championship_wins": 9}, 3, 2, id="R21-exact-third"),
        pytest.param({"promoted": True, "championship_wins": 2}, 0, 2, id="R21-never-below-0"),
        pytest.param({"shutouts": 4}, 0, 6, id="R21-2-plus-shutouts"),
    ],
)
def test_stocks_from_points_and_shutouts(
    changes: dict[str, Any], extra_goals: int, great_saves: int
) -> None:
    stocks = next_stocks(record(**changes))
    assert (stocks.extra_goals, stocks.great_saves) == (extra_goals, great_saves)


@given(
    st.integers(0, 11),
    st.integers(0, 7),
    st.booleans(),
    st.integers(1, 12),
    st.sampled_from([(False, False), (True, False), (False, True)]),
    st.booleans(),
    st.one_of(st.none(), st.integers(1, 12)),
    st.integers(0, 11),
)
def test_stocks_are_never_negative_and_follow_the_points(
    wins: int,
    kdh_wins: int,
    kdh_winner: bool,
    rank: int,
    moved: tuple[bool, bool],
    veteran: bool,
    wg_rank: int | None,
    shutouts: int,
) -> None:
    promoted, relegated = moved
    team = SeasonRecord(
        wins, kdh_wins, kdh_winner, rank, promoted, relegated, veteran, wg_rank, shutouts
    )
    stocks = next_stocks(team)
    assert stocks.extra_goals >= 0 and stocks.great_saves >= 2
    assert stocks.extra_goals == max(0, stocks.points) // 3
    assert stocks.great_saves == 2 + shutouts


def test_every_team_of_the_input_is_answered() -> None:
    doc = {"teams": {"a": CLI_EXAMPLE, "b": NOBODY, "c": {**NOBODY, "veteran": True}}}
    out = stocks_from_json(doc)
    assert out["teams"]["b"] == {"points": 0, "extra_goals": 0, "great_saves": 2}
    assert out["teams"]["c"] == {"points": 3, "extra_goals": 1, "great_saves": 2}
    assert list(out["teams"]) == ["a", "b", "c"]


def test_extra_input_fields_are_ignored() -> None:
    doc = {"season": 2026, "teams": {"a": {**CLI_EXAMPLE, "nickname": "dogs"}}}
    assert stocks_from_json(doc)["teams"]["a"]["points"] == 14


def broken(field: str, value: object) -> dict[str, Any]:
    doc = {"teams": {"a": copy.deepcopy(CLI_EXAMPLE)}}
    if value is KeyError:
        del doc["teams"]["a"][field]
    else:
        doc["teams"]["a"][field] = value
    return doc


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        pytest.param([], "input", id="not-an-object"),
        pytest.param({}, "teams", id="teams-missing"),
        pytest.param({"teams": ["a"]}, "teams", id="teams-not-an-object"),
        pytest.param({"teams": {"a": 3}}, "teams.a", id="team-not-an-object"),
        *[
            pytest.param(broken(name, KeyError), f"teams.a.{name}", id=f"missing-{name}")
            for name in CLI_EXAMPLE
        ],
        pytest.param(broken("division_rank", "1"), "teams.a.division_rank", id="rank-string"),
        pytest.param(broken("division_rank", 0), "teams.a.division_rank", id="rank-zero"),
        pytest.param(broken("division_rank", None), "teams.a.division_rank", id="rank-null"),
        pytest.param(broken("championship_wins", -1), "teams.a.championship_wins", id="neg"),
        pytest.param(broken("championship_wins", 2.0), "teams.a.championship_wins", id="float"),
        pytest.param(broken("shutouts", True), "teams.a.shutouts", id="bool-as-number"),
        pytest.param(broken("veteran", 1), "teams.a.veteran", id="number-as-bool"),
        pytest.param(broken("wg_rank", "2"), "teams.a.wg_rank", id="wg-rank-string"),
        pytest.param(broken("wg_rank", 0), "teams.a.wg_rank", id="wg-rank-zero"),
        pytest.param(broken("relegated", True), "teams.a.relegated", id="promoted-and-relegated"),
    ],
)
def test_bad_input_names_the_field(doc: Any, field: str) -> None:
    with pytest.raises(InputError) as error:
        stocks_from_json(doc)
    assert error.value.field == field
    assert str(error.value).startswith(f"{field}: ")


def test_null_wg_rank_is_accepted() -> None:
    assert stocks_from_json(broken("wg_rank", None))["teams"]["a"]["points"] == 11


def test_the_breakdown_names_each_line_of_the_rules_list() -> None:
    # ENGINE_CLI.md's example, line by line: 7 + 3 + 0 + 4 + 0 − 6 + 3 + 3 = 14.
    breakdown = SeasonRecord(**CLI_EXAMPLE).breakdown
    assert breakdown.as_dict() == {
        "championship_wins": 7,
        "kdh_wins": 3,
        "kdh_winner": 0,
        "division_place": 4,
        "relegated": 0,
        "promoted": -6,
        "veteran": 3,
        "wg_place": 3,
    }
    assert breakdown.total == 14
