"""The emails of people's own access (``league.signals``): a forgotten password's link, the
waiting list's (confirm the address; an address already on the list gets its place's link), and
a deputy's right ended because they coach a team of their own.
Each is queued by ids (:func:`mail.outbox.email_queue`) and rendered by the worker that sends it,
in the person's language, with its links signed then: no token is stored."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from league.links import password_link, waiting_confirm_link, waiting_place_path
from league.models import Team, WaitingListEntry
from league.selectors import user_language, waiting_list_position
from mail.models import OutboundEmail
from mail.outbox import Memo, Rendering, email_queue, renders
from matrixhockey.site import site_url

ESSENTIAL = {"Auto-Submitted": "auto-generated"}


def email_password_reset(*, user: User) -> OutboundEmail | None:
    """The link to choose a new password, queued for the worker
    (:func:`password_reset_rendering`). Nothing for a user without an address."""
    if not user.email:
        return None
    return email_queue(template="password-reset", user=user, context={})


@renders("password-reset")
def password_reset_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A password's link, when sent, in ``user``'s language: the invitation's link, Django's
    reset token made now (it works once — a new password changes it — and for
    ``PASSWORD_RESET_TIMEOUT`` from the sending)."""
    user = email.user
    if user is None:
        return None
    return Rendering(
        user=user,
        language=user_language(user),
        context={
            "user": user,
            "set_password_url": password_link(user),
            "valid_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
            "sign_in_url": site_url(reverse("sign_in")),
        },
        headers=ESSENTIAL,
    )


def email_waiting_list(
    *, entry: WaitingListEntry, known: bool, in_reply_to: str = ""
) -> OutboundEmail:
    """The waiting list's email to ``entry``'s address (no account: the address is the
    recipient), queued for the worker (:func:`waiting_list_rendering`): the link that confirms
    it, or (``known``: the address is on the list already) its place; threaded under the
    message ``in_reply_to`` when the registration was asked by email (``LISTE`` / ``JOIN``)."""
    context: dict[str, object] = {"entry": entry.pk, "known": known}
    if in_reply_to:
        context["in_reply_to"] = in_reply_to
    return email_queue(template="waiting-list", to=entry.email, context=context)


@renders("waiting-list")
def waiting_list_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """The waiting list's email, when sent, in the language chosen on the form, to the entry's
    address: its place, or the link that confirms it (signed now, valid
    ``WAITING_LIST_CONFIRM_DAYS`` from the sending). Nobody when the entry is gone."""
    entry = WaitingListEntry.objects.filter(pk=email.context["entry"]).first()
    if entry is None:
        return None
    known = bool(email.context["known"])
    context: dict[str, object] = {
        "entry": entry,
        "known": known,
        "place_url": site_url(waiting_place_path(entry)),
    }
    if known:
        context["position"] = waiting_list_position(entry=entry)
    else:
        context["confirm_url"] = waiting_confirm_link(entry)
        context["valid_days"] = settings.WAITING_LIST_CONFIRM_DAYS
    headers = dict(ESSENTIAL)
    in_reply_to = email.context.get("in_reply_to")
    if in_reply_to:
        # An answer to a message (RFC 3834): auto-replied, threaded under it.
        headers = {
            "In-Reply-To": in_reply_to,
            "References": in_reply_to,
            "Auto-Submitted": "auto-replied",
        }
    return Rendering(
        user=None, to=entry.email, language=entry.language, context=context, headers=headers
    )


def email_deputy_ended(*, team: Team, deputy: User) -> OutboundEmail | None:
    """Tell ``team``'s coach that ``deputy`` deputises it no more, now that they coach a team
    of their own, queued for the worker (:func:`deputy_ended_rendering`). Nothing for a
    team without a coach, or a coach without an address."""
    coach = team.coach
    if coach is None or not coach.email:
        return None
    return email_queue(
        template="deputy-ended", user=coach, context={"team": team.pk, "deputy": deputy.pk}
    )


@renders("deputy-ended")
def deputy_ended_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """The end of a deputy's right, when sent, in the coach's language: who, the team they
    coach now, and the team page where the coach may name another deputy."""
    user = email.user
    team = Team.objects.filter(pk=email.context["team"]).first()
    deputy = User.objects.filter(pk=email.context["deputy"]).first()
    if user is None or team is None or deputy is None:
        return None
    return Rendering(
        user=user,
        language=user_language(user),
        context={
            "user": user,
            "team": team,
            "deputy": deputy,
            "coaches": Team.objects.filter(coach=deputy).first(),
            "team_url": site_url(reverse("team", args=[team.slug]) + "#deputy"),
        },
        headers=ESSENTIAL,
    )
