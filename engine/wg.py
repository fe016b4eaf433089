"""The Wayne Gretzky cup (R18): who qualifies, the groups, the semi-finals and the final.

Twelve teams: the 7 division winners, the 2 KDH finalists, the holder, the team with most
championship goals and the one with fewest goals against (all divisions together). A team that
qualifies twice frees its extra place; the rules say the freed places go "to the next team by
most goals scored, then the next by fewest against, alternating". Precisely (our reading):

1. the berths are taken in order: division winners (in the order given), KDH winner and
   runner-up, holder, the most goals, the fewest goals against. The last two are decided over
   every team, qualified or not;
2. a berth whose team already holds an earlier one is a freed place, and so is a vacant berth
   (``None``: a team that left the league);
3. freed places are filled one after another: the 1st, 3rd, 5th… by the team not yet qualified
   with most goals scored (then fewest against), the 2nd, 4th… by the one with fewest goals
   against (then most scored); a die settles a tie that remains.

The first season, an admin picks the twelve (:func:`admin_qualifiers` checks them).

Three groups of four are drawn at random (:func:`draw_groups`) and play a double round robin in
rounds 1–6 (:func:`group_rounds`). The three group winners and the best second (R9's criteria,
:func:`engine.standings.best_of`) go to the semi-finals in round 7, drawn so that two teams of
one group do not meet (:func:`draw_semi_finals`); the final and the third-place game are both
round 8 (:func:`final_games`).

>>> from engine.dice import Dice
>>> groups = draw_groups([f"t{i:02d}" for i in range(1, 13)], Dice("2026/wg/groups"))
>>> [len(group) for group in groups], len(group_rounds(groups)), round_kind(7).value
([4, 4, 4], 6, 'wg-knockout')
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.calendar import Fixture, double_round_robin
from engine.competitions import Competition
from engine.dice import Dice
from engine.errors import InputError
from engine.game import MatchResult
from engine.kdh import draw_pairings
from engine.standings import StandingRow, best_of

WG_TEAMS = 12
"""R18: the WG's field."""
GROUP_SIZE = 4
"""R18: three groups of four."""
GROUP_NAMES = ("A", "B", "C")
"""The groups' names, in drawn order."""
GROUP_ROUNDS = 6
"""R18: a double round robin of four teams takes six rounds."""
SEMI_FINAL_ROUND = 7
"""Round 7: the semi-finals."""
FINAL_ROUND = 8
"""Round 8: the final and the third-place game, the same week (R18)."""


class Berth(enum.Enum):
    """Why a team is in the WG (R18)."""

    DIVISION_WINNER = "division_winner"
    """It won its division."""
    KDH_FINALIST = "kdh_finalist"
    """It played the KDH final."""
    HOLDER = "holder"
    """It won the last WG."""
    MOST_GOALS = "most_goals"
    """Most championship goals scored, all divisions together (or next best, for a freed place)."""
    FEWEST_GOALS_AGAINST = "fewest_goals_against"
    """Fewest championship goals against (or next best, for a freed place)."""


@dataclass(frozen=True)
class Qualifier:
    """A WG team and its berth; ``freed_place`` when it took a place another team freed."""

    team: str
    berth: Berth
    freed_place: bool = False


@dataclass(frozen=True)
class GoalRecord:
    """A team's championship goals for and against over the season (every division's teams)."""

    team: str
    goals_for: int
    goals_against: int


def _most_goals(record: GoalRecord) -> tuple[int, int]:
    return (-record.goals_for, record.goals_against)


def _fewest_against(record: GoalRecord) -> tuple[int, int]:
    return (record.goals_against, -record.goals_for)


_FREED_ORDER: tuple[tuple[Berth, Callable[[GoalRecord], tuple[int, int]]], ...] = (
    (Berth.MOST_GOALS, _most_goals),
    (Berth.FEWEST_GOALS_AGAINST, _fewest_against),
)


def _best(
    records: Sequence[GoalRecord],
    key: Callable[[GoalRecord], tuple[int, int]],
    taken: set[str],
    dice: Dice,
    what: str,
) -> str:
    candidates = [record for record in records if record.team not in taken]
    if not candidates:
        raise InputError("records", f"too few teams to fill the WG's {WG_TEAMS} places")
    best = min(key(record) for record in candidates)
    tied = sorted(record.team for record in candidates if key(record) == best)
    return tied[0] if len(tied) == 1 else dice.choice(what, tied)


