"""``manage.py verify_round`` over ``pool_round_verify`` (R23): a fresh round matches its replay;
a tampered result is reported, difference by difference; exit codes 0, 1 and 2."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from competitions.models import FixtureResult, PoolRound, TeamResult
from competitions.services import pool_round_input_document, pool_round_verify
from tests.competitions.results_league import SEED, RulesWeek
from tests.final_results import unguarded

pytestmark = pytest.mark.django_db


def verify_round(*args: str) -> tuple[int, str, str]:
    """Run the command: the exit status ``manage.py`` would give (a ``CommandError``'s return
    code, or the ``SystemExit`` of a mismatch), its standard output and its error."""
    out, err = StringIO(), StringIO()
    try:
        call_command("verify_round", *args, stdout=out, stderr=err)
    except CommandError as error:
        return error.returncode, out.getvalue(), str(error)
    except SystemExit as exit:
        return int(exit.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def test_a_freshly_published_round_matches_its_replay(week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    assert pool_round_verify(pool_round=week.pool_round).differences == ()
    code, out, err = verify_round("championship", "elite", "1")
    assert code == 0, err
    assert "OK" in out and "6 games" in out


def test_tampered_goals_are_reported_with_exit_1(week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    # Someone edits the Freezing Ass' stored goals (6) and their game's score (behind the
    # database's guard, as a restored backup would).
    with unguarded():
        TeamResult.objects.filter(
            pool_round=week.pool_round, entry__team__slug="freezing-ass"
        ).update(goals=2)
        FixtureResult.objects.filter(
            fixture__pool_round=week.pool_round, fixture__home__team__slug="freezing-ass"
        ).update(home_goals=2, away_goals=3, decided="regulation", winner=week.entries["groggs"])
    differences = pool_round_verify(pool_round=week.pool_round).differences
    assert "team freezing-ass: goals stored 2, replayed 6" in differences
    assert "game 4: home_goals stored 2, replayed 6" in differences
    assert "game 4: winner stored 'groggs', replayed 'freezing-ass'" in differences
    assert len(differences) == 3
    code, out, _err = verify_round("championship", "elite", "1")
    assert code == 1
    assert "MISMATCH" in out
    assert "  - team freezing-ass: goals stored 2, replayed 6" in out.splitlines()


def test_a_tampered_bonus_goal_and_draw_log_are_reported(week: RulesWeek) -> None:
    week.arbitrate()
    week.publish()
    log = list(week.pool_round.draw_log)
    log[1] = {**log[1], "result": "A"}  # the Cybérians' ONR column was F
    with unguarded():
        TeamResult.objects.filter(pool_round=week.pool_round, entry__team__slug="groggs").update(
            bonus_goal=True
        )
        PoolRound.objects.filter(pk=week.pool_round.pk).update(draw_log=log)
    differences = pool_round_verify(pool_round=week.pool_round).differences
    assert "team groggs: bonus_goal stored True, replayed False" in differences
    assert any(d.startswith("bonus goal: stored ['freezing-ass', 'groggs']") for d in differences)
    assert any(d.startswith("draw 2: stored ('onr_column:cyberians'") for d in differences)
    assert verify_round("championship", "elite", "1")[0] == 1


def test_a_round_not_published_is_refused_unless_staff_asks_for_it(week: RulesWeek) -> None:
    week.arbitrate()
    code, out, err = verify_round("championship", "elite", "1")
    assert code == 2
    assert "not published yet" in err and "--unpublished" in err
    assert SEED not in out + err
    code, out, _err = verify_round("championship", "elite", "1", "--unpublished")
    assert code == 0 and "OK" in out


@pytest.mark.parametrize(
    "args",
    [
        ("hockey", "elite", "1"),
        ("championship", "d9z", "1"),
        ("championship", "elite", "7"),
        ("kdh", "elite", "1"),
        ("championship", "elite", "1", "--season", "9"),
    ],
    ids=["competition", "pool", "round", "pool-of-another-competition", "season"],
)
def test_unknown_competition_pool_round_or_season_exits_2(
    week: RulesWeek, args: tuple[str, ...]
) -> None:
    code, out, err = verify_round(*args)
    assert code == 2
    assert out == "" and err


def test_a_round_not_yet_arbitrated_exits_2(week: RulesWeek) -> None:
    code, _out, err = verify_round("championship", "elite", "1", "--unpublished")
    assert code == 2
    assert "not arbitrated yet" in err


def test_the_input_runs_through_the_engines_command_line_to_the_stored_results(
    week: RulesWeek,
) -> None:
    """R23: what anyone can do once the round is published — the same results, draw for draw."""
    week.arbitrate()
    week.publish()
    code, out, _err = verify_round("championship", "elite", "1", "--input")
    assert code == 0
    document = json.loads(out)
    assert document == pool_round_input_document(pool_round=week.pool_round)
    assert document["seed"] == SEED
    played = subprocess.run(
        [sys.executable, "-m", "engine", "round"],
        input=json.dumps(document),
        capture_output=True,
        text=True,
        check=True,
    )
    output = json.loads(played.stdout)
    stored = {
        row.entry.team.slug: (row.display, row.goals)
        for row in TeamResult.objects.filter(pool_round=week.pool_round).select_related(
            "entry__team"
        )
    }
    assert {team: (t["display"], t["goals"]) for team, t in output["teams"].items()} == stored
    assert [(d["what"], d["result"]) for d in output["draws"]] == [
        (d["what"], d["result"]) for d in week.pool_round.draw_log
    ]
