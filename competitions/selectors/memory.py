"""The league's memory, read (``competitions.models.memory``): the all-time tables, a team's
history, a head-to-head, the records and the records broken this season, a coach's career.

Each reads the rows the close and the publications stored, in a constant number of queries
whatever the number of seasons (the rows a page shows grow with what it shows: a team's
seasons, a rivalry's meetings). Published results only: a meeting or a broken record exists
once its round is published.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from competitions.models import (
    LOWER_IS_BETTER,
    AllTimeLine,
    LeagueRecord,
    Meeting,
    MemoryScope,
    PoolRound,
    RecordBreak,
    RecordKind,
    SeasonLine,
)
from league.models import Season, Team

Facts = TypeVar("Facts", LeagueRecord, RecordBreak)

ALL_TIME_ORDERS = {
    "points": ("-points", "-wins", "-goal_difference", "-goals_for"),
    "seasons": ("-seasons", "-points"),
    "games": ("-games", "-points"),
    "wins": ("-wins", "-points"),
    "draws": ("-draws", "-points"),
    "losses": ("-losses", "points"),
    "goals_for": ("-goals_for", "-points"),
    "goal_difference": ("-goal_difference", "-points"),
    "goals_against": ("goals_against", "-points"),
    "titles": ("-elite_titles", "-kdh_titles", "-wg_titles", "-points"),
    "name": (),
}
"""The orders :func:`all_time_table` takes (a view checks the query string against these): the
line's figures, ``-`` for the highest first, then the team's name, accents aside."""


def name_key(name: str) -> str:
    """A name as an alphabetical list sorts it whatever the database's collation: accents
    aside, case aside (« Élans » between « Castors » and « Faucons »)."""
    return "".join(
        c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)
    ).casefold()


def _all_time_key(order: str) -> Callable[[AllTimeLine], tuple[int | str, ...]]:
    fields = ALL_TIME_ORDERS[order]

    def key(line: AllTimeLine) -> tuple[int | str, ...]:
        figures = [
            -getattr(line, field[1:]) if field.startswith("-") else getattr(line, field)
            for field in fields
        ]
        return (*figures, name_key(line.team.name))

    return key


@dataclass(frozen=True)
class TeamName:
    slug: str
    name: str


def _team(team: Team | None) -> TeamName | None:
    return None if team is None else TeamName(team.slug, team.name)


@dataclass(frozen=True)
class AllTimeRow:
    """A team's all-time line in a scope (championship games, R9 points) and its place."""

    position: int
    team: TeamName
    seasons: int
    games: int
    wins: int
    regulation_wins: int
    draws: int
    """Draws after extra time (R8: a championship game still tied after extra time)."""
    extra_time_losses: int
    losses: int
    """Every loss, in regulation or in extra time (``extra_time_losses`` of them)."""
    goals_for: int
    goals_against: int
    goal_difference: int
    points: int
    elite_titles: int
    kdh_titles: int
    wg_titles: int
    seasons_without_onr: int


def all_time_table(
    *, scope: MemoryScope | str = MemoryScope.OVERALL, order: str = "points"
) -> list[AllTimeRow]:
    """Every team that played in ``scope`` (overall, or the Elite's, D2's, D3's seasons), in
    ``order`` (a key of :data:`ALL_TIME_ORDERS`; ``ValueError`` for another, or for an unknown
    scope). Dummy teams (R14) are never there. One query."""
    scope = MemoryScope(scope)
    if order not in ALL_TIME_ORDERS:
        raise ValueError(f"unknown order {order!r}")
    lines = sorted(
        AllTimeLine.objects.filter(scope=scope).select_related("team"), key=_all_time_key(order)
    )
    return [
        AllTimeRow(
            position=position,
            team=TeamName(line.team.slug, line.team.name),
            seasons=line.seasons,
            games=line.games,
            wins=line.wins,
            regulation_wins=line.regulation_wins,
            draws=line.draws,
            extra_time_losses=line.extra_time_losses,
            losses=line.losses,
            goals_for=line.goals_for,
            goals_against=line.goals_against,
            goal_difference=line.goal_difference,
            points=line.points,
            elite_titles=line.elite_titles,
            kdh_titles=line.kdh_titles,
            wg_titles=line.wg_titles,
            seasons_without_onr=line.seasons_without_onr,
        )
        for position, line in enumerate(lines, start=1)
    ]


