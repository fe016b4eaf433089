"""The next season's plan, from the season just finished (R16, R17, R18, R21, R22, R24).

:func:`season_plan` takes the finished season as plain values (:class:`SeasonEnd`: each
division's final table, the cups' honours, the R14 bars, the teams leaving and the waiting list)
and returns the whole plan as immutable values (:class:`SeasonPlan`); ``plan.as_dict()`` is the
``season_plan --json`` document of ``shared/SEASON.md``. Same input, same plan: every draw comes
from dice seeded by :attr:`SeasonEnd.seed` (R23).

The steps, and our decisions where the rules are silent:

1. **Moves (R22, R24).** :func:`engine.promotion.promotion_moves`, teams barred by R14 and
   leaving teams skipped for promotion; a leaving team goes nowhere, not even down. The moving
   teams land by the default serpentine (:func:`engine.promotion.place_moves`).
2. **Vacancies (R24).** Top tier first, division by division in input order, each place short
   goes to the best remaining team of the tier below: not promoted already, not barred, not
   leaving and — our decision, as R22 never promotes from the drop zone — not relegated. Best
   is the best rank in its group, then R9's criteria between groups
   (:func:`engine.standings.tie_key`), then a die (``vacancy.<division>.<n>``). It goes to the
   division that was short, counts as promoted (R21's −6) and is marked ``vacancy``; its own
   division is then short in turn. Places short in the lowest tier go to the waiting list in
   its order, then to new dummy teams named from :attr:`SeasonEnd.dummy_names`, the short places
   taken in division order. A tier with too few eligible teams to fill the places above is an
   input error.
3. **Codes (R16).** In each lowest-tier division (D3), codes 01 and 02 go to the teams
   relegated into it (their order drawn), every other code is drawn; in the other divisions
   every code is drawn (:func:`engine.codes.draw_codes`, dice ``<seed>/codes/<division>``).
4. **Stocks (R21).** Every team of the final tables is a veteran (it played the season). A
   waiting-list team gets the veteran's 3 points when it registered before the season's end
   (:attr:`WaitingTeam.veteran`, the caller's to decide) and nothing else: it has no record.
   A new dummy team gets no points and — our decision, as R14's dummies play no extra goals or
   great saves — no great saves either.
5. **KDH (R17).** :func:`engine.kdh.split_field` over next season's teams, tiers and codes
   (dice ``<seed>/kdh/field``, only needed for a field other than the standard one).
6. **WG (R18).** :func:`engine.wg.qualifiers` from the finished season: division winners, the
   KDH finalists, the holder (this season's WG winner), most goals, fewest against, over the
   teams that stay in the league (dice ``<seed>/wg``). A leaving qualifier's place is freed and
   goes to the next team by the same alternation as a team qualified twice.

>>> from engine.standings import StandingRow
>>> def table(index, name, tier):  # ranks 1–12; the later the division, the more goals
...     rows = tuple(StandingRow(f"{name}-{r}", r, 24 - 2 * r, 11, 12 - r, 12 - r, 0, 0,
...                              r - 1, 20 - r + index, 10 + r) for r in range(1, 13))
...     return FinalTable(name, tier, rows)
>>> names = [("elite", 1), ("d2a", 2), ("d2b", 2), ("d3a", 3), ("d3b", 3), ("d3c", 3),
...          ("d3d", 3)]
>>> end = SeasonEnd(season=1, seed="s",
...                 tables=tuple(table(i, n, t) for i, (n, t) in enumerate(names)),
...                 leaving={"elite-3": LeaveReason.DUMMY},
...                 waiting_list=(WaitingTeam("yetis", veteran=True),))
>>> plan = season_plan(end)
>>> len(plan.teams), plan.team("yetis").to, plan.team("yetis").extra_goals
(84, 'd3d', 1)
>>> [(t.team, t.to) for t in plan.teams if t.vacancy]
[('d2b-3', 'elite'), ('d3d-3', 'd2b')]
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, TypeGuard, cast

from engine.codes import draw_codes
from engine.dice import Dice, Draw
from engine.errors import EngineError, InputError
from engine.kdh import Entrant, FirstRound, split_field
from engine.promotion import Direction, Division, Move, division_zones, place_moves, promotion_moves
from engine.season import DIVISION_SIZE, STANDARD_DIVISIONS
from engine.season_end import VETERAN_POINTS, PointsBreakdown, SeasonRecord, stocks_for
from engine.standings import StandingRow, tie_key
from engine.wg import WG_TEAMS, Berth, GoalRecord, qualifiers


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


class PlanMove(enum.Enum):
    """What happens to a team between the two seasons (``move`` in ``season_plan --json``)."""

    PROMOTED = "promoted"
    """Up a tier: R22's promotion places, or a leaving team's place (R24, ``vacancy``)."""
    RELEGATED = "relegated"
    """Down a tier (R22)."""
    STAYS = "stays"
    """Same tier; a barred team that would not have gone up anyway stays too."""
    BARRED = "barred"
    """Would have gone up, but R14 bars it: it stays."""
    JOINED = "joined"
    """New to the league: from the waiting list, or a new dummy team (R24)."""


class LeaveReason(enum.Enum):
    """Why a team of the finished season does not play the next one (R24)."""

    DUMMY = "dummy"
    """A dummy team (R14): it only held a place until the season's end."""
    WITHDRAWN = "withdrawn"
    """Its coach quits, or an admin removed it before the next season starts."""


