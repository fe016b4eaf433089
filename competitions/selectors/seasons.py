"""A season as the archives show it: its divisions' tables and champions, the cups' winners (KDH
winner and finalist, WG first to fourth), and a team's honours across seasons.

A closed season is read from what its close stored (``season_close``): the final tables and cup
honours of its archive (:mod:`competitions.selectors.archive`), a team's season line
(``SeasonLine``, the league's memory). A few rows a season, so a page costs the same queries
whatever the number of seasons and reads only the seasons it shows. A season not closed (the
running one, or one finished before closes were recorded) is worked out from its *published*
results through the standings and results reads, and shows nothing of a round not yet
published. This is the one place that says who won what.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db.models import Count, Q

from competitions.models import (
    CUPS,
    Competition,
    CupHonour,
    FinalRow,
    Fixture,
    FixtureResult,
    Pool,
    PoolRound,
    SeasonArchive,
    SeasonLine,
    Stage,
)
from competitions.selectors.archive import (
    ELITE,
    championship_final_rows,
    cup_honours,
    seasons_closed,
    winners_closed,
)
from competitions.selectors.standings import (
    StandingRow,
    TableLine,
    pools_standings,
    tables_lines,
)
from engine import Decided, MatchResult
from league.models import Division, Entry, Season, Team

PUBLISHED = PoolRound.Status.PUBLISHED


@dataclass(frozen=True)
class DivisionRecord:
    """A division of a season: its table over the published rounds (R9, zones R22)."""

    pool: Pool
    lines: list[TableLine]
    complete: bool
    """Every round of the division is published: the table is final, its first the champion."""

    @property
    def division(self) -> Division:
        division = self.pool.division
        assert division is not None  # a championship pool's (pool_division_fits_competition)
        return division

    @property
    def first(self) -> Entry | None:
        """The team at the top once a game is published: the champion when :attr:`complete`,
        the leader before."""
        if not self.lines or self.lines[0].row.played == 0:
            return None
        return self.lines[0].entry


@dataclass(frozen=True)
class CupPlace:
    """A team's final place in a cup."""

    place: int
    entry: Entry


@dataclass(frozen=True)
class SeasonRecord:
    """What a season's page shows: its divisions and the cups' winners, once published."""

    season: Season
    divisions: list[DivisionRecord]
    kdh: list[CupPlace]
    """The KDH's winner (1) and finalist (2), once its final is published."""
    wg: list[CupPlace]
    """The WG's first to fourth (R18's final and third-place game), once published."""

    @property
    def kdh_winner(self) -> Entry | None:
        return next((p.entry for p in self.kdh if p.place == 1), None)

    @property
    def kdh_finalist(self) -> Entry | None:
        return next((p.entry for p in self.kdh if p.place == 2), None)

    @property
    def wg_winner(self) -> Entry | None:
        return next((p.entry for p in self.wg if p.place == 1), None)

    @property
    def elite_champion(self) -> Entry | None:
        """The Elite's champion, once its every round is published."""
        return next(
            (
                record.first
                for record in self.divisions
                if record.complete and record.division.tier == Division.Tier.ELITE
            ),
            None,
        )


def _finals(seasons: Iterable[Season]) -> dict[tuple[int, str], list[FixtureResult]]:
    """The published results of each cup's final week, by season id and competition, in one
    query whatever the number of seasons."""
    finals: dict[tuple[int, str], list[FixtureResult]] = {}
    for result in (
        FixtureResult.objects.filter(
            fixture__pool_round__pool__season__in=list(seasons),
            fixture__pool_round__pool__competition__in=CUPS,
            fixture__pool_round__round__stage=Stage.FINAL,
            fixture__pool_round__status=PUBLISHED,
        )
        .select_related(
            "fixture__pool_round__pool",
            "fixture__home__team",
            "fixture__away__team",
            "fixture__home__division",
            "fixture__away__division",
        )
        .order_by("fixture_id")
    ):
        pool = result.fixture.pool_round.pool
        finals.setdefault((pool.season_id, pool.competition), []).append(result)
    return finals


