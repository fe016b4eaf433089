"""The league's records (:class:`~competitions.models.RecordKind`): what each game and each
closed season offers as a mark, the records over the closed seasons (:func:`league_records_store`)
and the records broken in a season (:func:`record_breaks_store` when a round is published,
:func:`season_record_breaks_store` at the close).

The marks are worked out here and nowhere else. Game records read every competition's published
games but forfeits (R15); runs read each team's championship games in order, across seasons
(a win: won in regulation or extra time; unbeaten: a win or a draw, R8, R9); season records read
the season lines' own figures. Dummy teams (R14) hold no record. Ties share a record: the first
to reach it first, at most :data:`HOLDERS_KEPT` of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from competitions.models import (
    GAME_RECORDS,
    LOWER_IS_BETTER,
    AllTimeLine,
    Competition,
    Decided,
    LeagueRecord,
    Meeting,
    MemoryScope,
    PoolRound,
    RecordBreak,
    RecordKind,
    SeasonLine,
)
from league.models import Season, Team

HOLDERS_KEPT = 10
"""Holders kept for a shared record (the first to reach it first)."""
ONCE_A_TEAM = (
    RecordKind.WIN_RUN,
    RecordKind.UNBEATEN_RUN,
    RecordKind.SEASONS_WITHOUT_ONR,
    RecordKind.ELITE_TITLES,
    RecordKind.KDH_TITLES,
    RecordKind.WG_TITLES,
)
"""Records a team holds once, from the first time it reached the value (a run, a count); a
game's or a season's record may be held by one team in several games or seasons."""


@dataclass(frozen=True)
class Mark:
    """A value a team reached: a record if nobody did better."""

    kind: RecordKind
    value: int
    team_id: int
    season_id: int
    order: tuple[int, ...]
    """When it was reached (season number, week, round, fixture): the first holds a tie."""
    since_season_id: int | None = None
    fixture_id: int | None = None
    opponent_id: int | None = None
    goals_for: int | None = None
    goals_against: int | None = None

    @property
    def counts(self) -> bool:
        """Whether it can hold a record: a « most » record starts above 0."""
        return self.kind in LOWER_IS_BETTER or self.value > 0

    def beats(self, other: Mark | None) -> bool:
        if other is None:
            return self.counts
        if self.kind in LOWER_IS_BETTER:
            return self.value < other.value
        return self.value > other.value


@dataclass
class Runs:
    """A team's championship runs going (R9: a win; unbeaten: a win or a draw)."""

    wins: int = 0
    unbeaten: int = 0
    wins_since: int | None = None
    unbeaten_since: int | None = None


@dataclass(frozen=True)
class Game:
    """A meeting as the marks read it."""

    season_id: int
    season_number: int
    week: int
    round_number: int
    fixture_id: int
    pool_round_id: int
    competition: str
    home: int
    away: int
    home_goals: int
    away_goals: int
    decided: str
    winner: int | None

    @property
    def order(self) -> tuple[int, ...]:
        return (self.season_number, self.week, self.round_number, self.fixture_id)


GAME_FIELDS = (
    "season_id",
    "season__number",
    "week",
    "round_number",
    "fixture_id",
    "pool_round_id",
    "competition",
    "home_id",
    "away_id",
    "home_goals",
    "away_goals",
    "decided",
    "winner_id",
)


def games_read(meetings: QuerySet[Meeting]) -> list[Game]:
    """``meetings`` as games, in the order they were played."""
    rows = meetings.order_by("season__number", "week", "round_number", "fixture_id").values_list(
        *GAME_FIELDS
    )
    return [Game(*row) for row in rows]


