"""Template context shared by every page."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def league(request: HttpRequest) -> dict[str, str]:
    """The league's name, shown in every page's header and title."""
    return {"league_name": settings.LEAGUE_NAME}