class Newcomer(enum.Enum):
    """Where a team that joins the league comes from (R24)."""

    WAITING_LIST = "waiting_list"
    """The waiting list, in its order."""
    DUMMY = "dummy"
    """A new dummy team, once the waiting list has run out."""


class WgReason(enum.Enum):
    """Why a team is in next season's WG (R18), as ``season_plan --json`` names it."""

    DIVISION_WINNER = "division_winner"
    """It won its division."""
    KDH_WINNER = "kdh_winner"
    """It won the KDH."""
    KDH_FINALIST = "kdh_finalist"
    """It lost the KDH final (or played a final nobody won)."""
    HOLDER = "holder"
    """It won this season's WG."""
    MOST_GOALS = "most_goals"
    """Most championship goals, all divisions together."""
    FEWEST_AGAINST = "fewest_against"
    """Fewest championship goals against, all divisions together."""
    NEXT_MOST_GOALS = "next_most_goals"
    """A freed place (a team qualified twice, or leaving), next by most goals."""
    NEXT_FEWEST_AGAINST = "next_fewest_against"
    """A freed place, next by fewest goals against."""


@dataclass(frozen=True)
class FinalTable:
    """A division's final table: its slug, its tier (1 Elite … 3 D3) and its rows by rank."""

    division: str
    tier: int
    rows: tuple[StandingRow, ...]


@dataclass(frozen=True)
class WaitingTeam:
    """A team of the waiting list, by the slug it will play under."""

    team: str
    veteran: bool
    """R21: it registered before the season's end, so it gets the veteran's 3 points."""


@dataclass(frozen=True)
class SeasonEnd:
    """The finished season as the plan needs it, in plain values."""

    season: int
    """The finished season's number; the plan is for the next one."""
    seed: str
    """Every draw of the plan derives from it (R23)."""
    tables: tuple[FinalTable, ...]
    """Every division's final table, top division first (the order of next season's too)."""
    kdh_wins: Mapping[str, int] = field(default_factory=_empty)
    """Team → KDH games won (R21); absent: none."""
    shutouts: Mapping[str, int] = field(default_factory=_empty)
    """Team → championship games in which the opponent scored 0 (R21); absent: none."""
    kdh_finalists: tuple[str, ...] = ()
    """The KDH final's two teams, the winner first (R18)."""
    kdh_winner: str | None = None
    """R21's extra point; ``None`` when the final had no winner (two ONR teams, R15)."""
    wg_places: Mapping[str, int] = field(default_factory=_empty)
    """Team → WG place 1–4 (R21); the 1st is the holder (R18)."""
    barred: frozenset[str] = frozenset()
    """Teams that cannot be promoted (R14)."""
    leaving: Mapping[str, LeaveReason] = field(default_factory=_empty)
    """Teams of the final tables that do not play the next season (R24)."""
    waiting_list: tuple[WaitingTeam, ...] = ()
    """The waiting list, in its order (R24)."""
    dummy_names: tuple[str, ...] = ()
    """Names for new dummy teams, used in order once the waiting list has run out (R24)."""


@dataclass(frozen=True)
class PlannedTeam:
    """One team of next season: where it comes from, where it goes, its code and stocks."""

    team: str
    from_division: str | None
    """``None`` for a team that joins."""
    rank: int | None
    """Final rank in ``from_division``; ``None`` for a team that joins."""
    move: PlanMove
    to: str
    code: int
    points: PointsBreakdown
    extra_goals: int
    great_saves: int
    vacancy: bool = False
    """Moved up into a leaving team's place (R24)."""
    newcomer: Newcomer | None = None
    """Where a joining team comes from."""
    waiting_list_entry: int | None = None
    """The caller's reference to the registration a waiting-list team comes from (the site's
    id of its waiting-list entry); the engine only carries it."""

    def as_dict(self) -> dict[str, Any]:
        """The team's line in ``season_plan --json``; ``vacancy``, ``dummy`` (a new dummy team,
        R24) and ``waiting_list_entry`` only when they apply."""
        line: dict[str, Any] = {
            "team": self.team,
            "from": self.from_division,
            "rank": self.rank,
            "move": self.move.value,
            "to": self.to,
            "code": self.code,
            "extra_goals": self.extra_goals,
            "great_saves": self.great_saves,
            "extra_goal_points": self.points.as_dict(),
        }
        if self.vacancy:
            line["vacancy"] = True
        if self.newcomer is Newcomer.DUMMY:
            line["dummy"] = True
        if self.waiting_list_entry is not None:
            line["waiting_list_entry"] = self.waiting_list_entry
        return line


