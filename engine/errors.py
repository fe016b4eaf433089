"""The engine's errors: every one is a ``ValueError`` that says what is wrong and where."""

from __future__ import annotations


class EngineError(ValueError):
    """Input the engine cannot use. The message names the field or the part at fault."""


class NotationError(EngineError):
    """A pick whose notation does not parse (R10).

    >>> err = NotationError("F+(9)", "(9)", "extra-time value must be 0, 1, 2, 3 or X")
    >>> str(err)
    "pick 'F+(9)': (9): extra-time value must be 0, 1, 2, 3 or X"
    """

    def __init__(self, text: str, part: str, reason: str) -> None:
        self.text = text
        self.part = part
        self.reason = reason
        super().__init__(f"pick {text!r}: {part}: {reason}")


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
