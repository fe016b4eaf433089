"""Which emails a person gets (:class:`~mail.models.EmailPreferences`), and the one-click
unsubscribe of every optional email (RFC 8058).

Every optional email (:class:`~mail.models.EmailKind`: Wednesday's information, results, news)
carries ``List-Unsubscribe: <https://…/emails/unsubscribe/TOKEN/>`` and
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, and the same link in its footer. The token
signs the person and the kind (``matrixhockey.tokens``, its own salt): a mail client's POST to
the link unsubscribes without signing in; a person's GET shows a page that asks to confirm, so
that a mail scanner opening links unsubscribes nobody. Essential emails carry neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from mail.models import EmailKind, EmailPreferences
from matrixhockey.site import site_url
from matrixhockey.tokens import TokenInvalid, person_token, person_token_read

UNSUBSCRIBE_SALT = "mail.preferences.unsubscribe"


class UnsubscribeInvalid(Exception):
    """The link was altered, or names nobody or no kind of email."""


def email_preferences_get(*, user: User) -> EmailPreferences:
    """``user``'s preferences (every optional email when they never chose; not stored)."""
    return EmailPreferences.objects.filter(user=user).first() or EmailPreferences(user=user)


def email_wanted(*, user: User, kind: EmailKind | str) -> bool:
    """Whether ``user`` gets the optional emails of ``kind``."""
    return email_preferences_get(user=user).wants(kind)


@transaction.atomic
def email_preferences_save(
    *, user: User, weekly: bool, results: bool, news: bool
) -> EmailPreferences:
    """Store ``user``'s choice of optional emails."""
    preferences, _ = EmailPreferences.objects.update_or_create(
        user=user,
        defaults={
            "weekly": weekly,
            "results": results,
            "news": news,
            "updated_at": timezone.now(),
        },
    )
    return preferences


@transaction.atomic
def email_unsubscribe(*, user: User, kind: EmailKind | str) -> EmailPreferences:
    """``user`` gets no more emails of ``kind`` (the others stay as they were)."""
    preferences, _ = EmailPreferences.objects.select_for_update().get_or_create(user=user)
    setattr(preferences, EmailKind(kind).value, False)
    preferences.updated_at = timezone.now()
    preferences.save()
    return preferences


def unsubscribe_url(*, user: User, kind: EmailKind | str) -> str:
    """The absolute one-click link that stops ``user``'s emails of ``kind``."""
    token = person_token(salt=UNSUBSCRIBE_SALT, user=user, word=EmailKind(kind).value)
    return site_url(reverse("email_unsubscribe", args=[token]))


@dataclass(frozen=True)
class Unsubscription:
    user: User
    kind: EmailKind


def unsubscribe_check(token: str) -> Unsubscription:
    """Who and which kind of email a link names, or :class:`UnsubscribeInvalid`."""
    try:
        user, kind = person_token_read(salt=UNSUBSCRIBE_SALT, token=token)
    except TokenInvalid as error:
        raise UnsubscribeInvalid(str(error)) from error
    if kind not in EmailKind.values:
        raise UnsubscribeInvalid("not an unsubscribe link")
    return Unsubscription(user=user, kind=EmailKind(kind))
