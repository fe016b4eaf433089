"""``python -m engine COMMAND [FILE]``: the engine's fixed command-line contract.

One JSON document in (FILE, or standard input when FILE is absent or ``-``), one JSON document
out on standard output, exit 0. Input the engine cannot use gives ``{"error": "..."}`` naming
the field on standard error, nothing on standard output, exit 2 (``shared/ENGINE_CLI.md``).

Each command is a thin layer over the Python API: it turns the document into engine values,
calls the engine, and turns the result back into a document.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, BinaryIO, TextIO

from engine.errors import EngineError, InputError
from engine.game import play_round, round_from_json
from engine.promotion import moves_from_json
from engine.season_end import stocks_from_json
from engine.standings import standings_from_json

EXIT_OK = 0
EXIT_BAD_INPUT = 2

Handler = Callable[[dict[str, Any]], dict[str, Any]]


def _round(doc: dict[str, Any]) -> dict[str, Any]:
    return play_round(round_from_json(doc)).as_dict()


def _season_end(doc: dict[str, Any]) -> dict[str, Any]:
    return stocks_from_json(doc)


def _promotion(doc: dict[str, Any]) -> dict[str, Any]:
    return moves_from_json(doc)


COMMANDS: Mapping[str, Handler] = {
    "round": _round,
    "standings": standings_from_json,
    "season-end": _season_end,
    "promotion": _promotion,
}
"""Every command, by name."""


def run(command: str, doc: Any) -> dict[str, Any]:
    """Run one command on an already decoded document (what ``main`` does after reading).

    >>> run("standings", {"seed": "s", "teams": ["a"], "matches": []})["table"][0]["rank"]
    1
    >>> run("play", {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.InputError: command: unknown command 'play' (expected round, standings, ...)
    """
    handler = _handler(command)
    if not isinstance(doc, dict):
        raise InputError("input", "must be a JSON object")
    return handler(doc)


def _handler(command: str) -> Handler:
    handler = COMMANDS.get(command)
    if handler is None:
        names = list(COMMANDS)
        raise InputError(
            "command",
            f"unknown command {command!r} (expected {', '.join(names[:-1])} or {names[-1]})",
        )
    return handler


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """The command line; returns the exit status (0, or 2 for unusable input)."""
    args = list(sys.argv[1:] if argv is None else argv)
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout.buffer if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    try:
        if not args or len(args) > 2:
            raise InputError("command", "usage: python -m engine COMMAND [FILE]")
        command = args[0]
        _handler(command)  # an unknown command is refused before any input is read
        data = _read(args[1] if len(args) == 2 else "-", stdin)
        try:
            doc = json.loads(data)
        except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
            raise InputError("input", f"bad JSON: {error}") from None
        output = run(command, doc)
    except EngineError as error:
        stderr.write(json.dumps({"error": str(error)}, ensure_ascii=False) + "\n")
        stderr.flush()
        return EXIT_BAD_INPUT
    stdout.write(json.dumps(output, ensure_ascii=False).encode("utf-8") + b"\n")
    stdout.flush()
    return EXIT_OK


def _read(source: str, stdin: BinaryIO) -> bytes:
    if source == "-":
        return stdin.read()
    try:
        with open(source, "rb") as file:
            return file.read()
    except OSError as error:
        raise InputError("file", f"cannot read {source!r}: {error.strerror}") from None
