"""R20: round robins by the circle method, and the season's week layout."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.calendar import (
    SEASON_WEEKS,
    Fixture,
    SeasonCompetition,
    calendar_week,
    double_round_robin,
    round_robin,
    rounds_in_week,
    skipped_weeks_check,
    week_of,
)
from engine.competitions import Competition
from engine.errors import InputError

TWELVE = [f"t{i:02d}" for i in range(1, 13)]


def home_away_patterns(rounds: tuple[tuple[Fixture, ...], ...]) -> dict[str, str]:
    """Each team's run of H and A, round by round."""
    patterns: dict[str, str] = {}
    for games in rounds:
        for game in games:
            patterns[game.home] = patterns.get(game.home, "") + "H"
            patterns[game.away] = patterns.get(game.away, "") + "A"
    return patterns


def longest_run(pattern: str) -> int:
    return max(len(list(run)) for _, run in itertools.groupby(pattern))


def breaks(pattern: str) -> int:
    return sum(1 for a, b in itertools.pairwise(pattern) if a == b)


even_team_lists = st.integers(min_value=1, max_value=12).map(
    lambda half: [f"team-{i}" for i in range(2 * half)]
)


@pytest.mark.parametrize(
    ("competition", "round_number", "week"),
    [
        pytest.param("championship", 1, 1, id="R20-championship-round-1-week-1"),
        pytest.param("championship", 9, 9, id="R20-championship-round-9-week-9"),
        pytest.param("championship", 10, 10, id="R20-championship-round-10-last-week"),
        pytest.param("championship", 11, 10, id="R20-championship-round-11-last-week-too"),
        pytest.param("kdh", 1, 2, id="decision-kdh-qualifying-in-week-2"),
        pytest.param("kdh", 7, 8, id="decision-kdh-final-in-week-8"),
        pytest.param("wg", 1, 3, id="decision-wg-group-stage-starts-week-3"),
        pytest.param("wg", 6, 8, id="decision-wg-group-stage-ends-week-8"),
        pytest.param("wg", 7, 9, id="decision-wg-semis-week-9"),
        pytest.param("wg", 8, 10, id="decision-wg-final-and-third-place-week-10"),
        pytest.param(Competition.WG_KNOCKOUT, 8, 10, id="round-kind-names-its-competition"),
        pytest.param(SeasonCompetition.KDH, 3, 4, id="season-competition-member"),
    ],
)
def test_week_of_each_round(competition: object, round_number: int, week: int) -> None:
    assert week_of(competition, round_number) == week  # type: ignore[arg-type]


def test_every_week_lists_its_rounds() -> None:
    # Written out from R20 and the layout decision, not from the code.
    expected = {
        1: {"championship": (1,), "kdh": (), "wg": ()},
        2: {"championship": (2,), "kdh": (1,), "wg": ()},
        3: {"championship": (3,), "kdh": (2,), "wg": (1,)},
        4: {"championship": (4,), "kdh": (3,), "wg": (2,)},
        5: {"championship": (5,), "kdh": (4,), "wg": (3,)},
        6: {"championship": (6,), "kdh": (5,), "wg": (4,)},
        7: {"championship": (7,), "kdh": (6,), "wg": (5,)},
        8: {"championship": (8,), "kdh": (7,), "wg": (6,)},
        9: {"championship": (9,), "kdh": (), "wg": (7,)},
        10: {"championship": (10, 11), "kdh": (), "wg": (8,)},
    }
    assert {week: rounds_in_week(week) for week in range(1, SEASON_WEEKS + 1)} == expected


@pytest.mark.parametrize("competition", list(SeasonCompetition), ids=lambda c: c.value)
def test_every_round_has_exactly_the_week_that_lists_it(
    competition: SeasonCompetition,
) -> None:
    for round_number in range(1, competition.rules.rounds + 1):
        week = week_of(competition, round_number)
        listed = [
            w
            for w in range(1, SEASON_WEEKS + 1)
            if round_number in rounds_in_week(w)[competition.value]
        ]
        assert listed == [week]


