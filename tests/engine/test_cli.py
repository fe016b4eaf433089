"""``python -m engine``: the fixed command-line contract of shared/ENGINE_CLI.md.

Every command is run as a real subprocess; the in-process tests below cover the same code for
coverage measurement and the corner cases (files, arguments).
"""

from __future__ import annotations

import io
import json
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import COMMANDS, main, run

ROOT = Path(__file__).resolve().parents[2]
ROW = {"A": 3, "B": 3, "C": 1, "D": 4, "E": 3, "F": 5, "G": 1, "H": 1, "I": 4, "J": 3, "K": 2}


def round_doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "competition": "championship",
        "seed": "2026/elite/round-1",
        "matrix_row": dict(ROW),
        "bonus_goal": "freezing-ass",
        "teams": {
            "sleigh-dogs": {"pick": "F+(2)"},
            "ice-crocodiles": {"pick": "F(0)"},
            "freezing-ass": {"pick": "D++(1)", "extra_goals": 2},
            "groggs": {"pick": "B(X)"},
        },
        "fixtures": [["sleigh-dogs", "ice-crocodiles"], ["freezing-ass", "groggs"]],
    }
    doc.update(changes)
    return doc


def with_pick(team: str, pick: str) -> dict[str, Any]:
    doc = round_doc()
    doc["teams"][team] = {"pick": pick}
    return doc


STANDINGS = {
    "seed": "s",
    "teams": ["a", "b"],
    "matches": [
        {"home": "a", "away": "b", "home_goals": 3, "away_goals": 2, "decided": "regulation"}
    ],
}
SEASON_END = {
    "teams": {
        "a": {"championship_wins": 7, "kdh_wins": 3, "kdh_winner": False, "division_rank": 1,
              "promoted": True, "relegated": False, "veteran": True, "wg_rank": 2, "shutouts": 3},
    }
}  # fmt: skip
PROMOTION = {
    "divisions": [
        {"name": "Elite", "tier": 1, "ranking": [f"e{i}" for i in range(1, 13)]},
        {"name": "D2A", "tier": 2, "ranking": [f"a{i}" for i in range(1, 13)]},
        {"name": "D2B", "tier": 2, "ranking": [f"b{i}" for i in range(1, 13)]},
        *(
            {"name": f"D3{g}", "tier": 3, "ranking": [f"{g}{i}" for i in range(1, 13)]}
            for g in "ABCD"
        ),
    ],
    "cannot_be_promoted": ["a1"],
}


def engine(*args: str, stdin: bytes | str = b"") -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=data,
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )


def assert_refused(done: subprocess.CompletedProcess[bytes], *words: str) -> str:
    assert done.returncode == 2
    assert done.stdout == b""
    error = json.loads(done.stderr)
    assert list(error) == ["error"]
    for word in words:
        assert word in error["error"]
    return error["error"]


# --- Real subprocesses ------------------------------------------------------------------------


def test_round_plays_a_round() -> None:
    done = engine("round", stdin=json.dumps(round_doc()))
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    out = json.loads(done.stdout)
    assert out["bonus_goal"] == "freezing-ass"
    # Rules 3.1.4: Sleigh Dogs [F+(2)] – Ice Crocodiles [F(0)] (two on F here: F = 4).
    assert out["matches"][0] == {
        "home": "sleigh-dogs", "away": "ice-crocodiles", "home_goals": 5, "away_goals": 4,
        "decided": "regulation", "winner": "sleigh-dogs"}  # fmt: skip
    assert out["teams"]["freezing-ass"]["display"] == "D++*(1)"
    assert out["teams"]["freezing-ass"]["goals"] == 7
    assert out["qualified"] is None and out["draws"] == []


def test_round_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(round_doc()))
    done = engine("round", str(path))
    assert done.returncode == 0
    assert json.loads(done.stdout)["matches"][1]["winner"] == "freezing-ass"


def test_round_same_input_same_output() -> None:
    doc = json.dumps(round_doc(bonus_goal=None, seed="again") | {"fixtures": []})
    assert engine("round", "-", stdin=doc).stdout == engine("round", stdin=doc).stdout


def test_standings_ranks_a_table() -> None:
    done = engine("standings", stdin=json.dumps(STANDINGS))
    assert done.returncode == 0
    table = json.loads(done.stdout)["table"]
    assert table[0] == {"team": "a", "rank": 1, "points": 2, "played": 1, "wins": 1,
                        "regulation_wins": 1, "draws": 0, "extra_time_losses": 0, "losses": 0,
                        "goals_for": 3, "goals_against": 2}  # fmt: skip


def test_season_end_gives_next_seasons_stocks() -> None:
    done = engine("season-end", stdin=json.dumps(SEASON_END))
    assert done.returncode == 0
    assert json.loads(done.stdout)["teams"]["a"] == {
        "points": 14,
        "extra_goals": 4,
        "great_saves": 5,
    }