@dataclass(frozen=True)
class TeamSeason:
    """A team's closed season: division and place, its own championship figures, the final
    table's points (R14: a replacement's include the record it took over), its cup runs."""

    season_number: int
    season_name: str
    division_slug: str
    division_name: str
    tier: int
    rank: int | None
    """The final rank; ``None`` when the team was replaced under R14 during the season."""
    table_points: int | None
    games: int
    wins: int
    draws: int
    losses: int
    goals_for: int
    goals_against: int
    points: int
    coach_name: str
    replaced: bool
    replacement: bool
    withdrawn: bool
    """R24: the team left the league after this season."""
    onr_count: int
    elite_champion: bool
    kdh_stage: str
    """The last KDH round it played (a :class:`Stage` value), ``""`` when none."""
    kdh_place: int | None
    """1 winner, 2 finalist."""
    wg_group: str
    wg_group_rank: int | None
    wg_stage: str
    wg_place: int | None
    """1–4 (the final and the third-place game)."""
    moved: str | None
    """``"up"``, ``"down"`` or ``"stayed"`` to its next season's tier; ``None`` when it did not
    play a next closed season."""


def team_history(*, team: Team, until: int | None = None) -> list[TeamSeason]:
    """``team``'s closed seasons, oldest first (up to season number ``until`` when given, for
    a page read with ``?season=N``). One query."""
    lines = SeasonLine.objects.filter(team=team)
    if until is not None:
        lines = lines.filter(season__number__lte=until)
    ordered = list(
        lines.select_related("season", "division", "final_row", "entry__withdrawal").order_by(
            "season__number"
        )
    )
    history = []
    for index, line in enumerate(ordered):
        following = ordered[index + 1] if index + 1 < len(ordered) else None
        moved = None
        if following is not None and following.season.number == line.season.number + 1:
            moved = _moved(line.tier, following.tier)
        history.append(_team_season(line, moved))
    return history


def _moved(tier: int, next_tier: int) -> str:
    if next_tier < tier:
        return "up"
    return "down" if next_tier > tier else "stayed"


def _withdrawn(line: SeasonLine) -> bool:
    return hasattr(line.entry, "withdrawal")


def _team_season(line: SeasonLine, moved: str | None) -> TeamSeason:
    return TeamSeason(
        season_number=line.season.number,
        season_name=str(line.season),
        division_slug=line.division.slug,
        division_name=line.division.name,
        tier=line.tier,
        rank=line.rank,
        table_points=None if line.final_row is None else line.final_row.points,
        games=line.games,
        wins=line.wins,
        draws=line.draws,
        losses=line.losses,
        goals_for=line.goals_for,
        goals_against=line.goals_against,
        points=line.points,
        coach_name=line.coach_name,
        replaced=line.replaced,
        replacement=line.replacement,
        withdrawn=_withdrawn(line),
        onr_count=line.onr_count,
        elite_champion=line.elite_champion,
        kdh_stage=line.kdh_stage,
        kdh_place=line.kdh_place,
        wg_group=line.wg_group,
        wg_group_rank=line.wg_group_rank,
        wg_stage=line.wg_stage,
        wg_place=line.wg_place,
        moved=moved,
    )


@dataclass(frozen=True)
class MeetingLine:
    """A published game between two teams, any competition; ``fixture_id`` and
    ``pool_round_id`` lead to its explanation."""

    season_number: int
    competition: str
    round_number: int
    week: int
    stage: str
    label: str
    home: TeamName
    away: TeamName
    home_goals: int
    away_goals: int
    decided: str
    """A :class:`~competitions.models.Decided` value: regulation, extra time, draw, shootout…"""
    winner: TeamName | None
    fixture_id: int
    pool_round_id: int
    pool_slug: str


@dataclass(frozen=True)
class HeadToHead:
    """Every published meeting of ``team_a`` and ``team_b``, newest first, and the balance."""

    team_a: TeamName
    team_b: TeamName
    meetings: list[MeetingLine]
    a_wins: int
    b_wins: int
    draws: int
    """Games with no winner: draws (R8) and double forfeits (R15)."""
    a_goals: int
    b_goals: int


def head_to_head(*, team_a: Team, team_b: Team) -> HeadToHead:
    """``team_a`` against ``team_b`` in every competition, closed seasons and the current one
    (a meeting is stored when its round is published). One query."""
    found = (
        Meeting.objects.filter(
            Q(home=team_a, away=team_b) | Q(home=team_b, away=team_a),
        )
        .select_related("season", "home", "away", "winner", "pool_round__pool")
        .order_by("-season__number", "-week", "-round_number", "-fixture_id")
    )
    meetings = [_meeting(meeting) for meeting in found]
    a_goals = sum(m.home_goals if m.home.slug == team_a.slug else m.away_goals for m in meetings)
    b_goals = sum(m.away_goals if m.home.slug == team_a.slug else m.home_goals for m in meetings)
    winners = [m.winner.slug for m in meetings if m.winner is not None]
    return HeadToHead(
        team_a=TeamName(team_a.slug, team_a.name),
        team_b=TeamName(team_b.slug, team_b.name),
        meetings=meetings,
        a_wins=winners.count(team_a.slug),
        b_wins=winners.count(team_b.slug),
        draws=len(meetings) - len(winners),
        a_goals=a_goals,
        b_goals=b_goals,
    )


