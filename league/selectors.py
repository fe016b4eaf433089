"""The registry's reads: the current season or the one a reader asks for, every season, its
divisions, a person's team, where a person lands after signing in, the waiting list."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Prefetch, Q
from django.utils import timezone
from rest_framework.authtoken.models import Token

from league.models import (
    Division,
    Entry,
    Language,
    News,
    Profile,
    Season,
    Team,
    WaitingListEntry,
)


@dataclass(frozen=True)
class DivisionTable:
    """A division of a season with its playing teams, by code."""

    division: Division
    entries: list[Entry]


def season_current() -> Season | None:
    """The league's current season, if one is set."""
    return Season.objects.filter(is_current=True).first()


SEASON_NUMBER_DIGITS = 9
"""A season number in a query has at most this many digits (an integer column's range)."""


def season_from_query(*, value: str | None) -> Season | None:
    """The season a reader asks for with ``?season=N`` (``shared/SEASON.md``, "Past seasons"):
    season number ``value``, or the current season when ``value`` is absent or empty. ``None``
    when ``value`` is not the number of one of the league's seasons (not a number, no such
    season) or, without a value, when no season is current."""
    if value is None or value == "":
        return season_current()
    if not (value.isascii() and value.isdigit()) or len(value) > SEASON_NUMBER_DIGITS:
        return None
    return season_find(number=int(value))


def season_find(*, number: int) -> Season | None:
    """Season ``number``, if the league has it."""
    return Season.objects.filter(number=number).first()


def seasons_all() -> list[Season]:
    """Every season of the league, newest first."""
    return list(Season.objects.order_by("-number"))


def season_divisions(*, season: Season) -> list[DivisionTable]:
    """The divisions that have teams in ``season``, Elite first, each with its teams by code."""
    playing = Entry.objects.current(season=season).select_related("team").order_by("code")
    divisions = (
        Division.objects.filter(entries__season=season)
        .distinct()
        .prefetch_related(Prefetch("entries", queryset=playing, to_attr="playing"))
    )
    return [DivisionTable(division=d, entries=d.playing) for d in divisions]


def teams_all() -> list[Team]:
    """Every team the league has known, by name."""
    return list(Team.objects.order_by("name"))


def team_find(*, slug: str) -> Team | None:
    """The team ``slug``, if the league has it."""
    return Team.objects.filter(slug=slug).first()


def user_team(*, user: User | AnonymousUser) -> Team | None:
    """The team ``user`` coaches or is the deputy of, if any (a user coaches one team at most,
    and a coach is nobody's deputy)."""
    if not user.is_authenticated:
        return None
    return (
        Team.objects.filter(Q(coach_id=user.pk) | Q(deputy_id=user.pk))
        .order_by("name", "id")
        .first()
    )


def user_language(user: User) -> str:
    """The language ``user`` chose in « My account » (French, the league's, by default)."""
    profile = Profile.objects.filter(user=user).first()
    return profile.language if profile else Language.FRENCH


@dataclass(frozen=True)
class WaitingPlace:
    """Where a waiting-list entry stands: its ``place`` (1 is the next team to get a place) out
    of ``size`` teams waiting; ``place`` is ``None`` when the entry is not on the list (not
    confirmed, placed or withdrawn)."""

    entry: WaitingListEntry
    place: int | None
    size: int


def waiting_list_position(*, entry: WaitingListEntry) -> WaitingPlace:
    """``entry``'s place on the waiting list, in the list's order (registration, then id)."""
    waiting = WaitingListEntry.objects.filter(status=WaitingListEntry.Status.WAITING)
    size = waiting.count()
    if entry.status != WaitingListEntry.Status.WAITING:
        return WaitingPlace(entry=entry, place=None, size=size)
    ahead = waiting.filter(
        Q(registered_at__lt=entry.registered_at)
        | Q(registered_at=entry.registered_at, id__lt=entry.pk)
    ).count()
    return WaitingPlace(entry=entry, place=ahead + 1, size=size)


def user_has_api_token(*, user: User) -> bool:
    """Whether ``user`` holds an API token (« My account »)."""
    return Token.objects.filter(user=user).exists()


def user_waiting_entries(*, user: User) -> list[WaitingListEntry]:
    """The waiting-list entries ``user`` registered that are still open (to confirm, waiting)."""
    if not user.is_authenticated:
        return []
    return list(
        WaitingListEntry.objects.filter(
            user_id=user.pk,
            status__in=[WaitingListEntry.Status.PENDING, WaitingListEntry.Status.WAITING],
        ).order_by("registered_at", "id")
    )


NEWS_ON_HOME = 3
"""How many news items the home page shows."""


@dataclass(frozen=True)
class NewsItem:
    """A news item in one language."""

    pk: int
    title: str
    body: str
    published_at: datetime


def _in_language(news: News, language: str) -> NewsItem:
    return NewsItem(
        pk=news.pk,
        title=news.title(language),
        body=news.body(language),
        published_at=news.published_at,
    )


def news_latest(*, language: str, limit: int = NEWS_ON_HOME) -> list[NewsItem]:
    """The latest ``limit`` news items published by now, newest first, in ``language``."""
    published = News.objects.filter(published_at__lte=timezone.now())
    return [_in_language(news, language) for news in published[:limit]]


def news_between(*, after: datetime, until: datetime, language: str) -> list[NewsItem]:
    """The news items published after ``after`` and by ``until``, oldest first, in ``language``
    (what a Wednesday email tells since the one before)."""
    published = News.objects.filter(published_at__gt=after, published_at__lte=until)
    return [_in_language(news, language) for news in published.order_by("published_at", "id")]


def news_in_language(*, news: News, language: str) -> NewsItem:
    """``news`` in ``language``."""
    return _in_language(news, language)
