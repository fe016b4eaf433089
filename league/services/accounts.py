"""People's own access: API tokens (obtained, revoked, renewed), a forgotten password's link,
the language they are spoken to in, whether their coach's page is public."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from rest_framework.authtoken.models import Token

from league.models import Language, Profile
from league.public_cache import public_version_bump
from league.signals import password_reset_requested


@transaction.atomic
def api_token_obtain(*, user: User) -> str:
    """``user``'s API token (``Authorization: Token …``), created on first use."""
    token, _created = Token.objects.get_or_create(user=user)
    return token.key


@transaction.atomic
def api_token_revoke(*, user: User) -> bool:
    """``user``'s API token stops working at once (its owner's ``DELETE /api/token/`` or
    « My account », and every change of their password); whether there was one. The next
    ``POST /api/token/`` with the password makes a new one."""
    deleted, _kinds = Token.objects.filter(user=user).delete()
    return deleted > 0


@transaction.atomic
def api_token_renew(*, user: User) -> str:
    """A new API token for ``user`` in place of the one they had (« My account »)."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user).key


@transaction.atomic
def password_reset_request(*, email: str) -> int:
    """Email a link to choose a new password to every active account with ``email`` (however
    cased), each in its owner's language; how many were sent. A coach invited without a password
    gets one too: an invitation whose link expired is answered this way. Nothing is said to the
    asker about which addresses have an account."""
    users = get_user_model().objects.filter(email__iexact=email.strip(), is_active=True)
    count = 0
    for user in users:
        password_reset_requested.send(sender=type(user), user=user)
        count += 1
    return count


@transaction.atomic
def profile_language_set(*, user: User, language: str) -> Profile:
    """``user``'s emails and pages are in ``language`` from now on (« My account », the
    header's language switch)."""
    profile, _created = Profile.objects.update_or_create(
        user=user, defaults={"language": Language(language).value}
    )
    return profile


@transaction.atomic
def profile_settings_set(*, user: User, language: str, career_public: bool) -> Profile:
    """« My account »: ``user``'s language, and whether their coach's page is public (issue 25).
    A change of the page's openness retires every cached public page and read: their name is
    linked to it, or no longer, wherever a page shows it."""
    profile, _created = Profile.objects.get_or_create(user=user)
    moved = profile.career_public != career_public
    profile.language = Language(language).value
    profile.career_public = career_public
    profile.save(update_fields=["language", "career_public"])
    if moved:
        public_version_bump()
    return profile
