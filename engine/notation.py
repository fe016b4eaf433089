"""Pick notation (R10): ``COLUMN`` ``+``×extra goals ``#``×great saves ``(ET)`` [``(SHOOTOUT)``].

A :class:`Pick` is what a coach sends for one round of one competition. It reads and writes the
league's notation, the way python-chess reads and writes UCI moves:

>>> pick = Pick.parse(" c + ( 1 )( 4 ) ")
>>> pick
Pick.parse('C+(1)(4)')
>>> pick.column, pick.extra_time, pick.shootout, pick.extra_goals, pick.great_saves
('C', '1', '4', 1, 0)
>>> pick.notation()
'C+(1)(4)'

Parsing knows nothing of competitions (any column A–Z, any shootout value); whether a pick may be
played in one is :meth:`Pick.validate_for`'s business. Results are shown with :func:`display`.
"""

from __future__ import annotations

import enum
import re
import string
from dataclasses import dataclass

from engine.competitions import Rules, X
from engine.errors import NotationError, NotationFault, PickNotAllowed

COLUMNS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
"""Every column letter the notation accepts (a competition uses the first few, R19)."""
EXTRA_TIME_VALUES = ("0", "1", "2", "3", X)
"""R7: the extra-time values the notation accepts."""
SHOOTOUT_VALUES = ("0", "1", "2", "3", "4", "5", X)
"""R7: the shootout values the notation accepts."""
ONR = "ONR"
"""R10/R15: what a cup team with no picks received shows instead of a pick."""

# One compiled pattern for the well-formed case (the hot path); errors are diagnosed apart.
_PICK = re.compile(r"([A-Z])([+#]*)\(([0-3X])\)(?:\(([0-5X])\))?")
# R10: case is free for the notation's own letters, A–Z. ``str.upper`` would go further and
# make "ı" (dotless i) an I and "ſ" (long s) an S — letters no coach typed.
_ASCII_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)
_EXTRA_TIME_SET = frozenset(EXTRA_TIME_VALUES)
_SHOOTOUT_SET = frozenset(SHOOTOUT_VALUES)


