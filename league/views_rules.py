"""The rules on the site: the guide (``/rules/``, every ruling R1–R25 under its anchor ``rN``,
its examples played live by the engine) and the rulings page (``/rules/rulings/``: the rulings
and clarifications the league added, newest first, then the rulebook's own; ``?season=N``: those
in force in that season). Both public, and kept whole for visitors (``@public_page``); neither
reads anything of a round."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from league.models import RULES_VERSION
from league.public_cache import public_page
from league.rules import RULING_TITLES, rules_examples, rulings_list
from league.season_lookup import SEASON_PARAMETER
from league.selectors import season_from_query


def _language() -> str:
    return "fr" if (get_language() or "").startswith("fr") else "en"


@public_page
def rules(request: HttpRequest) -> HttpResponse:
    """The game's rules as a guide, in the reader's language."""
    language = _language()
    context = {
        "guide": f"rules/_guide_{language}.html",
        "examples": rules_examples(),
        "titles": RULING_TITLES,
        "rules_version": RULES_VERSION,
    }
    return render(request, "rules/guide.html", context)


@public_page
def rulings(request: HttpRequest) -> HttpResponse:
    """Every ruling, newest first, with the season it took effect in."""
    value = request.GET.get(SEASON_PARAMETER)
    season = None
    if value is not None:
        season = season_from_query(value=value)
        if season is None:
            raise Http404(_("There is no season “%(season)s”.") % {"season": value[:20]})
    context = {
        "rulings": rulings_list(language=_language(), season=season),
        "season": season,
        "rules_version": RULES_VERSION,
    }
    return render(request, "rules/rulings.html", context)