def game_marks(game: Game, runs: dict[int, Runs], dummies: set[int]) -> list[Mark]:
    """What ``game`` offers (most goals, biggest win, and in the championship each side's
    runs, which it moves on in ``runs``)."""
    if game.decided == Decided.FORFEIT:
        return []
    marks = []
    for team, opponent, scored, conceded in (
        (game.home, game.away, game.home_goals, game.away_goals),
        (game.away, game.home, game.away_goals, game.home_goals),
    ):
        if team in dummies:
            continue
        scored_mark = Mark(
            RecordKind.GAME_GOALS,
            scored,
            team,
            game.season_id,
            game.order,
            fixture_id=game.fixture_id,
            opponent_id=opponent,
            goals_for=scored,
            goals_against=conceded,
        )
        marks.append(scored_mark)
        if game.winner == team and scored > conceded:
            marks.append(replace(scored_mark, kind=RecordKind.BIGGEST_WIN, value=scored - conceded))
        if game.competition == Competition.CHAMPIONSHIP:
            going = runs.setdefault(team, Runs())
            _run_on(going, game, team)
            for kind, run, since in (
                (RecordKind.WIN_RUN, going.wins, going.wins_since),
                (RecordKind.UNBEATEN_RUN, going.unbeaten, going.unbeaten_since),
            ):
                if run:
                    marks.append(replace(scored_mark, kind=kind, value=run, since_season_id=since))
    return marks


def _run_on(going: Runs, game: Game, team: int) -> None:
    won = game.winner == team
    if won:
        going.wins_since = going.wins_since if going.wins else game.season_id
        going.wins += 1
    else:
        going.wins, going.wins_since = 0, None
    if won or game.decided == Decided.DRAW:
        going.unbeaten_since = going.unbeaten_since if going.unbeaten else game.season_id
        going.unbeaten += 1
    else:
        going.unbeaten, going.unbeaten_since = 0, None


def line_marks(lines: Iterable[SeasonLine], dummies: set[int]) -> Iterator[Mark]:
    """What each season line (read in season order, with its season) offers: its season's
    figures, and the counts its team reaches with it (titles, seasons without an ONR).
    Fewest goals against: a team that played its season's full count of games only."""
    lines = [line for line in lines if line.team_id not in dummies]
    full: dict[int, int] = {}
    for line in lines:
        full[line.season_id] = max(full.get(line.season_id, 0), line.games)
    counts: dict[tuple[int, RecordKind], int] = {}
    for line in lines:
        season = Mark(
            RecordKind.SEASON_GOALS,
            line.goals_for,
            line.team_id,
            line.season_id,
            (line.season.number,),
        )
        played = line.games > 0 or line.rank is not None  # as the all-time lines count it
        if line.games:
            yield season
            yield replace(season, kind=RecordKind.SEASON_POINTS, value=line.points)
            yield replace(season, kind=RecordKind.EXTRA_GOALS, value=line.extra_goals_scored)
        if line.games and line.games == full[line.season_id]:
            yield replace(season, kind=RecordKind.FEWEST_AGAINST, value=line.goals_against)
        for kind, counted in (
            (RecordKind.SEASONS_WITHOUT_ONR, line.onr_count == 0 and played),
            (RecordKind.ELITE_TITLES, line.elite_champion),
            (RecordKind.KDH_TITLES, line.kdh_place == 1),
            (RecordKind.WG_TITLES, line.wg_place == 1),
        ):
            if counted:
                counts[line.team_id, kind] = counts.get((line.team_id, kind), 0) + 1
                yield replace(season, kind=kind, value=counts[line.team_id, kind])


def best_marks(marks: Iterable[Mark]) -> dict[RecordKind, list[Mark]]:
    """Each kind's record: the best value's marks, the first reached first (one per team for
    a run or a count), at most :data:`HOLDERS_KEPT`."""
    best: dict[RecordKind, list[Mark]] = {}
    for mark in marks:
        if not mark.counts:
            continue
        held = best.get(mark.kind)
        if not held or mark.beats(held[0]):
            best[mark.kind] = [mark]
        elif mark.value == held[0].value:
            held.append(mark)
    for kind, held in best.items():
        held.sort(key=lambda mark: mark.order)
        if kind in ONCE_A_TEAM:
            first: dict[int, Mark] = {}
            for mark in held:
                first.setdefault(mark.team_id, mark)
            held[:] = list(first.values())
        del held[HOLDERS_KEPT:]
    return best


def dummy_teams() -> set[int]:
    return set(Team.objects.filter(is_dummy=True).values_list("pk", flat=True))


def closed_marks(*, through: Season) -> tuple[list[Mark], dict[int, Runs]]:
    """Every mark of the closed seasons up to ``through``, and each team's runs going at its
    close."""
    dummies = dummy_teams()
    runs: dict[int, Runs] = {}
    closed = Meeting.objects.filter(
        season__archive__isnull=False, season__number__lte=through.number
    )
    marks = [mark for game in games_read(closed) for mark in game_marks(game, runs, dummies)]
    lines = (
        SeasonLine.objects.filter(season__number__lte=through.number)
        .select_related("season")
        .order_by("season__number", "id")
    )
    marks += line_marks(lines, dummies)
    return marks, runs


