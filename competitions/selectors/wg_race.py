"""The WG race (``/wg/race/``): who would play next season's WG if the season ended now (R18) —
the division leaders, the KDH finalists, the holder, most goals and fewest against, and the
places freed by a team qualified twice — from the published results only, through the same
engine function the season plan uses (:func:`engine.wg.qualifiers`).
"""

from __future__ import annotations

from dataclasses import dataclass

from competitions.models import Competition, Pool
from competitions.selectors.seasons import kdh_final_places, wg_final_places
from competitions.selectors.standings import pools_standings_tables
from engine import Dice
from engine.wg import Berth, GoalRecord, qualifiers
from league.models import Entry, Season


@dataclass(frozen=True)
class RaceTeam:
    """One of the twelve, with why it would be there."""

    entry: Entry
    berth: str
    """An :class:`engine.wg.Berth` value; ``kdh_winner`` for the KDH final's winner."""
    freed_place: bool
    """It takes a place freed by a team qualified twice (R18), or one not decided yet."""
    goals_for: int
    goals_against: int


@dataclass(frozen=True)
class WgRace:
    """The twelve as things stand, and what is not decided yet."""

    season: Season
    teams: list[RaceTeam]
    kdh_final_known: bool
    holder_known: bool
    games_played: int


def wg_race(*, season: Season) -> WgRace | None:
    """R18's twelve if ``season`` ended now, from published results; ``None`` before any game.

    Until the KDH final (or the WG) is published, its places are not known: the engine then
    fills them as freed places, alternately by most goals and fewest against, so the page
    always shows twelve. Ties are broken by a die seeded by the season (R23), as the plan's
    would be by the season's own seed: the page says so.
    """
    pools = list(
        Pool.objects.filter(season=season, competition=Competition.CHAMPIONSHIP)
        .select_related("division")
        .order_by("division__tier", "division__group")
    )
    entries = {
        entry.team.slug: entry
        for entry in Entry.objects.current(season=season).select_related("team", "division")
    }
    # Every division's table at once: three queries whatever the number of divisions.
    by_pool = pools_standings_tables(pools=pools)
    tables = [by_pool[pool.pk].rows for pool in pools]
    rows = [row for table in tables for row in table if row.team in entries]
    played = sum(row.played for row in rows)
    if not rows or played == 0:
        return None
    kdh = kdh_final_places(season=season)
    wg = wg_final_places(season=season)
    holder = next((place.entry.team.slug for place in wg if place.place == 1), None)
    finalists = [place.entry.team.slug for place in sorted(kdh, key=lambda p: p.place)]
    kdh_winner = finalists[0] if finalists else None
    chosen = qualifiers(
        division_winners=[table[0].team if table else None for table in tables],
        kdh_finalists=finalists or [None, None],
        holder=holder,
        records=[GoalRecord(row.team, row.goals_for, row.goals_against) for row in rows],
        dice=Dice(f"wg-race/{season.number}"),
    )
    by_team = {row.team: row for row in rows}
    teams = [
        RaceTeam(
            entry=entries[q.team],
            berth="kdh_winner"
            if q.berth is Berth.KDH_FINALIST and q.team == kdh_winner
            else q.berth.value,
            freed_place=q.freed_place,
            goals_for=by_team[q.team].goals_for,
            goals_against=by_team[q.team].goals_against,
        )
        for q in chosen
    ]
    return WgRace(
        season=season,
        teams=teams,
        kdh_final_known=bool(finalists),
        holder_known=holder is not None,
        games_played=played // 2,
    )
