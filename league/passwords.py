"""What a new password ends besides the old one: the API token.

Django tells every password validator (``AUTH_PASSWORD_VALIDATORS``) once a password has been
set and saved (``password_validation.password_changed``, called by ``User.save()`` after
``set_password``): the change form, a forgotten password's link, the admin's « set password »,
``manage.py changepassword`` alike. That is the one hook every path shares, so the token's
rotation lives here rather than in each view. A sign-in that upgrades a password's hash does
not call it (Django leaves it out on purpose), so signing in keeps the token.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from league import services


class ApiTokenRotation:
    """Refuses no password: a new one revokes the account's API token, which a stolen one
    would otherwise outlive (the next ``POST /api/token/`` with the new password makes a new
    token)."""

    def validate(self, password: str, user: User | None = None) -> None:
        return None

    def password_changed(self, password: str, user: User | None = None) -> None:
        if user is not None and user.pk is not None:
            services.api_token_revoke(user=user)

    def get_help_text(self) -> str:
        return _("Choosing a new password also ends your API token.")
