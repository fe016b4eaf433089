"""The registry's reads: the current season, its divisions, a person's team."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Prefetch

from league.models import Division, Entry, Language, Profile, Season, Team


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


def user_team(*, user: AbstractBaseUser) -> Team | None:
    """The team ``user`` coaches, if any (a user coaches one team at most)."""
    if not user.is_authenticated:
        return None
    return Team.objects.filter(coach_id=user.pk).first()


def user_language(user: AbstractBaseUser) -> str:
    """The language ``user`` chose in « My account » (French, the league's, by default)."""
    profile = Profile.objects.filter(user=user).first()
    return profile.language if profile else Language.FRENCH
