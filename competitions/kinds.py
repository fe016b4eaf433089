"""What differs between the season's three competitions, one class each behind one adapter.

The way python-chess keeps its variants and Tabbycat its draw managers: the site asks a
competition's kind (:func:`kind_of`, or ``Competition.X.kind`` on the model's choices) instead
of comparing competitions. Each kind reads its rules from the engine (the round kind it plays,
its ONR and tie rules, its matrix shape); it only adds what the site makes of them: whether its
pools are the divisions, which public page shows it, how a chart abbreviates its rounds.

Model-free, so that the models may use it too.

>>> kind_of("kdh").knockout_only, kind_of("wg").round_kind(7).value
(True, 'wg-knockout')
>>> kind_of("championship").page
<Page.TABLE: 'table'>
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from functools import cached_property
from types import MappingProxyType
from typing import ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from engine import kdh, wg
from engine.calendar import SeasonCompetition
from engine.competitions import Competition as RoundKind
from engine.competitions import Rules, rules_for
from engine.game import MatchResult

RULES_FIELD = 84
"""R17: the KDH of the rules, every team of the league's seven divisions of twelve."""


class Page(enum.Enum):
    """The public page that shows a competition's pool (``/standings/<pool>/``)."""

    TABLE = "table"
    """A division's table (R9) and its places chart."""
    GROUPS = "groups"
    """The WG's page: its groups' tables, then the semi-finals and the final week (R18)."""
    BRACKET = "bracket"
    """The KDH's bracket (R17): no table."""


class Draw(enum.Enum):
    """What a cup round's arbitration draws once the round is played (R15, R17, R18)."""

    NEXT_ROUND = "next_round"
    """The KDH: the next round's pairings among the round's winners."""
    SEMI_FINALS = "semi_finals"
    """The WG's last group round: the semi-finals among the groups' qualifiers."""
    FINAL_WEEK = "final_week"
    """The WG's semi-finals: the final and the third-place game."""


class CompetitionKind(abc.ABC):
    """One of the season's competitions as the site plays and shows it."""

    competition: ClassVar[SeasonCompetition]
    divisional: ClassVar[bool] = False
    """Its pools are the divisions (each a pool of its own, its teams the division's) rather
    than one pool of members drawn into the competition."""
    groups: ClassVar[tuple[str, ...]] = ()
    """The names of its groups, each with a table (R18)."""
    page: ClassVar[Page]
    chart_abbreviation: ClassVar[Promise]
    """Its round ``%(number)d`` on a chart's narrow axis."""

    @property
    def value(self) -> str:
        """The name stored in the rows (``championship``, ``kdh``, ``wg``)."""
        return self.competition.value

    @property
    def rules(self) -> Rules:
        """The engine's rules for its matrix shape and quotas (R7, R19)."""
        return self.competition.rules

    @property
    def cup(self) -> bool:
        """A cup: one pool whose members are drawn into it, rather than the divisions."""
        return not self.divisional

    @property
    def has_table(self) -> bool:
        """Whether a table ranks its teams: a division's, or the WG's groups' (R9)."""
        return self.divisional or bool(self.groups)

    def round_kind(self, number: int) -> RoundKind:
        """The kind of round the engine plays as its round ``number``."""
        return RoundKind(self.competition.value)

    def round_rules(self, number: int) -> Rules:
        """The engine's rules of its round ``number``: ONR (R4, R15), ties (R8), knockout."""
        return rules_for(self.round_kind(number))

    def rounds_played_as(self, round_kind: RoundKind) -> tuple[int, ...]:
        """The numbers of its rounds the engine plays as ``round_kind`` (the WG's 1–6 as its
        group rounds)."""
        return tuple(
            number
            for number in range(1, self.rules.rounds + 1)
            if self.round_kind(number) is round_kind
        )

    @cached_property
    def knockout_only(self) -> bool:
        """Every round puts its losers out, from the first one on (the engine's rules)."""
        return all(self.round_rules(n).knockout for n in range(1, self.rules.rounds + 1))

    def draws_after(self, number: int) -> Draw | None:
        """What the arbitration of its round ``number`` draws for the rounds after it."""
        return None

    def drawn_by_arbitration(self, number: int) -> bool:
        """Whether its round ``number``'s games are drawn by the arbitration of the round before
        (R17, R18), and so public only once that round is published (R23), rather than fixed
        when the season starts (R20: the divisions' schedules, the WG's groups, the KDH's first
        round)."""
        return number > 1 and self.draws_after(number - 1) is not None

    @abc.abstractmethod
    def stage_of(self, number: int, games: int) -> str:
        """The stage (``competitions.models.Stage``'s value) of its round ``number`` when it
        holds ``games`` games."""

    @property
    @abc.abstractmethod
    def calendar_stages(self) -> tuple[str, ...]:
        """The stage of each of its rounds (round 1 first) as the season's calendar stores them
        (R20); a cup round drawn later takes the stage its draw gives (:meth:`stage_of`)."""

    @property
    def has_stages(self) -> bool:
        """Whether its rounds' stages tell them apart (a cup's qualifying round, groups,
        semi-finals…), worth naming beside a round's number; the divisions' are all regular."""
        return len(set(self.calendar_stages)) > 1

    def final_places(self, games: Sequence[tuple[str, MatchResult]]) -> dict[str, int]:
        """Its final places by team, as the engine gives them from its final week's
        ``(label, game)`` pairs; empty while they are not all played."""
        return {}


