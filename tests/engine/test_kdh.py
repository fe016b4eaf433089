"""R17: the KDH field, its qualifying round and its random draws."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import Dice
from engine.errors import InputError
from engine.game import Decided, MatchResult
from engine.kdh import (
    Entrant,
    bracket_size,
    bracket_stage,
    draw_pairings,
    final_places,
    round_names,
    split_field,
    stages,
)

DIVISIONS = [("elite", 1), ("d2a", 2), ("d2b", 2), ("d3a", 3), ("d3b", 3), ("d3c", 3), ("d3d", 3)]


def league(divisions: list[tuple[str, int]] = DIVISIONS, size: int = 12) -> list[Entrant]:
    return [
        Entrant(f"{name}-{code:02d}", tier, code)
        for name, tier in divisions
        for code in range(1, size + 1)
    ]


def test_84_teams_the_d3_codes_03_to_12_play_the_qualifying_round() -> None:
    first = split_field(league(), Dice("2026/kdh/field"))
    expected = {f"{g}-{c:02d}" for g in ("d3a", "d3b", "d3c", "d3d") for c in range(3, 13)}
    assert set(first.qualifying) == expected
    assert len(first.qualifying) == 40 and len(first.exempt) == 44
    assert set(first.exempt) | set(first.qualifying) == {e.team for e in league()}


@pytest.mark.parametrize(
    ("field", "qualifying", "exempt"),
    [
        pytest.param(league(), 40, 44, id="R17-84-teams-40-qualify-44-wait"),
        pytest.param(league(DIVISIONS[:4], 16), 0, 64, id="R17-power-of-two-no-qualifying"),
        pytest.param(league([("only", 3)], 2), 0, 2, id="R17-two-teams-a-final"),
        pytest.param(league([("only", 3)], 3), 2, 1, id="R17-three-teams"),
        pytest.param(league(DIVISIONS[:6], 12), 16, 56, id="R17-72-teams-16-qualify"),
    ],
)
def test_qualifying_round_size(field: list[Entrant], qualifying: int, exempt: int) -> None:
    first = split_field(field, Dice("s"))
    assert (len(first.qualifying), len(first.exempt)) == (qualifying, exempt)
    assert len(first.qualifying) // 2 + len(first.exempt) == bracket_size(len(field))


def test_too_few_d3_teams_fill_up_from_the_tier_above_by_code() -> None:
    # 16 Elite + 36 D2 (three groups) + 48 D3 = 100 teams: 72 places, the 48 D3 teams and the
    # 24 D2 teams with codes 05–12.
    field = (
        league([("elite", 1)], 16)
        + league([("d2a", 2), ("d2b", 2), ("d2c", 2)])
        + league([("d3a", 3), ("d3b", 3), ("d3c", 3), ("d3d", 3)])
    )
    first = split_field(field, Dice("s"))
    chosen = {e for e in field if e.team in first.qualifying}
    assert len(chosen) == 72
    assert sum(e.tier == 3 for e in chosen) == 48
    assert {e.code for e in chosen if e.tier == 2} == set(range(5, 13))
    assert not any(e.tier == 1 for e in chosen)


def test_ties_on_a_code_level_are_broken_by_the_die() -> None:
    # 67 teams → 6 places: the three D3 teams with code 08, then three of the four with 07.
    field = (
        league(DIVISIONS[:3])
        + league([("d3a", 3), ("d3b", 3), ("d3c", 3)], 8)
        + league([("d3d", 3)], 7)
    )
    assert len(field) == 67
    code_8 = {e.team for e in field if e.tier == 3 and e.code == 8}
    code_7 = {e.team for e in field if e.tier == 3 and e.code == 7}
    chosen = set()
    for i in range(30):
        dice = Dice(f"tie-{i}")
        qualifying = set(split_field(field, dice).qualifying)
        assert len(qualifying) == 6
        assert code_8 <= qualifying
        assert len(qualifying & code_7) == 3
        assert [d.what for d in dice.draws] == ["kdh.qualifying.3.07"]
        chosen.add(frozenset(qualifying & code_7))
    assert len(chosen) > 1


@pytest.mark.parametrize(
    ("field_size", "names"),
    [
        pytest.param(
            84,
            (
                "qualifying",
                "round of 64",
                "round of 32",
                "round of 16",
                "quarter-finals",
                "semi-finals",
                "final",
            ),
            id="R17-seven-rounds-for-84",
        ),
        pytest.param(2, ("final",), id="two-teams"),
        pytest.param(5, ("qualifying", "semi-finals", "final"), id="five-teams"),
        pytest.param(16, ("round of 16", "quarter-finals", "semi-finals", "final"), id="16"),
    ],
)
def test_round_names(field_size: int, names: tuple[str, ...]) -> None:
    assert round_names(field_size) == names


@pytest.mark.parametrize("size", [0, 1])
def test_a_cup_needs_two_teams(size: int) -> None:
    with pytest.raises(InputError) as error:
        round_names(size)
    assert error.value.field == "field"


def test_a_team_twice_in_the_field_is_an_error() -> None:
    with pytest.raises(InputError) as error:
        split_field([Entrant("a", 3, 1), Entrant("b", 3, 2), Entrant("a", 3, 3)], Dice("s"))
    assert error.value.field == "field[2]"


@given(st.integers(min_value=2, max_value=200), st.text(max_size=8))
def test_any_field_fills_a_power_of_two_bracket(size: int, seed: str) -> None:
    field = [Entrant(f"t{i}", 1 + i % 3, 1 + i % 12) for i in range(size)]
    first = split_field(field, Dice(seed))
    bracket = bracket_size(size)
    assert bracket & (bracket - 1) == 0 and bracket <= size < 2 * bracket
    assert len(first.qualifying) == 2 * (size - bracket)
    assert len(first.qualifying) // 2 + len(first.exempt) == bracket
    assert set(first.qualifying).isdisjoint(first.exempt)
    assert len(round_names(size)) == (size != bracket) + bracket.bit_length() - 1


@given(st.text(max_size=8), st.randoms(use_true_random=False))
def test_84_team_cup_runs_seven_rounds_to_one_winner(seed: str, rng: object) -> None:
    first = split_field(league(), Dice(seed))
    games = draw_pairings(first.qualifying, Dice(f"{seed}/1"))
    assert len(first.qualifying) == 40 and len(games) == 20
    winners = [rng.choice([g.home, g.away]) for g in games]  # type: ignore[attr-defined]
    teams = winners + list(first.exempt)
    assert len(teams) == 64
    rounds = 1
    while len(teams) > 1:
        rounds += 1
        games = draw_pairings(teams, Dice(f"{seed}/{rounds}"))
        teams = [rng.choice([g.home, g.away]) for g in games]  # type: ignore[attr-defined]
    assert rounds == 7 == len(round_names(84))


@given(
    st.lists(st.text(min_size=1, max_size=5), unique=True, min_size=0, max_size=40).filter(
        lambda teams: len(teams) % 2 == 0
    ),
    st.text(max_size=8),
)
def test_pairings_home_is_the_first_drawn_and_same_seed_same_draw(
    teams: list[str], seed: str
) -> None:
    dice = Dice(seed)
    games = draw_pairings(teams, dice)
    assert games == draw_pairings(list(reversed(teams)), Dice(seed))
    assert [d.what for d in dice.draws] == ["kdh.pairings"]
    # Re-run the logged shuffle to read the drawn order (team ids may hold spaces).
    order = Dice(seed).shuffle("kdh.pairings", sorted(teams))
    assert [t for g in games for t in (g.home, g.away)] == order


def test_pairings_vary_with_the_seed() -> None:
    teams = [f"t{i}" for i in range(16)]
    assert len({draw_pairings(teams, Dice(str(i))) for i in range(10)}) > 1


@given(st.text(max_size=8))
def test_teams_kept_apart_never_meet(seed: str) -> None:
    groups = {"a1": "A", "a2": "A", "b1": "B", "b2": "B", "c1": "C", "c2": "C"}
    games = draw_pairings(list(groups), Dice(seed), apart=groups)
    assert all(groups[g.home] != groups[g.away] for g in games)
    assert sorted(t for g in games for t in (g.home, g.away)) == sorted(groups)


def test_backtracks_when_the_first_choice_strands_the_rest() -> None:
    # Two A teams and two others: whoever is drawn first, the A teams must be split.
    groups = {"a1": "A", "a2": "A", "x": "X", "y": "Y"}
    for i in range(30):
        games = draw_pairings(list(groups), Dice(str(i)), apart=groups)
        assert all(groups[g.home] != groups[g.away] for g in games)


@pytest.mark.parametrize(
    ("teams", "apart"),
    [
        pytest.param(["a", "b", "c"], None, id="odd"),
        pytest.param(["a", "b", "a", "c"], None, id="duplicate"),
        pytest.param(["a", "b"], {"a": "G", "b": "G"}, id="impossible-to-keep-apart"),
    ],
)
def test_pairings_refuse_unusable_teams(teams: list[str], apart: dict[str, str] | None) -> None:
    with pytest.raises(InputError) as error:
        draw_pairings(teams, Dice("s"), apart=apart)
    assert error.value.field == "teams"


# --- stages and final places ----------------------------------------------------------------


def test_the_84_team_field_plays_a_qualifying_round_then_a_bracket_of_64() -> None:
    # R17: 40 D3 teams play the qualifying round; its 20 winners join the 44 others.
    assert [(s.number, s.key, s.teams, s.games) for s in stages(84)] == [
        (1, "qualifying", 40, 20),
        (2, "round_of_64", 64, 32),
        (3, "round_of_32", 32, 16),
        (4, "round_of_16", 16, 8),
        (5, "quarter_final", 8, 4),
        (6, "semi_final", 4, 2),
        (7, "final", 2, 1),
    ]


def test_a_power_of_two_field_has_no_qualifying_round() -> None:
    assert [s.key for s in stages(128)][:2] == ["round_of_128", "round_of_64"]
    assert not any(s.qualifying for s in stages(128))


@pytest.mark.parametrize(
    ("teams", "key"),
    [
        (2, "final"),
        (4, "semi_final"),
        (8, "quarter_final"),
        (16, "round_of_16"),
        (256, "round_of_256"),
    ],
)
def test_a_bracket_round_is_named_by_its_teams(teams: int, key: str) -> None:
    assert bracket_stage(teams) == key
    assert stages(teams)[0].key == key


def test_the_final_gives_the_winner_first_place_and_the_loser_second() -> None:
    final = MatchResult("a", "b", 2, 3, Decided.REGULATION, "b")
    assert final_places(final) == {"a": 2, "b": 1}


def test_a_final_lost_by_two_onr_teams_has_two_finalists_and_no_winner() -> None:
    # R15: both teams of the final forfeit; neither wins the cup.
    final = MatchResult("a", "b", 0, 0, Decided.FORFEIT, None)
    assert final_places(final) == {"a": 2, "b": 2}
