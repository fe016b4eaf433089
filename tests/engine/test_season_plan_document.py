"""The plan as a document and back: ``SeasonPlan.from_dict`` / ``as_dict`` (``shared/SEASON.md``),
the refusals of a document that is not a plan of the league, each with its code, and an
admin's group swaps (R16, R22).

The plans are the engine's own, from the hand-worked league of ``test_season_plan.py``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from engine.season_end import PointsBreakdown
from engine.season_plan import (
    LeaveReason,
    Newcomer,
    PlanError,
    PlanFault,
    PlanMove,
    PlanProblem,
    SeasonPlan,
    WaitingTeam,
    season_plan,
)
from tests.engine.test_season_plan import end


def a_plan() -> SeasonPlan:
    """A plan with every kind of line: moves up and down, a vacancy, a team barred (R14), a
    waiting-list team with the caller's id and a new dummy team (R24)."""
    plan = season_plan(
        end(
            leaving={"elite-5": LeaveReason.DUMMY, "d3c-8": LeaveReason.WITHDRAWN},
            waiting_list=(WaitingTeam("yetis", True),),
            dummy_names=("ghost",),
            barred=frozenset({"d2a-1"}),
        )
    )
    yetis = plan.team("yetis")
    return replace(
        plan,
        teams=tuple(replace(t, waiting_list_entry=7) if t is yetis else t for t in plan.teams),
    )


def document() -> dict[str, Any]:
    """:func:`a_plan` as JSON reads it back."""
    return json.loads(json.dumps(a_plan().as_dict()))


def problems(changed: dict[str, Any]) -> list[PlanProblem]:
    with pytest.raises(PlanError) as error:
        SeasonPlan.from_dict(changed)
    return list(error.value.problems)


def faults(changed: dict[str, Any]) -> list[PlanFault]:
    return [problem.fault for problem in problems(changed)]


# --- The round trip ----------------------------------------------------------------------------


def test_a_plan_read_back_from_its_document_is_the_same_plan() -> None:
    plan = a_plan()
    assert {t.move for t in plan.teams} == set(PlanMove)
    assert any(t.vacancy for t in plan.teams)
    assert plan.team("ghost").newcomer is Newcomer.DUMMY
    again = SeasonPlan.from_dict(document())
    assert again == plan
    assert again.as_dict() == plan.as_dict()


def test_the_document_says_which_team_is_a_new_dummy_and_which_registration_joins() -> None:
    doc = document()
    lines = {line["team"]: line for line in doc["teams"]}
    assert lines["ghost"]["dummy"] is True and "waiting_list_entry" not in lines["ghost"]
    assert lines["yetis"]["waiting_list_entry"] == 7 and "dummy" not in lines["yetis"]
    assert not any("dummy" in line for name, line in lines.items() if name != "ghost")


def test_a_document_read_twice_gives_equal_plans_and_leaves_the_document_as_it_was() -> None:
    doc = document()
    kept = copy.deepcopy(doc)
    assert SeasonPlan.from_dict(doc) == SeasonPlan.from_dict(doc)
    assert doc == kept


def test_fields_a_start_does_not_need_may_be_left_out() -> None:
    doc = document()
    for line in doc["teams"]:
        for name in ("from", "rank", "vacancy", "extra_goal_points"):
            line.pop(name, None)
        if line["move"] == "stays":
            del line["move"]
    del doc["leaving"]
    plan = SeasonPlan.from_dict(doc)
    stays = next(t for t in plan.teams if t.move is PlanMove.STAYS)
    assert (stays.from_division, stays.rank, stays.vacancy) == (None, None, False)
    assert stays.points == PointsBreakdown()
    assert plan.leaving == ()


def test_a_joined_team_without_its_dummy_mark_comes_from_the_waiting_list() -> None:
    doc = document()
    for line in doc["teams"]:
        line.pop("dummy", None)
    assert SeasonPlan.from_dict(doc).team("ghost").newcomer is Newcomer.WAITING_LIST


def test_a_team_slug_is_read_without_its_spaces() -> None:
    doc = document()
    doc["teams"][0]["team"] = f"  {doc['teams'][0]['team']}  "
    assert SeasonPlan.from_dict(doc).teams[0].team == doc["teams"][0]["team"].strip()


# --- Refusals, every problem at once, each with its code ---------------------------------------