_KINDS: dict[SeasonCompetition, CompetitionKind] = {}


def _registered(cls: type[CompetitionKind]) -> type[CompetitionKind]:
    if cls.competition in _KINDS:
        raise ValueError(f"{cls.competition.value} already has a kind")
    _KINDS[cls.competition] = cls()
    return cls


@_registered
class Championship(CompetitionKind):
    """The division championships: a table per division (R9), no draws."""

    competition = SeasonCompetition.CHAMPIONSHIP
    divisional = True
    page = Page.TABLE
    chart_abbreviation = _("Ch. %(number)d")

    def stage_of(self, number: int, games: int) -> str:
        return "regular"

    @property
    def calendar_stages(self) -> tuple[str, ...]:
        return ("regular",) * self.rules.rounds


@_registered
class KdhCup(CompetitionKind):
    """The Klaus-Dieter Hoffmann cup: a knockout from its first round, a bracket (R15, R17)."""

    competition = SeasonCompetition.KDH
    page = Page.BRACKET
    chart_abbreviation = _("KDH %(number)d")

    def draws_after(self, number: int) -> Draw | None:
        return Draw.NEXT_ROUND

    def stage_of(self, number: int, games: int) -> str:
        # R17: a round of ``games`` games is the first round of a field twice as big.
        return kdh.stages(2 * games)[0].key

    @property
    def calendar_stages(self) -> tuple[str, ...]:
        # R17: the rounds of the rules' field, a qualifying round then a bracket of 64.
        return tuple(stage.key for stage in kdh.stages(RULES_FIELD))

    def final_places(self, games: Sequence[tuple[str, MatchResult]]) -> dict[str, int]:
        # R17: the engine's places from the final; a final both teams lost by forfeit (R15)
        # names no winner, and both its teams are finalists.
        if len(games) != 1:
            return {}
        return kdh.final_places(games[0][1])


@_registered
class WgCup(CompetitionKind):
    """The Wayne Gretzky cup: three groups' tables, then the semi-finals and the final week
    (R18)."""

    competition = SeasonCompetition.WG
    groups = wg.GROUP_NAMES
    page = Page.GROUPS
    chart_abbreviation = _("WG %(number)d")

    def round_kind(self, number: int) -> RoundKind:
        return wg.round_kind(number)

    def draws_after(self, number: int) -> Draw | None:
        if number == wg.GROUP_ROUNDS:
            return Draw.SEMI_FINALS
        if number == wg.SEMI_FINAL_ROUND:
            return Draw.FINAL_WEEK
        return None

    def stage_of(self, number: int, games: int) -> str:
        if self.round_kind(number) is RoundKind.WG_GROUP:
            return "group"
        return "semi_final" if number == wg.SEMI_FINAL_ROUND else "final"

    @property
    def calendar_stages(self) -> tuple[str, ...]:
        # R18: the stages do not hang on the games' number.
        return tuple(self.stage_of(number, 2) for number in range(1, self.rules.rounds + 1))

    def final_places(self, games: Sequence[tuple[str, MatchResult]]) -> dict[str, int]:
        by_label = dict(games)
        final, third = by_label.get("final"), by_label.get("third_place")
        if final is None or third is None or final.winner is None or third.winner is None:
            return {}
        return wg.final_ranking(final, third)


KINDS: Mapping[SeasonCompetition, CompetitionKind] = MappingProxyType(_KINDS)
"""Every competition's kind, in the season's order."""


def kind_of(competition: SeasonCompetition | RoundKind | str) -> CompetitionKind:
    """The kind of ``competition``: a season competition, a round kind or a stored name.

    >>> kind_of("wg-knockout").value
    'wg'
    """
    if not isinstance(competition, SeasonCompetition | RoundKind):
        competition = str(competition)
    return KINDS[SeasonCompetition.of(competition)]


__all__ = [
    "KINDS",
    "Championship",
    "CompetitionKind",
    "Draw",
    "KdhCup",
    "Page",
    "WgCup",
    "kind_of",
]
