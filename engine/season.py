"""A whole season, week by week: championship, KDH, WG, standings and season end.

:func:`play_season` plays a season from a :class:`SeasonSetup` (the league, its stocks, its WG
teams and a seed) and a *pick source*, a callback that answers a :class:`PickRequest` with a
:class:`~engine.notation.Pick` or ``None`` (no picks received, ONR). Without one, every coach
plays :func:`random_picks`. Everything else is the engine's: the calendar (R20), matrices (R19),
team codes (R16), the KDH (R17) and WG (R18) draws, rounds (R1–R8, R11, R15), stocks shared by
the week's priority (R6), ONR sanctions (R14), standings (R9), next season's stocks (R21) and
promotion (R22). Every draw comes from a seed derived from the season's seed per pool and round
(R23), so the same setup and the same picks give the same season.

>>> setup = standard_setup("demo")
>>> season = play_season(setup)
>>> len(season.tables), len(season.wg_ranking), season.kdh_winner is not None
(7, 4, True)
>>> play_season(setup) == season
True

Our decisions where the rules are silent:

* each week, every team is asked for all its picks before any of the week's rounds is played,
  knowing only what it had left at the start of the week (so two picks the same week may
  clash; the round redraws the later one, R11);
* a team replaced at its third ONR (R14) is played by a dummy for the rest of the season; the
  demo league has no waiting list (a real replacement is the site's business);
* a KDH round whose double forfeits leave an odd number of teams gives the last team of the
  next draw a bye (``kdh.bye.<round>``); a KDH whose final is lost by two ONR teams has no
  winner;
* the first season's WG teams (an admin's choice, R18) default to twelve teams drawn at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.calendar import (
    SEASON_WEEKS,
    Fixture,
    SeasonCompetition,
    round_robin,
    rounds_in_week,
)
from engine.codes import draw_codes
from engine.competitions import Competition, rules_for
from engine.dice import Dice, Draw
from engine.errors import InputError
from engine.game import MatchResult, Round, RoundResult, TeamEntry, play_round
from engine.kdh import Entrant, FirstRound, draw_pairings, final_places, split_field
from engine.matrices import Matrix, draw_matrix
from engine.notation import Pick
from engine.promotion import Direction, Division, Move, place_moves, promotion_moves
from engine.quotas import columns_left, values_left
from engine.season_end import BASE_GREAT_SAVES, NextStocks, SeasonRecord, next_stocks
from engine.standings import StandingRow, standings
from engine.week import Replacement, StockRequest, allot_stocks, onr_sanction
from engine.wg import (
    FINAL_ROUND,
    GROUP_NAMES,
    GROUP_ROUNDS,
    WG_TEAMS,
    GoalRecord,
    Qualifier,
    admin_qualifiers,
    draw_groups,
    draw_semi_finals,
    final_games,
    final_ranking,
    group_rounds,
    qualifiers,
    round_kind,
    semi_finalists,
)

DIVISION_SIZE = 12
"""Each division has twelve teams: eleven rounds, one per championship column (R19, R20)."""

STANDARD_DIVISIONS = (
    ("elite", 1),
    ("d2a", 2),
    ("d2b", 2),
    ("d3a", 3),
    ("d3b", 3),
    ("d3c", 3),
    ("d3d", 3),
)
"""The league's seven divisions (slug, tier), top first."""


@dataclass(frozen=True)
class DivisionSetup:
    """A division at the start of a season: its name, tier (1 Elite … 3 D3) and twelve teams."""

    name: str
    tier: int
    teams: tuple[str, ...]


