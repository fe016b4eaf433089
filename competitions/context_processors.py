"""Template context of every page the competitions know about: who the signed-in person is in
the league, for the header's links (« My picks », « Referee »)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from competitions.selectors.people import request_person


def person(request: HttpRequest) -> dict[str, object]:
    """``person``: :func:`~competitions.selectors.people.request_person`, read only when a
    template asks (one query a request, shared with the page's own reads)."""
    return {"person": SimpleLazyObject(lambda: request_person(request))}