@pytest.mark.parametrize(
    ("competition", "round_number", "message"),
    [
        ("championship", 0, "round: championship has rounds 1–11, not 0"),
        ("championship", 12, "round: championship has rounds 1–11, not 12"),
        ("wg", 9, "round: wg has rounds 1–8, not 9"),
    ],
)
def test_week_of_refuses_a_round_the_competition_lacks(
    competition: str, round_number: int, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        week_of(competition, round_number)


@pytest.mark.parametrize("week", [0, 11])
def test_rounds_in_week_refuses_a_week_outside_the_season(week: int) -> None:
    with pytest.raises(InputError) as error:
        rounds_in_week(week)
    assert error.value.field == "week"


def test_no_skipped_week_leaves_every_week_where_it_is() -> None:
    assert [calendar_week(w) for w in range(1, SEASON_WEEKS + 1)] == list(range(1, 11))


def test_a_skipped_christmas_week_moves_every_later_week_by_one() -> None:
    # Week 4 skipped: weeks 1–3 stay, the season's week 4 is played in calendar week 5 and its
    # last week (the championship's rounds 10 and 11, R20) in week 11.
    assert [calendar_week(w, skipped=[4]) for w in range(1, 11)] == [1, 2, 3, 5, 6, 7, 8, 9, 10, 11]


def test_two_skipped_weeks_in_a_row_move_the_later_weeks_by_two() -> None:
    assert [calendar_week(w, skipped=(6, 5)) for w in range(1, 11)] == [
        1, 2, 3, 4, 7, 8, 9, 10, 11, 12
    ]  # fmt: skip


def test_the_kdh_final_moves_with_the_skipped_week_before_it() -> None:
    # The KDH's final is round 7, played in the season's week 8 (our decision): week 3 skipped.
    assert calendar_week(week_of("kdh", 7), skipped=[3]) == 9


@pytest.mark.parametrize(
    ("skipped", "message"),
    [
        ([1], r"skipped_weeks\[0\]: week 1 opens the season and cannot be skipped"),
        ([0], r"skipped_weeks\[0\]: week 0 opens the season"),
        ([3, 3], r"skipped_weeks\[1\]: week 3 is skipped twice"),
        (["3"], r"skipped_weeks\[0\]: must be a week number, not '3'"),
        ([True], r"skipped_weeks\[0\]: must be a week number, not True"),
        ([11], r"skipped_weeks\[0\]: week 11 is after the last round"),
        ([4, 12], r"skipped_weeks\[1\]: week 12 is after the last round"),
    ],
)
def test_skipped_weeks_that_make_no_sense_are_input_errors(
    skipped: list[object], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        skipped_weeks_check(skipped)


def test_the_last_skippable_week_is_the_one_before_the_last_round() -> None:
    # Two weeks skipped: the season spans twelve calendar weeks, the last one played.
    assert skipped_weeks_check([11, 2]) == (2, 11)
    assert calendar_week(10, skipped=[11, 2]) == 12


def test_calendar_week_refuses_a_week_outside_the_season() -> None:
    with pytest.raises(InputError, match="week: a season has weeks 1–10, not 11"):
        calendar_week(11)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("championship", SeasonCompetition.CHAMPIONSHIP),
        ("kdh", SeasonCompetition.KDH),
        ("wg", SeasonCompetition.WG),
        ("wg-group", SeasonCompetition.WG),
        ("wg-knockout", SeasonCompetition.WG),
        (Competition.KDH, SeasonCompetition.KDH),
        (SeasonCompetition.WG, SeasonCompetition.WG),
    ],
)
def test_season_competition_of_names_and_round_kinds(
    value: object, expected: SeasonCompetition
) -> None:
    assert SeasonCompetition.of(value) is expected  # type: ignore[arg-type]


def test_season_competition_of_an_unknown_name_is_an_input_error() -> None:
    with pytest.raises(InputError) as error:
        SeasonCompetition.of("nhl")
    assert error.value.field == "competition"


