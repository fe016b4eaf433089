"""Who the signed-in person is in the league, as every page's header shows it: the team they
coach or are the deputy of (R12) and whether they referee a pool — one query a request,
whatever reads it (the header, the pick page, the calendar links).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Exists, OuterRef
from django.http import HttpRequest

from competitions.models import Pool
from league.models import Team


@dataclass(frozen=True)
class Person:
    """The signed-in person's rights as the pages read them (nobody's: a visitor)."""

    team: Team | None = None
    """The team they coach or are the deputy of (R12), as ``league.selectors.user_team``."""
    coached: Team | None = None
    """The team they coach themselves (a deputy coaches none)."""
    referee: bool = False
    """They referee a pool (of any season): the header's link to the referee's desk."""


NOBODY = Person()


def user_person(*, user: User | AnonymousUser) -> Person:
    """``user``'s :class:`Person`, in one query: the user's row with the team they coach, the
    team they are the deputy of, and whether a pool names them referee."""
    if not user.is_authenticated:
        return NOBODY
    found = (
        User.objects.filter(pk=user.pk)
        .select_related("team", "deputy_team")
        .annotate(referee=Exists(Pool.referees.through.objects.filter(user_id=OuterRef("pk"))))
        .first()
    )
    if found is None:
        return NOBODY
    coached = _related(found, "team")
    teams = [team for team in (coached, _related(found, "deputy_team")) if team is not None]
    # As user_team: a coach is nobody's deputy, and were both set, the first by name.
    team = min(teams, key=lambda team: (team.name, team.pk)) if teams else None
    return Person(team=team, coached=coached, referee=bool(getattr(found, "referee", False)))


def _related(user: User, name: str) -> Team | None:
    try:
        team: Team = getattr(user, name)
    except ObjectDoesNotExist:  # the reverse one-to-one, selected and empty: no query
        return None
    return team


REQUEST_PERSON = "league_person"
"""Where :func:`request_person` keeps its answer on the request: it is read once a request."""


def request_person(request: HttpRequest) -> Person:
    """The :class:`Person` of ``request``'s user, read once a request (never kept longer, so a
    change of coach, deputy or referee shows on the next page)."""
    person = request.__dict__.get(REQUEST_PERSON)
    if not isinstance(person, Person):
        # An error page answered before the authentication middleware ran has no user.
        user = getattr(request, "user", None)
        person = NOBODY if user is None else user_person(user=user)
        request.__dict__[REQUEST_PERSON] = person
    return person
