"""``{% calendar_feeds %}``: the league's calendar address, and the coach's private one with its
« New address » button, for « My account », the pick page and the results pages."""

from __future__ import annotations

from django import template
from django.utils import translation

from competitions.feeds import coach_feed_url, league_feed_url
from competitions.selectors.people import request_person

register = template.Library()


def _webcal(url: str) -> str:
    # webcal:// asks the reader's calendar app to subscribe (it fetches the https address).
    return "webcal://" + url.split("://", 1)[-1]


@register.inclusion_tag("feeds/_links.html", takes_context=True)
def calendar_feeds(context: template.Context) -> dict[str, object]:
    request = context.get("request")
    user = getattr(request, "user", None)
    league_url = league_feed_url(translation.get_language())
    coach_url = ""
    if request is not None and user is not None and request_person(request).team is not None:
        coach_url = coach_feed_url(user)
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "league_url": league_url,
        "league_webcal": _webcal(league_url),
        "coach_url": coach_url,
        "coach_webcal": _webcal(coach_url) if coach_url else "",
        "next": request.get_full_path() if request is not None else "",
    }
