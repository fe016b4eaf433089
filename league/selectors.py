"""Reads of the league, named ``<thing>_<action>`` with keyword-only arguments."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from competitions.models import Round
from league.models import Division, Entry, Pick, Season


@dataclass(frozen=True)
class DivisionTable:
    """A division of a season with its playing teams, by code."""

    division: Division
    entries: list[Entry]


def season_current() -> Season | None:
    """The league's current season, if one is set."""
    return Season.objects.filter(is_current=True).first()


def season_divisions(*, season: Season) -> list[DivisionTable]:
    """The divisions that have teams in ``season``, Elite first, each with its teams by code."""
    playing = (
        Entry.objects.filter(season=season, replaced_at__isnull=True)
        .select_related("team")
        .order_by("code")
    )
    divisions = (
        Division.objects.filter(entries__season=season)
        .distinct()
        .prefetch_related(Prefetch("entries", queryset=playing, to_attr="playing"))
    )
    return [DivisionTable(division=d, entries=d.playing) for d in divisions]


def pick_history(*, entry: Entry, round: Round) -> QuerySet[Pick]:
    """Every pick received for ``entry`` and ``round``, latest first (R12)."""
    return Pick.objects.filter(entry=entry, round=round).order_by("-received_at", "-id")


def pick_current(*, entry: Entry, round: Round) -> Pick | None:
    """R12: the pick that counts, the last received (ties on time go to the later stored)."""
    return pick_history(entry=entry, round=round).first()