@dataclass(frozen=True, slots=True)
class Pick:
    """One team's pick for one round (R10).

    Every ``Pick`` is well-formed notation: the constructor refuses anything ``parse`` would.

    >>> Pick("F", "2", extra_goals=1)
    Pick.parse('F+(2)')
    >>> Pick("F", "7")
    Traceback (most recent call last):
    ...
    engine.errors.NotationError: pick 'F(7)': (7): bad extra-time value: must be 0, 1, 2, 3 or X
    """

    column: str
    """The column played, one letter A–Z (R19)."""
    extra_time: str
    """The extra-time value: ``"0"``–``"3"`` or ``"X"`` (R7)."""
    shootout: str | None = None
    """The shootout value, ``"0"``–``"5"`` or ``"X"``, KDH only (R7); ``None`` elsewhere."""
    extra_goals: int = 0
    """Extra goals asked for (``+``, R6)."""
    great_saves: int = 0
    """Great saves asked for (``#``, championship only, R6)."""

    def __post_init__(self) -> None:
        if self.column not in COLUMNS:
            raise NotationError(
                self._raw(),
                str(self.column),
                "column must be a single letter A–Z",
                fault=NotationFault.COLUMN,
            )
        if self.extra_time not in _EXTRA_TIME_SET:
            raise NotationError(
                self._raw(),
                f"({self.extra_time})",
                "bad extra-time value: must be 0, 1, 2, 3 or X",
                fault=NotationFault.EXTRA_TIME_VALUE,
            )
        if self.shootout is not None and self.shootout not in _SHOOTOUT_SET:
            raise NotationError(
                self._raw(),
                f"({self.shootout})",
                "bad shootout value: must be 0, 1, 2, 3, 4, 5 or X",
                fault=NotationFault.SHOOTOUT_VALUE,
            )
        if type(self.extra_goals) is not int or self.extra_goals < 0:
            raise NotationError(
                self._raw(),
                "+",
                "extra goals must be a whole number ≥ 0",
                fault=NotationFault.EXTRA_GOALS,
            )
        if type(self.great_saves) is not int or self.great_saves < 0:
            raise NotationError(
                self._raw(),
                "#",
                "great saves must be a whole number ≥ 0",
                fault=NotationFault.GREAT_SAVES,
            )

    def _raw(self) -> str:
        # The would-be notation of a refused pick, to quote it in the error.
        shootout = "" if self.shootout is None else f"({self.shootout})"
        return f"{self.column}({self.extra_time}){shootout}"

    @classmethod
    def parse(cls, text: str) -> Pick:
        """Read a pick in R10 notation; case and spaces are free, ``+`` and ``#`` mix freely.

        >>> Pick.parse("d#+#(x)")
        Pick.parse('D+##(X)')
        >>> Pick.parse("F+")
        Traceback (most recent call last):
        ...
        engine.errors.NotationError: pick 'F+': F+: missing extra-time value, e.g. F+(2)

        Only A–Z change case: other letters that look like them are no column.

        >>> Pick.parse("\u017f(1)")
        Traceback (most recent call last):
        ...
        engine.errors.NotationError: pick 'ſ(1)': ſ: no column: a pick starts with its column letter A–Z
        """  # noqa: E501
        normal = "".join(text.split()).translate(_ASCII_UPPER)
        match = _PICK.fullmatch(normal)
        if match is None:
            first, *others = pick_read(text).errors
            raise NotationError(
                first.text, first.part, first.reason, fault=first.fault, others=tuple(others)
            )
        column, marks, extra_time, shootout = match.groups()
        return cls(column, extra_time, shootout, marks.count("+"), marks.count("#"))

    def notation(self) -> str:
        """The canonical notation: ``+`` before ``#``, capitals, no spaces.

        >>> Pick("C", "1", "4", extra_goals=1).notation()
        'C+(1)(4)'
        """
        return display(
            self.column, self.extra_time, self.shootout, self.extra_goals, self.great_saves
        )

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Pick.parse({self.notation()!r})"

    def validate_for(self, rules: Rules) -> None:
        """Raise :class:`PickNotAllowed` unless this pick may be sent in ``rules``' competition.

        What the team has already used is not checked here: a stale pick is redrawn, not
        refused (R11).

        >>> from engine.competitions import rules_for
        >>> Pick.parse("K(2)(1)").validate_for(rules_for("kdh"))
        Traceback (most recent call last):
        ...
        engine.errors.PickNotAllowed: pick 'K(2)(1)': column K is not played in the kdh (A–G)
        """
        reason = refusal(self, rules)
        if reason is not None:
            raise PickNotAllowed(self.notation(), reason)


class Refusal(enum.Enum):
    """Which rule of a competition refuses a pick that parses (see :func:`refusal_of`)."""

    COLUMN = "column"
    """The column is not one of the competition's matrix (R19)."""
    GREAT_SAVES = "great_saves"
    """Great saves (#) outside the championship (R6)."""
    EXTRA_TIME = "extra_time"
    """An extra-time value the competition has no quota for (R7): 3 in the cups."""
    SHOOTOUT_OUTSIDE_KDH = "shootout_outside_kdh"
    """A shootout value outside the KDH (R7)."""
    SHOOTOUT_MISSING = "shootout_missing"
    """A KDH pick without its shootout value (R7)."""
    SHOOTOUT_VALUE = "shootout_value"
    """A shootout value the competition has no quota for (R7)."""


def refusal_of(pick: Pick, rules: Rules) -> Refusal | None:
    """Which rule of ``rules``' competition refuses ``pick``, or ``None`` when it may be played
    there (the first of :func:`refusals_of`). The site words its own messages from this;
    :func:`refusal` says it in English.

    >>> from engine.competitions import rules_for
    >>> refusal_of(Pick.parse("F#(1)(4)"), rules_for("kdh"))
    <Refusal.GREAT_SAVES: 'great_saves'>
    """
    found = refusals_of(pick, rules)
    return found[0] if found else None


