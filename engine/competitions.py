"""What differs between competitions, kept as data (the way python-chess keeps its variants).

The engine plays four kinds of round. The WG's group stage and knockout stage share one matrix,
one set of columns and one extra-time quota (they are one competition for the season), but they
score ONR and ties differently.

>>> rules_for("kdh").shootout
True
>>> rules_for(Competition.CHAMPIONSHIP).extra_time_quota["X"]
1
"""

from __future__ import annotations

import enum
import string
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.errors import EngineError, InputError

X = "X"
EXTRA_TIME_DIE = ("0", "1", "2", "3")
"""R7: an extra-time X is a fair die over 0–3, in every competition."""
SHOOTOUT_DIE = ("0", "1", "2", "3", "4", "5")
"""R7: a shootout X is a fair die over 0–5."""


class Competition(enum.Enum):
    """The kind of round the engine plays (the ``competition`` field of ``python -m engine``)."""

    CHAMPIONSHIP = "championship"
    """A division's round: bonus goal, great saves, ONR scored (R4), draws allowed."""
    KDH = "kdh"
    """A Klaus-Dieter Hoffmann cup round: knockout, shootout then die (R8), ONR forfeits."""
    WG_GROUP = "wg-group"
    """A Wayne Gretzky group round: played like the championship without bonus or great saves."""
    WG_KNOCKOUT = "wg-knockout"
    """WG semis, final and third-place game: ties go to group-stage goals then a die (R8)."""

    @property
    def season_competition(self) -> str:
        """The season competition whose matrix, columns and quotas this round uses."""
        return "wg" if self in (Competition.WG_GROUP, Competition.WG_KNOCKOUT) else self.value


class OnrRule(enum.Enum):
    """What a team with no picks received (ONR) gets."""

    SCORE = "score"
    """R4: a random remaining column and extra-time value, scored at the regulars' value − 1."""
    FORFEIT = "forfeit"
    """R15: the team loses by forfeit."""


class DoubleForfeit(enum.Enum):
    """R15: what happens when both teams of a cup game are ONR."""

    LUCKY_LOSER = "lucky_loser"
    """Both are out; the round's best loser goes on in their place (KDH)."""
    DIE = "die"
    """A die picks which of the two goes on (WG knockout)."""


class TieRule(enum.Enum):
    """R8: what settles a game still tied after extra time."""

    DRAW = "draw"
    """The game ends in a draw (championship, WG group)."""
    SHOOTOUT = "shootout"
    """Higher shootout value wins, then a die (KDH)."""
    GROUP_GOALS = "group_goals"
    """More goals scored in the WG group games wins, then a die (WG knockout)."""


def _quota(**counts: int) -> Mapping[str, int]:
    return MappingProxyType({value.removeprefix("v"): n for value, n in counts.items()})


@dataclass(frozen=True)
class Rules:
    """The rules of one kind of round (R2, R5–R8, R15, R19)."""

    competition: Competition
    great_saves: bool
    bonus_goal: bool
    shootout: bool
    extra_time_quota: Mapping[str, int]
    shootout_quota: Mapping[str, int] | None
    onr: OnrRule
    tie: TieRule
    columns: tuple[str, ...]
    rounds: int
    double_forfeit: DoubleForfeit | None = None
    """R15: what a game between two ONR teams gives (``None`` where ONR teams play, R4)."""
    stock_priority: int = 0
    """R6: the order in which a week's extra-goal requests are granted (lowest first)."""

    @property
    def knockout(self) -> bool:
        """Whether the round sends winners on (and so has a ``qualified`` list)."""
        return self.tie is not TieRule.DRAW

    @property
    def onr_sanctioned(self) -> bool:
        """Whether an ONR here counts towards the R14 sanctions (R15: cup forfeits do not)."""
        return self.onr is OnrRule.SCORE


def _columns(n: int) -> tuple[str, ...]:
    return tuple(string.ascii_uppercase[:n])


_WG_EXTRA_TIME = _quota(v0=2, v1=2, v2=2, X=2)

RULES: Mapping[Competition, Rules] = MappingProxyType(
    {
        Competition.CHAMPIONSHIP: Rules(
            competition=Competition.CHAMPIONSHIP,
            great_saves=True,
            bonus_goal=True,
            shootout=False,
            extra_time_quota=_quota(X=1, v0=2, v3=2, v1=3, v2=3),
            shootout_quota=None,
            onr=OnrRule.SCORE,
            tie=TieRule.DRAW,
            columns=_columns(11),
            rounds=11,
        ),
        Competition.KDH: Rules(
            competition=Competition.KDH,
            great_saves=False,
            bonus_goal=False,
            shootout=True,
            extra_time_quota=_quota(X=1, v0=2, v1=2, v2=2),
            shootout_quota=_quota(v0=1, v1=1, v2=1, v3=1, v4=1, v5=1, X=1),
            onr=OnrRule.FORFEIT,
            tie=TieRule.SHOOTOUT,
            columns=_columns(7),
            rounds=7,
            double_forfeit=DoubleForfeit.LUCKY_LOSER,
            stock_priority=2,
        ),
        Competition.WG_GROUP: Rules(
            competition=Competition.WG_GROUP,
            great_saves=False,
            bonus_goal=False,
            shootout=False,
            extra_time_quota=_WG_EXTRA_TIME,
            shootout_quota=None,
            onr=OnrRule.SCORE,
            tie=TieRule.DRAW,
            columns=_columns(8),
            rounds=8,
            stock_priority=1,
        ),
        Competition.WG_KNOCKOUT: Rules(
            competition=Competition.WG_KNOCKOUT,
            great_saves=False,
            bonus_goal=False,
            shootout=False,
            extra_time_quota=_WG_EXTRA_TIME,
            shootout_quota=None,
            onr=OnrRule.FORFEIT,
            tie=TieRule.GROUP_GOALS,
            columns=_columns(8),
            rounds=8,
            double_forfeit=DoubleForfeit.DIE,
            stock_priority=1,
        ),
    }
)


_BY_NAME: Mapping[str, Rules] = MappingProxyType({c.value: rules for c, rules in RULES.items()})


def rules_for(competition: Competition | str) -> Rules:
    """The rules of a competition, given as a :class:`Competition` or its name.

    >>> rules_for("nhl")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.InputError: competition: unknown competition 'nhl' (expected championship, ...)
    """
    if isinstance(competition, Competition):
        return RULES[competition]
    try:
        return _BY_NAME[competition]
    except (KeyError, TypeError):
        names = [c.value for c in Competition]
        expected = f"{', '.join(names[:-1])} or {names[-1]}"
        raise InputError(
            "competition", f"unknown competition {competition!r} (expected {expected})"
        ) from None


__all__ = [
    "EXTRA_TIME_DIE",
    "RULES",
    "SHOOTOUT_DIE",
    "Competition",
    "DoubleForfeit",
    "EngineError",
    "OnrRule",
    "Rules",
    "TieRule",
    "X",
    "rules_for",
]
