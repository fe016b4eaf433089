"""The signed links the league emails: the reminders' one-click link, the link that chooses a
password (an invitation, a reset), and the waiting list's links (confirm an address, see one's
place and leave).

The one-click link of reminder emails opens the coach's pick page, signed in.

The link carries a signed, timestamped token (``django.core.signing.TimestampSigner``, its own
salt) naming the user and a fingerprint of their password hash. It works for
:data:`LINK_MAX_AGE` (a week: one reminder to the next), for a coach only, and stops working
when the password changes or the account is deactivated.

It is not single-use, on purpose: mail scanners (and link previews) open links before the coach
does, which would burn a single-use link; and a coach may open the same reminder on the phone and
then on the desktop. What it grants is the coach's own pick page, for a week.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.db.models import Q
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from league.models import Team, WaitingListEntry
from matrixhockey.site import site_url

LINK_SALT = "league.links.pick-link"
LINK_MAX_AGE = timedelta(days=7)


class LinkInvalid(Exception):
    """The link was tampered with, names nobody, or is not a coach's any more."""


class LinkExpired(LinkInvalid):
    """The link is genuine but older than :data:`LINK_MAX_AGE`."""


def _fingerprint(user: User) -> str:
    # A changed password (or a disabled one) makes older links stop working.
    return hashlib.sha256(f"{user.pk}:{user.password}".encode()).hexdigest()[:16]


def _signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=LINK_SALT)


def pick_link_token(user: User) -> str:
    """The signed token of ``user``'s one-click link."""
    return _signer().sign_object({"u": user.pk, "f": _fingerprint(user)}, compress=True)


def pick_link(user: User) -> str:
    """The absolute one-click link to ``user``'s pick page, for reminder emails."""
    return site_url(reverse("pick_link", args=[pick_link_token(user)]))


@dataclass(frozen=True)
class LinkHolder:
    user: User
    team: Team


def pick_link_check(token: str) -> LinkHolder:
    """The coach a token signs in, or :class:`LinkExpired` / :class:`LinkInvalid`."""
    signer = _signer()
    try:
        data = signer.unsign_object(token, max_age=LINK_MAX_AGE)
    except signing.SignatureExpired as error:
        raise LinkExpired(str(error)) from error
    except signing.BadSignature as error:
        raise LinkInvalid(str(error)) from error
    if not isinstance(data, dict):
        raise LinkInvalid("not a pick link")
    if data.get("u") is None:
        raise LinkInvalid("no such user, or the password changed")
    user = get_user_model().objects.filter(pk=data["u"], is_active=True).first()
    if user is None or data.get("f") != _fingerprint(user):
        raise LinkInvalid("no such user, or the password changed")
    team = Team.objects.filter(Q(coach=user) | Q(deputy=user)).first()
    if team is None:
        raise LinkInvalid("not a coach or a deputy")
    return LinkHolder(user=user, team=team)


def password_link(user: User) -> str:
    """The absolute link where ``user`` chooses a password: Django's password-reset token, so it
    works once (a new password changes the token) and for ``PASSWORD_RESET_TIMEOUT``. The
    invitation of a new coach and a forgotten password's email both send it."""
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    return site_url(path)


WAITING_CONFIRM_SALT = "league.links.waiting-list-confirm"
WAITING_PLACE_SALT = "league.links.waiting-list-place"


def _waiting_data(entry: WaitingListEntry) -> dict[str, object]:
    # The address is part of the token: an entry whose address staff change drops old links.
    return {"w": entry.pk, "e": entry.email.lower()}


def waiting_confirm_link(entry: WaitingListEntry) -> str:
    """The absolute link that confirms ``entry``'s address (``WAITING_LIST_CONFIRM_DAYS``)."""
    token = signing.TimestampSigner(salt=WAITING_CONFIRM_SALT).sign_object(_waiting_data(entry))
    return site_url(reverse("join_confirm", args=[token]))


def _waiting_place_token(entry: WaitingListEntry) -> str:
    return signing.Signer(salt=WAITING_PLACE_SALT).sign_object(_waiting_data(entry))


def waiting_place_path(entry: WaitingListEntry) -> str:
    """The path of ``entry``'s own page (its place); it does not expire."""
    return reverse("join_place", args=[_waiting_place_token(entry)])


def waiting_leave_path(entry: WaitingListEntry) -> str:
    """The path where ``entry`` leaves the list (asked, then done on POST)."""
    return reverse("join_leave", args=[_waiting_place_token(entry)])


def _waiting_entry(data: object) -> WaitingListEntry:
    if not isinstance(data, dict):
        raise LinkInvalid("not a waiting-list link")
    if data.get("w") is None:
        raise LinkInvalid("no such waiting-list entry")
    entry = WaitingListEntry.objects.filter(pk=data["w"]).first()
    if entry is None or entry.email.lower() != data.get("e"):
        raise LinkInvalid("no such waiting-list entry")
    return entry


def waiting_confirm_check(token: str) -> WaitingListEntry:
    """The entry a confirmation link names, or :class:`LinkExpired` / :class:`LinkInvalid`."""
    signer = signing.TimestampSigner(salt=WAITING_CONFIRM_SALT)
    try:
        data = signer.unsign_object(
            token, max_age=timedelta(days=settings.WAITING_LIST_CONFIRM_DAYS)
        )
    except signing.SignatureExpired as error:
        raise LinkExpired(str(error)) from error
    except signing.BadSignature as error:
        raise LinkInvalid(str(error)) from error
    return _waiting_entry(data)


def waiting_place_check(token: str) -> WaitingListEntry:
    """The entry a place link names, or :class:`LinkInvalid`."""
    try:
        data = signing.Signer(salt=WAITING_PLACE_SALT).unsign_object(token)
    except signing.BadSignature as error:
        raise LinkInvalid(str(error)) from error
    return _waiting_entry(data)
