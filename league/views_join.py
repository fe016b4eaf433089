"""« Join the league »: a visitor registers a team on the waiting list, confirms the address by
the emailed link, sees the team's place and may leave the list.

The confirmation and place links are signed tokens (``league.links``): whoever holds the link
holds the entry, as for the reminders' one-click link, so its pages are never cached and never
pass the link on to another site (``Referrer-Policy: same-origin``; not ``no-referrer``, with
which browsers send ``Origin: null`` on the page's own form and the CSRF check refuses it).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league import services
from league.forms import JoinForm
from league.links import (
    LinkExpired,
    LinkInvalid,
    waiting_confirm_check,
    waiting_leave_path,
    waiting_place_check,
    waiting_place_path,
)
from league.models import WaitingListEntry
from league.selectors import user_language, waiting_list_position
from matrixhockey.api import client_address
from matrixhockey.cache import rate_exceeded

SENT_TO = "join_sent_to"
"""The session key of the address the last registration emailed (shown on the next page)."""


def _private(response: HttpResponse) -> HttpResponse:
    response["Referrer-Policy"] = "same-origin"
    response["Cache-Control"] = "no-store"
    return response


def _too_many(request: HttpRequest, email: str) -> bool:
    """The form's limits (``WAITING_LIST_RATE_PER_ADDRESS`` an hour per client address,
    ``WAITING_LIST_RATE_PER_EMAIL`` a day per address written): each registration emails."""
    by_address = rate_exceeded(
        key=f"join:ip:{client_address(request)}",
        limit=settings.WAITING_LIST_RATE_PER_ADDRESS,
        seconds=3600,
    )
    by_email = rate_exceeded(
        key=f"join:email:{email.strip().lower()}",
        limit=settings.WAITING_LIST_RATE_PER_EMAIL,
        seconds=86400,
    )
    return by_address or by_email


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    """The form: a name, an email, a team name wish, a language."""
    user = request.user
    initial = {"language": translation.get_language() or "fr"}
    if user.is_authenticated:
        initial.update(
            contact_name=user.get_full_name(), email=user.email, language=user_language(user)
        )
    form = JoinForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if _too_many(request, data["email"]):
            form.add_error(None, _("Too many registrations: try again in an hour."))
            status = 429
        else:
            services.waiting_list_register(
                team_name=data["team_name"],
                contact_name=data["contact_name"],
                email=data["email"],
                language=data["language"],
                user=user if user.is_authenticated else None,
            )
            request.session[SENT_TO] = data["email"]
            return redirect("join_sent")
    elif request.method == "POST":
        status = 400
    return render(request, "league/join.html", {"form": form}, status=status)


def join_sent(request: HttpRequest) -> HttpResponse:
    """« Check your inbox »."""
    email = request.session.get(SENT_TO, "")
    context = {"email": email, "days": settings.WAITING_LIST_CONFIRM_DAYS}
    return render(request, "league/join_sent.html", context)


def _link_broken(request: HttpRequest, *, expired: bool) -> HttpResponse:
    status = 410 if expired else 400
    return _private(
        render(request, "league/join_link_invalid.html", {"expired": expired}, status=status)
    )


def join_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The emailed link: the address is confirmed, the team joins the list (at its end), and
    the person goes to its place's page. A second click says it was done already. Opening the
    link is enough (a GET): a mail scanner that opens it first still proves the address gets
    the league's mail, and the confirmation is idempotent."""
    try:
        entry = waiting_confirm_check(token)
    except LinkExpired:
        return _link_broken(request, expired=True)
    except LinkInvalid:
        return _link_broken(request, expired=False)
    confirmed = services.waiting_list_confirm(entry=entry)
    request.session[f"join_confirmed_{entry.pk}"] = confirmed
    return _private(redirect(waiting_place_path(entry)))


def join_place(request: HttpRequest, token: str) -> HttpResponse:
    """The team's place on the list, with the button to leave it."""
    try:
        entry = waiting_place_check(token)
    except LinkInvalid:
        return _link_broken(request, expired=False)
    just = request.session.pop(f"join_confirmed_{entry.pk}", None)
    context = {
        "position": waiting_list_position(entry=entry),
        "just_confirmed": just is True,
        "confirmed_before": just is False,
        "leave_path": waiting_leave_path(entry),
        "Status": WaitingListEntry.Status,
    }
    return _private(render(request, "league/join_place.html", context))


@require_http_methods(["GET", "POST"])
def join_leave(request: HttpRequest, token: str) -> HttpResponse:
    """Leaving the list: asked on GET, done on POST (a withdrawn entry is kept, not deleted)."""
    try:
        entry = waiting_place_check(token)
    except LinkInvalid:
        return _link_broken(request, expired=False)
    context: dict[str, object] = {"entry": entry, "place_path": waiting_place_path(entry)}
    if request.method == "POST":
        left = services.waiting_list_leave(entry=entry)
        entry.refresh_from_db()
        context["left"] = left
        context["done"] = True
    return _private(render(request, "league/join_leave.html", context))
