"""The registry's querysets: the one way the site finds the entry a team plays a season with,
for the team or for a person acting for it (``Entry.objects``)."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models
from django.db.models import Q


class EntryQuerySet(models.QuerySet):
    """``Entry.objects``: a team's current entry, found one way everywhere (its pages, the API,
    the calendar feeds, the emails, the pick service)."""

    def current(self, *, season: models.Model | int) -> EntryQuerySet:
        """The entries of ``season`` (a season or its id) whose team still holds its place: a
        team replaced under R14 keeps its entry and its results, but the replacement's entry
        plays from then on. By id: a team has one entry a season, so nothing joins to order."""
        return self.filter(season=season, replaced_at__isnull=True).order_by("pk")

    def current_of(self, team: models.Model | int, *, season: models.Model | int) -> EntryQuerySet:
        """``team``'s entry (a team or its id) in ``season`` while it plays it (none once it is
        replaced, R14): one at most."""
        return self.current(season=season).filter(team=team)

    def current_for(self, user: AbstractBaseUser, *, season: models.Model | int) -> EntryQuerySet:
        """The entry in ``season`` of the team ``user`` coaches or is the deputy of (R12: a
        deputy acts for the team), while it plays it (R14); none for a visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.current(season=season).filter(Q(team__coach=user) | Q(team__deputy=user))
