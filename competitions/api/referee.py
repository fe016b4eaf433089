"""The referees' endpoints of ``shared/API.md``: arbitrate a pool round, then publish it.

``POST /api/arbitrations/{competition}/{pool}/{round}/`` queues the arbitration on a Celery
worker (the same task as the referee's page) and waits up to ``ARBITRATION_WAIT_SECONDS`` for it:
200 with the result when it is done in time, 202 ``{"status": "arbitrating"}`` when it is still
running (post again, or read ``GET /api/results/…``, to get it). Running it through the task
keeps one path for every arbitration — its retries on a transient database error included —
and keeps a slow arbitration from holding a web worker for long. Idempotent: an arbitrated
round is answered from what is stored; two calls at once give one result (the arbitration's
claim).

Before publishing, the answer holds the games' scores only (``matches``) and goes to the pool's
referees and staff only; publishing reveals the seed, the draws and every played pick (R23).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from competitions import selectors, services
from competitions.api.public import COMPETITION, POOL, ROUND
from competitions.api.results import ResultsSerializer
from competitions.models import PoolRound
from league.api import error_response, season_current_or_404
from matrixhockey.http import SignedInApiRequest

BEFORE_PUBLISHING = (
    "competition",
    "pool",
    "round",
    "status",
    "seed_hash",
    "matches",
    "voided_at",
    "void_reason",
)
"""What an arbitrated, unpublished round's answer holds: the scores and the round's public void
notice, no pick, seed or draw."""


class RefusalSerializer(serializers.Serializer):
    detail = serializers.CharField()
    code = serializers.CharField(
        help_text="too_early, out_of_order, in_progress, seed_commitment, not_arbitrated…"
    )


class ArbitrationRequestSerializer(serializers.Serializer):
    status = serializers.CharField(
        allow_null=True, help_text="requested (queued), started (a worker has it) or refused."
    )
    requested_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    running = serializers.BooleanField(help_text="A live worker is arbitrating it now.")
    attempts = serializers.IntegerField(help_text="How many times a worker took it.")
    ask_again = serializers.BooleanField(
        help_text="It went nowhere (queued too long, or its worker stopped): post again."
    )


class ArbitratingSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="Always “arbitrating”: ask again for the result.")
    request = ArbitrationRequestSerializer(help_text="Where the request stands (its row).")


class Refused(APIException):
    """409: the pool round cannot be arbitrated or published now; ``code`` says why."""

    status_code: int = status.HTTP_409_CONFLICT
    default_code = "refused"

    def __init__(self, refusal: services.ArbitrationRefused) -> None:
        super().__init__({"detail": refusal.message, "code": refusal.code})


class QueueUnavailable(Refused):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE


def _refused(refusal: services.ArbitrationRefused) -> Refused:
    if isinstance(refusal, services.ArbitrationQueueUnavailable):
        return QueueUnavailable(refusal)
    return Refused(refusal)


def _request(state: selectors.ArbitrationState) -> dict[str, Any]:
    """Where the pool round's arbitration request stands, as its row says."""
    request = state.request
    return ArbitrationRequestSerializer(
        {
            "status": state.status,
            "requested_at": request.requested_at if request is not None else None,
            "started_at": state.started_at,
            "running": state.running,
            "attempts": state.attempts,
            "ask_again": state.ask_again,
        }
    ).data


def _results(pool_round: PoolRound) -> dict[str, Any]:
    """The results' shape (``GET /api/results/…``): in full once published, the scores before."""
    data = selectors.pool_round_results(pool_round=pool_round, reveal=True).as_dict()
    if pool_round.status != PoolRound.Status.PUBLISHED:
        data = {key: data[key] for key in BEFORE_PUBLISHING}
    return data


COMMON = {
    401: error_response("Not signed in."),
    403: error_response("Not a referee of this pool."),
    404: error_response("No such pool or round."),
}


class _PoolRoundView(APIView):
    permission_classes = [IsAuthenticated]

    def pool_round(
        self, request: SignedInApiRequest, competition: str, pool: str, round: int
    ) -> PoolRound:
        """The pool round of the URL (404), when the caller referees its pool (403)."""
        found = selectors.pool_round_find(
            season_id=season_current_or_404().pk,
            competition=competition,
            pool_slug=pool,
            number=round,
        )
        if found is None:
            raise NotFound(_("There is no such round in this pool."))
        if not selectors.user_referees_pool(user=request.user, pool=found.pool):
            raise PermissionDenied(_("Only a referee of this pool may arbitrate it."))
        return found


class ArbitrationView(_PoolRoundView):
    """Arbitrate a pool round (a referee of its pool, or staff); idempotent."""

    @extend_schema(
        parameters=[COMPETITION, POOL, ROUND],
        request=None,
        responses={
            200: OpenApiResponse(
                ResultsSerializer,
                description="Arbitrated: the scores; once published also seed, draws and picks.",
            ),
            202: OpenApiResponse(ArbitratingSerializer, description="Still being arbitrated."),
            **COMMON,
            409: OpenApiResponse(
                RefusalSerializer, description="Before the deadline (R13), or another refusal."
            ),
            503: OpenApiResponse(RefusalSerializer, description="The task queue is down."),
        },
        summary="Arbitrate a pool's round",
    )
    def post(
        self, request: SignedInApiRequest, competition: str, pool: str, round: int
    ) -> Response:
        pool_round = self.pool_round(request, competition, pool, round)
        try:
            try:
                asked = services.pool_round_arbitration_request(
                    pool_round=pool_round, by=request.user
                )
            except services.ArbitrationAlreadyRequested as duplicate:
                asked = duplicate.pending  # a second call waits for the same request
            pool_round = services.pool_round_arbitration_wait(
                pool_round=pool_round, request=asked, timeout=settings.ARBITRATION_WAIT_SECONDS
            )
        except services.ArbitrationRefused as refusal:
            raise _refused(refusal) from refusal
        if pool_round.status not in selectors.PLAYED:
            state = selectors.pool_round_arbitration_state(pool_round=pool_round)
            return Response(
                {"status": "arbitrating", "request": _request(state)},
                status=status.HTTP_202_ACCEPTED,
            )
        return Response(_results(pool_round))


class PublishView(_PoolRoundView):
    """Publish an arbitrated pool round (a referee of its pool, or staff); idempotent."""

    @extend_schema(
        parameters=[COMPETITION, POOL, ROUND],
        request=None,
        responses={
            200: OpenApiResponse(
                ResultsSerializer, description="Published: games, picks, seed and draws (R23)."
            ),
            **COMMON,
            409: OpenApiResponse(RefusalSerializer, description="Not arbitrated yet."),
        },
        summary="Publish a pool's round",
    )
    def post(
        self, request: SignedInApiRequest, competition: str, pool: str, round: int
    ) -> Response:
        pool_round = self.pool_round(request, competition, pool, round)
        try:
            pool_round = services.pool_round_publish(pool_round=pool_round, by=request.user)
        except services.ArbitrationRefused as refusal:
            raise _refused(refusal) from refusal
        return Response(_results(pool_round))