def test_a_document_that_is_not_an_object_is_refused() -> None:
    for value in ([], "plan", None):
        with pytest.raises(PlanError) as error:
            SeasonPlan.from_dict(value)
        assert [p.fault for p in error.value.problems] == [PlanFault.NOT_AN_OBJECT]
    assert str(error.value) == "plan: not_an_object"


def test_every_problem_is_reported_with_its_facts() -> None:
    doc = document()
    doc["season"] = doc["from_season"] + 2
    doc["teams"][0]["extra_goals"] = -1
    doc["teams"][1]["to"] = "d4"
    doc["teams"][2]["great_saves"] = True
    doc["wg"] = doc["wg"][:11]
    wg_teams = {w["team"] for w in doc["wg"]}
    found = problems(doc)
    first, second, third = (doc["teams"][i]["team"] for i in range(3))
    known = "elite, d2a, d2b, d3a, d3b, d3c, d3d"
    assert found == [
        PlanProblem(PlanFault.SEASON, {"number": doc["from_season"] + 1}),
        PlanProblem(PlanFault.STOCK, {"where": f"teams[0] ({first})", "stock": "extra_goals"}),
        PlanProblem(PlanFault.DIVISION, {"where": f"teams[1] ({second})", "known": known}),
        PlanProblem(PlanFault.STOCK, {"where": f"teams[2] ({third})", "stock": "great_saves"}),
        PlanProblem(PlanFault.WG_COUNT, {"count": 11}),
        # A line with a problem is left out: the WG's team on it is then a stranger.
        *[PlanProblem(PlanFault.WG_STRANGER, {"team": second})][: second in wg_teams],
    ]
    assert "season (number=" in str(PlanError(found))


def set_line(index: int, **fields: Any) -> dict[str, Any]:
    doc = document()
    doc["teams"][index].update(fields)
    return doc


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        pytest.param({"from_season": 0}, [PlanFault.FROM_SEASON], id="from-season"),
        pytest.param({"from_season": "3"}, [PlanFault.FROM_SEASON], id="from-season-text"),
        pytest.param({"teams": {}}, [PlanFault.TEAMS], id="teams"),
        pytest.param({"leaving": "none"}, [PlanFault.LEAVING], id="leaving"),
        pytest.param({"leaving": [{"team": "x"}]}, [PlanFault.LEAVING_ENTRY], id="why-missing"),
        pytest.param({"leaving": ["x"]}, [PlanFault.LEAVING_ENTRY], id="leaving-line"),
        pytest.param({"kdh": []}, [PlanFault.KDH], id="kdh"),
        pytest.param({"kdh": {"qualifying_round": [1]}}, [PlanFault.KDH], id="kdh-slugs"),
        pytest.param({"wg": {}}, [PlanFault.WG], id="wg"),
        pytest.param({"wg": [{"why": "holder"}]}, [PlanFault.WG], id="wg-team-missing"),
    ],
)
def test_a_document_with_a_bad_part_is_refused(
    changed: dict[str, Any], expected: list[PlanFault]
) -> None:
    doc = document()
    doc.update(changed)
    assert faults(doc)[: len(expected)] == expected


@pytest.mark.parametrize(
    ("fields", "fault"),
    [
        pytest.param({"team": " "}, PlanFault.TEAM_MISSING, id="team"),
        pytest.param({"from": "d9"}, PlanFault.FROM_DIVISION, id="from"),
        pytest.param({"rank": 0}, PlanFault.RANK, id="rank"),
        pytest.param({"code": 13}, PlanFault.CODE, id="code"),
        pytest.param({"move": "sideways"}, PlanFault.MOVE, id="move"),
        pytest.param({"extra_goal_points": {"luck": 3}}, PlanFault.POINTS, id="points-line"),
        pytest.param({"extra_goal_points": {"veteran": 1.5}}, PlanFault.POINTS, id="points"),
        pytest.param({"extra_goal_points": [3]}, PlanFault.POINTS, id="points-list"),
        pytest.param({"vacancy": "yes"}, PlanFault.VACANCY, id="vacancy"),
        pytest.param({"waiting_list_entry": "7"}, PlanFault.WAITING_LIST_ENTRY, id="waiting"),
    ],
)
def test_a_bad_line_is_refused_and_named(fields: dict[str, Any], fault: PlanFault) -> None:
    found = problems(set_line(3, **fields))
    assert found[0].fault is fault
    assert str(found[0].facts["where"]).startswith("teams[3]")
    # The line is left out: its division is short, and R17's split is not checked on 83 teams.
    assert [p.fault for p in found[1:]] == [PlanFault.WG_STRANGER] * (
        doc_team_in_wg(3) and fault is not PlanFault.TEAM_MISSING
    )


