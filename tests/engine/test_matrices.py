"""R19: each competition's matrix, drawn with a die or typed by an admin."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.calendar import SeasonCompetition
from engine.competitions import Competition
from engine.dice import Dice
from engine.errors import InputError
from engine.matrices import Matrix, draw_matrix

# The rules' example matrix (§2.1.1), championship weeks 1–11.
RULES_EXAMPLE = """
3 3 1 4 3 5 1 1 4 3 2
3 3 1 2 6 2 6 3 6 2 5
2 3 3 1 4 4 5 2 5 5 1
2 1 3 3 4 1 4 6 3 4 3
6 6 6 5 2 5 6 4 5 6 6
1 5 3 5 2 2 2 2 2 1 4
1 1 6 6 1 4 4 3 2 4 2
4 1 4 3 6 1 1 1 5 2 5
5 2 3 2 1 1 3 4 1 3 1
4 3 5 2 1 5 2 2 1 4 6
3 1 5 2 4 6 2 2 1 4 3
"""


def example_rows() -> list[dict[str, object]]:
    return [
        dict(zip("ABCDEFGHIJK", map(int, line.split()), strict=True))
        for line in RULES_EXAMPLE.strip().splitlines()
    ]


def full_rows(competition: str, value: object = 3) -> list[dict[str, object]]:
    rules = SeasonCompetition.of(competition).rules
    return [dict.fromkeys(rules.columns, value) for _ in range(rules.rounds)]


@pytest.mark.parametrize(
    ("competition", "rounds", "columns"),
    [
        pytest.param("championship", 11, "ABCDEFGHIJK", id="R19-championship-11x11-A-K"),
        pytest.param("kdh", 7, "ABCDEFG", id="R19-kdh-7x7-A-G"),
        pytest.param("wg", 8, "ABCDEFGH", id="R19-wg-8x8-A-H"),
        pytest.param(Competition.WG_KNOCKOUT, 8, "ABCDEFGH", id="R19-wg-knockout-shares-wg"),
    ],
)
def test_drawn_matrix_has_a_row_per_round_and_a_column_per_game(
    competition: str, rounds: int, columns: str
) -> None:
    matrix = draw_matrix(competition, Dice("2026/matrix"))
    assert len(matrix.rows) == rounds
    assert matrix.columns == tuple(columns)
    for round_number in range(1, rounds + 1):
        row = matrix.row(round_number)
        assert list(row) == list(columns)
        assert all(1 <= value <= 6 for value in row.values())


@given(st.text(min_size=1, max_size=20), st.sampled_from(["championship", "kdh", "wg"]))
def test_same_seed_same_matrix_and_every_cell_is_a_logged_die_roll(
    seed: str, competition: str
) -> None:
    dice = Dice(seed)
    matrix = draw_matrix(competition, dice)
    assert draw_matrix(competition, Dice(seed)) == matrix
    cells = [value for row in matrix.rows for value in row]
    assert len(dice.draws) == len(cells)
    assert [int(d.result) for d in dice.draws] == cells
    assert all(d.options == ("1", "2", "3", "4", "5", "6") for d in dice.draws)


def test_die_rolls_cover_every_face() -> None:
    matrix = draw_matrix("championship", Dice("faces"))
    assert {value for row in matrix.rows for value in row} == {1, 2, 3, 4, 5, 6}


def test_rules_example_matrix_reads_back_its_cells() -> None:
    matrix = Matrix.from_rows("championship", example_rows())
    # Week 5: column D is worth 5 and column C 6 (§2.1.1).
    assert matrix.row(5)["D"] == 5 and matrix.row(5)["C"] == 6
    assert matrix.row(1)["F"] == 5
    assert matrix.as_rows() == example_rows()


def test_row_is_read_only() -> None:
    row = draw_matrix("kdh", Dice("s")).row(1)
    with pytest.raises(TypeError):
        row["A"] = 6  # type: ignore[index]


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        pytest.param(lambda rows: rows[1].update(C=7), "matrix.2.C", id="R19-value-above-6"),
        pytest.param(lambda rows: rows[0].update(A=0), "matrix.1.A", id="R19-value-below-1"),
        pytest.param(lambda rows: rows[3].update(K=2.0), "matrix.4.K", id="R19-float"),
        pytest.param(lambda rows: rows[3].update(K="2"), "matrix.4.K", id="R19-string"),
        pytest.param(lambda rows: rows[6].update(B=True), "matrix.7.B", id="R19-boolean"),
        pytest.param(lambda rows: rows[10].pop("K"), "matrix.11.K", id="R19-missing-cell"),
        pytest.param(lambda rows: rows[2].update(L=3), "matrix.3.L", id="R19-extra-column"),
        pytest.param(lambda rows: rows.append(dict(rows[0])), "matrix", id="R19-extra-round"),
        pytest.param(lambda rows: rows.pop(), "matrix", id="R19-missing-round"),
        pytest.param(lambda rows: rows.__setitem__(4, [3] * 11), "matrix.5", id="row-not-map"),
    ],
)
def test_admin_edited_matrix_errors_name_the_cell(edit: object, field: str) -> None:
    rows = full_rows("championship")
    edit(rows)  # type: ignore[operator]
    with pytest.raises(InputError) as error:
        Matrix.from_rows("championship", rows)
    assert error.value.field == field


@pytest.mark.parametrize("rows", ["ABC", {"1": {"A": 1}}, 42], ids=["string", "mapping", "int"])
def test_admin_edited_matrix_must_be_a_list_of_rows(rows: object) -> None:
    with pytest.raises(InputError) as error:
        Matrix.from_rows("kdh", rows)  # type: ignore[arg-type]
    assert error.value.field == "matrix"


def test_admin_edited_matrix_for_an_unknown_competition() -> None:
    with pytest.raises(InputError) as error:
        Matrix.from_rows("nhl", full_rows("kdh"))
    assert error.value.field == "competition"


@pytest.mark.parametrize(
    ("rows", "field"),
    [
        pytest.param(((1,) * 7,) * 6, "matrix", id="too-few-rounds"),
        pytest.param(((1,) * 7,) * 6 + ((1,) * 6,), "matrix.7", id="short-row"),
        pytest.param(((1,) * 7,) * 6 + ((1, 1, 1, 9, 1, 1, 1),), "matrix.7.D", id="bad-value"),
    ],
)
def test_matrix_built_directly_is_checked_too(
    rows: tuple[tuple[int, ...], ...], field: str
) -> None:
    with pytest.raises(InputError) as error:
        Matrix(SeasonCompetition.KDH, rows)
    assert error.value.field == field


def test_matrix_built_from_lists_is_frozen_into_tuples() -> None:
    matrix = Matrix(SeasonCompetition.KDH, [[2] * 7 for _ in range(7)])  # type: ignore[arg-type]
    assert matrix.rows == ((2,) * 7,) * 7
    assert hash(matrix) == hash(Matrix(SeasonCompetition.KDH, ((2,) * 7,) * 7))


@pytest.mark.parametrize("round_number", [0, 9])
def test_row_of_a_round_the_competition_lacks(round_number: int) -> None:
    with pytest.raises(InputError) as error:
        draw_matrix("wg", Dice("s")).row(round_number)
    assert error.value.field == "round"


@given(
    st.lists(
        st.lists(st.integers(min_value=1, max_value=6), min_size=8, max_size=8),
        min_size=8,
        max_size=8,
    )
)
def test_any_die_values_round_trip(values: list[list[int]]) -> None:
    rows = [dict(zip("ABCDEFGH", row, strict=True)) for row in values]
    matrix = Matrix.from_rows("wg", rows)
    assert matrix.as_rows() == rows
    assert [list(matrix.row(r).values()) for r in range(1, 9)] == values