@dataclass(frozen=True)
class LeavingTeam:
    """A team of the finished season that does not play the next (R24)."""

    team: str
    why: LeaveReason

    def as_dict(self) -> dict[str, str]:
        return {"team": self.team, "why": self.why.value}


@dataclass(frozen=True)
class WgTeam:
    """One of next season's WG twelve and why it is in (R18)."""

    team: str
    why: WgReason

    def as_dict(self) -> dict[str, str]:
        return {"team": self.team, "why": self.why.value}


@dataclass(frozen=True)
class SeasonPlan:
    """Next season: its teams, who leaves, the KDH's field and the WG's twelve."""

    from_season: int
    season: int
    teams: tuple[PlannedTeam, ...]
    """By next season's division (input order), then code."""
    leaving: tuple[LeavingTeam, ...]
    """By final table, then rank."""
    kdh: FirstRound
    """R17: ``qualifying`` plays the qualifying round, ``exempt`` enters later; each in
    division order, then code."""
    wg: tuple[WgTeam, ...]
    """R18's twelve, in berth order, freed places last."""
    draws: Mapping[str, tuple[Draw, ...]] = field(default_factory=_empty, compare=False)
    """Every draw the plan made, by its dice's seed (R23); not part of the document, so a plan
    read back by :meth:`from_dict` has none and still equals the plan it was written from."""

    def team(self, team: str) -> PlannedTeam:
        """The planned line of ``team`` (``KeyError`` when it is not in next season)."""
        for planned in self.teams:
            if planned.team == team:
                return planned
        raise KeyError(team)

    def divisions(self) -> dict[str, tuple[str, ...]]:
        """Next season's divisions: slug → teams by code."""
        lineup: dict[str, list[str]] = {}
        for planned in self.teams:
            lineup.setdefault(planned.to, []).append(planned.team)
        return {name: tuple(teams) for name, teams in lineup.items()}

    def as_dict(self) -> dict[str, Any]:
        """The ``season_plan --json`` document (``shared/SEASON.md``)."""
        return {
            "from_season": self.from_season,
            "season": self.season,
            "teams": [planned.as_dict() for planned in self.teams],
            "leaving": [team.as_dict() for team in self.leaving],
            "kdh": {
                "qualifying_round": list(self.kdh.qualifying),
                "enter_later": list(self.kdh.exempt),
            },
            "wg": [team.as_dict() for team in self.wg],
        }

    @classmethod
    def from_dict(
        cls, document: object, *, divisions: Sequence[tuple[str, int]] = STANDARD_DIVISIONS
    ) -> SeasonPlan:
        """The plan a ``season_plan --json`` document describes (perhaps edited by an admin),
        :meth:`as_dict`'s other half: ``SeasonPlan.from_dict(plan.as_dict()) == plan``.

        ``divisions`` (slug, tier), top first, each of :data:`~engine.season.DIVISION_SIZE`
        teams: the league the plan is for. Raises :class:`PlanError` with every problem at once
        when the document is not a plan of that league: teams in its divisions with codes
        01–12 once each (R16), stocks from 0 (R21), the KDH's field split as R17 splits it, the
        WG's twelve of the plan's teams with their reasons (R18). Fields a start does not need
        may be left out: ``move`` (``stays``), ``from`` and ``rank`` (``null``),
        ``extra_goal_points`` (lines left out are 0), ``vacancy`` (false), ``leaving`` (none).

        >>> SeasonPlan.from_dict([])
        Traceback (most recent call last):
        ...
        engine.season_plan.PlanError: plan: not_an_object
        """
        return _PlanReader(divisions).read(document)

    def swapped(
        self,
        swaps: Iterable[tuple[str, str]],
        *,
        divisions: Sequence[tuple[str, int]] = STANDARD_DIVISIONS,
    ) -> SeasonPlan:
        """The plan with each swap ``(a, b)`` applied in turn: teams ``a`` and ``b`` exchange
        their division and code. R22: which group of its tier a team joins is the admin's
        decision; R16: only two teams of the same tier that move the same way swap, so the D3
        codes 01–02 stay with the relegated teams. Any other pair is passed over."""
        tiers = dict(divisions)
        lines = {planned.team: planned for planned in self.teams}
        for first, second in swaps:
            a, b = lines.get(first), lines.get(second)
            if a is None or b is None or a.move is not b.move or tiers.get(a.to) != tiers.get(b.to):
                continue
            lines[first] = replace(a, to=b.to, code=b.code)
            lines[second] = replace(b, to=a.to, code=a.code)
        return replace(self, teams=tuple(lines[planned.team] for planned in self.teams))


