"""The registry's HTTP API: an API token for a user name and password, and its revocation
(``shared/API.md``)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from league import selectors, services
from league.models import Season
from league.serializers import ErrorSerializer, TokenRequestSerializer, TokenSerializer
from matrixhockey.api import AnonThrottle, TokenAuthentication, TokenThrottle, UserThrottle
from matrixhockey.http import SignedInApiRequest


def error_response(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


def season_current_or_404() -> Season:
    season = selectors.season_current()
    if season is None:
        raise NotFound(_("There is no current season."))
    return season


class TokenView(APIView):
    """Trade a user name and password for an API token (``POST``), or end one's token
    (``DELETE``). Trading is throttled by client address (the anonymous rate and
    ``API_THROTTLE_TOKEN``), and paused like the sign-in page by django-axes after too many
    failures for a user name or from an address (429, ``Retry-After``)."""

    def get_authenticators(self) -> list[BaseAuthentication]:
        # POST reads a password and no credentials: a stale token a script sends along must
        # not stand in the way of a new one. DELETE is the token's owner, named by the token.
        # (Django's View.setup has set the request by then; the schema generator's mock
        # request is built before it is set, and POST's extend_schema(auth=[]) says its own.)
        if getattr(self.request, "method", "DELETE") == "POST":
            return []
        return [TokenAuthentication()]

    def get_permissions(self) -> list[BasePermission]:
        if self.request.method == "DELETE":
            return [IsAuthenticated()]
        return [AllowAny()]

    def get_throttles(self) -> list[BaseThrottle]:
        if self.request.method == "DELETE":
            return [UserThrottle()]
        return [AnonThrottle(), TokenThrottle()]

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, 400: error_response("Wrong user name or password.")},
        auth=[],
        summary="Get an API token",
        description=(
            "A user name and password for the account's API token (the same one until it is "
            "revoked or the password changes). Throttled by client address, and paused after "
            "too many failures (429, `Retry-After`)."
        ),
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

    @extend_schema(
        request=None,
        responses={
            204: OpenApiResponse(description="The token is revoked: it answers 401 from now on."),
            401: error_response("No token, or a token that is not valid (revoked already)."),
        },
        summary="Revoke my API token",
        description=(
            "Ends the token sent in `Authorization: Token <token>`. A password change ends it "
            "too. `POST /api/token/` with the password gives a new one."
        ),
    )
    def delete(self, request: SignedInApiRequest) -> Response:
        services.api_token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
