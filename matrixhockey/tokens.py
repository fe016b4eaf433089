"""Signed addresses that name a person and one word, without expiry: a coach's calendar feed
(the word: its key, renewable) and an email's one-click unsubscribe (the word: the kind of
email). ``django.core.signing`` signs them, each use with its own salt."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing


class TokenInvalid(Exception):
    """The token was forged or altered, or names no one (its message says which)."""


def person_token(*, salt: str, user: User, word: str) -> str:
    """The signed token of ``user`` and ``word`` for the use ``salt`` names."""
    return signing.Signer(salt=salt).sign_object({"u": user.pk, "k": word}, compress=True)


def person_token_read(*, salt: str, token: str, active_only: bool = False) -> tuple[User, str]:
    """The person and the word ``token`` signs for ``salt``, or :class:`TokenInvalid`.
    ``active_only``: a deactivated person's token opens nothing."""
    try:
        data = signing.Signer(salt=salt).unsign_object(token)
    except (signing.BadSignature, ValueError) as error:
        raise TokenInvalid(str(error)) from error
    if not isinstance(data, dict) or not isinstance(data.get("k"), str):
        raise TokenInvalid("not a token of this kind")
    if data.get("u") is None:
        raise TokenInvalid("no such person")
    people = get_user_model().objects.filter(pk=data["u"])
    if active_only:
        people = people.filter(is_active=True)
    user = people.first()
    if user is None:
        raise TokenInvalid("no such person")
    return user, data["k"]
