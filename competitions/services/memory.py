"""The league's memory kept at the close (``competitions.models.memory``): each team's season
line, the all-time lines, the season records broken and the records anew — in the close's
transaction, so that the memory pages read a few stored rows whatever the number of seasons —
and the whole memory rebuilt from the archives and the published results
(:func:`memory_rebuild`, the ``memory_rebuild`` command and the whole-league import).

The season line counts the team's own games (R14: a replaced team keeps the games it played; a
replacement counts the games it played itself; the final table where it keeps the record it
took over stays in the archive's row, linked). The all-time lines add the season lines up per
scope, dummy teams aside (R14: a dummy is never a team of the all-time tables).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from django.db import transaction
from django.db.models import Exists, OuterRef

from competitions.models import (
    SCOPE_OF_TIER,
    AllTimeLine,
    Competition,
    CupHonour,
    FinalRow,
    Fixture,
    LeagueRecord,
    Meeting,
    MemoryScope,
    PoolRound,
    RecordBreak,
    SeasonArchive,
    SeasonLine,
)
from competitions.services.memory_games import meetings_store
from competitions.services.memory_records import (
    Runs,
    closed_marks,
    coach_name,
    league_records_store,
    season_game_breaks_replay,
    season_record_breaks_store,
)
from engine.game import Decided as EngineDecided
from engine.game import MatchResult
from engine.standings import tally
from league.models import Entry, Season

FIGURES = (
    "games",
    "wins",
    "regulation_wins",
    "draws",
    "extra_time_losses",
    "losses",
    "goals_for",
    "goals_against",
    "points",
)


def season_meetings_complete(*, season: Season) -> list[Meeting]:
    """Store the meetings of ``season``'s published pool rounds that have none yet (a history
    published before the memory existed, or written without the publication)."""
    missing = Fixture.objects.filter(
        pool_round=OuterRef("pk"), result__isnull=False, meeting__isnull=True
    )
    pool_rounds = PoolRound.objects.filter(
        round__season=season, status=PoolRound.Status.PUBLISHED
    ).filter(Exists(missing))
    return meetings_store(pool_rounds=list(pool_rounds))


def _own_figures(season: Season) -> dict[int, dict[str, int]]:
    """Each team's own championship figures in ``season`` (R9, counted by the engine), and its
    goals from extra goals in every competition, by team id."""
    figures: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(FIGURES, 0))
    extra: dict[int, int] = defaultdict(int)
    games: list[MatchResult] = []
    for meeting in Meeting.objects.filter(season=season).only(
        "competition", "home_id", "away_id", "home_goals", "away_goals", "decided", "winner_id",
        "home_extra_goals", "away_extra_goals",
    ):  # fmt: skip
        extra[meeting.home_id] += meeting.home_extra_goals
        extra[meeting.away_id] += meeting.away_extra_goals
        if meeting.competition == Competition.CHAMPIONSHIP:
            games.append(
                MatchResult(
                    home=str(meeting.home_id),
                    away=str(meeting.away_id),
                    home_goals=meeting.home_goals,
                    away_goals=meeting.away_goals,
                    decided=EngineDecided(meeting.decided),
                    winner=None if meeting.winner_id is None else str(meeting.winner_id),
                )
            )
    teams = {team for game in games for team in (game.home, game.away)}
    for row in tally(teams, games):
        figures[int(row.team)] = {
            "games": row.played,
            "wins": row.wins,
            "regulation_wins": row.regulation_wins,
            "draws": row.draws,
            "extra_time_losses": row.extra_time_losses,
            "losses": row.losses,
            "goals_for": row.goals_for,
            "goals_against": row.goals_against,
            "points": row.points,
        }
    for team, goals in extra.items():
        figures[team]["extra_goals_scored"] = goals
    return figures


def _cup_stages(season: Season) -> dict[tuple[int, str], str]:
    """The last round (its stage) each team played in each cup, by (team id, cup)."""
    last: dict[tuple[int, str], tuple[int, str]] = {}
    for home, away, competition, number, stage in Meeting.objects.filter(
        season=season, competition__in=[Competition.KDH, Competition.WG]
    ).values_list("home_id", "away_id", "competition", "round_number", "stage"):
        for team in (home, away):
            if last.get((team, competition), (0, ""))[0] < number:
                last[team, competition] = (number, stage)
    return {key: stage for key, (_number, stage) in last.items()}


def season_lines_store(
    *, archive: SeasonArchive, coaches: Mapping[int, tuple[int | None, str]] | None = None
) -> list[SeasonLine]:
    """Every team's line of ``archive``'s season (dummies too), stored anew: its division and
    final rank (none when replaced, R14), its own figures, its cup runs, its ONRs and its coach
    at the close — the team's coach now, or ``coaches``' (by team id: the coach a line stored
    before said, which a rebuild keeps)."""
    season = archive.season
    SeasonLine.objects.filter(season=season).delete()
    coaches = coaches or {}
    entries = list(Entry.objects.filter(season=season).select_related("team__coach", "division"))
    rows = {
        (row.entry_id, row.pool.competition): row
        for row in FinalRow.objects.filter(archive=archive).select_related("pool")
    }
    places = {
        (entry_id, competition): place
        for entry_id, competition, place in CupHonour.objects.filter(archive=archive).values_list(
            "entry_id", "competition", "place"
        )
    }
    figures = _own_figures(season)
    stages = _cup_stages(season)
    lines = []
    for entry in entries:
        final = rows.get((entry.pk, Competition.CHAMPIONSHIP))
        group = rows.get((entry.pk, Competition.WG))
        coach = entry.team.coach
        now = (None, "") if coach is None else (coach.pk, coach_name(coach))
        coach_id, name = coaches.get(entry.team_id, now)
        rank = None if final is None else final.rank
        lines.append(
            SeasonLine(
                archive=archive,
                season=season,
                team=entry.team,
                entry=entry,
                coach_id=coach_id,
                coach_name=name,
                division=entry.division,
                tier=entry.division.tier,
                rank=rank,
                final_row=final,
                onr_count=entry.onr_count,
                replaced=entry.replaced_at is not None,
                replacement=entry.replaces_id is not None,
                elite_champion=entry.division.tier == 1 and rank == 1,
                kdh_stage=stages.get((entry.team_id, Competition.KDH), ""),
                kdh_place=places.get((entry.pk, Competition.KDH)),
                wg_group="" if group is None else group.group,
                wg_group_rank=None if group is None else group.rank,
                wg_stage=stages.get((entry.team_id, Competition.WG), ""),
                wg_place=places.get((entry.pk, Competition.WG)),
                **figures.get(entry.team_id, {}),
            )
        )
    return SeasonLine.objects.bulk_create(lines)


def all_time_lines_store(*, runs: dict[int, Runs]) -> list[AllTimeLine]:
    """Every team's all-time lines, overall and per tier, added up from the season lines
    anew (dummies aside, R14); the overall line keeps its runs going (``runs``). A season
    counts when the team played a championship game in it or holds a final rank."""
    AllTimeLine.objects.all().delete()
    lines: dict[tuple[int, MemoryScope], AllTimeLine] = {}
    for line in SeasonLine.objects.filter(team__is_dummy=False).order_by("season_id", "id"):
        for scope in (MemoryScope.OVERALL, SCOPE_OF_TIER[line.tier]):
            total = lines.setdefault(
                (line.team_id, scope), AllTimeLine(team_id=line.team_id, scope=scope)
            )
            for name in FIGURES:
                setattr(total, name, getattr(total, name) + getattr(line, name))
            played = line.games > 0 or line.rank is not None
            total.seasons += played
            total.seasons_without_onr += played and line.onr_count == 0
            total.elite_titles += line.elite_champion
            total.kdh_titles += line.kdh_place == 1
            total.wg_titles += line.wg_place == 1
    for (team_id, scope), total in lines.items():
        total.goal_difference = total.goals_for - total.goals_against
        going = runs.get(team_id)
        if scope == MemoryScope.OVERALL and going is not None:
            total.win_run, total.unbeaten_run = going.wins, going.unbeaten
            total.win_run_since_id = going.wins_since
            total.unbeaten_run_since_id = going.unbeaten_since
    return AllTimeLine.objects.bulk_create(lines.values())


def season_memory_store(*, archive: SeasonArchive) -> None:
    """What the close keeps for the memory (``season_close``, in its transaction): the
    meetings still missing, the season lines, the season records broken, then the records and
    the all-time lines anew over every closed season."""
    season_meetings_complete(season=archive.season)
    season_lines_store(archive=archive)
    _records_store(archive)


def _records_store(archive: SeasonArchive) -> None:
    """The season records ``archive``'s season broke, then the records and the all-time lines
    anew over every closed season up to it."""
    season = archive.season
    marks, runs = closed_marks(through=season)
    season_record_breaks_store(season=season, marks=marks)
    league_records_store(marks=marks)
    all_time_lines_store(runs=runs)


@transaction.atomic
def memory_rebuild() -> dict[str, int]:
    """Rebuild the whole memory from the archives and the published results, season by season
    as the closes and publications would have kept it (the same data gives the same rows).
    The coach of a team's season is the one its line said, when there was one (a close keeps
    it; nothing else does); else the team's coach now. Returns how many rows of each kind it
    stored."""
    coaches: dict[int, dict[int, tuple[int | None, str]]] = defaultdict(dict)
    for season_id, team_id, coach_id, name in SeasonLine.objects.values_list(
        "season_id", "team_id", "coach_id", "coach_name"
    ):
        coaches[season_id][team_id] = (coach_id, name)
    for model in (RecordBreak, LeagueRecord, AllTimeLine, SeasonLine, Meeting):
        model.objects.all().delete()
    for season in Season.objects.exclude(status=Season.Status.PREPARING).order_by("number"):
        published = PoolRound.objects.filter(
            round__season=season, status=PoolRound.Status.PUBLISHED
        )
        meetings_store(pool_rounds=list(published))
        archive = SeasonArchive.objects.filter(season=season).select_related("season").first()
        if archive is not None:
            season_lines_store(archive=archive, coaches=coaches[season.pk])
        season_game_breaks_replay(season=season)
        if archive is not None:
            _records_store(archive)
    return {
        model._meta.model_name or "": model.objects.count()
        for model in (Meeting, SeasonLine, AllTimeLine, LeagueRecord, RecordBreak)
    }


def memory_missing() -> bool:
    """Whether published results or closed seasons have no memory yet (a league imported from
    a file written before the memory existed)."""
    published = PoolRound.objects.filter(status=PoolRound.Status.PUBLISHED).exists()
    closed = SeasonArchive.objects.exists()
    return (published and not Meeting.objects.exists()) or (
        closed and not SeasonLine.objects.exists()
    )