def refusals_of(pick: Pick | PickReading, rules: Rules) -> tuple[Refusal, ...]:
    """Every rule of ``rules``' competition that refuses a part of ``pick`` (R6, R7, R19), in
    the pick's order; of a pick that does not read (:func:`pick_read`), the parts it reads.

    >>> from engine.competitions import rules_for
    >>> [refused.value for refused in refusals_of(Pick.parse("Z#(3)"), rules_for("kdh"))]
    ['column', 'great_saves', 'extra_time', 'shootout_missing']
    >>> refusals_of(pick_read("Z++(9)"), rules_for("championship"))
    (<Refusal.COLUMN: 'column'>,)
    """
    values = pick.values if isinstance(pick, PickReading) else 1 + (pick.shootout is not None)
    found = []
    if pick.column is not None and pick.column not in rules.columns:
        found.append(Refusal.COLUMN)
    if pick.great_saves and not rules.great_saves:
        found.append(Refusal.GREAT_SAVES)
    if pick.extra_time is not None and pick.extra_time not in rules.extra_time_quota:
        found.append(Refusal.EXTRA_TIME)
    quota = rules.shootout_quota
    if quota is None:
        if pick.shootout is not None:
            found.append(Refusal.SHOOTOUT_OUTSIDE_KDH)
    elif values == 1:
        found.append(Refusal.SHOOTOUT_MISSING)
    elif pick.shootout is not None and pick.shootout not in quota:
        found.append(Refusal.SHOOTOUT_VALUE)
    return tuple(found)


def refusal(pick: Pick, rules: Rules) -> str | None:
    """Why ``rules``' competition refuses ``pick``, or ``None`` when it may be played there.

    >>> from engine.competitions import rules_for
    >>> refusal(Pick.parse("C+(1)(4)"), rules_for("kdh")) is None
    True
    >>> refusal(Pick.parse("C+(3)(4)"), rules_for("kdh"))
    'extra-time value 3 is not played in the kdh (values 0, 1, 2, X)'
    """
    kind = refusal_of(pick, rules)
    name = rules.competition.value
    match kind:
        case None:
            return None
        case Refusal.COLUMN:
            span = f"{rules.columns[0]}–{rules.columns[-1]}"
            return f"column {pick.column} is not played in the {name} ({span})"
        case Refusal.GREAT_SAVES:
            return f"great saves (#) are played only in the championship, not in the {name} (R6)"
        case Refusal.EXTRA_TIME:
            values = ", ".join(sorted(rules.extra_time_quota))
            return (
                f"extra-time value {pick.extra_time} is not played in the {name} (values {values})"
            )
        case Refusal.SHOOTOUT_OUTSIDE_KDH:
            return f"a shootout value is played only in the KDH, not in the {name} (R7)"
        case Refusal.SHOOTOUT_MISSING:
            return f"the {name} needs a shootout value after the extra-time one, e.g. C+(1)(4) (R7)"
        case _:  # Refusal.SHOOTOUT_VALUE, the last kind
            values = ", ".join(sorted(rules.shootout_quota or ()))
            return f"shootout value {pick.shootout} is not played in the {name} (values {values})"


def display(
    column: str,
    extra_time: str,
    shootout: str | None = None,
    extra_goals: int = 0,
    great_saves: int = 0,
    *,
    bonus_goal: bool = False,
    onr: bool = False,
) -> str:
    """A played pick as results show it (R10): ``*`` for the bonus goal, ``ONR : `` when drawn.

    >>> display("D", "1", extra_goals=2, bonus_goal=True)
    'D++*(1)'
    >>> display("F", "X", onr=True)
    'ONR : F(X)'

    A cup team that forfeits (R15) has no pick at all and shows :data:`ONR`.
    """
    text = (
        f"{column}{'+' * extra_goals}{'#' * great_saves}{'*' if bonus_goal else ''}({extra_time})"
    )
    if shootout is not None:
        text = f"{text}({shootout})"
    return f"ONR : {text}" if onr else text


