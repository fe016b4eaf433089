"""Which emails a person gets (:class:`~mail.models.EmailPreferences`), and the one-click
unsubscribe of every optional email (RFC 8058).

Every optional email (:class:`~mail.models.EmailKind`: Wednesday's information, results, news)
carries ``List-Unsubscribe: <https://…/emails/unsubscribe/TOKEN/>`` and
``List-Unsubscribe-Post: List-Unsubscribe=One-Click``, and the same link in its footer. The token
signs the person and the kind (``django.core.signing``, its own salt): a mail client's POST to
the link unsubscribes without signing in; a person's GET shows a page that asks to confirm, so
that a mail scanner opening links unsubscribes nobody. Essential emails carry neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from mail.models import EmailKind, EmailPreferences
from matrixhockey.site import site_url

UNSUBSCRIBE_SALT = "mail.preferences.unsubscribe"


class UnsubscribeInvalid(Exception):
    """The link was altered, or names nobody or no kind of email."""


def email_preferences_get(*, user: AbstractBaseUser) -> EmailPreferences:
    """``user``'s preferences (every optional email when they never chose; not stored)."""
    return EmailPreferences.objects.filter(user=user).first() or EmailPreferences(user=user)


def email_wanted(*, user: AbstractBaseUser, kind: EmailKind | str) -> bool:
    """Whether ``user`` gets the optional emails of ``kind``."""
    return email_preferences_get(user=user).wants(kind)


@transaction.atomic
def email_preferences_save(
    *, user: AbstractBaseUser, weekly: bool, results: bool, news: bool
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
def email_unsubscribe(*, user: AbstractBaseUser, kind: EmailKind | str) -> EmailPreferences:
    """``user`` gets no more emails of ``kind`` (the others stay as they were)."""
    preferences, _ = EmailPreferences.objects.select_for_update().get_or_create(user=user)
    setattr(preferences, EmailKind(kind).value, False)
    preferences.updated_at = timezone.now()
    preferences.save()
    return preferences


def _signer() -> signing.Signer:
    return signing.Signer(salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(*, user: AbstractBaseUser, kind: EmailKind | str) -> str:
    """The absolute one-click link that stops ``user``'s emails of ``kind``."""
    token = _signer().sign_object({"u": user.pk, "k": EmailKind(kind).value}, compress=True)
    return site_url(reverse("email_unsubscribe", args=[token]))


@dataclass(frozen=True)
class Unsubscription:
    user: AbstractBaseUser
    kind: EmailKind


def unsubscribe_check(token: str) -> Unsubscription:
    """Who and which kind of email a link names, or :class:`UnsubscribeInvalid`."""
    try:
        data = _signer().unsign_object(token)
    except (signing.BadSignature, ValueError) as error:
        raise UnsubscribeInvalid(str(error)) from error
    if not isinstance(data, dict) or data.get("k") not in EmailKind.values:
        raise UnsubscribeInvalid("not an unsubscribe link")
    user = get_user_model().objects.filter(pk=data.get("u")).first()
    if user is None:
        raise UnsubscribeInvalid("no such person")
    return Unsubscription(user=user, kind=EmailKind(data["k"]))