def _as_match(result: FixtureResult) -> MatchResult:
    fixture = result.fixture
    return MatchResult(
        str(fixture.home_id),
        str(fixture.away_id),
        result.home_goals,
        result.away_goals,
        Decided(result.decided),
        None if result.winner_id is None else str(result.winner_id),
    )


def _cup_places(
    finals: dict[tuple[int, str], list[FixtureResult]], season_id: int, competition: Competition
) -> list[CupPlace]:
    """``competition``'s final places in season ``season_id``, by place, as its kind reads them
    from its published final week (R17, R18); empty until they are all known, and for a final
    that named no winner (both teams ONR, R15)."""
    games = finals.get((season_id, competition), [])
    entries = {
        str(entry.pk): entry
        for result in games
        for entry in (result.fixture.home, result.fixture.away)
    }
    places = competition.kind.final_places(
        [(result.fixture.label, _as_match(result)) for result in games]
    )
    if 1 not in places.values():
        return []
    return sorted(
        (CupPlace(place=place, entry=entries[key]) for key, place in places.items()),
        key=lambda cup_place: cup_place.place,
    )


def kdh_final_places(*, season: Season) -> list[CupPlace]:
    """The KDH's winner (place 1) and finalist (place 2): the published final's winner and its
    loser (R17). Empty until the final is published, or when it has no winner (both teams ONR,
    R15)."""
    return _cup_places(_finals([season]), season.pk, Competition.KDH)


def wg_final_places(*, season: Season) -> list[CupPlace]:
    """The WG's first to fourth, by place: the final's winner and loser, then the third-place
    game's (R18, :func:`engine.wg.final_ranking`). Empty until that week is published."""
    return _cup_places(_finals([season]), season.pk, Competition.WG)


def _complete_pools(seasons: Iterable[Season]) -> set[int]:
    """The ids of ``seasons``' pools whose every pool round is published (one query)."""
    counts = (
        PoolRound.objects.filter(pool__season__in=list(seasons))
        .values("pool_id")
        .annotate(total=Count("id"), published=Count("id", filter=Q(status=PUBLISHED)))
    )
    return {row["pool_id"] for row in counts if row["total"] == row["published"]}


def season_record(*, season: Season) -> SeasonRecord:
    """``season``'s divisions (tables over the published rounds, Elite first) and its cups'
    winners, as far as they are published — from a constant number of queries; a closed
    season's from its archive."""
    archive = SeasonArchive.objects.filter(season=season).first()
    pools = list(
        Pool.objects.filter(season=season, competition=Competition.CHAMPIONSHIP)
        .select_related("division")
        .order_by("division__tier", "division__group")
    )
    if archive is not None:
        return _record_closed(season, archive, pools)
    complete = _complete_pools([season])
    tables = pools_standings(pools=pools)
    lines = tables_lines(tables=[(pool, tables[pool.pk]) for pool in pools])
    finals = _finals([season])
    return SeasonRecord(
        season=season,
        divisions=[
            DivisionRecord(pool=pool, lines=pool_lines, complete=pool.pk in complete)
            for pool, pool_lines in zip(pools, lines, strict=True)
        ],
        kdh=_cup_places(finals, season.pk, Competition.KDH),
        wg=_cup_places(finals, season.pk, Competition.WG),
    )


def _final_line(row: FinalRow) -> TableLine:
    """A row of a final table as the season's page shows it (its rank, team and points)."""
    standing = StandingRow(
        team=row.entry.team.slug,
        rank=row.rank,
        points=row.points,
        played=row.played,
        wins=row.wins,
        regulation_wins=row.regulation_wins,
        draws=row.draws,
        extra_time_losses=row.extra_time_losses,
        losses=row.losses,
        goals_for=row.goals_for,
        goals_against=row.goals_against,
    )
    return TableLine(row=standing, entry=row.entry, barred=row.promotion_barred)