@dataclass(frozen=True, slots=True)
class PickReading:
    """What :func:`pick_read` made of a pick's text: each part it could read (``None``: missing
    or wrong), how many bracketed ``values`` it holds, and every wrong part (``errors``, in
    reading order; none when the text is a pick)."""

    column: str | None
    extra_time: str | None
    shootout: str | None
    extra_goals: int
    great_saves: int
    values: int
    errors: tuple[NotationError, ...]


def pick_read(text: str) -> PickReading:
    """Read ``text`` as a pick (R10) part by part, going on past a wrong part, so that every
    wrong part is said at once; :meth:`Pick.parse` raises the first with the others.

    >>> reading = pick_read("Z++(9)")
    >>> reading.column, reading.extra_goals, reading.extra_time
    ('Z', 2, None)
    >>> [error.part for error in pick_read("FF-(9)(8)").errors]
    ['FF', '-', '(9)', '(8)']
    """
    normal = "".join(text.split()).translate(_ASCII_UPPER)
    errors: list[NotationError] = []

    def wrong(part: str, reason: str, fault: NotationFault) -> None:
        errors.append(NotationError(text, part, reason, fault=fault))

    if not normal:
        wrong("pick", "empty pick: expected a column and a value, e.g. F+(2)", NotationFault.EMPTY)
        return PickReading(None, None, None, 0, 0, 0, tuple(errors))
    i = 0
    while i < len(normal) and "A" <= normal[i] <= "Z":
        i += 1
    column = normal[:i] if i == 1 else None
    if i == 0:
        head = normal[0]
        wrong(head, "no column: a pick starts with its column letter A–Z", NotationFault.NO_COLUMN)
        if head not in "+#(":
            i = 1
    elif i > 1:
        wrong(normal[:i], "column must be a single letter A–Z", NotationFault.COLUMN)
    marks = i
    while i < len(normal) and normal[i] in "+#":
        i += 1
    extra_goals, great_saves = normal[marks:i].count("+"), normal[marks:i].count("#")
    head_end = i
    groups: list[str] = []
    unknown = ""
    while i < len(normal):
        char = normal[i]
        if char != "(":
            unknown += char
            i += 1
            continue
        if unknown:
            wrong(
                unknown,
                "unknown character (extra goals are +, great saves are #)",
                NotationFault.UNKNOWN_CHARACTER,
            )
            unknown = ""
        end = normal.find(")", i)
        if end == -1:
            wrong(normal[i:], "unclosed parenthesis", NotationFault.UNCLOSED)
            i = len(normal)
            break
        groups.append(normal[i : end + 1])
        i = end + 1
    if unknown:
        wrong(
            unknown,
            "unknown character (extra goals are +, great saves are #)",
            NotationFault.UNKNOWN_CHARACTER,
        )
    if not groups and not any(e.fault is NotationFault.UNCLOSED for e in errors):
        head = normal[:head_end]
        wrong(
            head,
            f"missing extra-time value, e.g. {head}(2)",
            NotationFault.EXTRA_TIME_MISSING,
        )
    extra_time = shootout = None
    if groups:
        if groups[0][1:-1] in _EXTRA_TIME_SET:
            extra_time = groups[0][1:-1]
        else:
            wrong(
                groups[0],
                "bad extra-time value: must be 0, 1, 2, 3 or X",
                NotationFault.EXTRA_TIME_VALUE,
            )
    if len(groups) > 1:
        if groups[1][1:-1] in _SHOOTOUT_SET:
            shootout = groups[1][1:-1]
        else:
            wrong(
                groups[1],
                "bad shootout value: must be 0, 1, 2, 3, 4, 5 or X",
                NotationFault.SHOOTOUT_VALUE,
            )
    if len(groups) > 2:
        wrong(
            "".join(groups[2:]),
            "too many parentheses groups: a pick has (extra time) and, in the KDH, (shootout)",
            NotationFault.TOO_MANY_VALUES,
        )
    return PickReading(
        column, extra_time, shootout, extra_goals, great_saves, min(len(groups), 2), tuple(errors)
    )
