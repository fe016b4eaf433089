"""The emails of people's own access (``league.signals``): a forgotten password's link and
the waiting list's (confirm the address; an address already on the list gets its place's link).
Each in the person's language, through the outbox (:func:`mail.outbox.email_send`)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse

from league.links import password_link, waiting_confirm_link, waiting_place_path
from league.models import WaitingListEntry
from league.selectors import user_language, waiting_list_position
from mail.models import OutboundEmail
from mail.outbox import email_send
from matrixhockey.site import site_url

ESSENTIAL = {"Auto-Submitted": "auto-generated"}


def email_password_reset(*, user: User) -> OutboundEmail | None:
    """The link to choose a new password (the invitation's link: Django's reset token), in
    ``user``'s language. Nothing for a user without an address."""
    if not user.email:
        return None
    return email_send(
        template="password-reset",
        to=user.email,
        language=user_language(user),
        context={
            "user": user,
            "set_password_url": password_link(user),
            "valid_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
            "sign_in_url": site_url(reverse("sign_in")),
        },
        headers=ESSENTIAL,
    )


def email_waiting_list(*, entry: WaitingListEntry, known: bool) -> OutboundEmail:
    """The waiting list's email to ``entry``'s address, in the language chosen on the form:
    the link that confirms it, or (``known``: the address is on the list already) its place."""
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
    return email_send(
        template="waiting-list",
        to=entry.email,
        language=entry.language,
        context=context,
        headers=ESSENTIAL,
    )
