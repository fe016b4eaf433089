"""The engine's errors: every one is a ``ValueError`` that says what is wrong and where."""

from __future__ import annotations

import enum


class EngineError(ValueError):
    """Input the engine cannot use. The message names the field or the part at fault."""


class NotationFault(enum.Enum):
    """Which part of a pick's notation is wrong (R10): the code a :class:`NotationError`
    carries, so that a caller words the error in its own language without reading the English
    ``reason``. The values are stable codes (the site keys its messages on them)."""

    EMPTY = "empty"
    """Nothing but spaces: no column, no value."""
    NO_COLUMN = "no_column"
    """The pick does not start with a column letter A–Z."""
    COLUMN = "column"
    """The column is not a single letter A–Z (``FF(2)``)."""
    EXTRA_TIME_MISSING = "extra_time_missing"
    """A column (and marks) with no extra-time value in brackets (``F+``)."""
    UNKNOWN_CHARACTER = "unknown_character"
    """A character that is neither a mark (``+``, ``#``) nor an opening bracket (``F-(2)``)."""
    UNCLOSED = "unclosed"
    """A bracket opened and never closed (``F(2``)."""
    TOO_MANY_VALUES = "too_many_values"
    """More than two bracketed values: a pick has its extra-time value and, in the KDH, its
    shootout value (``F(1)(2)(3)``)."""
    EXTRA_TIME_VALUE = "extra_time_value"
    """The extra-time value is not 0, 1, 2, 3 or X (``F(7)``, R7)."""
    SHOOTOUT_VALUE = "shootout_value"
    """The shootout value is not 0–5 or X (``C(1)(9)``, R7)."""
    EXTRA_GOALS = "extra_goals"
    """A pick built in code with extra goals (``+``) that are not a whole number ≥ 0 (R6)."""
    GREAT_SAVES = "great_saves"
    """A pick built in code with great saves (``#``) that are not a whole number ≥ 0 (R6)."""


class NotationError(EngineError):
    """A pick whose notation does not parse (R10): ``fault`` says which way, ``part`` quotes the
    part at fault, ``reason`` says it in English.

    >>> err = NotationError("F+(9)", "(9)", "extra-time value must be 0, 1, 2, 3 or X",
    ...                     fault=NotationFault.EXTRA_TIME_VALUE)
    >>> str(err), err.fault.value
    ("pick 'F+(9)': (9): extra-time value must be 0, 1, 2, 3 or X", 'extra_time_value')
    """

    def __init__(
        self,
        text: str,
        part: str,
        reason: str,
        *,
        fault: NotationFault,
        others: tuple[NotationError, ...] = (),
    ) -> None:
        self.text = text
        self.part = part
        self.reason = reason
        self.fault = fault
        self.others = others
        """The pick's other wrong parts, in reading order (``engine.notation.pick_read``)."""
        super().__init__(f"pick {text!r}: {part}: {reason}")

    @property
    def errors(self) -> tuple[NotationError, ...]:
        """Every wrong part of the pick, this one first."""
        return (self, *self.others)


class PickNotAllowed(EngineError):
    """A pick that parses but that its competition refuses (R6, R7, R19).

    >>> str(PickNotAllowed("F#(3)", "great saves (#) are played only in the championship"))
    "pick 'F#(3)': great saves (#) are played only in the championship"
    """

    def __init__(self, pick: str, reason: str) -> None:
        self.pick = pick
        self.reason = reason
        super().__init__(f"pick {pick!r}: {reason}")


class InputError(EngineError):
    """A malformed engine input: ``field`` names where it is (``teams.a.pick``, ``fixtures[2]``).

    >>> str(InputError("fixtures[2]", "unknown team 'yetis'"))
    "fixtures[2]: unknown team 'yetis'"
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")