def _meeting(meeting: Meeting) -> MeetingLine:
    return MeetingLine(
        season_number=meeting.season.number,
        competition=meeting.competition,
        round_number=meeting.round_number,
        week=meeting.week,
        stage=meeting.stage,
        label=meeting.label,
        home=TeamName(meeting.home.slug, meeting.home.name),
        away=TeamName(meeting.away.slug, meeting.away.name),
        home_goals=meeting.home_goals,
        away_goals=meeting.away_goals,
        decided=meeting.decided,
        winner=_team(meeting.winner),
        fixture_id=meeting.fixture_id,
        pool_round_id=meeting.pool_round_id,
        pool_slug=meeting.pool_round.pool.slug,
    )


@dataclass(frozen=True)
class RecordHolder:
    """Who holds a record and when: the game (``fixture_id``, the score from the holder's side,
    the opponent) or the season; a run's first season; the coach then."""

    team: TeamName
    value: int
    season_number: int
    since_season_number: int | None
    fixture_id: int | None
    opponent: TeamName | None
    goals_for: int | None
    goals_against: int | None
    coach_name: str
    this_season: bool
    """Set this season (a published round or the close), not among the closed seasons' yet."""


@dataclass(frozen=True)
class RecordLine:
    kind: str
    """A :class:`~competitions.models.RecordKind` value; ``label`` its words."""
    label: str
    value: int | None
    """``None`` while nobody holds it (no closed season yet)."""
    holders: list[RecordHolder] = field(default_factory=list)


def records() -> list[RecordLine]:
    """Every record (:class:`RecordKind`, in its order) with its holders: the closed seasons'
    (ties share a record), or this season's best break when one beat them. Two queries."""
    held: dict[str, list[RecordHolder]] = {kind: [] for kind in RecordKind.values}
    # Read as values, not rows: a record shared by ten teams costs ten small tuples.
    closed = LeagueRecord.objects.order_by("kind", "position").values_list("kind", *_HOLDER_FACTS)
    for kind, *facts in closed:
        held[kind].append(_holder_of(*facts))
    broken = RecordBreak.objects.filter(season__status=Season.Status.RUNNING)
    for kind, best in _best_breaks(_facts(broken).order_by("id")).items():
        held[kind] = [_holder(best, this_season=True)]
    return [
        RecordLine(
            kind=kind.value,
            label=str(kind.label),
            value=held[kind][0].value if held[kind] else None,
            holders=held[kind],
        )
        for kind in RecordKind
    ]


def _facts(rows: QuerySet[Facts]) -> QuerySet[Facts]:
    return rows.select_related("team", "season", "since_season", "opponent")


def _best_breaks(breaks: Iterable[RecordBreak]) -> dict[str, RecordBreak]:
    """Each kind's last break: every break beat the ones before it."""
    best: dict[str, RecordBreak] = {}
    for row in breaks:
        current = best.get(row.kind)
        lower = row.kind in LOWER_IS_BETTER
        if (
            current is None
            or (lower and row.value < current.value)
            or (not lower and row.value > current.value)
        ):
            best[row.kind] = row
    return best


_HOLDER_FACTS = (
    "team__slug",
    "team__name",
    "value",
    "season__number",
    "since_season__number",
    "fixture_id",
    "opponent__slug",
    "opponent__name",
    "goals_for",
    "goals_against",
    "coach_name",
)
"""A closed seasons' record holder's facts, in :func:`_holder_of`'s order."""


def _holder_of(
    slug: str,
    name: str,
    value: int,
    season: int,
    since_season: int | None,
    fixture_id: int | None,
    opponent_slug: str | None,
    opponent_name: str | None,
    goals_for: int | None,
    goals_against: int | None,
    coach_name: str,
) -> RecordHolder:
    return RecordHolder(
        team=TeamName(slug, name),
        value=value,
        season_number=season,
        since_season_number=since_season,
        fixture_id=fixture_id,
        opponent=None if opponent_slug is None else TeamName(opponent_slug, opponent_name or ""),
        goals_for=goals_for,
        goals_against=goals_against,
        coach_name=coach_name,
        this_season=False,
    )