def _final_lines(rows: list[FinalRow]) -> list[TableLine]:
    lines = [_final_line(row) for row in rows]
    if lines and not any(line.row.played for line in lines):
        # A table of nothing played ranks nobody: its teams in code order, as before the close.
        return [
            TableLine(row=line.row, entry=line.entry, barred=line.barred, unranked=True)
            for line in sorted(lines, key=lambda line: (line.entry.code, line.row.team))
        ]
    return lines


def _places_closed(honours: Iterable[CupHonour]) -> dict[str, list[CupPlace]]:
    """The cups' places at the close, by competition; none for a cup whose final named no winner
    (both teams ONR, R15), as :func:`_cup_places` reads the results."""
    places: dict[str, list[CupPlace]] = {}
    for honour in honours:
        places.setdefault(honour.competition, []).append(
            CupPlace(place=honour.place, entry=honour.entry)
        )
    return {
        competition: sorted(cup, key=lambda cup_place: cup_place.place)
        for competition, cup in places.items()
        if any(cup_place.place == 1 for cup_place in cup)
    }


def _record_closed(season: Season, archive: SeasonArchive, pools: list[Pool]) -> SeasonRecord:
    """A closed season's page from its archive: its final tables (R9) and cups' honours (R17,
    R18), as the close recorded them — two queries, none of its results read."""
    rows: dict[int, list[FinalRow]] = {}
    for row in championship_final_rows(archive=archive):
        rows.setdefault(row.pool_id, []).append(row)
    places = _places_closed(cup_honours(archive=archive))
    return SeasonRecord(
        season=season,
        divisions=[
            DivisionRecord(pool=pool, lines=_final_lines(rows.get(pool.pk, [])), complete=True)
            for pool in pools
        ],
        kdh=places.get(Competition.KDH, []),
        wg=places.get(Competition.WG, []),
    )


@dataclass(frozen=True)
class SeasonWinners:
    """A season's line in the roll of honour: who won what, as far as it is published."""

    season: Season
    elite_champion: Team | None
    """Once the Elite's every round is published."""
    kdh_winner: Team | None
    wg_winner: Team | None
    status: str = ""
    """The season's status in words (worded once for every line)."""


def _elite_champions(seasons: list[Season]) -> dict[int, Entry]:
    """The Elite's champion of each of ``seasons`` whose Elite has every round published, from
    its table over the published rounds (R9), by season id."""
    complete = _complete_pools(seasons)
    elites = [
        pool
        for pool in Pool.objects.filter(
            season__in=seasons,
            competition=Competition.CHAMPIONSHIP,
            division__tier=Division.Tier.ELITE,
        ).order_by("season_id", "division__group", "pk")
        if pool.pk in complete
    ]
    firsts: dict[int, str] = {}
    for pool, rows in zip(elites, pools_standings(pools=elites).values(), strict=True):
        if rows and rows[0].played > 0:
            firsts.setdefault(pool.season_id, rows[0].team)
    if not firsts:
        return {}
    return {
        entry.season_id: entry
        for entry in Entry.objects.filter(
            season_id__in=firsts, team__slug__in=set(firsts.values())
        ).select_related("team", "division")
        if firsts[entry.season_id] == entry.team.slug
    }


def seasons_winners(*, seasons: Iterable[Season]) -> list[SeasonWinners]:
    """The roll of honour: for each of ``seasons``, the Elite's champion (once its every round
    is published) and the cups' winners — from a constant number of queries whatever the
    number of seasons: a closed season's from its archive (a row a winner), a season not closed
    from its published results."""
    seasons = list(seasons)
    closed = seasons_closed(seasons=seasons)
    won = winners_closed(season_ids=closed)
    teams = Team.objects.in_bulk(set(won.values()))  # a team that won often is read once
    winners = {key: teams[team_id] for key, team_id in won.items()}
    champions = {season_id: team for (season_id, what), team in winners.items() if what == ELITE}
    running = [season for season in seasons if season.pk not in closed]
    finals: dict[tuple[int, str], list[FixtureResult]] = {}
    if running:
        champions |= {
            season_id: entry.team for season_id, entry in _elite_champions(running).items()
        }
        finals = _finals(running)
    statuses = {value: str(label) for value, label in Season.Status.choices}
    lines = []
    for season in seasons:
        if season.pk in closed:
            kdh_winner = winners.get((season.pk, Competition.KDH))
            wg_winner = winners.get((season.pk, Competition.WG))
        else:
            kdh = _cup_places(finals, season.pk, Competition.KDH)
            wg = _cup_places(finals, season.pk, Competition.WG)
            kdh_winner = next((p.entry.team for p in kdh if p.place == 1), None)
            wg_winner = next((p.entry.team for p in wg if p.place == 1), None)
        lines.append(
            SeasonWinners(
                season=season,
                elite_champion=champions.get(season.pk),
                kdh_winner=kdh_winner,
                wg_winner=wg_winner,
                status=statuses.get(season.status, season.status),
            )
        )
    return lines


