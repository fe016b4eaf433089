"""People's own access: API tokens."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token


@transaction.atomic
def api_token_obtain(*, user: AbstractBaseUser) -> str:
    """``user``'s API token (``Authorization: Token …``), created on first use."""
    token, _created = Token.objects.get_or_create(user=user)
    return token.key