def _holder(record: LeagueRecord | RecordBreak, *, this_season: bool) -> RecordHolder:
    return RecordHolder(
        team=TeamName(record.team.slug, record.team.name),
        value=record.value,
        season_number=record.season.number,
        since_season_number=None if record.since_season is None else record.since_season.number,
        fixture_id=record.fixture_id,
        opponent=_team(record.opponent),
        goals_for=record.goals_for,
        goals_against=record.goals_against,
        coach_name=record.coach_name,
        this_season=this_season,
    )


@dataclass(frozen=True)
class RecordBroken:
    """A record broken: the new holder (as :class:`RecordHolder`), where (the week and pool
    round; none for a season record settled at the close) and the record it beat."""

    kind: str
    label: str
    holder: RecordHolder
    week: int | None
    pool_round_id: int | None
    previous_value: int
    previous_team: TeamName | None
    previous_season_number: int | None


def record_breaks(
    *, season: Season, week: int | None = None, pool_round: PoolRound | None = None
) -> list[RecordBroken]:
    """The records broken in ``season`` (only by published rounds, and at its close), in the
    order they fell; only ``week``'s, or only ``pool_round``'s, when given. One query."""
    rows = RecordBreak.objects.filter(season=season)
    if week is not None:
        rows = rows.filter(week=week)
    if pool_round is not None:
        rows = rows.filter(pool_round=pool_round)
    return [
        RecordBroken(
            kind=row.kind,
            label=str(RecordKind(row.kind).label),
            holder=_holder(row, this_season=True),
            week=row.week,
            pool_round_id=row.pool_round_id,
            previous_value=row.previous_value,
            previous_team=_team(row.previous_team),
            previous_season_number=(
                None if row.previous_season is None else row.previous_season.number
            ),
        )
        for row in _facts(rows)
        .select_related("previous_team", "previous_season")
        .order_by("week", "id")
    ]


@dataclass(frozen=True)
class CoachSeason:
    season_number: int
    team: TeamName
    division_name: str
    tier: int
    rank: int | None
    moved: str | None
    """As :attr:`TeamSeason.moved`: ``"up"`` is a promotion."""
    elite_champion: bool
    kdh_place: int | None
    wg_place: int | None


@dataclass(frozen=True)
class CoachCareer:
    """A coach's closed seasons (the coach at each close), oldest first, and what they add up
    to; the records their teams hold that were set while they coached them."""

    seasons: list[CoachSeason]
    teams: list[TeamName]
    """Every team they coached, in the order they first coached it."""
    promotions: int
    elite_titles: int
    kdh_titles: int
    wg_titles: int
    records: list[RecordLine]


def coach_career(*, user: User) -> CoachCareer:
    """``user``'s career as a coach. Three queries (their season lines, their teams' next
    seasons, the records they hold)."""
    lines = list(
        SeasonLine.objects.filter(coach=user)
        .select_related("season", "team", "division")
        .order_by("season__number")
    )
    following = {
        (line.team_id, line.season.number): line.tier
        for line in SeasonLine.objects.filter(
            team__in={line.team_id for line in lines},
            season__number__in={line.season.number + 1 for line in lines},
        ).select_related("season")
    }
    seasons = []
    teams: dict[str, TeamName] = {}
    for line in lines:
        next_tier = following.get((line.team_id, line.season.number + 1))
        team = teams.setdefault(line.team.slug, TeamName(line.team.slug, line.team.name))
        seasons.append(
            CoachSeason(
                season_number=line.season.number,
                team=team,
                division_name=line.division.name,
                tier=line.tier,
                rank=line.rank,
                moved=None if next_tier is None else _moved(line.tier, next_tier),
                elite_champion=line.elite_champion,
                kdh_place=line.kdh_place,
                wg_place=line.wg_place,
            )
        )
    held: dict[str, list[RecordHolder]] = {}
    for record in _facts(LeagueRecord.objects.filter(coach=user)).order_by("kind", "position"):
        held.setdefault(record.kind, []).append(_holder(record, this_season=False))
    return CoachCareer(
        seasons=seasons,
        teams=list(teams.values()),
        promotions=sum(1 for season in seasons if season.moved == "up"),
        elite_titles=sum(1 for season in seasons if season.elite_champion),
        kdh_titles=sum(1 for season in seasons if season.kdh_place == 1),
        wg_titles=sum(1 for season in seasons if season.wg_place == 1),
        records=[
            RecordLine(kind.value, str(kind.label), held[kind][0].value, held[kind])
            for kind in RecordKind
            if kind in held
        ],
    )
