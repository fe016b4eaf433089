"""The registry's querysets: the questions about its rows that several readers ask, answered once
in the ORM — the entry a team plays a season with, for the team or for a person acting for it,
and R14's holder of a place (``Entry.objects``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypeVar

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models
from django.db.models import Q

E = TypeVar("E", bound=models.Model)
"""An entry (``league.models.Entry``, which imports this module)."""


def holding_at(as_of: datetime) -> Q:
    """R14: an entry holds its place at ``as_of`` when it is not replaced by then, and in place
    by then (a replacement holds the place from the moment the entry it replaces was replaced).
    A condition, for a reader that joins it to others in one filter (the arbitration's pool)."""
    return (Q(replaced_at__isnull=True) | Q(replaced_at__gt=as_of)) & (
        Q(replaces__isnull=True) | Q(replaces__replaced_at__lte=as_of)
    )


class EntryQuerySet(models.QuerySet[E]):
    """``Entry.objects``: a team's current entry, found one way everywhere (its pages, the API,
    the calendar feeds, the emails, the pick service), and R14's one answer to « who plays for
    this place »: an entry replaced under R14 is played by its replacement (of its
    replacement…), which took the place over at the moment the entry it replaces was replaced."""

    def playing(self) -> EntryQuerySet[E]:
        """The entries whose team still holds its place, in whatever seasons the query keeps (a
        division's, the pools' of several seasons): a team replaced under R14 keeps its entry
        and its results, but the replacement's entry plays from then on."""
        return self.filter(replaced_at__isnull=True)

    def replaced(self) -> EntryQuerySet[E]:
        """The entries whose place a replacement took over (R14): the others of
        :meth:`playing`."""
        return self.filter(replaced_at__isnull=False)

    def current(self, *, season: models.Model | int) -> EntryQuerySet[E]:
        """The entries of ``season`` (a season or its id) whose team still holds its place
        (:meth:`playing`). By id: a team has one entry a season, so nothing joins to order."""
        return self.playing().filter(season=season).order_by("pk")

    def current_of(
        self, team: models.Model | int, *, season: models.Model | int
    ) -> EntryQuerySet[E]:
        """``team``'s entry (a team or its id) in ``season`` while it plays it (none once it is
        replaced, R14): one at most."""
        return self.current(season=season).filter(team=team)

    def current_for(
        self, user: AbstractBaseUser, *, season: models.Model | int
    ) -> EntryQuerySet[E]:
        """The entry in ``season`` of the team ``user`` coaches or is the deputy of (R12: a
        deputy acts for the team), while it plays it (R14); none for a visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.current(season=season).filter(Q(team__coach=user) | Q(team__deputy=user))

    def holders(self, entries: Iterable[Any]) -> dict[int, Any]:
        """R14: for each of ``entries`` (by id), the entry holding its place now — itself, or the
        replacement that took it over (with its team and division). One query when one of them
        was replaced, none otherwise. Typed ``Any``: ``league.models``, which the entries are of,
        imports this module."""
        entries = list(entries)
        replacements: dict[Any, Any] = {}
        if any(entry.replaced_at is not None for entry in entries):
            found: Iterable[Any] = self.filter(
                season_id__in={entry.season_id for entry in entries}, replaces__isnull=False
            ).select_related("team", "division")
            replacements = {entry.replaces_id: entry for entry in found}
        holders = {}
        for entry in entries:
            holder = entry
            while holder.replaced_at is not None:
                holder = replacements[holder.pk]
            holders[entry.pk] = holder
        return holders
