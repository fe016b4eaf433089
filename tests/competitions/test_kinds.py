"""The competitions' kinds: one registered per competition, each reading its rules from the engine
(``competitions/kinds.py``)."""

from __future__ import annotations

import doctest

import pytest

from competitions import kinds
from competitions.kinds import (
    KINDS,
    Championship,
    CompetitionKind,
    Draw,
    KdhCup,
    Page,
    WgCup,
    kind_of,
)
from competitions.models import (
    CUPS,
    KDH_STAGES,
    WG_STAGES,
    Competition,
    Pool,
    Round,
    Stage,
    WgGroup,
)
from engine import Decided, MatchResult, kdh, wg
from engine.calendar import SeasonCompetition
from engine.competitions import Competition as RoundKind
from engine.competitions import rules_for


def test_every_competition_has_one_kind_registered_once() -> None:
    assert list(KINDS) == list(SeasonCompetition)
    assert [type(kind) for kind in KINDS.values()] == [Championship, KdhCup, WgCup]
    assert {kind.value for kind in KINDS.values()} == set(Competition.values)
    for competition in Competition:
        assert competition.kind is kind_of(competition) is KINDS[SeasonCompetition(competition)]


def test_a_second_kind_for_a_competition_is_refused() -> None:

    class Another(CompetitionKind):
        competition = SeasonCompetition.KDH

        def stage_of(self, number: int, games: int) -> str:
            return "final"

    with pytest.raises(ValueError, match="kdh already has a kind"):
        kinds._registered(Another)
    assert type(KINDS[SeasonCompetition.KDH]) is KdhCup


def test_a_kind_is_found_from_a_stored_name_or_a_round_kind() -> None:
    assert kind_of("championship") is kind_of(Competition.CHAMPIONSHIP)
    assert kind_of("wg-knockout") is kind_of(RoundKind.WG_GROUP) is kind_of(SeasonCompetition.WG)
    assert (
        Round(competition="kdh").kind
        is Pool(competition="kdh").kind
        is KINDS[SeasonCompetition.KDH]
    )


@pytest.mark.parametrize("competition", list(SeasonCompetition), ids=lambda c: c.value)
def test_a_kind_reads_its_rules_from_the_engine(competition: SeasonCompetition) -> None:
    kind = KINDS[competition]
    assert kind.rules == competition.rules
    for number in range(1, kind.rules.rounds + 1):
        expected = (
            wg.round_kind(number)
            if competition is SeasonCompetition.WG
            else RoundKind(competition.value)
        )
        assert kind.round_kind(number) is expected
        assert kind.round_rules(number) == rules_for(expected)
    assert kind.knockout_only == all(
        rules_for(kind.round_kind(n)).knockout for n in range(1, kind.rules.rounds + 1)
    )


def test_onr_is_scored_in_a_division_and_forfeits_in_a_cups_knockout() -> None:
    """R4 against R15, as the engine says it: a kind only passes the engine's rules on."""
    championship, kdh_cup, wg_cup = KINDS.values()
    assert championship.round_rules(1).onr is rules_for(RoundKind.CHAMPIONSHIP).onr
    assert kdh_cup.round_rules(1).onr is rules_for(RoundKind.KDH).onr
    assert wg_cup.round_rules(wg.GROUP_ROUNDS).onr is rules_for(RoundKind.WG_GROUP).onr
    assert wg_cup.round_rules(wg.FINAL_ROUND).onr is rules_for(RoundKind.WG_KNOCKOUT).onr
    assert [kind.knockout_only for kind in KINDS.values()] == [False, True, False]


def test_the_divisions_have_tables_the_wg_its_groups_the_kdh_a_bracket() -> None:
    championship, kdh_cup, wg_cup = KINDS.values()
    assert (championship.divisional, kdh_cup.divisional, wg_cup.divisional) == (True, False, False)
    assert [kind.cup for kind in KINDS.values()] == [False, True, True]
    assert wg_cup.groups == wg.GROUP_NAMES
    assert set(wg_cup.groups) == {value for value in WgGroup.values if value}
    assert championship.groups == kdh_cup.groups == ()
    assert [kind.page for kind in KINDS.values()] == [Page.TABLE, Page.BRACKET, Page.GROUPS]
    assert [kind.has_table for kind in KINDS.values()] == [True, False, True]


def test_a_cup_round_draws_what_comes_after_it() -> None:
    championship, kdh_cup, wg_cup = KINDS.values()
    assert championship.draws_after(11) is None
    assert {kdh_cup.draws_after(n) for n in range(1, 8)} == {Draw.NEXT_ROUND}
    assert [wg_cup.draws_after(n) for n in range(1, wg.FINAL_ROUND + 1)] == [
        *[None] * (wg.GROUP_ROUNDS - 1),
        Draw.SEMI_FINALS,
        Draw.FINAL_WEEK,
        None,
    ]


def test_the_stages_are_the_engines_rounds_and_fit_the_models_constraint() -> None:
    championship, kdh_cup, wg_cup = KINDS.values()
    assert championship.stage_of(1, 6) == Stage.REGULAR
    # The KDH of 84 teams: after the qualifying round, rounds of 32, 16 … 1 games.
    bracket = [kdh_cup.stage_of(n, 2 ** (7 - n)) for n in range(2, 8)]
    assert bracket == [
        Stage.ROUND_OF_64,
        Stage.ROUND_OF_32,
        Stage.ROUND_OF_16,
        Stage.QUARTER_FINAL,
        Stage.SEMI_FINAL,
        Stage.FINAL,
    ]
    assert len(bracket) == len(kdh.round_names(84)) - 1
    assert set(bracket) <= set(KDH_STAGES)
    wg_stages = [wg_cup.stage_of(n, 2) for n in range(1, wg.FINAL_ROUND + 1)]
    assert wg_stages == [Stage.GROUP] * wg.GROUP_ROUNDS + [Stage.SEMI_FINAL, Stage.FINAL]
    assert set(wg_stages) <= set(WG_STAGES)


