"""The engine's errors: ValueErrors that quote the input and name the field or part."""

from __future__ import annotations

import pytest

from engine.errors import EngineError, InputError, NotationError, NotationFault, PickNotAllowed


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (NotationError("F+(9)", "(9)", "bad extra-time value",
                       fault=NotationFault.EXTRA_TIME_VALUE),
         "pick 'F+(9)': (9): bad extra-time value"),
        (PickNotAllowed("F#(1)(1)", "great saves only in the championship"),
         "pick 'F#(1)(1)': great saves only in the championship"),
        (InputError("teams.a.pick", "missing"), "teams.a.pick: missing"),
    ],
    ids=["notation", "not-allowed", "input"],
)  # fmt: skip
def test_messages_quote_the_input(error: EngineError, message: str) -> None:
    assert str(error) == message
    assert isinstance(error, EngineError) and isinstance(error, ValueError)


def test_errors_keep_their_parts() -> None:
    notation = NotationError("x", "x", "no column", fault=NotationFault.NO_COLUMN)
    assert (notation.text, notation.part, notation.reason) == ("x", "x", "no column")
    assert notation.fault is NotationFault.NO_COLUMN
    refused = PickNotAllowed("L(1)", "column L")
    assert (refused.pick, refused.reason) == ("L(1)", "column L")
    bad = InputError("fixtures[2]", "unknown team")
    assert (bad.field, bad.reason) == ("fixtures[2]", "unknown team")


def test_every_fault_has_a_distinct_code() -> None:
    # The site keys its messages on these codes: they never repeat.
    codes = [fault.value for fault in NotationFault]
    assert len(set(codes)) == len(codes) == 11
    assert all(code == code.lower() and " " not in code for code in codes)
