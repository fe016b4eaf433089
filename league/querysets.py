"""The registry's querysets: the questions about its rows that several readers ask, answered once
in the ORM."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypeVar

from django.db import models
from django.db.models import Q

E = TypeVar("E", bound=models.Model)
"""An entry (``league.models.Entry``, which imports this module)."""


class EntryQuerySet(models.QuerySet[E]):
    """Entries, and R14's one answer to « who plays for this place »: an entry replaced under R14
    is played by its replacement (of its replacement…), which took the place over at the moment
    the entry it replaces was replaced."""

    def holding(self, as_of: datetime) -> EntryQuerySet[E]:
        """R14: the entries holding their place at ``as_of``: not replaced by then, and in place
        by then (a replacement holds the place from the moment the entry it replaces was
        replaced)."""
        return self.filter(
            (Q(replaced_at__isnull=True) | Q(replaced_at__gt=as_of))
            & (Q(replaces__isnull=True) | Q(replaces__replaced_at__lte=as_of))
        )

    def holders(self, entries: Iterable[E]) -> dict[int, E]:
        """R14: for each of ``entries`` (by id), the entry holding its place now — itself, or the
        replacement that took it over (with its team and division). One query when one of them
        was replaced, none otherwise."""
        entries = list(entries)
        replacements: dict[Any, E] = {}
        if any(entry.replaced_at is not None for entry in entries):
            replacements = {
                entry.replaces_id: entry
                for entry in self.filter(
                    season_id__in={entry.season_id for entry in entries}, replaces__isnull=False
                ).select_related("team", "division")
            }
        holders = {}
        for entry in entries:
            holder = entry
            while holder.replaced_at is not None:
                holder = replacements[holder.pk]
            holders[entry.pk] = holder
        return holders