def doc_team_in_wg(index: int) -> bool:
    doc = document()
    return doc["teams"][index]["team"] in {w["team"] for w in doc["wg"]}


def test_a_line_that_is_not_an_object_is_refused() -> None:
    doc = document()
    doc["teams"][5] = "elite-6"
    assert faults(doc)[0] is PlanFault.TEAM_NOT_AN_OBJECT


def test_a_plan_of_83_teams_is_refused_with_its_count() -> None:
    doc = document()
    gone = doc["teams"].pop()
    found = problems(doc)
    assert PlanProblem(PlanFault.TEAM_COUNT, {"count": 83, "size": 84}) in found
    short = PlanProblem(PlanFault.DIVISION_SIZE, {"division": gone["to"], "count": 11, "size": 12})
    assert short in found


def test_a_team_twice_and_a_code_twice_are_refused() -> None:
    doc = document()
    first, second = doc["teams"][0], doc["teams"][1]
    second["code"] = first["code"]
    doc["teams"][2]["team"] = first["team"]
    found = problems(doc)
    assert PlanProblem(PlanFault.TEAM_TWICE, {"team": first["team"], "count": 2}) in found
    clash = next(p for p in found if p.fault is PlanFault.CODE_TWICE)
    assert clash.facts["count"] == 2 and first["team"] in str(clash.facts["teams"])


def test_a_leaving_team_that_also_plays_is_refused() -> None:
    doc = document()
    doc["leaving"].append({"team": doc["teams"][0]["team"], "why": "withdrawn"})
    assert faults(doc) == [PlanFault.LEAVING_PLAYS]


def test_a_kdh_field_that_is_not_r17s_is_refused() -> None:
    doc = document()
    kdh = doc["kdh"]
    kdh["qualifying_round"], kdh["enter_later"] = (
        kdh["qualifying_round"][1:],
        [*kdh["enter_later"], kdh["qualifying_round"][0]],
    )
    assert problems(doc) == [PlanProblem(PlanFault.KDH_FIELD, {"count": 40})]


def test_a_wg_team_must_be_of_the_plan_with_one_of_r18s_reasons() -> None:
    doc = document()
    doc["wg"][0] = {"team": "stranger", "why": "holder"}
    doc["wg"][1]["why"] = "friendship"
    found = problems(doc)
    assert [p.fault for p in found] == [PlanFault.WG_STRANGER, PlanFault.WG_REASON]
    assert found[0].facts == {"team": "stranger"}


# --- An admin's swaps (R16, R22) ---------------------------------------------------------------


def test_two_teams_of_a_tier_that_move_alike_swap_their_group_and_code() -> None:
    plan = a_plan()
    stays = [t for t in plan.teams if t.move is PlanMove.STAYS]
    a = next(t for t in stays if t.to == "d3a")
    b = next(t for t in stays if t.to == "d3b")
    swapped = plan.swapped([(a.team, b.team)])
    assert (swapped.team(a.team).to, swapped.team(a.team).code) == (b.to, b.code)
    assert (swapped.team(b.team).to, swapped.team(b.team).code) == (a.to, a.code)
    assert [t.team for t in swapped.teams] == [t.team for t in plan.teams]
    # Swapped back: the plan as computed.
    assert swapped.swapped([(a.team, b.team)]) == plan


def test_other_pairs_are_passed_over() -> None:
    plan = a_plan()
    relegated = next(t for t in plan.teams if t.move is PlanMove.RELEGATED and t.to == "d3a")
    stays_d3 = next(t for t in plan.teams if t.move is PlanMove.STAYS and t.to == "d3b")
    stays_d2 = next(t for t in plan.teams if t.move is PlanMove.STAYS and t.to == "d2a")
    pairs = [
        (relegated.team, stays_d3.team),  # R16: codes 01–02 stay with the relegated
        (stays_d3.team, stays_d2.team),  # another tier
        ("nobody", stays_d3.team),
    ]
    assert plan.swapped(pairs) == plan