class PlanFault(enum.Enum):
    """What is wrong with a plan document (:meth:`SeasonPlan.from_dict`): the code each
    :class:`PlanProblem` carries, so that a caller words it in its own language. The values are
    stable codes; each names the facts its problem carries."""

    NOT_AN_OBJECT = "not_an_object"
    """The document is not an object (a JSON ``{…}``)."""
    FROM_SEASON = "from_season"
    """``from_season`` is not a season number (a whole number from 1)."""
    SEASON = "season"
    """``season`` is not the one after ``from_season`` (``number``: the one it must be)."""
    TEAMS = "teams"
    """``teams`` is not a list."""
    TEAM_NOT_AN_OBJECT = "team_not_an_object"
    """A line of ``teams`` is not an object (``where``: ``teams[i]``)."""
    TEAM_MISSING = "team_missing"
    """A line of ``teams`` names no team (``where``)."""
    DIVISION = "division"
    """``to`` is not a division of the league (``where``, ``known``: the divisions)."""
    FROM_DIVISION = "from_division"
    """``from`` is neither a division of the league nor null (``where``, ``known``)."""
    RANK = "rank"
    """``rank`` is neither a whole number from 1 nor null (``where``)."""
    CODE = "code"
    """``code`` is not 1 to 12 (``where``)."""
    STOCK = "stock"
    """``extra_goals`` or ``great_saves`` is not a whole number from 0 (``where``, ``stock``)."""
    MOVE = "move"
    """``move`` is not a move (``where``, ``moves``: the moves)."""
    POINTS = "points"
    """``extra_goal_points`` is not R21's lines, each a whole number (``where``, ``lines``)."""
    VACANCY = "vacancy"
    """``vacancy`` is not true or false (``where``)."""
    WAITING_LIST_ENTRY = "waiting_list_entry"
    """``waiting_list_entry`` is not an id, a whole number from 1 (``where``)."""
    TEAM_COUNT = "team_count"
    """Not every place of the league has its team (``count``, ``size``: the league's)."""
    TEAM_TWICE = "team_twice"
    """A team is in the plan more than once (``team``, ``count``)."""
    DIVISION_SIZE = "division_size"
    """A division has too many or too few teams (``division``, ``count``, ``size``)."""
    CODE_TWICE = "code_twice"
    """R16: a code given more than once in a division (``code``, ``count``, ``division``,
    ``teams``: the teams that have it, comma-separated)."""
    LEAVING = "leaving"
    """``leaving`` is not a list."""
    LEAVING_ENTRY = "leaving_entry"
    """A line of ``leaving`` lacks its team or its reason (``index``)."""
    LEAVING_PLAYS = "leaving_plays"
    """A team is leaving and in the plan's teams too (``team``)."""
    KDH = "kdh"
    """``kdh`` does not list ``qualifying_round`` and ``enter_later`` as team slugs."""
    KDH_FIELD = "kdh_field"
    """R17: the KDH's qualifying round is not the one the plan's codes make (``count``: how
    many teams play it)."""
    WG = "wg"
    """``wg`` is not a list of teams, each with its reason (R18)."""
    WG_COUNT = "wg_count"
    """R18: the WG has not twelve different teams (``count``: how many it has)."""
    WG_STRANGER = "wg_stranger"
    """A WG team that is not among the plan's teams (``team``)."""
    WG_REASON = "wg_reason"
    """A WG team's reason is not one of R18's (``team``, ``reasons``)."""


@dataclass(frozen=True)
class PlanProblem:
    """One problem of a plan document: its code and the facts its message needs."""

    fault: PlanFault
    facts: Mapping[str, str | int] = field(default_factory=_empty)

    def __str__(self) -> str:
        facts = ", ".join(f"{key}={value!r}" for key, value in self.facts.items())
        return f"{self.fault.value} ({facts})" if facts else self.fault.value