@pytest.mark.parametrize(
    ("competition", "rounds", "columns"),
    [
        pytest.param(SeasonCompetition.CHAMPIONSHIP, 11, "ABCDEFGHIJK", id="R19-championship"),
        pytest.param(SeasonCompetition.KDH, 7, "ABCDEFG", id="R19-kdh"),
        pytest.param(SeasonCompetition.WG, 8, "ABCDEFGH", id="R19-wg"),
    ],
)
def test_season_competition_rules_give_rounds_and_columns(
    competition: SeasonCompetition, rounds: int, columns: str
) -> None:
    assert competition.rules.rounds == rounds
    assert competition.rules.columns == tuple(columns)


def test_twelve_team_division_plays_eleven_rounds_every_pair_once() -> None:
    rounds = round_robin(TWELVE)
    assert len(rounds) == 11
    pairs = Counter(frozenset((g.home, g.away)) for games in rounds for g in games)
    assert len(pairs) == 66 and set(pairs.values()) == {1}


def test_circle_method_keeps_the_last_team_fixed_and_turns_the_others() -> None:
    rounds = round_robin(TWELVE)
    fixed = TWELVE[-1]
    opponents = [
        next(g.home if g.away == fixed else g.away for g in games if fixed in (g.home, g.away))
        for games in rounds
    ]
    assert opponents == TWELVE[:-1]


def test_twelve_team_home_away_balance() -> None:
    patterns = home_away_patterns(round_robin(TWELVE))
    # Nobody is home or away three times running; the whole schedule has the fewest breaks
    # possible (n − 2 = 10), each team at most one; everyone has 5 or 6 home games.
    assert max(longest_run(p) for p in patterns.values()) == 2
    assert sum(breaks(p) for p in patterns.values()) == 10
    assert max(breaks(p) for p in patterns.values()) == 1
    assert {p.count("H") for p in patterns.values()} == {5, 6}


@given(even_team_lists)
def test_round_robin_every_pair_meets_once(teams: list[str]) -> None:
    rounds = round_robin(teams)
    assert len(rounds) == len(teams) - 1
    for games in rounds:
        played = [t for g in games for t in (g.home, g.away)]
        assert sorted(played) == sorted(teams)
    pairs = Counter(frozenset((g.home, g.away)) for games in rounds for g in games)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(teams, 2)}
    assert set(pairs.values()) == {1}


@given(even_team_lists)
def test_round_robin_alternates_with_the_fewest_breaks(teams: list[str]) -> None:
    patterns = home_away_patterns(round_robin(teams))
    assert all(longest_run(p) <= 2 for p in patterns.values())
    assert sum(breaks(p) for p in patterns.values()) == len(teams) - 2
    assert all(abs(p.count("H") - p.count("A")) <= 1 for p in patterns.values())


@given(even_team_lists)
def test_double_round_robin_every_pair_meets_home_and_away(teams: list[str]) -> None:
    rounds = double_round_robin(teams)
    assert len(rounds) == 2 * (len(teams) - 1)
    games = Counter((g.home, g.away) for r in rounds for g in r)
    assert set(games) == set(itertools.permutations(teams, 2))
    assert set(games.values()) == {1}
    patterns = home_away_patterns(rounds)
    assert all(longest_run(p) <= 2 for p in patterns.values())
    assert all(p.count("H") == p.count("A") for p in patterns.values())


def test_wg_group_plays_six_rounds_home_and_away_alternating() -> None:
    rounds = double_round_robin(["w1", "w2", "w3", "w4"])
    assert len(rounds) == 6
    patterns = home_away_patterns(rounds)
    assert all(longest_run(p) <= 2 for p in patterns.values())
    # Every team hosts each of the three others exactly once.
    for team in patterns:
        hosted = {g.away for r in rounds for g in r if g.home == team}
        assert hosted == {"w1", "w2", "w3", "w4"} - {team}


@pytest.mark.parametrize(
    "teams",
    [
        pytest.param([], id="none"),
        pytest.param(["a"], id="one"),
        pytest.param(["a", "b", "c"], id="odd"),
        pytest.param(["a", "b", "a", "c"], id="duplicate"),
    ],
)
def test_round_robin_refuses_unusable_team_lists(teams: list[str]) -> None:
    with pytest.raises(InputError) as error:
        round_robin(teams)
    assert error.value.field == "teams"