# --- A team's honours ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Honour:
    """A team's season: its division and place, whether it went up or down, its cups."""

    season: Season
    entry: Entry
    place: int | None
    """Its rank in its division's table over the published rounds; ``None`` when it was
    replaced during the season (R14: its replacement keeps the record and the place)."""
    final: bool
    """Every round of the division is published: the place is final."""
    move: str
    """``promoted`` or ``relegated`` (R22, R24: its division the next season is a tier up or
    down), ``stayed``, ``left`` (the next season has started without it) or empty (no next
    season yet)."""
    kdh_place: int | None
    """1 (winner) or 2 (finalist) in the KDH."""
    kdh_stage: Stage | None
    """The furthest KDH round it played (published), when it did not reach a place."""
    wg_place: int | None
    """1 to 4 in the WG."""
    wg_stage: Stage | None
    """The furthest WG round it played (published), when it did not reach a place."""

    @property
    def division(self) -> Division:
        return self.entry.division

    @property
    def champion(self) -> bool:
        return self.final and self.place == 1


def _furthest_stages(entries: list[Entry]) -> dict[tuple[int, str], Stage]:
    """For each of ``entries`` (by id) and cup, the stage of the furthest published round of
    the cup in which it played (one query)."""
    furthest: dict[tuple[int, str], tuple[int, Stage]] = {}
    for home, away, competition, number, stage in (
        Fixture.objects.filter(
            pool_round__pool__competition__in=CUPS,
            pool_round__status=PUBLISHED,
        )
        .filter(Q(home__in=entries) | Q(away__in=entries))
        .values_list(
            "home_id",
            "away_id",
            "pool_round__pool__competition",
            "pool_round__round__number",
            "pool_round__round__stage",
        )
    ):
        for entry_id in (home, away):
            key = (entry_id, competition)
            if key not in furthest or furthest[key][0] < number:
                furthest[key] = (number, Stage(stage))
    return {key: stage for key, (_, stage) in furthest.items()}


def _move(entry: Entry, following: Entry | None, next_season_exists: bool) -> str:
    if following is None:
        return "left" if next_season_exists else ""
    if following.division.tier < entry.division.tier:
        return "promoted"
    if following.division.tier > entry.division.tier:
        return "relegated"
    return "stayed"


def _places(
    entries: list[Entry], team: Team, known: Mapping[int, list[StandingRow]]
) -> dict[int, tuple[int | None, bool]]:
    """For each of ``entries`` (by id), ``team``'s rank in its division's table over the
    published rounds (``None`` once replaced) and whether that table is final; the tables
    ``known`` (by pool id) are not read again."""
    pools = {
        (pool.season_id, pool.division_id): pool
        for pool in Pool.objects.filter(
            season__in={entry.season_id for entry in entries},
            competition=Competition.CHAMPIONSHIP,
            division__in={entry.division_id for entry in entries},
        ).order_by("-pk")
    }
    complete = _complete_pools({entry.season for entry in entries})
    mine = {entry.pk: pools.get((entry.season_id, entry.division_id)) for entry in entries}
    asked = [pool for entry in entries if entry.is_playing and (pool := mine[entry.pk])]
    tables = {
        **pools_standings(pools=[pool for pool in asked if pool.pk not in known]),
        **known,
    }
    places: dict[int, tuple[int | None, bool]] = {}
    for entry in entries:
        pool = mine[entry.pk]
        if pool is None:
            places[entry.pk] = (None, False)
        elif not entry.is_playing:
            places[entry.pk] = (None, pool.pk in complete)
        else:
            rank = next((row.rank for row in tables[pool.pk] if row.team == team.slug), None)
            if not any(row.played for row in tables[pool.pk]):
                rank = None  # nothing published yet: the table ranks nobody
            places[entry.pk] = (rank, pool.pk in complete)
    return places