@dataclass(frozen=True)
class SeasonSetup:
    """What a season starts from."""

    seed: str
    """Every draw of the season derives from it (R23)."""
    divisions: tuple[DivisionSetup, ...]
    stocks: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Team → (extra goals, great saves) at the start; absent teams get (0, 2) (R21's base)."""
    wg_teams: tuple[str, ...] | None = None
    """The WG's twelve (last season's qualifiers, or an admin's); ``None``: twelve drawn."""
    relegated_into: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """D3 group → the teams relegated into it from D2, who get codes 01 and 02 (R16)."""
    matrices: Mapping[SeasonCompetition, Matrix] | None = None
    """Admin-edited matrices (R19); ``None`` or a missing competition: drawn from the seed."""


@dataclass(frozen=True)
class PickRequest:
    """What a coach knows when sending one pick: the round, the opponent and what is left.

    ``extra_goals`` and ``great_saves`` are the stocks at the start of the week; the week's
    picks share them (R6).
    """

    team: str
    competition: Competition
    round_number: int
    week: int
    opponent: str
    matrix_row: Mapping[str, int]
    columns_left: tuple[str, ...]
    extra_time_left: tuple[str, ...]
    """Each value still allowed, once (R7)."""
    shootout_left: tuple[str, ...]
    """KDH only; empty elsewhere."""
    extra_goals: int
    great_saves: int


PickSource = Callable[[PickRequest], Pick | None]
"""A coach (or a script): the pick for a request, or ``None`` for no picks received (ONR)."""


@dataclass(frozen=True)
class Used:
    """What a team has played in one competition this season (R7, R19)."""

    columns: tuple[str, ...] = ()
    extra_time: tuple[str, ...] = ()
    shootout: tuple[str, ...] = ()


@dataclass(frozen=True)
class TeamState:
    """A team at the end of the season (or at any point the driver reports it)."""

    team: str
    division: str
    tier: int
    code: int
    extra_goals: int
    """Extra goals left (R6; unused ones are lost at the season's end, R21)."""
    great_saves: int
    extra_goals_removed: int
    """Extra goals taken away by ONR sanctions (R14)."""
    great_saves_removed: int
    used: Mapping[SeasonCompetition, Used]
    onr: int
    """Sanctioned ONRs this season (R14: championship and WG group stage, once a week)."""
    barred: bool
    """Cannot be promoted this season (second ONR, R14)."""
    dummy: bool
    """Replaced by a dummy team after a third ONR (R14)."""


@dataclass(frozen=True)
class PlayedRound:
    """One round of one pool as played: where, when, its seed (R23) and its result."""

    competition: Competition
    pool: str
    """A division's name, ``kdh`` or ``wg``."""
    round_number: int
    week: int
    seed: str
    result: RoundResult


@dataclass(frozen=True)
class SeasonResult:
    """Everything a season produced, and what the next one starts from."""

    setup: SeasonSetup
    matrices: Mapping[SeasonCompetition, Matrix]
    codes: Mapping[str, int]
    rounds: tuple[PlayedRound, ...]
    tables: Mapping[str, tuple[StandingRow, ...]]
    """Division → final table (R9)."""
    kdh_first_round: FirstRound
    kdh_finalists: tuple[str, ...]
    kdh_winner: str | None
    wg_teams: tuple[str, ...]
    wg_groups: tuple[tuple[str, ...], ...]
    wg_tables: tuple[tuple[StandingRow, ...], ...]
    wg_ranking: Mapping[str, int]
    """WG places 1–4."""
    teams: Mapping[str, TeamState]
    records: Mapping[str, SeasonRecord]
    next_stocks: Mapping[str, NextStocks]
    moves: tuple[Move, ...]
    next_divisions: Mapping[str, tuple[str, ...]]
    next_wg: tuple[Qualifier, ...]
    draws: Mapping[str, tuple[Draw, ...]]
    """The season's own draws (matrices, codes, cup draws, standings dice), by seed (R23);
    each round's draws are in its :attr:`PlayedRound.result`."""

    def next_setup(self, seed: str) -> SeasonSetup:
        """Next season's setup: divisions after promotion, new stocks, WG qualifiers (R16–R22).

        >>> season = play_season(standard_setup("one"))
        >>> nxt = season.next_setup("two")
        >>> [len(d.teams) for d in nxt.divisions], len(nxt.wg_teams)
        ([12, 12, 12, 12, 12, 12, 12], 12)
        """
        tiers = {d.name: d.tier for d in self.setup.divisions}
        relegated: dict[str, list[str]] = {}
        for move in self.moves:
            if move.direction is Direction.DOWN and move.to_tier == max(tiers.values()):
                home = next(n for n, teams in self.next_divisions.items() if move.team in teams)
                relegated.setdefault(home, []).append(move.team)
        return SeasonSetup(
            seed=seed,
            divisions=tuple(
                DivisionSetup(name, tiers[name], teams)
                for name, teams in self.next_divisions.items()
            ),
            stocks={t: (s.extra_goals, s.great_saves) for t, s in self.next_stocks.items()},
            wg_teams=tuple(q.team for q in self.next_wg),
            relegated_into={name: tuple(teams) for name, teams in relegated.items()},
        )


def standard_setup(seed: str, stocks: Mapping[str, tuple[int, int]] | None = None) -> SeasonSetup:
    """The standard 84-team league (teams ``<division>-01`` … ``-12``), a first season.

    >>> [d.name for d in standard_setup("s").divisions]
    ['elite', 'd2a', 'd2b', 'd3a', 'd3b', 'd3c', 'd3d']
    """
    return SeasonSetup(
        seed=seed,
        divisions=tuple(
            DivisionSetup(name, tier, tuple(f"{name}-{i:02d}" for i in range(1, 13)))
            for name, tier in STANDARD_DIVISIONS
        ),
        stocks=dict(stocks or {}),
    )


def random_picks(seed: str, extra_goal_odds: float = 0.3) -> Callable[[PickRequest], Pick]:
    """Random legal picks (a :data:`PickSource` that never answers ONR): a column and values
    left, sometimes an extra goal or great save.

    >>> source = random_picks("s")
    >>> request = PickRequest("a", Competition.KDH, 1, 2, "b", {"A": 3}, ("A",), ("0",),
    ...                       ("5",), 0, 0)
    >>> source(request)
    Pick.parse('A(0)(5)')
    """
    rng = random.Random(seed)

    def pick(request: PickRequest) -> Pick:
        rules = rules_for(request.competition)
        extra_goals = int(request.extra_goals > 0 and rng.random() < extra_goal_odds)
        great_saves = int(
            rules.great_saves and request.great_saves > 0 and rng.random() < extra_goal_odds
        )
        return Pick(
            rng.choice(request.columns_left),
            rng.choice(request.extra_time_left),
            rng.choice(request.shootout_left) if request.shootout_left else None,
            extra_goals=extra_goals,
            great_saves=great_saves,
        )

    return pick


class _Team:
    """A team's running state during the season (mutable; :class:`TeamState` is its snapshot)."""

    __slots__ = (
        "barred",
        "code",
        "division",
        "dummy",
        "extra_goals",
        "extra_goals_removed",
        "great_saves",
        "great_saves_removed",
        "name",
        "onr",
        "tier",
        "used",
    )

    def __init__(self, name: str, division: str, tier: int, stocks: tuple[int, int]) -> None:
        self.name = name
        self.division = division
        self.tier = tier
        self.code = 0
        self.extra_goals, self.great_saves = stocks
        self.extra_goals_removed = 0
        self.great_saves_removed = 0
        self.used: dict[SeasonCompetition, tuple[list[str], list[str], list[str]]] = {
            competition: ([], [], []) for competition in SeasonCompetition
        }
        self.onr = 0
        self.barred = False
        self.dummy = False

    def snapshot(self) -> TeamState:
        return TeamState(
            team=self.name,
            division=self.division,
            tier=self.tier,
            code=self.code,
            extra_goals=self.extra_goals,
            great_saves=self.great_saves,
            extra_goals_removed=self.extra_goals_removed,
            great_saves_removed=self.great_saves_removed,
            used=MappingProxyType(
                {c: Used(*(tuple(values) for values in u)) for c, u in self.used.items()}
            ),
            onr=self.onr,
            barred=self.barred,
            dummy=self.dummy,
        )


@dataclass
class _Job:
    """One round of one pool waiting to be played this week."""

    competition: Competition
    pool: str
    round_number: int
    fixtures: tuple[Fixture, ...]
    group_goals: Mapping[str, int] = field(default_factory=dict)

    @property
    def season_competition(self) -> SeasonCompetition:
        return SeasonCompetition.of(self.competition)


class _Season:
    """The season being played: its teams, schedules and everything played so far."""

    def __init__(self, setup: SeasonSetup, picks: PickSource) -> None:
        self.setup = setup
        self.picks = picks
        self.seed = setup.seed
        self.teams: dict[str, _Team] = {}
        self.dice_used: list[Dice] = []
        self._check(setup)
        for division in setup.divisions:
            for team in division.teams:
                stocks = setup.stocks.get(team, (0, BASE_GREAT_SAVES))
                self.teams[team] = _Team(team, division.name, division.tier, stocks)
        given = setup.matrices or {}
        for competition, matrix in given.items():
            if matrix.competition is not competition:
                raise InputError(
                    f"matrices.{competition.value}", f"is the {matrix.competition.value} matrix"
                )
        self.matrices = {
            c: given.get(c) or draw_matrix(c, self._dice(f"{self.seed}/matrix/{c.value}"))
            for c in SeasonCompetition
        }
        self.schedules: dict[str, tuple[tuple[Fixture, ...], ...]] = {}
        for division in setup.divisions:
            codes = draw_codes(
                division.teams,
                self._dice(f"{self.seed}/codes/{division.name}"),
                relegated=setup.relegated_into.get(division.name, ()),
            )
            for team, code in codes.items():
                self.teams[team].code = code
            self.schedules[division.name] = round_robin(list(codes))
        self.played: list[PlayedRound] = []
        self.championship: dict[str, list[MatchResult]] = {d.name: [] for d in setup.divisions}
        # KDH (R17): the field split once; each round's teams drawn at the start of its week.
        self.kdh_first = split_field(
            [Entrant(t.name, t.tier, t.code) for t in self.teams.values()],
            self._dice(f"{self.seed}/kdh/field"),
        )
        self.kdh_teams: list[str] = list(self.kdh_first.qualifying or self.kdh_first.exempt)
        self.kdh_bye: str | None = None
        self.kdh_finalists: tuple[str, ...] = ()
        self.kdh_winner: str | None = None
        self.kdh_wins: dict[str, int] = dict.fromkeys(self.teams, 0)
        # WG (R18): twelve teams, three groups, six group rounds, then the knockout.
        if setup.wg_teams is None:
            drawn = self._dice(f"{self.seed}/wg/teams").shuffle("wg.teams", sorted(self.teams))
            self.wg_teams = tuple(drawn[:WG_TEAMS])
        else:
            self.wg_teams = admin_qualifiers(setup.wg_teams)
            for index, team in enumerate(self.wg_teams):
                if team not in self.teams:
                    raise InputError(f"wg_teams[{index}]", f"unknown team {team!r}")
        self.wg_groups = draw_groups(self.wg_teams, self._dice(f"{self.seed}/wg/groups"))
        self.wg_group_rounds = group_rounds(self.wg_groups)
        self.wg_group_matches: list[MatchResult] = []
        self.wg_tables: tuple[tuple[StandingRow, ...], ...] = ()
        self.wg_semis: tuple[MatchResult, ...] = ()
        self.wg_ranking: dict[str, int] = {}

    def _dice(self, seed: str) -> Dice:
        """A seeded generator for one of the season's own draws, kept for the record (R23)."""
        dice = Dice(seed)
        self.dice_used.append(dice)
        return dice

    @staticmethod
    def _check(setup: SeasonSetup) -> None:
        for index, division in enumerate(setup.divisions):
            if len(division.teams) != DIVISION_SIZE:
                raise InputError(
                    f"divisions[{index}].teams",
                    f"a division has {DIVISION_SIZE} teams, not {len(division.teams)}",
                )
        # R22's structure (tiers, balance, one team once) is checked before a ball is played.
        promotion_moves([Division(d.name, d.tier, d.teams) for d in setup.divisions])
        teams = {team for division in setup.divisions for team in division.teams}
        for team, stocks in setup.stocks.items():
            if team not in teams:
                raise InputError(f"stocks.{team}", f"unknown team {team!r}")
            if len(stocks) != 2 or any(
                isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in stocks
            ):
                raise InputError(
                    f"stocks.{team}", f"must be (extra goals, great saves) ≥ 0, not {stocks!r}"
                )
        names = {division.name for division in setup.divisions}
        for name in setup.relegated_into:
            if name not in names:
                raise InputError(f"relegated_into.{name}", f"unknown division {name!r}")

    # The week's rounds --------------------------------------------------------------------

    def jobs(self, week: int) -> list[_Job]:
        """The rounds played this week (stocks are shared out before any is played, R6)."""
        rounds = rounds_in_week(week)
        jobs = [
            _Job(Competition.CHAMPIONSHIP, name, r, self.schedules[name][r - 1])
            for r in rounds["championship"]
            for name in self.schedules
        ]
        jobs += [self._wg_job(r) for r in rounds["wg"]]
        jobs += [job for r in rounds["kdh"] if (job := self._kdh_job(r)) is not None]
        return jobs

    def _wg_job(self, round_number: int) -> _Job:
        kind = round_kind(round_number)
        if kind is Competition.WG_GROUP:
            return _Job(kind, "wg", round_number, self.wg_group_rounds[round_number - 1])
        if round_number < FINAL_ROUND:
            semi = semi_finalists(self.wg_tables, self._dice(f"{self.seed}/wg/best-second"))
            fixtures = draw_semi_finals(semi, self._dice(f"{self.seed}/wg/semi-finals"))
        else:
            fixtures = final_games(self.wg_semis)
        goals = {row.team: row.goals_for for table in self.wg_tables for row in table}
        return _Job(kind, "wg", round_number, fixtures, goals)

    def _finish_wg_groups(self) -> None:
        self.wg_tables = tuple(
            tuple(
                standings(
                    group,
                    [m for m in self.wg_group_matches if m.home in group],
                    self._dice(f"{self.seed}/wg/standings/{name}"),
                )
            )
            for name, group in zip(GROUP_NAMES, self.wg_groups, strict=True)
        )

    def _kdh_job(self, round_number: int) -> _Job | None:
        teams = self.kdh_teams
        if len(teams) < 2:
            return None  # the cup is over (or was lost by two ONR finalists)
        dice = self._dice(f"{self.seed}/kdh/draw/{round_number}")
        self.kdh_bye = None
        if len(teams) % 2:
            # Our decision: double forfeits left an odd number of teams; the die gives a bye.
            self.kdh_bye = dice.choice(f"kdh.bye.{round_number}", sorted(teams))
            teams = [t for t in teams if t != self.kdh_bye]
        fixtures = draw_pairings(teams, dice, what=f"kdh.pairings.{round_number}")
        return _Job(Competition.KDH, "kdh", round_number, fixtures)

    # Picks and stocks ---------------------------------------------------------------------

    def ask(self, week: int, jobs: list[_Job]) -> dict[tuple[int, str], Pick | None]:
        """Every pick of the week, asked before any round is played (``(job, team)`` → pick)."""
        picks: dict[tuple[int, str], Pick | None] = {}
        for index, job in enumerate(jobs):
            rules = rules_for(job.competition)
            row = self.matrices[job.season_competition].row(job.round_number)
            for fixture in job.fixtures:
                for team, opponent in ((fixture.home, fixture.away), (fixture.away, fixture.home)):
                    state = self.teams[team]
                    if state.dummy:
                        continue
                    columns, extra_time, shootout = state.used[job.season_competition]
                    request = PickRequest(
                        team=team,
                        competition=job.competition,
                        round_number=job.round_number,
                        week=week,
                        opponent=opponent,
                        matrix_row=row,
                        columns_left=columns_left(rules.columns, columns),
                        # In the order R7 lists them, which the seeded random picks draw from.
                        extra_time_left=tuple(values_left(rules.extra_time_quota, extra_time)),
                        shootout_left=tuple(values_left(rules.shootout_quota or {}, shootout)),
                        extra_goals=state.extra_goals,
                        great_saves=state.great_saves,
                    )
                    picks[index, team] = self.picks(request)
        return picks

    def grants(
        self, jobs: list[_Job], picks: Mapping[tuple[int, str], Pick | None]
    ) -> dict[tuple[int, str], tuple[int, int]]:
        """R6: each pick's extra goals and great saves, as the team's stocks allow."""
        asked: dict[str, list[tuple[int, StockRequest]]] = {}
        for (index, team), pick in picks.items():
            if pick is not None:
                job = jobs[index]
                request = StockRequest(
                    job.competition, job.round_number, pick.extra_goals, pick.great_saves
                )
                asked.setdefault(team, []).append((index, request))
        granted: dict[tuple[int, str], tuple[int, int]] = {}
        for team, requests in asked.items():
            state = self.teams[team]
            allotment = allot_stocks(
                [request for _, request in requests],
                extra_goals=state.extra_goals,
                great_saves=state.great_saves,
            )
            for (index, _), grant in zip(requests, allotment.grants, strict=True):
                granted[index, team] = (grant.extra_goals, grant.great_saves)
        return granted

    # Playing ------------------------------------------------------------------------------

    def play_week(self, week: int) -> None:
        jobs = self.jobs(week)
        picks = self.ask(week, jobs)
        grants = self.grants(jobs, picks)
        onr_in: dict[str, list[Competition]] = {}
        for index, job in enumerate(jobs):
            competition = job.season_competition
            entries = {}
            for fixture in job.fixtures:
                for team in (fixture.home, fixture.away):
                    state = self.teams[team]
                    columns, extra_time, shootout = state.used[competition]
                    extra_goals, great_saves = grants.get((index, team), (0, 0))
                    entries[team] = TeamEntry(
                        pick=picks.get((index, team)),
                        used_columns=tuple(columns),
                        used_extra_time=tuple(extra_time),
                        used_shootout=tuple(shootout),
                        extra_goals=extra_goals,
                        great_saves=great_saves,
                        group_goals=job.group_goals.get(team, 0),
                        dummy=state.dummy,
                    )
            seed = f"{self.seed}/{job.competition.value}/{job.pool}/{job.round_number}"
            result = play_round(
                Round(
                    competition=job.competition,
                    seed=seed,
                    matrix_row=self.matrices[competition].row(job.round_number),
                    teams=entries,
                    fixtures=[(f.home, f.away) for f in job.fixtures],
                )
            )
            self.played.append(
                PlayedRound(job.competition, job.pool, job.round_number, week, seed, result)
            )
            self._record(job, result, onr_in)
        self._sanction(onr_in)

    def _record(self, job: _Job, result: RoundResult, onr_in: dict[str, list[Competition]]) -> None:
        competition = job.season_competition
        for team, played in result.teams.items():
            state = self.teams[team]
            # A played column always comes with its extra-time value (a forfeit has neither).
            if played.column is not None and played.extra_time is not None:
                columns, extra_time, shootout = state.used[competition]
                columns.append(played.column)
                extra_time.append(played.extra_time)
                if played.shootout is not None:
                    shootout.append(played.shootout)
            state.extra_goals -= played.extra_goals_used
            state.great_saves -= played.great_saves_used
            if played.onr:
                onr_in.setdefault(team, []).append(job.competition)
        if job.competition is Competition.CHAMPIONSHIP:
            self.championship[job.pool].extend(result.matches)
        elif job.competition is Competition.KDH:
            self._record_kdh(job, result)
        else:
            self._record_wg(job, result)

    def _record_kdh(self, job: _Job, result: RoundResult) -> None:
        for match in result.matches:
            if match.winner is not None:
                self.kdh_wins[match.winner] += 1
        qualified = list(result.qualified or ())
        if self.kdh_bye is not None:
            qualified.append(self.kdh_bye)
        if job.round_number == 1 and self.kdh_first.qualifying:
            qualified += self.kdh_first.exempt
        if len(job.fixtures) == 1 and self.kdh_bye is None:
            places = final_places(result.matches[0])
            self.kdh_finalists = tuple(places)
            self.kdh_winner = next((team for team, place in places.items() if place == 1), None)
            qualified = []
        self.kdh_teams = qualified

    def _record_wg(self, job: _Job, result: RoundResult) -> None:
        if job.competition is Competition.WG_GROUP:
            self.wg_group_matches.extend(result.matches)
            if job.round_number == GROUP_ROUNDS:
                self._finish_wg_groups()
        elif job.round_number < FINAL_ROUND:
            self.wg_semis = result.matches
        else:
            self.wg_ranking = final_ranking(*result.matches)

    def _sanction(self, onr_in: Mapping[str, list[Competition]]) -> None:
        """R14 after the week's rounds: each championship round ONR counts (R20's last week has
        two); a WG group-stage ONR the same week merges with a championship one."""
        for team, competitions in onr_in.items():
            state = self.teams[team]
            sanction = onr_sanction(
                onr_before=state.onr,
                onr_in=competitions,
                tier=state.tier,
                extra_goals=state.extra_goals,
                great_saves=state.great_saves,
                waiting_list=False,
            )
            state.onr = sanction.onr_count
            state.extra_goals -= sanction.extra_goals_removed
            state.great_saves -= sanction.great_saves_removed
            state.extra_goals_removed += sanction.extra_goals_removed
            state.great_saves_removed += sanction.great_saves_removed
            state.barred = state.barred or sanction.barred_from_promotion
            if sanction.replacement is Replacement.DUMMY:
                state.dummy = True

    # Season end ---------------------------------------------------------------------------

    def finish(self) -> SeasonResult:
        tables = {
            name: tuple(
                standings(
                    [t.name for t in self.teams.values() if t.division == name],
                    matches,
                    self._dice(f"{self.seed}/standings/{name}"),
                )
            )
            for name, matches in self.championship.items()
        }
        divisions = [
            Division(d.name, d.tier, tuple(row.team for row in tables[d.name]))
            for d in self.setup.divisions
        ]
        barred = sorted(t.name for t in self.teams.values() if t.barred)
        moves = promotion_moves(divisions, barred)
        moving = {move.team: move.direction for move in moves}
        shutouts = dict.fromkeys(self.teams, 0)
        for matches in self.championship.values():
            for match in matches:
                shutouts[match.home] += match.away_goals == 0
                shutouts[match.away] += match.home_goals == 0
        rows = {row.team: row for table in tables.values() for row in table}
        records = {
            team: SeasonRecord(
                championship_wins=rows[team].wins,
                kdh_wins=self.kdh_wins[team],
                kdh_winner=team == self.kdh_winner,
                division_rank=rows[team].rank,
                promoted=moving.get(team) is Direction.UP,
                relegated=moving.get(team) is Direction.DOWN,
                veteran=True,
                wg_rank=self.wg_ranking.get(team),
                shutouts=shutouts[team],
            )
            for team in self.teams
        }
        next_wg = qualifiers(
            division_winners=[tables[d.name][0].team for d in self.setup.divisions],
            kdh_finalists=list(self.kdh_finalists) or [None, None],
            holder=next((t for t, place in self.wg_ranking.items() if place == 1), None),
            records=[GoalRecord(r.team, r.goals_for, r.goals_against) for r in rows.values()],
            dice=self._dice(f"{self.seed}/wg/next-qualifiers"),
        )
        return SeasonResult(
            setup=self.setup,
            matrices=MappingProxyType(self.matrices),
            codes=MappingProxyType({t.name: t.code for t in self.teams.values()}),
            rounds=tuple(self.played),
            tables=MappingProxyType(tables),
            kdh_first_round=self.kdh_first,
            kdh_finalists=self.kdh_finalists,
            kdh_winner=self.kdh_winner,
            wg_teams=self.wg_teams,
            wg_groups=self.wg_groups,
            wg_tables=self.wg_tables,
            wg_ranking=MappingProxyType(self.wg_ranking),
            teams=MappingProxyType({t: s.snapshot() for t, s in self.teams.items()}),
            records=MappingProxyType(records),
            next_stocks=MappingProxyType({t: next_stocks(r) for t, r in records.items()}),
            moves=tuple(moves),
            next_divisions=MappingProxyType(place_moves(divisions, moves)),
            next_wg=next_wg,
            draws=MappingProxyType({d.seed: tuple(d.draws) for d in self.dice_used}),
        )


def play_season(setup: SeasonSetup, picks: PickSource | None = None) -> SeasonResult:
    """Play a whole season (R1–R23) week by week; ``picks`` answers every pick request.

    Same setup, same picks: same season (R23).
    """
    season = _Season(setup, picks or random_picks(setup.seed))
    for week in range(1, SEASON_WEEKS + 1):
        season.play_week(week)
    return season.finish()


__all__ = [
    "DIVISION_SIZE",
    "STANDARD_DIVISIONS",
    "DivisionSetup",
    "PickRequest",
    "PickSource",
    "PlayedRound",
    "SeasonResult",
    "SeasonSetup",
    "TeamState",
    "Used",
    "play_season",
    "random_picks",
    "standard_setup",
]
