"""The session a reminder's one-click link opens (``league.links``) sends picks only.

The link is a key anyone holding the email holds, for a week (mail scanners, a forwarded
reminder, a shared mailbox): what it opens is the pick page, its submissions and the public
pages. Anything that lasts beyond a pick — naming a deputy, « My account », the password, email
choices, the calendar's private address, the API token, the desks, the admin — asks for the
password first (``/accounts/confirm/``, :func:`league.views_accounts.password_confirm`), which
makes the session a full one, as a sign-in with the password would.

The pages are named here by their URL names, allowed rather than refused: a page nobody listed
asks for the password (``tests/competitions/test_pick_link_session.py`` holds every named page
to one side or the other, so a new page is decided when it is added).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _

from matrixhockey.redirects import site_path

PICKS_ONLY_KEY = "league.picks_only"
"""Set in the session the one-click link opens; removed once the password is confirmed."""

PICKS_ONLY_ANY_METHOD = frozenset(
    {
        # The picks: the page, its forms, the API's pick (PUT) and its history (GET).
        "picks",
        "pick_send",
        "api-picks",
        # Leaving, the header's language switch (the page's, not the profile's), and the
        # password's own pages: the confirmation, and a forgotten password's by email.
        "pick_link",
        "sign_out",
        "set_language",
        "password_confirm",
        "password_reset",
        "password_reset_done",
        "password_reset_confirm",
        "password_reset_complete",
        # Signed links and the token's endpoint, which read no session: whoever holds them
        # holds what they grant, signed in or not.
        "api-token",
        "email_unsubscribe",
        "join_confirm",
        "join_place",
        "join_leave",
        "calendar_coach",
    }
)
"""Pages the link's session uses as it likes."""

PICKS_ONLY_READS = frozenset(
    {
        "favicon",
        "robots",
        "healthz",
        "home",
        "results_latest",
        "results_week",
        "results_pool_round",
        "results_input",
        "standings_index",
        "standings",
        "seasons",
        "season",
        "season_team",
        "team",
        "wg_race",
        "matrices",
        "infos_index",
        "infos",
        "calendar_league",
        "rules",
        "rulings",
        "all_time",
        "head_to_head_pick",
        "head_to_head",
        "records",
        "coach",
        "api-seasons",
        "api-season-current",
        "api-season",
        "api-standings",
        "api-infos",
        "api-matrix",
        "api-results",
        "api-all-time",
        "api-team-history",
        "api-coach",
        "api-head-to-head",
        "api-records",
        "api-record-breaks",
        "api-schema",
        "api-docs",
    }
)
"""The public pages, which the link's session reads (``GET``, ``HEAD``)."""

READING = frozenset({"GET", "HEAD"})


def picks_only(request: HttpRequest) -> bool:
    """Whether ``request`` comes with the session of a one-click link, not yet confirmed."""
    session = getattr(request, "session", None)
    return bool(session is not None and session.get(PICKS_ONLY_KEY))


def picks_only_begin(request: HttpRequest) -> None:
    """The session just opened by a one-click link sends picks only."""
    request.session[PICKS_ONLY_KEY] = True


def picks_only_end(request: HttpRequest) -> None:
    """The password was confirmed: the session is a full one."""
    request.session.pop(PICKS_ONLY_KEY, None)


def _back_after(request: HttpRequest) -> str:
    """Where the confirmation leads: the page asked for, or for a form the page it was on."""
    if request.method in READING:
        return request.get_full_path()
    referer = urlsplit(request.headers.get("referer", ""))
    if referer.netloc != request.get_host():
        return ""
    path = referer.path + (f"?{referer.query}" if referer.query else "")
    return site_path(request, path) or ""


class PicksOnlyMiddleware:
    """Sends a one-click link's session to the password's confirmation for every page but the
    picks and the public pages (after the session, authentication and messages middleware).
    The API answers 403 instead; a request with a token is the token's, not the session's."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponse],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> HttpResponse | None:
        if not picks_only(request) or not request.user.is_authenticated:
            return None
        match = request.resolver_match
        name = match.view_name if match is not None else None
        if name in PICKS_ONLY_ANY_METHOD or (
            request.method in READING and name in PICKS_ONLY_READS
        ):
            return None
        if request.path_info.startswith("/api/"):
            if "authorization" in request.headers:
                return None
            return JsonResponse(
                {
                    "detail": _(
                        "Signed in by a reminder's link, you may send picks only: confirm your "
                        "password on the site first."
                    )
                },
                status=403,
            )
        query = urlencode({"next": _back_after(request)}, safe="/")
        return redirect(f"{reverse('password_confirm')}?{query}")