def _check_records(records: Sequence[GoalRecord]) -> set[str]:
    teams: set[str] = set()
    for index, record in enumerate(records):
        if record.team in teams:
            raise InputError(f"records[{index}]", f"team {record.team!r} appears twice")
        teams.add(record.team)
        for name in ("goals_for", "goals_against"):
            value = getattr(record, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(
                    f"records[{index}].{name}", f"must be a whole number ≥ 0, not {value!r}"
                )
    return teams


def qualifiers(
    *,
    division_winners: Sequence[str | None],
    kdh_finalists: Sequence[str | None],
    holder: str | None,
    records: Sequence[GoalRecord],
    dice: Dice,
) -> tuple[Qualifier, ...]:
    """The twelve WG teams from last season's results (R18), in berth order, freed places last.

    ``records`` holds every championship team's goals; every named team must be among them.
    Dice draws (only on ties): ``wg.most_goals``, ``wg.fewest_goals_against``,
    ``wg.freed_place.<n>``.

    >>> records = [GoalRecord(f"t{i}", 20 + i, 30 - i) for i in range(20)]
    >>> teams = qualifiers(division_winners=["t19", "t1", "t2", "t3", "t4", "t5", "t6"],
    ...                    kdh_finalists=["t7", "t1"], holder="t8", records=records,
    ...                    dice=Dice("s"))
    >>> [(q.team, q.berth.value) for q in teams if q.freed_place]
    [('t18', 'most_goals'), ('t17', 'fewest_goals_against'), ('t16', 'most_goals')]
    """
    known = _check_records(records)
    named = [
        *(
            ("division_winners", i, Berth.DIVISION_WINNER, t)
            for i, t in enumerate(division_winners)
        ),
        *(("kdh_finalists", i, Berth.KDH_FINALIST, t) for i, t in enumerate(kdh_finalists)),
        ("holder", None, Berth.HOLDER, holder),
    ]
    if len(named) + len(_FREED_ORDER) > WG_TEAMS:
        raise InputError(
            "division_winners", f"more berths than the WG's {WG_TEAMS} places ({len(named) + 2})"
        )
    berths: list[tuple[Berth, str | None]] = []
    for field, index, berth, team in named:
        if team is not None and team not in known:
            where = field if index is None else f"{field}[{index}]"
            raise InputError(where, f"unknown team {team!r} (not in records)")
        berths.append((berth, team))
    for berth, key in _FREED_ORDER:
        berths.append((berth, _best(records, key, set(), dice, f"wg.{berth.value}")))
    chosen: list[Qualifier] = []
    taken: set[str] = set()
    for berth, team in berths:
        if team is not None and team not in taken:
            chosen.append(Qualifier(team, berth))
            taken.add(team)
    # R18: freed (and vacant) places alternate: most goals first, then fewest against.
    for number in range(WG_TEAMS - len(chosen)):
        berth, key = _FREED_ORDER[number % 2]
        team = _best(records, key, taken, dice, f"wg.freed_place.{number + 1}")
        chosen.append(Qualifier(team, berth, freed_place=True))
        taken.add(team)
    return tuple(chosen)


def _check_twelve(teams: Sequence[str], field: str) -> None:
    if isinstance(teams, str) or len(teams) != WG_TEAMS:
        raise InputError(field, f"the WG needs {WG_TEAMS} teams")
    seen: set[str] = set()
    for index, team in enumerate(teams):
        if not isinstance(team, str):
            raise InputError(f"{field}[{index}]", f"must be a team id, not {team!r}")
        if team in seen:
            raise InputError(f"{field}[{index}]", f"team {team!r} appears twice")
        seen.add(team)


def admin_qualifiers(teams: Sequence[str]) -> tuple[str, ...]:
    """The first season's twelve, picked by an admin (R18): twelve distinct team ids.

    >>> admin_qualifiers(["a"] * 12)
    Traceback (most recent call last):
    ...
    engine.errors.InputError: teams[1]: team 'a' appears twice
    """
    _check_twelve(teams, "teams")
    return tuple(teams)


def draw_groups(teams: Sequence[str], dice: Dice) -> tuple[tuple[str, ...], ...]:
    """Three groups of four drawn at random (R18): one shuffle (``wg.groups``), dealt in fours.

    The teams are offered to the draw in sorted order, so the draw depends only on who they are.
    """
    _check_twelve(teams, "teams")
    order = dice.shuffle("wg.groups", sorted(teams))
    return tuple(
        tuple(order[start : start + GROUP_SIZE]) for start in range(0, WG_TEAMS, GROUP_SIZE)
    )


def group_rounds(groups: Sequence[Sequence[str]]) -> tuple[tuple[Fixture, ...], ...]:
    """The group stage's six rounds (R18, R20), each holding every group's games, group by group.

    >>> rounds = group_rounds([("a", "b", "c", "d"), ("e", "f", "g", "h"), ("i", "j", "k", "l")])
    >>> len(rounds), len(rounds[0])
    (6, 6)
    """
    schedules = [double_round_robin(group) for group in groups]
    return tuple(
        tuple(game for schedule in schedules for game in schedule[r]) for r in range(GROUP_ROUNDS)
    )


def round_kind(round_number: int) -> Competition:
    """The kind of round WG round ``round_number`` is: group stage 1–6, knockout 7–8.

    >>> round_kind(6), round_kind(8)
    (<Competition.WG_GROUP: 'wg-group'>, <Competition.WG_KNOCKOUT: 'wg-knockout'>)
    """
    if not 1 <= round_number <= FINAL_ROUND:
        raise InputError("round", f"wg has rounds 1–{FINAL_ROUND}, not {round_number}")
    return Competition.WG_GROUP if round_number <= GROUP_ROUNDS else Competition.WG_KNOCKOUT


def semi_finalists(tables: Sequence[Sequence[StandingRow]], dice: Dice) -> dict[str, str]:
    """The four semi-finalists and their groups (R18): each group's winner, then the best second.

    ``tables`` are the three groups' final tables (:func:`engine.standings.standings`, rows in
    rank order), in group order A, B, C. The best second is compared by R9's criteria; a tie
    that remains is settled by a die (``wg.best_second``).
    """
    if len(tables) != len(GROUP_NAMES):
        raise InputError("tables", f"the WG has {len(GROUP_NAMES)} groups, not {len(tables)}")
    for name, table in zip(GROUP_NAMES, tables, strict=True):
        if len(table) < 2:
            raise InputError(f"tables.{name}", "a group table needs at least two rows")
    chosen = {table[0].team: name for name, table in zip(GROUP_NAMES, tables, strict=True)}
    second = best_of([table[1] for table in tables], dice, "wg.best_second")
    for name, table in zip(GROUP_NAMES, tables, strict=True):
        if table[1].team == second.team:
            chosen[second.team] = name
    return chosen


def draw_semi_finals(semi: Mapping[str, str], dice: Dice) -> tuple[Fixture, ...]:
    """Draw the semi-finals (R18): the first team drawn is at home; one group's teams never meet.

    ``semi`` maps the four semi-finalists to their groups (:func:`semi_finalists`). One shuffle,
    ``wg.semi_finals``; see :func:`engine.kdh.draw_pairings` for how the pot is read.

    >>> semi = {"a1": "A", "b1": "B", "c1": "C", "a2": "A"}
    >>> games = draw_semi_finals(semi, Dice("s"))
    >>> all(semi[g.home] != semi[g.away] for g in games)
    True
    """
    if len(semi) != 4:
        raise InputError("semi", f"the semi-finals need 4 teams, not {len(semi)}")
    return draw_pairings(list(semi), dice, what="wg.semi_finals", apart=semi)


def final_games(semis: Sequence[MatchResult]) -> tuple[Fixture, Fixture]:
    """Round 8 from the semi-finals' results: the final, then the third-place game.

    The winner (loser) of the first semi-final is at home in the final (third-place game).

    >>> from engine.game import Decided
    >>> final_games([MatchResult("a", "b", 3, 1, Decided.REGULATION, "a"),
    ...              MatchResult("c", "d", 0, 2, Decided.REGULATION, "d")])
    (Fixture(home='a', away='d'), Fixture(home='b', away='c'))
    """
    if len(semis) != 2:
        raise InputError("semis", f"two semi-finals, not {len(semis)}")
    winners, losers = [], []
    for index, match in enumerate(semis):
        if match.winner is None or match.loser is None:
            raise InputError(f"semis[{index}].winner", "a semi-final needs a winner")
        winners.append(match.winner)
        losers.append(match.loser)
    return Fixture(*winners), Fixture(*losers)


def final_ranking(final: MatchResult, third_place: MatchResult) -> dict[str, int]:
    """The WG's places 1–4 (for next season's points, R21, and its holder, R18).

    >>> from engine.game import Decided
    >>> final_ranking(MatchResult("a", "d", 2, 2, Decided.GROUP_GOALS, "d"),
    ...               MatchResult("b", "c", 4, 1, Decided.REGULATION, "b"))
    {'d': 1, 'a': 2, 'b': 3, 'c': 4}
    """
    places: dict[str, int] = {}
    for field, match, first in (("final", final, 1), ("third_place", third_place, 3)):
        if match.winner is None or match.loser is None:
            raise InputError(f"{field}.winner", "the game needs a winner")
        places[match.winner] = first
        places[match.loser] = first + 1
    return places


__all__ = [
    "FINAL_ROUND",
    "GROUP_NAMES",
    "GROUP_ROUNDS",
    "GROUP_SIZE",
    "SEMI_FINAL_ROUND",
    "WG_TEAMS",
    "Berth",
    "GoalRecord",
    "Qualifier",
    "admin_qualifiers",
    "draw_groups",
    "draw_semi_finals",
    "final_games",
    "final_ranking",
    "group_rounds",
    "qualifiers",
    "round_kind",
    "semi_finalists",
]
