"""Closed seasons as ``season_close`` recorded them: the archive, its championship's final
tables (with the withdrawals since, R24) and its cups' honours; which season a command means.

The season pages read a closed season from here rather than from its results (a few stored rows
a season, whatever the number of seasons: ``docs/ARCHITECTURE.md``, « The league's memory »).
"""

from __future__ import annotations

from collections.abc import Iterable

from competitions.models import Competition, CupHonour, FinalRow, SeasonArchive
from league.models import Division, Season


def season_archive(*, season: Season) -> SeasonArchive | None:
    """``season``'s archive, or ``None`` while it is not closed."""
    return SeasonArchive.objects.filter(season=season).first()


def seasons_closed(*, seasons: Iterable[Season]) -> set[int]:
    """The ids of ``seasons`` that have an archive (closed by ``season_close``): one query."""
    return set(
        SeasonArchive.objects.filter(season_id__in=[season.pk for season in seasons]).values_list(
            "season_id", flat=True
        )
    )


ELITE = "elite"
"""The key of the Elite's champion among :func:`winners_closed`' (the cups' are theirs)."""


def winners_closed(*, season_ids: Iterable[int]) -> dict[tuple[int, str], int]:
    """Who won what in the closed seasons of ``season_ids``: by (season id, :data:`ELITE` or
    a cup), the winner's team id — the first of the Elite's final table (R9) once a game was
    played, each cup's place 1. Two queries of a few values a season."""
    season_ids = list(season_ids)
    winners: dict[tuple[int, str], int] = {}
    for season_id, team_id in (
        FinalRow.objects.filter(
            archive__season_id__in=season_ids,
            pool__competition=Competition.CHAMPIONSHIP,
            pool__division__tier=Division.Tier.ELITE,
            rank=1,
            played__gt=0,
        )
        .order_by("archive__season_id", "pool__division__group", "pool_id")
        .values_list("archive__season_id", "entry__team_id")
    ):
        winners.setdefault((season_id, ELITE), team_id)
    for season_id, competition, team_id in CupHonour.objects.filter(
        archive__season_id__in=season_ids, place=1
    ).values_list("archive__season_id", "competition", "entry__team_id"):
        winners[season_id, competition] = team_id
    return winners


def season_find(*, number: int | None = None) -> Season | None:
    """Season ``number``; without one, the current season (``None`` when there is none)."""
    seasons = Season.objects.all()
    if number is None:
        return seasons.filter(is_current=True).first()
    return seasons.filter(number=number).first()


def season_last_finished() -> Season | None:
    """The finished season with the highest number, or ``None``."""
    return Season.objects.filter(status=Season.Status.FINISHED).order_by("-number").first()


def championship_final_rows(*, archive: SeasonArchive) -> list[FinalRow]:
    """The championship's final tables at the close, division by division (Elite, D2A … D3D),
    each by rank, with their entries, teams and withdrawals."""
    return list(
        FinalRow.objects.filter(archive=archive, pool__competition=Competition.CHAMPIONSHIP)
        .select_related("entry__team", "entry__withdrawal", "pool__division")
        .order_by("pool__division__tier", "pool__division__group", "rank")
    )


def cup_honours(*, archive: SeasonArchive) -> list[CupHonour]:
    """The cups' honours: the KDH's winner and finalist, then the WG's first to fourth."""
    return list(
        CupHonour.objects.filter(archive=archive)
        .select_related("entry__team")
        .order_by("competition", "place", "entry__team__slug")
    )


def season_in_preparation() -> Season | None:
    """The season being prepared (imported or created from a plan, not started yet), if any."""
    return Season.objects.filter(status=Season.Status.PREPARING).order_by("-number").first()