def league_records_store(*, marks: Iterable[Mark]) -> list[LeagueRecord]:
    """The records over the closed seasons (``marks``: :func:`closed_marks`'), stored anew with
    each holder's coach that season (the season line's)."""
    best = best_marks(marks)
    coaches = _coaches({(m.team_id, m.season_id) for held in best.values() for m in held})
    LeagueRecord.objects.all().delete()
    rows = [
        _facts(LeagueRecord(position=position), mark, coaches.get((mark.team_id, mark.season_id)))
        for held in best.values()
        for position, mark in enumerate(held, start=1)
    ]
    return LeagueRecord.objects.bulk_create(rows)


def _coaches(keys: set[tuple[int, int]]) -> dict[tuple[int, int], tuple[int | None, str]]:
    """The coach of each (team, season) at its close (one query)."""
    where = Q(pk__in=[])
    for team_id, season_id in keys:
        where |= Q(team_id=team_id, season_id=season_id)
    return {
        (team_id, season_id): (coach_id, coach_name)
        for team_id, season_id, coach_id, coach_name in SeasonLine.objects.filter(
            where
        ).values_list("team_id", "season_id", "coach_id", "coach_name")
    }


Facts = TypeVar("Facts", LeagueRecord, RecordBreak)


def _facts(row: Facts, mark: Mark, coach: tuple[int | None, str] | None) -> Facts:
    row.kind = mark.kind
    row.value = mark.value
    row.team_id = mark.team_id
    row.season_id = mark.season_id
    row.since_season_id = mark.since_season_id
    row.fixture_id = mark.fixture_id
    row.opponent_id = mark.opponent_id
    row.goals_for = mark.goals_for
    row.goals_against = mark.goals_against
    row.coach_id, row.coach_name = coach or (None, "")
    return row


def _mark_of(row: LeagueRecord | RecordBreak) -> Mark:
    return Mark(
        RecordKind(row.kind),
        row.value,
        row.team_id,
        row.season_id,
        (),
        row.since_season_id,
        row.fixture_id,
        row.opponent_id,
        row.goals_for,
        row.goals_against,
    )


def _best_so_far(season: Season) -> dict[RecordKind, Mark]:
    """Each kind's best before what is played now: the closed seasons' record, then ``season``'s
    breaks so far (each beat the one before)."""
    best = {RecordKind(row.kind): _mark_of(row) for row in LeagueRecord.objects.filter(position=1)}
    for row in RecordBreak.objects.filter(season=season).order_by("id"):
        mark = _mark_of(row)
        if mark.beats(best.get(mark.kind)):
            best[mark.kind] = mark
    return best


def _runs_at_close(teams: set[int] | None = None) -> dict[int, Runs]:
    lines = AllTimeLine.objects.filter(scope=MemoryScope.OVERALL)
    if teams is not None:
        lines = lines.filter(team_id__in=teams)
    return {
        line.team_id: Runs(
            line.win_run, line.unbeaten_run, line.win_run_since_id, line.unbeaten_run_since_id
        )
        for line in lines
    }


def _breaks(
    marks: Iterable[Mark], best: dict[RecordKind, Mark], make: Callable[[Mark], RecordBreak]
) -> list[RecordBreak]:
    """A break for each mark better than the best so far (which it then is); none for a kind
    nobody holds yet (nothing to break)."""
    found = []
    for mark in marks:
        previous = best.get(mark.kind)
        if previous is None or not mark.beats(previous):
            continue
        best[mark.kind] = mark
        row = make(mark)
        row.previous_value = previous.value
        row.previous_team_id = previous.team_id
        row.previous_season_id = previous.season_id
        found.append(row)
    return found


