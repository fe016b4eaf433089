"""The one-click link of reminder emails: it opens the coach's pick page, signed in.

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

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core import signing
from django.db.models import Q
from django.urls import reverse

from league.models import Team
from matrixhockey.site import site_url

LINK_SALT = "league.links.pick-link"
LINK_MAX_AGE = timedelta(days=7)


class LinkInvalid(Exception):
    """The link was tampered with, names nobody, or is not a coach's any more."""


class LinkExpired(LinkInvalid):
    """The link is genuine but older than :data:`LINK_MAX_AGE`."""


def _fingerprint(user: AbstractBaseUser) -> str:
    # A changed password (or a disabled one) makes older links stop working.
    return hashlib.sha256(f"{user.pk}:{user.password}".encode()).hexdigest()[:16]


def _signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=LINK_SALT)


def pick_link_token(user: AbstractBaseUser) -> str:
    """The signed token of ``user``'s one-click link."""
    return _signer().sign_object({"u": user.pk, "f": _fingerprint(user)}, compress=True)


def pick_link(user: AbstractBaseUser) -> str:
    """The absolute one-click link to ``user``'s pick page, for reminder emails."""
    return site_url(reverse("pick_link", args=[pick_link_token(user)]))


@dataclass(frozen=True)
class LinkHolder:
    user: AbstractBaseUser
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
    user = get_user_model().objects.filter(pk=data.get("u"), is_active=True).first()
    if user is None or data.get("f") != _fingerprint(user):
        raise LinkInvalid("no such user, or the password changed")
    team = Team.objects.filter(Q(coach=user) | Q(deputy=user)).first()
    if team is None:
        raise LinkInvalid("not a coach or a deputy")
    return LinkHolder(user=user, team=team)