@pytest.mark.parametrize(
    ("number", "stage", "expected"),
    [
        (6, Stage.GROUP, "wg-group"),
        (7, Stage.SEMI_FINAL, "wg-knockout"),
        (8, Stage.FINAL, "wg-knockout"),
    ],
)
def test_a_wg_round_is_played_as_the_engines_round_kind(
    number: int, stage: Stage, expected: str
) -> None:
    assert (
        Round(competition=Competition.WG, number=number, stage=stage).engine_competition == expected
    )


def test_the_final_places_are_the_engines() -> None:
    final = MatchResult("a", "d", 2, 2, Decided.GROUP_GOALS, "d")
    third = MatchResult("b", "c", 4, 1, Decided.REGULATION, "b")
    wg_cup = KINDS[SeasonCompetition.WG]
    assert wg_cup.final_places([("final", final), ("third_place", third)]) == wg.final_ranking(
        final, third
    )
    assert wg_cup.final_places([("final", final)]) == {}
    kdh_cup = KINDS[SeasonCompetition.KDH]
    assert kdh_cup.final_places([("", final)]) == {"d": 1, "a": 2} == kdh.final_places(final)
    # R15: a final both teams lost by forfeit names no winner; both are finalists.
    double_forfeit = MatchResult("a", "d", 0, 0, Decided.FORFEIT, None)
    assert kdh_cup.final_places([("", double_forfeit)]) == {"a": 2, "d": 2}
    assert kdh_cup.final_places([]) == {}
    assert KINDS[SeasonCompetition.CHAMPIONSHIP].final_places([("", final)]) == {}


def test_the_calendar_stores_each_competitions_stages_in_the_models_constraint() -> None:
    championship, kdh_cup, wg_cup = KINDS.values()
    for kind in KINDS.values():
        assert len(kind.calendar_stages) == kind.rules.rounds
    assert championship.calendar_stages == (Stage.REGULAR,) * 11
    # R17: the rules' 84 teams, a qualifying round then a bracket of 64.
    assert kdh_cup.calendar_stages == tuple(KDH_STAGES)
    assert kdh_cup.calendar_stages == tuple(stage.key for stage in kdh.stages(84))
    # R18: six group rounds, the semi-finals, the final week.
    assert wg_cup.calendar_stages == (Stage.GROUP,) * wg.GROUP_ROUNDS + (
        Stage.SEMI_FINAL,
        Stage.FINAL,
    )
    assert set(wg_cup.calendar_stages) <= set(WG_STAGES)
    # A drawn round's stage (:meth:`stage_of`) is the calendar's for the rules' field.
    assert [kdh_cup.stage_of(n, 2 ** (7 - n)) for n in range(2, 8)] == list(
        kdh_cup.calendar_stages[1:]
    )
    assert [wg_cup.stage_of(n, 2) for n in range(1, 9)] == list(wg_cup.calendar_stages)


def test_only_the_cups_rounds_have_stages_worth_naming() -> None:
    assert [kind.has_stages for kind in KINDS.values()] == [False, True, True]


def test_a_cup_round_after_the_first_is_drawn_by_the_arbitration_before_it() -> None:
    """R17, R18, R20: the divisions' schedules, the KDH's first round and the WG's groups are
    drawn when the season starts; the KDH's later rounds and the WG's semi-finals and final
    week by the arbitration of the round before."""
    championship, kdh_cup, wg_cup = KINDS.values()
    assert not any(championship.drawn_by_arbitration(n) for n in range(1, 12))
    assert [kdh_cup.drawn_by_arbitration(n) for n in range(1, 8)] == [False] + [True] * 6
    assert [wg_cup.drawn_by_arbitration(n) for n in range(1, 9)] == [False] * 6 + [True] * 2
    for kind in KINDS.values():
        for number in range(2, kind.rules.rounds + 1):
            assert kind.drawn_by_arbitration(number) is (kind.draws_after(number - 1) is not None)


def test_a_kind_names_the_rounds_the_engine_plays_as_each_round_kind() -> None:
    championship, kdh_cup, wg_cup = KINDS.values()
    assert championship.rounds_played_as(RoundKind.CHAMPIONSHIP) == tuple(range(1, 12))
    assert kdh_cup.rounds_played_as(RoundKind.KDH) == tuple(range(1, 8))
    assert wg_cup.rounds_played_as(RoundKind.WG_GROUP) == tuple(range(1, wg.GROUP_ROUNDS + 1))
    assert wg_cup.rounds_played_as(RoundKind.WG_KNOCKOUT) == (wg.SEMI_FINAL_ROUND, wg.FINAL_ROUND)
    assert championship.rounds_played_as(RoundKind.KDH) == ()
    for kind in KINDS.values():
        for number in range(1, kind.rules.rounds + 1):
            assert number in kind.rounds_played_as(kind.round_kind(number))


def test_the_cups_are_the_kinds_that_are_not_divisional() -> None:
    assert CUPS == (Competition.KDH, Competition.WG)
    assert all(not competition.kind.divisional for competition in CUPS)


def test_a_chart_abbreviates_each_competitions_round() -> None:
    assert [str(kind.chart_abbreviation) % {"number": 3} for kind in KINDS.values()] == [
        "Ch. 3",
        "KDH 3",
        "WG 3",
    ]


def test_the_modules_examples_hold() -> None:
    assert doctest.testmod(kinds).failed == 0
