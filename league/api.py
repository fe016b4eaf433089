"""The registry's HTTP API: an API token for a user name and password (``shared/API.md``)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from league import selectors, services
from league.models import Season
from league.serializers import ErrorSerializer, TokenRequestSerializer, TokenSerializer
from matrixhockey.api import AnonThrottle, TokenThrottle


def error_response(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


def season_current_or_404() -> Season:
    season = selectors.season_current()
    if season is None:
        raise NotFound(_("There is no current season."))
    return season


class TokenView(APIView):
    """Trade a user name and password for an API token. Throttled by client address (the
    anonymous rate and ``API_THROTTLE_TOKEN``), and paused like the sign-in page by django-axes
    after too many failures for a user name or from an address (429, ``Retry-After``)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes = [AnonThrottle, TokenThrottle]

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, 400: error_response("Wrong user name or password.")},
        auth=[],
        summary="Get an API token",
    )
    def post(self, request: Request) -> Response:
        data = TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            return Response(
                {"detail": _("Unable to sign in with this user name and password.")},
                status=status.HTTP_400_BAD_REQUEST,
            )
        # A credential: no cache may keep it (RFC 6749, 5.1).
        return Response(
            {"token": services.api_token_obtain(user=user)}, headers={"Cache-Control": "no-store"}
        )
