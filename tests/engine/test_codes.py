"""R16: team codes 01–12 per division, 01 and 02 to the teams relegated from D2."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.codes import draw_codes, ordered_codes
from engine.dice import Dice
from engine.errors import InputError

D3A = [f"d3a-{i:02d}" for i in range(1, 11)] + ["down-from-d2a", "down-from-d2b"]

divisions = st.integers(min_value=2, max_value=16).flatmap(
    lambda n: st.tuples(
        st.just([f"team-{i}" for i in range(n)]),
        st.lists(st.integers(0, n - 1), unique=True, max_size=n).map(
            lambda picks: [f"team-{i}" for i in picks]
        ),
    )
)


@pytest.mark.parametrize(
    ("teams", "relegated"),
    [
        pytest.param(D3A, ["down-from-d2a", "down-from-d2b"], id="R16-d3-group-relegated-01-02"),
        pytest.param(D3A, [], id="R16-elite-or-d2-all-drawn"),
        pytest.param(D3A, ["down-from-d2b"], id="R16-one-relegated-gets-01"),
    ],
)
def test_drawn_codes_give_the_relegated_teams_the_first_codes(
    teams: list[str], relegated: list[str]
) -> None:
    codes = draw_codes(teams, Dice("2026/d3a/codes"), relegated=relegated)
    assert sorted(codes.values()) == list(range(1, len(teams) + 1))
    assert {codes[t] for t in relegated} == set(range(1, len(relegated) + 1))


@given(divisions, st.text(max_size=10))
def test_codes_are_unique_and_run_from_01(division: tuple[list[str], list[str]], seed: str) -> None:
    teams, relegated = division
    codes = draw_codes(teams, Dice(seed), relegated=relegated)
    assert set(codes) == set(teams)
    assert sorted(codes.values()) == list(range(1, len(teams) + 1))
    assert all(codes[t] <= len(relegated) for t in relegated)
    assert draw_codes(list(reversed(teams)), Dice(seed), relegated=relegated) == codes


def test_the_draw_really_varies_with_the_seed() -> None:
    orders = {tuple(draw_codes(D3A, Dice(f"seed-{i}"))) for i in range(20)}
    assert len(orders) > 1


def test_the_draws_are_logged() -> None:
    dice = Dice("log")
    codes = draw_codes(D3A, dice, relegated=["down-from-d2a", "down-from-d2b"])
    assert [d.what for d in dice.draws] == ["codes.relegated", "codes"]
    assert dice.draws[1].result.split() == [t for t in codes if codes[t] > 2]


def test_no_relegated_teams_no_relegated_draw() -> None:
    dice = Dice("log")
    draw_codes(D3A, dice)
    assert [d.what for d in dice.draws] == ["codes"]


@pytest.mark.parametrize(
    ("order", "relegated", "expected"),
    [
        pytest.param(["a", "b", "c"], [], {"a": 1, "b": 2, "c": 3}, id="admin-order"),
        pytest.param(["b", "a", "c"], ["a", "b"], {"b": 1, "a": 2, "c": 3}, id="R16-either-way"),
    ],
)
def test_admin_order_gives_codes_in_order(
    order: list[str], relegated: list[str], expected: dict[str, int]
) -> None:
    assert ordered_codes(order, relegated=relegated) == expected


@pytest.mark.parametrize(
    ("call", "field"),
    [
        pytest.param(
            lambda: ordered_codes(["a", "b", "c"], relegated=["b", "c"]),
            "order[0]",
            id="R16-admin-order-must-start-with-relegated",
        ),
        pytest.param(lambda: ordered_codes(["a", "a"]), "order[1]", id="duplicate-in-order"),
        pytest.param(lambda: ordered_codes("abc"), "order", id="order-is-a-string"),
        pytest.param(lambda: ordered_codes(["a", 7]), "order[1]", id="order-holds-a-number"),
        pytest.param(
            lambda: draw_codes(["a", "b"], Dice("s"), relegated=["a", "a"]),
            "relegated",
            id="relegated-twice",
        ),
        pytest.param(
            lambda: draw_codes(["a", "b"], Dice("s"), relegated=["z"]),
            "relegated[0]",
            id="relegated-not-in-division",
        ),
        pytest.param(lambda: draw_codes(["a", "b", "b"], Dice("s")), "teams[2]", id="dup-team"),
    ],
)
def test_bad_input_names_the_field(call: object, field: str) -> None:
    with pytest.raises(InputError) as error:
        call()  # type: ignore[operator]
    assert error.value.field == field
