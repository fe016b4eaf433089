"""The KDH page as a bracket (``/standings/kdh/``): the rounds from the qualifying one to the
final, a team followed along its path with ``?team=<slug>`` — by default the signed-in coach's.

Called by :func:`competitions.views.public.standings` for the KDH's pool; reads through
:func:`competitions.selectors.bracket.kdh_bracket` (published results only, R23).
"""

from __future__ import annotations

from django.http import HttpRequest

from competitions.models import Pool
from competitions.selectors.bracket import kdh_bracket
from league.models import Entry

TEAM_PARAMETER = "team"
"""The query parameter naming the team followed: ``?team=sleigh-dogs`` (empty: none)."""


def kdh_bracket_context(
    request: HttpRequest, *, pool: Pool, entry: Entry | None, season_query: str
) -> dict[str, object]:
    """The bracket page's context: the bracket with its followed team — the one asked for, else
    the coach's own (``entry``) —, and the query a team's link starts with (``?team=`` after
    the season's, so that a past season's page stays in it)."""
    asked = request.GET.get(TEAM_PARAMETER)
    team = asked if asked is not None else (entry.team.slug if entry else None)
    bracket = kdh_bracket(pool=pool, team=team or None)
    return {
        "bracket": bracket,
        "team_query": f"{season_query}&" if season_query else "?",
        "season_number": pool.season.number if season_query else None,
    }