def test_promotion_lists_who_moves() -> None:
    done = engine("promotion", stdin=json.dumps(PROMOTION))
    assert done.returncode == 0
    moves = {move["team"]: move for move in json.loads(done.stdout)["moves"]}
    assert "a1" not in moves  # barred (R14): the next eligible team goes up instead
    assert moves["a3"]["to_tier"] == 1 and moves["e12"]["to_tier"] == 2


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refuses_bad_json(command: str) -> None:
    assert_refused(engine(command, stdin='{"teams": '), "bad JSON")


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        (with_pick("groggs", "B(9)"), ["teams.groggs.pick", "(9)", "extra-time"]),
        (with_pick("groggs", "B+*(1)"), ["teams.groggs.pick", "*", "unknown character"]),
        (round_doc(fixtures=[["sleigh-dogs", "yetis"]]), ["fixtures[0]", "unknown team 'yetis'"]),
        (round_doc(matrix_row={k: v for k, v in ROW.items() if k != "F"}),
         ["teams.", ".pick", "column F is not in the matrix row"]),
        (with_pick("groggs", "L(1)"), ["teams.groggs.pick", "column L"]),
        (round_doc(matrix_row=dict(ROW, F=9)), ["matrix_row.F"]),
        ({k: v for k, v in round_doc().items() if k != "teams"}, ["teams", "missing"]),
        (round_doc(seed=5), ["seed"]),
    ],
    ids=["bad-notation", "bonus-mark-in-a-pick", "unknown-team", "column-not-in-matrix",
         "column-not-in-competition", "matrix-value", "missing-field", "wrong-type"],
)  # fmt: skip
def test_round_refuses_unusable_input(doc: dict[str, Any], words: list[str]) -> None:
    assert_refused(engine("round", stdin=json.dumps(doc)), *words)


@pytest.mark.parametrize(
    ("command", "doc", "words"),
    [
        ("standings", {**STANDINGS, "teams": ["a"]}, ["matches[0].away", "unknown team 'b'"]),
        ("season-end", {"teams": {"a": {}}}, ["teams.a."]),
        ("promotion", {"divisions": "none"}, ["divisions"]),
        ("round", [1, 2], ["input", "JSON object"]),
    ],
    ids=["standings-unknown-team", "season-end-missing-field", "promotion-wrong-type",
         "not-an-object"],
)  # fmt: skip
def test_other_commands_refuse_unusable_input(command: str, doc: Any, words: list[str]) -> None:
    assert_refused(engine(command, stdin=json.dumps(doc)), *words)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["play"], ["command", "unknown command 'play'"]),
        ([], ["usage"]),
        (["round", "a.json", "b.json"], ["usage"]),
        (["round", "/nonexistent/round.json"], ["file", "cannot read"]),
    ],
    ids=["unknown-command", "no-command", "too-many-arguments", "unreadable-file"],
)
def test_command_line_mistakes_are_refused(args: list[str], words: list[str]) -> None:
    assert_refused(engine(*args, stdin="{}"), *words)


def test_invalid_utf8_is_bad_json() -> None:
    assert_refused(engine("round", stdin=b'{"seed": "\xff"}'), "bad JSON")


# --- In process -------------------------------------------------------------------------------


def call(args: list[str], data: bytes) -> tuple[int, bytes, str]:
    stdout = io.BytesIO()
    stderr = io.StringIO()
    status = main(args, stdin=io.BytesIO(data), stdout=stdout, stderr=stderr)
    return status, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize(
    ("command", "doc"),
    [("round", round_doc()), ("standings", STANDINGS), ("season-end", SEASON_END),
     ("promotion", PROMOTION)],
    ids=["round", "standings", "season-end", "promotion"],
)  # fmt: skip
def test_main_answers_every_command(command: str, doc: dict[str, Any]) -> None:
    status, out, err = call([command], json.dumps(doc).encode())
    assert (status, err) == (0, "")
    assert json.loads(out) == run(command, doc)


@pytest.mark.parametrize(
    ("args", "data", "words"),
    [
        (["round"], b"nope", "bad JSON"),
        (["round"], b"\xff", "bad JSON"),
        (["round"], b"[]", "must be a JSON object"),
        (["standings", "-"], b'{"teams": []}', "seed"),
        (["tables"], b"{}", "unknown command 'tables'"),
        ([], b"{}", "usage"),
        (["round", "x", "y"], b"{}", "usage"),
        (["round", "/nonexistent/x.json"], b"", "cannot read"),
    ],
    ids=["bad-json", "bad-utf8", "not-an-object", "missing-field", "unknown-command",
         "no-command", "too-many-arguments", "unreadable-file"],
)  # fmt: skip
def test_main_refuses_with_exit_2_and_nothing_on_stdout(
    args: list[str], data: bytes, words: str
) -> None:
    status, out, err = call(args, data)
    assert (status, out) == (2, b"")
    assert words in json.loads(err)["error"]


def test_main_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "table.json"
    path.write_text(json.dumps(STANDINGS))
    status, out, _ = call(["standings", str(path)], b"")
    assert status == 0 and json.loads(out)["table"][0]["team"] == "a"


def test_python_dash_m_engine_runs_main(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(STANDINGS).encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "argv", ["engine", "standings"])
    with pytest.raises(SystemExit) as exited:
        runpy.run_module("engine", run_name="__main__")
    assert exited.value.code == 0
    assert json.loads(capsysbinary.readouterr().out)["table"][1]["team"] == "b"
