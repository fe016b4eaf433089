"""R22: who goes up and down, where they land, and the ``promotion`` command's contract."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InputError
from engine.promotion import (
    Direction,
    Division,
    Move,
    moves_from_json,
    place_moves,
    promotion_moves,
)

NAMES = [("Elite", 1), ("D2A", 2), ("D2B", 2), ("D3A", 3), ("D3B", 3), ("D3C", 3), ("D3D", 3)]


def standard(size: int = 12) -> list[Division]:
    """The league: team ``<division>-<rank>``, e.g. ``D2A-3`` finished 3rd of D2A."""
    return [
        Division(name, tier, tuple(f"{name}-{r}" for r in range(1, size + 1)))
        for name, tier in NAMES
    ]


def as_doc(divisions: list[Division], **extra: Any) -> dict[str, Any]:
    return {
        "divisions": [
            {"name": d.name, "tier": d.tier, "ranking": list(d.ranking)} for d in divisions
        ],
        **extra,
    }


def moved(moves: list[Move]) -> dict[str, tuple[str, int]]:
    return {m.team: (m.direction.value, m.to_tier) for m in moves}


# Written out from R22, not from the code.
STANDARD_MOVES = {
    **{f"Elite-{r}": ("down", 2) for r in (9, 10, 11, 12)},
    **{f"{d}-{r}": ("up", 1) for d in ("D2A", "D2B") for r in (1, 2)},
    **{f"{d}-{r}": ("down", 3) for d in ("D2A", "D2B") for r in (9, 10, 11, 12)},
    **{f"{d}-{r}": ("up", 2) for d in ("D3A", "D3B", "D3C", "D3D") for r in (1, 2)},
}


def test_standard_league_every_team_that_changes_tier_and_only_those() -> None:
    moves = promotion_moves(standard())
    assert moved(moves) == STANDARD_MOVES
    assert len(moves) == len(STANDARD_MOVES) == 24


@pytest.mark.parametrize(
    ("barred", "goes_up", "stays"),
    [
        pytest.param({"D2A-1"}, {"D2A-2", "D2A-3"}, {"D2A-1"}, id="R22-R14-barred-1st-skipped"),
        pytest.param(
            {"D2A-1", "D2A-2"}, {"D2A-3", "D2A-4"}, {"D2A-1", "D2A-2"}, id="R22-R14-top-two"
        ),
        pytest.param({"D3C-2"}, {"D3C-1", "D3C-3"}, {"D3C-2"}, id="R22-R14-barred-2nd-d3"),
        pytest.param({"Elite-1"}, set(), set(), id="R22-R14-elite-bar-changes-nothing"),
        pytest.param(
            {f"D2B-{r}" for r in range(1, 7)},
            {"D2B-7", "D2B-8"},
            {"D2B-1"},
            id="R22-last-safe-teams-go-up",
        ),
    ],
)
def test_barred_teams_are_skipped(barred: set[str], goes_up: set[str], stays: set[str]) -> None:
    moves = moved(promotion_moves(standard(), barred))
    for team in goes_up:
        assert moves[team][0] == "up"
    for team in stays:
        assert team not in moves
    assert Counter(direction for direction, _ in moves.values()) == Counter(up=12, down=12)


def test_never_promotes_from_the_drop_zone_and_saves_a_relegation_instead() -> None:
    # Seven of D2B's eight safe teams barred: D2B-8 goes up, D2B-9 does not; one Elite place
    # goes unfilled, so the Elite's best-ranked relegated team stays.
    moves = moved(promotion_moves(standard(), {f"D2B-{r}" for r in range(1, 8)}))
    assert moves["D2B-8"] == ("up", 1)
    assert moves["D2B-9"] == ("down", 3)
    assert "Elite-9" not in moves
    assert {t for t, (d, _) in moves.items() if t.startswith("Elite")} == {
        "Elite-10",
        "Elite-11",
        "Elite-12",
    }


@pytest.mark.parametrize(
    ("barred", "saved"),
    [
        pytest.param(
            {f"D3A-{r}" for r in range(1, 13)},
            {"D2A-9", "D2B-9"},
            id="R22-d3-group-all-barred-saves-two-d2-places-by-rank-then-division",
        ),
        pytest.param(
            {f"D3{g}-{r}" for g in "ABC" for r in range(1, 13)},
            {"D2A-9", "D2B-9", "D2A-10", "D2B-10", "D2A-11", "D2B-11"},
            id="R22-three-d3-groups-barred",
        ),
    ],
)
def test_unfilled_promotion_places_save_relegated_teams(barred: set[str], saved: set[str]) -> None:
    moves = promotion_moves(standard(), barred)
    assert saved.isdisjoint(m.team for m in moves)
    assert Counter(m.to_tier for m in moves) == Counter(m.from_tier for m in moves)
    nxt = place_moves(standard(), moves)
    assert all(len(teams) == 12 for teams in nxt.values())
    assert saved <= set(nxt["D2A"]) | set(nxt["D2B"])


def test_a_barred_team_in_the_drop_zone_still_goes_down() -> None:
    moves = moved(promotion_moves(standard(), {"D2A-10"}))
    assert moves["D2A-10"] == ("down", 3)


leagues = st.integers(6, 14).flatmap(
    lambda size: st.tuples(
        st.just(size),
        st.permutations([f"t{i}" for i in range(7 * size)]),
        st.sets(st.integers(0, 7 * size - 1), max_size=12),
    )
)


@given(leagues)
def test_moves_balance_and_follow_the_ranking(league: tuple[int, list[str], set[int]]) -> None:
    size, teams, barred_indexes = league
    divisions = [
        Division(name, tier, tuple(teams[i * size : (i + 1) * size]))
        for i, (name, tier) in enumerate(NAMES)
    ]
    barred = {teams[i] for i in barred_indexes}
    moves = promotion_moves(divisions, barred)
    tier_of = {t: d.tier for d in divisions for t in d.ranking}
    # As many teams into each tier as out of it.
    assert Counter(m.to_tier for m in moves) == Counter(m.from_tier for m in moves)
    assert len({m.team for m in moves}) == len(moves)
    for m in moves:
        assert abs(m.to_tier - tier_of[m.team]) == 1
        assert m.direction is (Direction.UP if m.to_tier < m.from_tier else Direction.DOWN)
    unfilled: Counter[int] = Counter()
    saved: Counter[int] = Counter()
    for division in divisions:
        mine = [m for m in moves if m.from_division == division.name]
        ups = [m.team for m in mine if m.direction is Direction.UP]
        downs = [m.team for m in mine if m.direction is Direction.DOWN]
        safe = division.ranking[: size - 4] if division.tier < 3 else division.ranking
        eligible = [t for t in safe if t not in barred]
        assert ups == (eligible[:2] if division.tier > 1 else [])
        unfilled[division.tier] += 2 - len(ups) if division.tier > 1 else 0
        drop_zone = list(division.ranking[-4:]) if division.tier < 3 else []
        # The saved ones are the best-ranked of the drop zone: the rest is its tail.
        assert downs == drop_zone[len(drop_zone) - len(downs) :]
        saved[division.tier] += len(drop_zone) - len(downs)
    assert saved[1] == unfilled[2] and saved[2] == unfilled[3]
    nxt = place_moves(divisions, moves)
    assert {n: len(t) for n, t in nxt.items()} == {d.name: size for d in divisions}


def test_default_placement_is_the_documented_serpentine() -> None:
    nxt = place_moves(standard(), promotion_moves(standard()))
    # Tier 2 arrivals in order: Elite 9–12, then D3A-1, D3B-1, D3C-1, D3D-1, D3A-2, …;
    # dealt A B B A A B B A A B B A.
    assert set(nxt["D2A"]) - set(standard()[1].ranking) == {
        "Elite-9", "Elite-12", "D3A-1", "D3D-1", "D3A-2", "D3D-2"
    }  # fmt: skip
    assert set(nxt["D2B"]) - set(standard()[2].ranking) == {
        "Elite-10", "Elite-11", "D3B-1", "D3C-1", "D3B-2", "D3C-2"
    }  # fmt: skip
    # Tier 3 arrivals: D2A-9, D2B-9, D2A-10, D2B-10, …; dealt A B C D D C B A.
    assert nxt["D3A"][-2:] == ("D2A-9", "D2B-12")
    assert nxt["D3B"][-2:] == ("D2B-9", "D2A-12")
    assert nxt["D3C"][-2:] == ("D2A-10", "D2B-11")
    assert nxt["D3D"][-2:] == ("D2B-10", "D2A-11")
    assert set(nxt["Elite"]) == {f"Elite-{r}" for r in range(1, 9)} | {
        "D2A-1", "D2A-2", "D2B-1", "D2B-2"
    }  # fmt: skip
    # Teams that stay keep their place, in rank order, before the newcomers.
    assert nxt["D2A"][:6] == tuple(f"D2A-{r}" for r in range(3, 9))
    assert all(len(teams) == 12 for teams in nxt.values())


def test_admin_placement_wins_and_the_serpentine_fills_the_rest() -> None:
    nxt = place_moves(standard(), promotion_moves(standard()), {"D2A-9": "D3D", "D2B-9": "D3D"})
    assert {"D2A-9", "D2B-9"} <= set(nxt["D3D"])
    assert all(len(teams) == 12 for teams in nxt.values())
    # D3D is full, so the snake skips it: D2A-10 → A, D2B-10 → B, D2A-11 → C, (D, D skipped),
    # D2B-11 → C, D2A-12 → B, D2B-12 → A.
    assert nxt["D3A"][-2:] == ("D2A-10", "D2B-12")
    assert nxt["D3B"][-2:] == ("D2B-10", "D2A-12")
    assert nxt["D3C"][-2:] == ("D2A-11", "D2B-11")
    assert Counter(len(set(nxt[g]) - {f"{g}-{r}" for r in range(3, 13)}) for g in
                   ("D3A", "D3B", "D3C", "D3D")) == Counter({2: 4})  # fmt: skip


@given(st.lists(st.sampled_from(["D3A", "D3B", "D3C", "D3D"]), min_size=8, max_size=8))
def test_any_admin_placement_that_fits_keeps_every_division_full(targets: list[str]) -> None:
    movers = [f"D2{g}-{r}" for r in (9, 10, 11, 12) for g in "AB"]
    placement: dict[str, str] = {}
    room = Counter({"D3A": 2, "D3B": 2, "D3C": 2, "D3D": 2})
    for team, target in zip(movers, targets, strict=True):
        if room[target]:
            placement[team] = target
            room[target] -= 1
    nxt = place_moves(standard(), promotion_moves(standard()), placement)
    for team, target in placement.items():
        assert team in nxt[target]
    assert all(len(teams) == 12 for teams in nxt.values())
    assert sorted(t for teams in nxt.values() for t in teams) == sorted(
        t for d in standard() for t in d.ranking
    )


@pytest.mark.parametrize(
    ("placement", "field"),
    [
        pytest.param({"D2A-3": "D3A"}, "placement.D2A-3", id="team-does-not-move"),
        pytest.param({"D2A-9": "D2B"}, "placement.D2A-9", id="wrong-tier"),
        pytest.param({"D2A-9": "D9Z"}, "placement.D2A-9", id="unknown-division"),
        pytest.param(
            {"D2A-9": "D3A", "D2A-10": "D3A", "D2A-11": "D3A"}, "placement.D2A-11", id="no-room"
        ),
    ],
)
def test_admin_placement_errors_name_the_team(placement: dict[str, str], field: str) -> None:
    with pytest.raises(InputError) as error:
        place_moves(standard(), promotion_moves(standard()), placement)
    assert error.value.field == field


def test_cli_contract_moves_and_next_season() -> None:
    out = moves_from_json(as_doc(standard(), cannot_be_promoted=["D3B-1"]))
    moves = {m["team"]: m for m in out["moves"]}
    assert {t: (m["direction"], m["to_tier"]) for t, m in moves.items()} == {
        **{k: v for k, v in STANDARD_MOVES.items() if k != "D3B-1"},
        "D3B-3": ("up", 2),
    }
    assert moves["Elite-9"] == {
        "team": "Elite-9",
        "from": "Elite",
        "to_tier": 2,
        "from_tier": 1,
        "rank": 9,
        "direction": "down",
    }
    assert {len(teams) for teams in out["next_season"].values()} == {12}
    assert "D3B-1" in out["next_season"]["D3B"]


def test_cli_accepts_admin_placement_and_generic_sizes() -> None:
    doc = as_doc(standard(10), placement={"D2A-7": "D3C"})
    out = moves_from_json(doc)
    assert "D2A-7" in out["next_season"]["D3C"]
    assert {len(teams) for teams in out["next_season"].values()} == {10}


def bad(path: list[Any], value: object) -> dict[str, Any]:
    doc = as_doc(standard())
    target: Any = doc
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return copy.deepcopy(doc)


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        pytest.param([], "input", id="not-an-object"),
        pytest.param({}, "divisions", id="divisions-missing"),
        pytest.param({"divisions": {}}, "divisions", id="divisions-not-a-list"),
        pytest.param(bad(["divisions", 2], "D2B"), "divisions[2]", id="division-not-object"),
        pytest.param(bad(["divisions", 0, "name"], KeyError), "divisions[0].name", id="no-name"),
        pytest.param(bad(["divisions", 0, "tier"], KeyError), "divisions[0].tier", id="no-tier"),
        pytest.param(
            bad(["divisions", 0, "ranking"], KeyError), "divisions[0].ranking", id="no-ranking"
        ),
        pytest.param(bad(["divisions", 1, "name"], 2), "divisions[1].name", id="name-number"),
        pytest.param(bad(["divisions", 1, "tier"], "2"), "divisions[1].tier", id="tier-string"),
        pytest.param(bad(["divisions", 1, "tier"], True), "divisions[1].tier", id="tier-bool"),
        pytest.param(bad(["divisions", 1, "tier"], 4), "divisions[1].tier", id="unknown-tier"),
        pytest.param(bad(["divisions", 1, "tier"], 0), "divisions[1].tier", id="tier-zero"),
        pytest.param(
            bad(["divisions", 1, "ranking"], "a b"), "divisions[1].ranking", id="ranking-string"
        ),
        pytest.param(
            bad(["divisions", 1, "ranking", 3], 7), "divisions[1].ranking[3]", id="team-number"
        ),
        pytest.param(
            bad(["divisions", 4, "ranking", 5], "D2A-1"),
            "divisions[4].ranking[5]",
            id="team-in-two-divisions",
        ),
        pytest.param(
            bad(["divisions", 4, "ranking", 5], "D3B-1"),
            "divisions[4].ranking[5]",
            id="team-twice-in-a-division",
        ),
        pytest.param(
            bad(["divisions", 4, "name"], "D3A"), "divisions[4].name", id="division-name-twice"
        ),
        pytest.param(
            bad(["divisions", 1, "ranking"], ["x1", "x2", "x3", "x4", "x5"]),
            "divisions[1].ranking",
            id="d2-too-small-for-its-places",
        ),
        pytest.param(bad(["divisions", 6], KeyError), "divisions", id="unbalanced-tiers"),
        pytest.param(bad(["cannot_be_promoted"], "D2A-1"), "cannot_be_promoted", id="not-list"),
        pytest.param(bad(["cannot_be_promoted"], [3]), "cannot_be_promoted[0]", id="not-id"),
        pytest.param(
            bad(["cannot_be_promoted"], ["D2A-1", "ghost"]),
            "cannot_be_promoted[1]",
            id="unknown-team",
        ),
        pytest.param(bad(["placement"], ["D2A-9"]), "placement", id="placement-not-object"),
        pytest.param(
            bad(["placement"], {"D2A-9": 3}), "placement.D2A-9", id="placement-not-a-name"
        ),
    ],
)
def test_bad_input_names_the_field(doc: Any, field: str) -> None:
    with pytest.raises(InputError) as error:
        moves_from_json(doc)
    assert error.value.field == field


def test_r24_a_leaving_team_is_skipped_for_promotion_and_goes_nowhere() -> None:
    moves = moved(promotion_moves(standard(), leaving={"D3A-1", "Elite-10"}))
    assert "D3A-1" not in moves and moves["D3A-3"] == ("up", 2)
    assert "Elite-10" not in moves
    assert {t for t in moves if t.startswith("Elite")} == {"Elite-9", "Elite-11", "Elite-12"}


def test_r24_a_leaving_team_is_never_the_relegated_team_saved() -> None:
    # Seven of D2B's eight safe teams barred leave one Elite place unfilled: the Elite's best
    # relegated team stays, and that is the 10th when the 9th leaves.
    barred = {f"D2B-{r}" for r in range(1, 8)}
    moves = moved(promotion_moves(standard(), barred, leaving={"Elite-9"}))
    assert {t for t in moves if t.startswith("Elite")} == {"Elite-11", "Elite-12"}


def test_r24_leaving_teams_leave_room_for_vacancies() -> None:
    leaving = {"Elite-3", "D3B-5"}
    nxt = place_moves(standard(), promotion_moves(standard(), leaving=leaving), leaving=leaving)
    assert len(nxt["Elite"]) == 11 and len(nxt["D3B"]) == 11
    assert leaving.isdisjoint(t for teams in nxt.values() for t in teams)
    assert [len(nxt[name]) for name in ("D2A", "D2B", "D3A", "D3C", "D3D")] == [12] * 5


def test_r24_unknown_leaving_team_names_the_field() -> None:
    with pytest.raises(InputError) as error:
        promotion_moves(standard(), leaving=["ghost"])
    assert error.value.field == "leaving[0]"
