"""The registry API's shapes: the token exchange and the documented error shape."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

READABLE_TEXT = r"^[^\u0000]+$"
"""What DRF's ``CharField`` reads: any text but a NUL (PostgreSQL cannot compare one)."""


@extend_schema_field({"type": "string", "minLength": 1, "pattern": READABLE_TEXT})
class CredentialField(serializers.CharField):
    """A user name or password, read as sent (no trimming): the schema's ``minLength`` 1 is then
    exactly DRF's "may not be blank", and a wrong one is the sign-in's refusal, not the body's."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, **kwargs)


USERNAME_MAX_LENGTH = User._meta.get_field("username").max_length
"""No account's user name is longer: a longer one is refused as the body's fault (400 on the
field), before any sign-in is tried or recorded."""


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": USERNAME_MAX_LENGTH, "pattern": READABLE_TEXT}
)
class UserNameField(CredentialField):
    """A user name: at most as long as an account's (:data:`USERNAME_MAX_LENGTH`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=USERNAME_MAX_LENGTH, **kwargs)


class TokenRequestSerializer(serializers.Serializer):
    username = UserNameField(label=_("username"))
    password = CredentialField(label=_("password"), style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        help_text=_("Send it with every request: “Authorization: Token <token>”.")
    )


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
