"""The registry API's shapes: the token exchange and the documented error shape."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(label=_("username"))
    password = serializers.CharField(
        label=_("password"), trim_whitespace=False, style={"input_type": "password"}
    )


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        help_text=_("Send it with every request: “Authorization: Token <token>”.")
    )


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