def _cup(
    entry: Entry,
    places: list[CupPlace],
    competition: Competition,
    furthest: dict[tuple[int, str], Stage],
) -> tuple[int | None, Stage | None]:
    place = next((p.place for p in places if p.entry.pk == entry.pk), None)
    return place, None if place is not None else furthest.get((entry.pk, competition))


def _stage(value: str) -> Stage | None:
    return Stage(value) if value else None


@dataclass(frozen=True)
class _Closed:
    """What a closed season's honour reads from the team's season line (the close's)."""

    rank: int | None
    kdh_place: int | None
    kdh_stage: str
    wg_place: int | None
    wg_stage: str


def _honour_closed(entry: Entry, line: _Closed, move: str) -> Honour:
    """A closed season's honour from the team's season line: its final rank (none when
    replaced, R14) and how far it went in each cup."""
    return Honour(
        season=entry.season,
        entry=entry,
        place=line.rank,
        final=True,
        move=move,
        kdh_place=line.kdh_place,
        kdh_stage=None if line.kdh_place is not None else _stage(line.kdh_stage),
        wg_place=line.wg_place,
        wg_stage=None if line.wg_place is not None else _stage(line.wg_stage),
    )


def team_honours(
    *, team: Team, tables: Mapping[int, list[StandingRow]] | None = None
) -> list[Honour]:
    """``team``'s seasons, newest first: division and place, the move to the next season, and
    how far it went in each cup — in a constant number of queries whatever the number of
    seasons: a closed season's from the team's season line (``season_close``), a season not
    closed from its published results only. ``tables``: division tables over the published
    rounds already read (by pool id; the team page's current one), not computed again."""
    entries = list(
        Entry.objects.filter(team=team)
        .select_related("season", "division")
        .order_by("-season__number")
    )
    for entry in entries:
        entry.team = team  # every entry is the team's: not read again
    lines = {
        entry_id: _Closed(rank, kdh_place, kdh_stage, wg_place, wg_stage)
        for entry_id, rank, kdh_place, kdh_stage, wg_place, wg_stage in SeasonLine.objects.filter(
            team=team
        ).values_list("entry_id", "rank", "kdh_place", "kdh_stage", "wg_place", "wg_stage")
    }
    running = [entry for entry in entries if entry.pk not in lines]
    numbers = set(
        Season.objects.filter(
            number__in={entry.season.number + 1 for entry in entries}
        ).values_list("number", flat=True)
    )
    by_season = {entry.season.number: entry for entry in entries}
    places = _places(running, team, tables or {}) if running else {}
    finals = _finals({entry.season for entry in running}) if running else {}
    furthest = _furthest_stages(running) if running else {}
    honours = []
    for entry in entries:
        number = entry.season.number
        move = _move(entry, by_season.get(number + 1), number + 1 in numbers)
        if entry.pk in lines:
            honours.append(_honour_closed(entry, lines[entry.pk], move))
            continue
        place, final = places[entry.pk]
        kdh = _cup_places(finals, entry.season_id, Competition.KDH)
        wg = _cup_places(finals, entry.season_id, Competition.WG)
        kdh_place, kdh_stage = _cup(entry, kdh, Competition.KDH, furthest)
        wg_place, wg_stage = _cup(entry, wg, Competition.WG, furthest)
        honours.append(
            Honour(
                season=entry.season,
                entry=entry,
                place=place,
                final=final,
                move=move,
                kdh_place=kdh_place,
                kdh_stage=kdh_stage,
                wg_place=wg_place,
                wg_stage=wg_stage,
            )
        )
    return honours