def record_breaks_store(*, pool_round: PoolRound) -> list[RecordBreak]:
    """The game records (most goals, biggest win, runs) ``pool_round``'s games break, stored
    when it is published (its meetings stored first; never at arbitration), with the record
    each beat: the closed seasons' or this season's earlier break. The season's earlier
    championship games of its teams move their runs on from the last close."""
    pool_round = PoolRound.objects.select_related("round__season").get(pk=pool_round.pk)
    season = pool_round.round.season
    best = _best_so_far(season)
    if not best:
        return []
    dummies = dummy_teams()
    now = games_read(Meeting.objects.filter(pool_round=pool_round))
    teams = {team for game in now for team in (game.home, game.away)}
    runs = _runs_at_close(teams)
    earlier = Meeting.objects.filter(
        Q(home_id__in=teams) | Q(away_id__in=teams),
        season=season,
        competition=Competition.CHAMPIONSHIP,
    ).exclude(pool_round=pool_round)
    for game in games_read(earlier):
        game_marks(game, runs, dummies)
    marks = [mark for game in now for mark in game_marks(game, runs, dummies)]
    coaches = dict(Team.objects.filter(pk__in=teams).values_list("pk", "coach_id"))
    names = _coach_names(set(coaches.values()) - {None})

    def make(mark: Mark) -> RecordBreak:
        coach = coaches.get(mark.team_id)
        return _facts(
            RecordBreak(pool_round=pool_round, week=pool_round.round.week, season=season),
            mark,
            (coach, names.get(coach, "")) if coach else None,
        )

    return RecordBreak.objects.bulk_create(_breaks(marks, best, make))


def coach_name(user: User) -> str:
    """A coach as the memory keeps them: their full name, else their username."""
    return user.get_full_name() or user.get_username()


def _coach_names(ids: set[int]) -> dict[int, str]:
    return {user.pk: coach_name(user) for user in User.objects.filter(pk__in=ids)}


SEASON_RECORDS = tuple(kind for kind in RecordKind if kind not in GAME_RECORDS)
"""The records a season's close settles (its figures, the counts its honours move on)."""


def season_game_breaks_replay(*, season: Season) -> list[RecordBreak]:
    """The game records ``season``'s published rounds broke, stored again as their
    publications would have stored them, in the order they were played (``memory_rebuild``):
    against the records of the seasons before it, its teams' runs going from the close before.
    The coach is the season line's at its close, or the team's now while it runs."""
    RecordBreak.objects.filter(season=season, pool_round__isnull=False).delete()
    best = _best_so_far(season)
    if not best:
        return []
    dummies = dummy_teams()
    runs = _runs_at_close()
    games = games_read(Meeting.objects.filter(season=season))
    lines = {
        team_id: (coach_id, name)
        for team_id, coach_id, name in SeasonLine.objects.filter(season=season).values_list(
            "team_id", "coach_id", "coach_name"
        )
    }
    if not lines:
        current = dict(Team.objects.filter(coach__isnull=False).values_list("pk", "coach_id"))
        names = _coach_names(set(current.values()))
        lines = {team: (coach, names[coach]) for team, coach in current.items()}
    found = []
    for game in games:

        def make(mark: Mark, game: Game = game) -> RecordBreak:
            return _facts(
                RecordBreak(pool_round_id=game.pool_round_id, week=game.week, season=season),
                mark,
                lines.get(mark.team_id),
            )

        found += _breaks(game_marks(game, runs, dummies), best, make)
    return RecordBreak.objects.bulk_create(found)


def season_record_breaks_store(*, season: Season, marks: Iterable[Mark]) -> list[RecordBreak]:
    """At ``season``'s close, before the records are stored anew: the season records its lines
    beat (``marks``: every closed season's, :func:`closed_marks`), each against the record of
    the seasons before; ties at the season's best all break it."""
    RecordBreak.objects.filter(season=season, pool_round__isnull=True).delete()
    before = {
        RecordKind(row.kind): _mark_of(row)
        for row in LeagueRecord.objects.filter(position=1, kind__in=SEASON_RECORDS)
    }
    ours = best_marks(
        mark for mark in marks if mark.season_id == season.pk and mark.kind in SEASON_RECORDS
    )
    coaches = _coaches({(m.team_id, season.pk) for held in ours.values() for m in held})
    rows = []
    for kind, held in ours.items():
        previous = before.get(kind)
        if previous is None or not held[0].beats(previous):
            continue
        for mark in held:
            row = _facts(RecordBreak(season=season), mark, coaches.get((mark.team_id, season.pk)))
            row.previous_value = previous.value
            row.previous_team_id = previous.team_id
            row.previous_season_id = previous.season_id
            rows.append(row)
    return RecordBreak.objects.bulk_create(rows)
