"""Closed seasons as ``season_close`` recorded them: the archive, its championship's final
tables (with the withdrawals since, R24) and its cups' honours; which season a command means.
"""

from __future__ import annotations

from competitions.models import Competition, CupHonour, FinalRow, SeasonArchive
from league.models import Season


def season_archive(*, season: Season) -> SeasonArchive | None:
    """``season``'s archive, or ``None`` while it is not closed."""
    return SeasonArchive.objects.filter(season=season).first()


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
