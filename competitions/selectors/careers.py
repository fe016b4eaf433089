"""What the memory's pages read beside :mod:`competitions.selectors.memory` (issue 25): the
last season the all-time tables count, a coach's page and whether it is open to the reader,
and the coaches whose names a page may link to their page.

A coach's page is public unless they opted out in « My account » (``Profile.career_public``;
a person with no profile yet has not opted out). An opted-out coach's page is theirs alone:
every other reader, staff included, gets a 404 there (staff read the seasons' coaches in the
admin), and no page links their name.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q

from competitions.models import SeasonLine
from competitions.services.memory_records import coach_name
from league.models import Season, Team


def memory_through() -> Season | None:
    """The last closed season: the one the all-time tables and the records count through
    (``None`` before the first close). One query."""
    return Season.objects.filter(status=Season.Status.FINISHED).order_by("-number").first()


@dataclass(frozen=True)
class CoachPage:
    """A coach's page as one reader may see it."""

    user: User
    name: str
    """Their name as the league shows it (full name, else user name)."""
    public: bool
    """Everyone may read it; when not, only its coach does (with a note that it is hidden)."""


def coach_page(*, username: str, reader: User | AnonymousUser) -> CoachPage | None:
    """The coach ``username``'s page for ``reader``: ``None`` (a 404) when there is no such
    person, or when they opted out and ``reader`` is someone else. One query."""
    user = User.objects.filter(username=username).select_related("profile").first()
    if user is None:
        return None
    profile = getattr(user, "profile", None)
    public = profile is None or profile.career_public
    if not public and reader.pk != user.pk:
        return None
    return CoachPage(user=user, name=coach_name(user), public=public)


def team_coaches(*, team: Team, until: int | None = None) -> dict[int, str]:
    """The user name of ``team``'s coach at each closed season's close (up to season number
    ``until``), by season number, for the coaches whose page is public: the names a page may
    link. One query."""
    lines = SeasonLine.objects.filter(team=team, coach__isnull=False).filter(
        Q(coach__profile__isnull=True) | Q(coach__profile__career_public=True)
    )
    if until is not None:
        lines = lines.filter(season__number__lte=until)
    return dict(lines.values_list("season__number", "coach__username"))