class PlanError(EngineError):
    """A plan document that is not a plan of the league: ``problems`` lists every problem, each
    with its code (:class:`PlanFault`), in the document's order.

    >>> str(PlanError([PlanProblem(PlanFault.SEASON, {"number": 2})]))
    'plan: season (number=2)'
    """

    def __init__(self, problems: Iterable[PlanProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("plan: " + "; ".join(str(problem) for problem in self.problems))


def _whole(value: object, low: int | None = None, high: int | None = None) -> TypeGuard[int]:
    """A whole number within bounds; JSON's ``true`` is a Python int, but not a number."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (low is None or value >= low)
        and (high is None or value <= high)
    )


def _slug(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


POINT_LINES = tuple(PointsBreakdown().as_dict())
"""R21's lines of a team's extra-goal points, in the document's order."""


class _PlanReader:
    """One document read by :meth:`SeasonPlan.from_dict`, its problems gathered as it goes."""

    def __init__(self, divisions: Sequence[tuple[str, int]]) -> None:
        self.tiers = dict(divisions)
        self.size = DIVISION_SIZE * len(self.tiers)
        self.problems: list[PlanProblem] = []

    def problem(self, fault: PlanFault, **facts: str | int) -> None:
        self.problems.append(PlanProblem(fault, MappingProxyType(facts)))

    def read(self, document: object) -> SeasonPlan:
        if not isinstance(document, Mapping):
            raise PlanError([PlanProblem(PlanFault.NOT_AN_OBJECT)])
        from_season, season = document.get("from_season"), document.get("season")
        if not _whole(from_season, 1):
            self.problem(PlanFault.FROM_SEASON)
        elif season != from_season + 1:
            self.problem(PlanFault.SEASON, number=from_season + 1)
        teams = self.teams(document.get("teams"))
        slugs = {planned.team for planned in teams}
        leaving = self.leaving(document.get("leaving", []), slugs)
        kdh = self.kdh(document.get("kdh"), teams)
        wg = self.wg(document.get("wg"), slugs)
        if self.problems:
            raise PlanError(self.problems)
        # Checked above: both are whole numbers once no problem was found.
        return SeasonPlan(
            from_season=cast(int, from_season),
            season=cast(int, season),
            teams=tuple(teams),
            leaving=leaving,
            kdh=kdh,
            wg=wg,
        )

    def teams(self, items: object) -> list[PlannedTeam]:
        if not isinstance(items, list):
            self.problem(PlanFault.TEAMS)
            return []
        teams = [
            planned
            for index, item in enumerate(items)
            if (planned := self.team(f"teams[{index}]", item)) is not None
        ]
        if len(items) != self.size:
            self.problem(PlanFault.TEAM_COUNT, count=len(items), size=self.size)
        for team, count in sorted(Counter(planned.team for planned in teams).items()):
            if count > 1:
                self.problem(PlanFault.TEAM_TWICE, team=team, count=count)
        by_division = Counter(planned.to for planned in teams)
        for division in self.tiers:
            if by_division[division] != DIVISION_SIZE and len(teams) == len(items):
                self.problem(
                    PlanFault.DIVISION_SIZE,
                    division=division,
                    count=by_division[division],
                    size=DIVISION_SIZE,
                )
        codes = Counter((planned.to, planned.code) for planned in teams)
        for (division, code), count in sorted(codes.items()):
            if count > 1:
                clash = sorted(t.team for t in teams if (t.to, t.code) == (division, code))
                self.problem(
                    PlanFault.CODE_TWICE,
                    code=code,
                    count=count,
                    division=division,
                    teams=", ".join(clash),
                )
        return teams

    def team(self, where: str, item: object) -> PlannedTeam | None:
        """One line of ``teams``, or ``None`` when it has a problem (reported)."""
        if not isinstance(item, Mapping):
            self.problem(PlanFault.TEAM_NOT_AN_OBJECT, where=where)
            return None
        before = len(self.problems)
        team, to, code = item.get("team"), item.get("to"), item.get("code")
        if not _slug(team):
            self.problem(PlanFault.TEAM_MISSING, where=where)
        else:
            where = f"{where} ({team})"
        known = ", ".join(self.tiers)
        if to not in self.tiers:
            self.problem(PlanFault.DIVISION, where=where, known=known)
        from_division, rank = item.get("from"), item.get("rank")
        if from_division is not None and from_division not in self.tiers:
            self.problem(PlanFault.FROM_DIVISION, where=where, known=known)
        if rank is not None and not _whole(rank, 1):
            self.problem(PlanFault.RANK, where=where)
        if not _whole(code, 1, DIVISION_SIZE):
            self.problem(PlanFault.CODE, where=where)
        for stock in ("extra_goals", "great_saves"):
            if not _whole(item.get(stock), 0):
                self.problem(PlanFault.STOCK, where=where, stock=stock)
        move = item.get("move", PlanMove.STAYS.value)
        moves = [m.value for m in PlanMove]
        if move not in moves:
            self.problem(PlanFault.MOVE, where=where, moves=", ".join(moves))
        points = item.get("extra_goal_points", {})
        if not isinstance(points, Mapping) or not all(
            name in POINT_LINES and _whole(value) for name, value in points.items()
        ):
            self.problem(PlanFault.POINTS, where=where, lines=", ".join(POINT_LINES))
        vacancy = item.get("vacancy", False)
        if not isinstance(vacancy, bool):
            self.problem(PlanFault.VACANCY, where=where)
        waiting = item.get("waiting_list_entry")
        if waiting is not None and not _whole(waiting, 1):
            self.problem(PlanFault.WAITING_LIST_ENTRY, where=where)
        if len(self.problems) > before:
            return None
        joined = move == PlanMove.JOINED.value
        newcomer = None
        if joined:
            newcomer = Newcomer.DUMMY if item.get("dummy") is True else Newcomer.WAITING_LIST
        # Checked above: each field has its type once no problem was found.
        return PlannedTeam(
            team=cast(str, team).strip(),
            from_division=from_division,
            rank=rank,
            move=PlanMove(move),
            to=cast(str, to),
            code=cast(int, code),
            points=PointsBreakdown(**points),
            extra_goals=item["extra_goals"],
            great_saves=item["great_saves"],
            vacancy=vacancy,
            newcomer=newcomer,
            waiting_list_entry=waiting,
        )

    def leaving(self, items: object, slugs: set[str]) -> tuple[LeavingTeam, ...]:
        if not isinstance(items, list):
            self.problem(PlanFault.LEAVING)
            return ()
        reasons = [why.value for why in LeaveReason]
        leaving = []
        for index, item in enumerate(items):
            team = item.get("team") if isinstance(item, Mapping) else None
            if not _slug(team) or item.get("why") not in reasons:
                self.problem(PlanFault.LEAVING_ENTRY, index=index)
            elif team in slugs:
                self.problem(PlanFault.LEAVING_PLAYS, team=team)
            else:
                leaving.append(LeavingTeam(team, LeaveReason(item["why"])))
        return tuple(leaving)

    def kdh(self, value: object, teams: list[PlannedTeam]) -> FirstRound:
        """R17: the qualifying round and the teams entering later are the plan's teams, and
        the qualifying round is the one the plan's codes make."""
        keys = ("qualifying_round", "enter_later")
        if not isinstance(value, Mapping) or not all(
            isinstance(value.get(key), list) and all(_slug(t) for t in value[key]) for key in keys
        ):
            self.problem(PlanFault.KDH)
            return FirstRound((), ())
        opening = FirstRound(tuple(value["qualifying_round"]), tuple(value["enter_later"]))
        if len({t.team for t in teams}) != self.size:
            return opening  # the count is reported already; the split would mean nothing
        entrants = [Entrant(t.team, self.tiers[t.to], t.code) for t in teams]
        # A full league's split needs no die (R17: the D3 teams with codes 03–12 qualify).
        expected = split_field(entrants, Dice("plan-check"))
        if sorted(opening.qualifying) != sorted(expected.qualifying) or sorted(
            opening.exempt
        ) != sorted(expected.exempt):
            self.problem(PlanFault.KDH_FIELD, count=len(expected.qualifying))
        return opening

    def wg(self, value: object, slugs: set[str]) -> tuple[WgTeam, ...]:
        if not isinstance(value, list) or not all(
            isinstance(item, Mapping) and _slug(item.get("team")) for item in value
        ):
            self.problem(PlanFault.WG)
            return ()
        teams = [item["team"] for item in value]
        if len(teams) != WG_TEAMS or len(set(teams)) != WG_TEAMS:
            self.problem(PlanFault.WG_COUNT, count=len(set(teams)))
        reasons = [why.value for why in WgReason]
        chosen = []
        for item in value:
            if item["team"] not in slugs and slugs:
                self.problem(PlanFault.WG_STRANGER, team=item["team"])
            if item.get("why") not in reasons:
                self.problem(PlanFault.WG_REASON, team=item["team"], reasons=", ".join(reasons))
            else:
                chosen.append(WgTeam(item["team"], WgReason(item["why"])))
        return tuple(chosen)


def _check(end: SeasonEnd) -> None:
    """Refuses input the plan cannot use (R22's own checks are :mod:`engine.promotion`'s)."""
    teams: set[str] = set()
    for index, table in enumerate(end.tables):
        for rank, row in enumerate(table.rows, start=1):
            if row.rank != rank:
                raise InputError(
                    f"tables[{index}].rows[{rank - 1}].rank",
                    f"rows must be in rank order 1…n: {row.team!r} is ranked {row.rank}",
                )
            teams.add(row.team)
    named: list[tuple[str, object]] = [
        *((f"kdh_wins.{t}", t) for t in end.kdh_wins),
        *((f"shutouts.{t}", t) for t in end.shutouts),
        *((f"kdh_finalists[{i}]", t) for i, t in enumerate(end.kdh_finalists)),
        ("kdh_winner", end.kdh_winner),
        *((f"wg_places.{t}", t) for t in end.wg_places),
        *((f"barred[{i}]", t) for i, t in enumerate(sorted(end.barred))),
        *((f"leaving.{t}", t) for t in end.leaving),
    ]
    for where, team in named:
        if team is not None and team not in teams:
            raise InputError(where, f"unknown team {team!r}")
    for team, why in end.leaving.items():
        if not isinstance(why, LeaveReason):
            raise InputError(f"leaving.{team}", f"must be a LeaveReason, not {why!r}")
    taken = set(teams)
    newcomers = [
        *((f"waiting_list[{i}]", w.team) for i, w in enumerate(end.waiting_list)),
        *((f"dummy_names[{i}]", name) for i, name in enumerate(end.dummy_names)),
    ]
    for where, team in newcomers:
        if team in taken:
            raise InputError(where, f"{team!r} is already a team's name")
        taken.add(team)


class _Planner:
    """One plan in the making: the next season's lineups, filled step by step."""

    def __init__(self, end: SeasonEnd) -> None:
        _check(end)
        self.end = end
        self.rows = {row.team: (table, row) for table in end.tables for row in table.rows}
        self.dice: list[Dice] = []
        divisions = [
            Division(t.division, t.tier, tuple(row.team for row in t.rows)) for t in end.tables
        ]
        self.moves: dict[str, Move] = {
            move.team: move
            for move in promotion_moves(divisions, sorted(end.barred), list(end.leaving))
        }
        placed = place_moves(divisions, list(self.moves.values()), leaving=list(end.leaving))
        self.lineup = {name: list(teams) for name, teams in placed.items()}
        self.vacancy: set[str] = set()
        self.newcomers: dict[str, Newcomer] = {}

    def dice_for(self, what: str) -> Dice:
        """The plan's dice for ``what``, seeded from the finished season (R23), kept for the
        record."""
        dice = Dice(f"{self.end.seed}/{what}")
        self.dice.append(dice)
        return dice

    def fill_vacancies(self) -> None:
        """R24: every place short, top tier first; the lowest tier's from outside the league."""
        dice = self.dice_for("vacancies")
        waiting = list(self.end.waiting_list)
        dummies = list(self.end.dummy_names)
        lowest = max(table.tier for table in self.end.tables)
        for table in sorted(self.end.tables, key=lambda t: t.tier):
            short = len(table.rows) - len(self.lineup[table.division])
            for number in range(1, short + 1):
                if table.tier < lowest:
                    self._move_up(table, dice, f"vacancy.{table.division}.{number}")
                elif waiting:
                    newcomer = waiting.pop(0)
                    self.lineup[table.division].append(newcomer.team)
                    self.newcomers[newcomer.team] = Newcomer.WAITING_LIST
                elif dummies:
                    name = dummies.pop(0)
                    self.lineup[table.division].append(name)
                    self.newcomers[name] = Newcomer.DUMMY
                else:
                    raise InputError("dummy_names", "too few names for the new dummy teams")

    def _move_up(self, table: FinalTable, dice: Dice, what: str) -> None:
        """The best remaining team of the tier below takes a place short in ``table``'s
        division (R24)."""
        below = [t for t in self.end.tables if t.tier == table.tier + 1]
        home = {
            row.team: (t.division, (row.rank, tie_key(row)))
            for t in below
            for row in t.rows
            if row.team not in self.moves
            and row.team not in self.vacancy
            and row.team not in self.end.barred
            and row.team not in self.end.leaving
        }
        if not home:
            raise InputError(
                "tables",
                f"too few eligible teams in tier {table.tier + 1} to fill {table.division}",
            )
        # Best rank in its group, then R9 between groups, then a die (R24).
        best = min(key for _, key in home.values())
        tied = sorted(team for team, (_, key) in home.items() if key == best)
        team = tied[0] if len(tied) == 1 else dice.choice(what, tied)
        self.lineup[home[team][0]].remove(team)
        self.lineup[table.division].append(team)
        self.vacancy.add(team)

    def codes(self) -> dict[str, int]:
        """R16: codes per division; in the lowest tier, 01 and 02 to the relegated teams."""
        lowest = max(table.tier for table in self.end.tables)
        codes: dict[str, int] = {}
        for table in self.end.tables:
            teams = self.lineup[table.division]
            relegated = [
                team
                for team in teams
                if table.tier == lowest
                and team in self.moves
                and self.moves[team].direction is Direction.DOWN
            ]
            codes |= draw_codes(
                teams, self.dice_for(f"codes/{table.division}"), relegated=relegated
            )
        return codes

    def _barred(self, team: str, table: FinalTable) -> bool:
        """R14, R22: would ``team`` have gone up but for its own bar?"""
        others = (set(self.end.barred) | set(self.end.leaving)) - {team}
        ranking = [row.team for row in table.rows]
        up, _ = division_zones(table.tier, ranking, others)
        return any(promoted == team for _, promoted in up)

    def planned(self, team: str, to: str, code: int) -> PlannedTeam:
        """``team``'s line: its move and its stocks (R21)."""
        if team in self.newcomers:
            newcomer = self.newcomers[team]
            veteran = any(w.team == team and w.veteran for w in self.end.waiting_list)
            points = PointsBreakdown(veteran=VETERAN_POINTS if veteran else 0)
            stocks = stocks_for(points.total, 0)
            return PlannedTeam(
                team=team,
                from_division=None,
                rank=None,
                move=PlanMove.JOINED,
                to=to,
                code=code,
                points=points,
                extra_goals=stocks.extra_goals,
                great_saves=stocks.great_saves if newcomer is Newcomer.WAITING_LIST else 0,
                newcomer=newcomer,
            )
        table, row = self.rows[team]
        move = self.moves.get(team)
        promoted = team in self.vacancy or (move is not None and move.direction is Direction.UP)
        relegated = move is not None and move.direction is Direction.DOWN
        record = SeasonRecord(
            championship_wins=row.wins,
            kdh_wins=self.end.kdh_wins.get(team, 0),
            kdh_winner=team == self.end.kdh_winner,
            division_rank=row.rank,
            promoted=promoted,
            relegated=relegated,
            veteran=True,
            wg_rank=self.end.wg_places.get(team),
            shutouts=self.end.shutouts.get(team, 0),
        )
        if promoted:
            kind = PlanMove.PROMOTED
        elif relegated:
            kind = PlanMove.RELEGATED
        elif team in self.end.barred and self._barred(team, table):
            kind = PlanMove.BARRED
        else:
            kind = PlanMove.STAYS
        stocks = stocks_for(record.points, record.shutouts)
        return PlannedTeam(
            team=team,
            from_division=table.division,
            rank=row.rank,
            move=kind,
            to=to,
            code=code,
            points=record.breakdown,
            extra_goals=stocks.extra_goals,
            great_saves=stocks.great_saves,
            vacancy=team in self.vacancy,
        )

    def wg(self) -> tuple[WgTeam, ...]:
        """R18's twelve from the finished season, over the teams that stay in the league."""

        def staying(team: str | None) -> str | None:
            return None if team is None or team in self.end.leaving else team

        holder = next((team for team, place in self.end.wg_places.items() if place == 1), None)
        finalists = list(self.end.kdh_finalists)
        chosen = qualifiers(
            division_winners=[staying(table.rows[0].team) for table in self.end.tables],
            kdh_finalists=[staying(team) for team in finalists],
            holder=staying(holder),
            records=[
                GoalRecord(row.team, row.goals_for, row.goals_against)
                for table in self.end.tables
                for row in table.rows
                if row.team not in self.end.leaving
            ],
            dice=self.dice_for("wg"),
        )
        reasons = {
            (Berth.DIVISION_WINNER, False): WgReason.DIVISION_WINNER,
            (Berth.KDH_FINALIST, False): WgReason.KDH_FINALIST,
            (Berth.HOLDER, False): WgReason.HOLDER,
            (Berth.MOST_GOALS, False): WgReason.MOST_GOALS,
            (Berth.FEWEST_GOALS_AGAINST, False): WgReason.FEWEST_AGAINST,
            (Berth.MOST_GOALS, True): WgReason.NEXT_MOST_GOALS,
            (Berth.FEWEST_GOALS_AGAINST, True): WgReason.NEXT_FEWEST_AGAINST,
        }
        return tuple(
            WgTeam(
                q.team,
                WgReason.KDH_WINNER
                if q.berth is Berth.KDH_FINALIST and q.team == self.end.kdh_winner
                else reasons[(q.berth, q.freed_place)],
            )
            for q in chosen
        )


def season_plan(end: SeasonEnd) -> SeasonPlan:
    """Next season's plan from the finished season (R16–R18, R21, R22, R24); see the module.

    Raises :class:`~engine.errors.InputError` for input it cannot use; its ``field`` names
    where, by :class:`SeasonEnd`'s names, but for R22's checks of the tables' shape (tiers,
    sizes, a team twice), which name ``divisions[i]``: the ``i``-th table.
    """
    planner = _Planner(end)
    planner.fill_vacancies()
    codes = planner.codes()
    order = {table.division: index for index, table in enumerate(end.tables)}
    tier = {table.division: table.tier for table in end.tables}
    placed = sorted(
        ((to, codes[team], team) for to, teams in planner.lineup.items() for team in teams),
        key=lambda line: (order[line[0]], line[1]),
    )
    teams = tuple(planner.planned(team, to, code) for to, code, team in placed)
    field_split = split_field(
        [Entrant(team, tier[to], code) for to, code, team in placed], planner.dice_for("kdh/field")
    )
    position = {team: index for index, (_, _, team) in enumerate(placed)}
    kdh = FirstRound(
        qualifying=tuple(sorted(field_split.qualifying, key=position.__getitem__)),
        exempt=tuple(sorted(field_split.exempt, key=position.__getitem__)),
    )
    wg = planner.wg()
    leaving = tuple(
        LeavingTeam(row.team, end.leaving[row.team])
        for table in end.tables
        for row in table.rows
        if row.team in end.leaving
    )
    return SeasonPlan(
        from_season=end.season,
        season=end.season + 1,
        teams=teams,
        leaving=leaving,
        kdh=kdh,
        wg=wg,
        draws=MappingProxyType({dice.seed: tuple(dice.draws) for dice in planner.dice}),
    )


__all__ = [
    "POINT_LINES",
    "FinalTable",
    "LeaveReason",
    "LeavingTeam",
    "Newcomer",
    "PlanError",
    "PlanFault",
    "PlanMove",
    "PlanProblem",
    "PlannedTeam",
    "SeasonEnd",
    "SeasonPlan",
    "WaitingTeam",
    "WgReason",
    "WgTeam",
    "season_plan",
]
