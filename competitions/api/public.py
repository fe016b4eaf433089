"""The public HTTP API of ``shared/API.md`` about the competitions: who one is, the seasons (the
current one and the archives), standings, infos équipes and a coach's picks. Thin views that
validate, call one service or selector, and render. Public reads take ``?season=N`` (default:
the current season) through one lookup, :func:`league.season_lookup.season_asked_api`
(``shared/SEASON.md``, "Past seasons").

A coach's picks are read and written at ``/api/picks/{competition}/{round}/`` with no team in the
URL: it is always the caller's own team, so nobody can even ask for another team's pick.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from competitions import selectors as competition_selectors
from competitions import services
from competitions.api.serializers import (
    InfosSerializer,
    MatrixSerializer,
    MeSerializer,
    PickErrorSerializer,
    PickInSerializer,
    PickSentSerializer,
    PicksSerializer,
    SeasonListItemSerializer,
    SeasonSerializer,
    StandingsSerializer,
    deadline_iso,
)
from competitions.models import Competition, Round
from league import selectors
from league.api import error_response, season_current_or_404
from league.models import Entry, Season, Team
from league.public_cache import PublicRead, public_read
from league.season_lookup import SEASON_PARAMETER, season_asked_api
from matrixhockey.http import SignedInApiRequest


class Conflict(APIException):
    """409: the request comes too late for the state the round is in (R13)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


COMPETITION = OpenApiParameter(
    "competition",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    enum=Competition.values,
    description="championship, kdh or wg",
)


def _number(minimum: int) -> dict[str, Any]:
    """An integer path or query parameter's schema, from ``minimum`` on (numbered from 1)."""
    return {"type": "integer", "minimum": minimum}


SLUG_PATTERN = r"^[-a-zA-Z0-9_]+$"
"""What the URL's ``slug`` converter takes: any other text is a 404 before any view."""


ROUND = OpenApiParameter(
    "round",
    _number(1),
    OpenApiParameter.PATH,
    description="The round's number (1…).",
    examples=[OpenApiExample("The first round", value=1)],
)


SEASON = OpenApiParameter(
    SEASON_PARAMETER,
    _number(1),
    OpenApiParameter.QUERY,
    required=False,
    description="The season's number (default: the current season); 404 for an unknown one.",
)


POOL = OpenApiParameter(
    "pool",
    {"type": "string", "pattern": SLUG_PATTERN},
    OpenApiParameter.PATH,
    description="A division's slug (elite, d2a … d3d), or kdh / wg for a cup.",
    examples=[OpenApiExample("The Elite", value="elite")],
)


class MeView(APIView):
    """Who the caller is: user name, team and roles."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: MeSerializer, 401: error_response("Not signed in.")}, summary="Who am I"
    )
    def get(self, request: SignedInApiRequest) -> Response:
        team = selectors.user_team(user=request.user)
        return Response(
            {
                "username": request.user.get_username(),
                "team": team.slug if team is not None else None,
                "roles": competition_selectors.user_roles(user=request.user),
            }
        )


class SeasonCurrentView(PublicRead, APIView):
    """The current season's calendar: per competition, its rounds, deadlines and statuses."""

    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: SeasonSerializer, 404: error_response("No current season.")},
        summary="The current season",
    )
    @public_read
    def get(self, request: Request) -> Response:
        return Response(_season_data(season_current_or_404()))


def _season_data(season: Season) -> dict[str, Any]:
    """A season's calendar in the shape of ``/api/seasons/current/``."""
    data = {
        "number": season.number,
        "name": str(season),
        "time_zone": season.time_zone,
        "competitions": competition_selectors.season_rounds(season=season),
    }
    return SeasonSerializer(data).data


class SeasonListView(PublicRead, APIView):
    """Every season of the league, newest first: its number, status and whether it is current."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: SeasonListItemSerializer(many=True)}, summary="Every season")
    @public_read
    def get(self, request: Request) -> Response:
        seasons = selectors.seasons_all()
        return Response(SeasonListItemSerializer(seasons, many=True).data)


class SeasonView(PublicRead, APIView):
    """One season's calendar, in the shape of ``/api/seasons/current/``: any season, past or
    current."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "number",
                _number(1),
                OpenApiParameter.PATH,
                description="The season's number (1…).",
            )
        ],
        responses={200: SeasonSerializer, 404: error_response("No such season.")},
        summary="A season",
    )
    @public_read
    def get(self, request: Request, number: int) -> Response:
        season = selectors.season_find(number=number)
        if season is None:
            raise NotFound(_("There is no season %(number)d.") % {"number": number})
        return Response(_season_data(season))


class StandingsView(PublicRead, APIView):
    """A pool's table over its published rounds (R9): a division's, or the WG's groups."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[POOL, SEASON],
        responses={
            200: StandingsSerializer,
            404: error_response("No such season, or no such pool with a table."),
        },
        summary="Standings of a pool",
    )
    @public_read
    def get(self, request: Request, pool: str) -> Response:
        table = competition_selectors.pool_table(season=season_asked_api(request), pool_slug=pool)
        if table is None:
            raise NotFound(_("There is no table for pool “%(pool)s”.") % {"pool": pool})
        rows = [{**row.as_dict(), "group": group or None} for group, row in table]
        return Response(StandingsSerializer({"pool": pool, "table": rows}).data)


class InfosView(PublicRead, APIView):
    """« Infos équipes »: what every team of a pool has left after the published rounds."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[COMPETITION, POOL, SEASON],
        responses={
            200: InfosSerializer,
            404: error_response("No such season, competition or pool."),
        },
        summary="Infos équipes of a pool",
    )
    @public_read
    def get(self, request: Request, competition: str, pool: str) -> Response:
        teams = competition_selectors.pool_infos(
            season=season_asked_api(request), competition=competition, pool_slug=pool
        )
        if teams is None:
            raise NotFound(_("There is no pool “%(pool)s” in this competition.") % {"pool": pool})
        data = {"competition": competition, "pool": pool, "teams": teams}
        return Response(InfosSerializer(data).data)


class MatrixView(PublicRead, APIView):
    """A competition's matrix in a season, a row per round with its week and deadline (R19).

    R25: public from the season's start on; a season still prepared answers 404 like an unknown
    one (admins see its matrices on the desk and in the admin). No pick is in it.
    """

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[COMPETITION, SEASON],
        responses={
            200: MatrixSerializer,
            404: error_response("No such season, not started yet (R25), or no such competition."),
        },
        summary="A competition's matrix",
    )
    @public_read
    def get(self, request: Request, competition: str) -> Response:
        season = season_asked_api(request)
        matrix = competition_selectors.season_matrix(season=season, competition=competition)
        if matrix is None:
            raise NotFound(
                _("There is no public matrix of “%(competition)s” this season (R25).")
                % {"competition": competition[:20]}
            )
        data = {
            "competition": matrix.competition,
            "season": season.number,
            "columns": list(matrix.columns),
            "rows": [
                {
                    "round": row.round.number,
                    "week": row.round.week,
                    "stage": row.round.stage,
                    "deadline": deadline_iso(row.round),
                    "current": row.is_current,
                    "values": dict(row.values),
                }
                for row in matrix.rows
            ],
        }
        return Response(MatrixSerializer(data).data)


class PicksView(APIView):
    """The caller's own team's pick for a round: send it (PUT), read it and its history (GET)."""

    permission_classes = [IsAuthenticated]

    def _team_and_round(
        self, request: SignedInApiRequest, competition: str, number: int
    ) -> tuple[Team, Round]:
        team, round = competition_selectors.pick_team_and_round(
            user=request.user, competition=competition, number=number
        )
        if team is None:
            raise PermissionDenied(
                _("Only a team's coach or its deputy sends its picks (R12), and you are neither.")
            )
        if round is None:
            season_current_or_404()  # no current season: said so (404)
            raise NotFound(_("There is no such round this season."))
        return team, round

    @extend_schema(
        parameters=[COMPETITION, ROUND],
        responses={
            200: PicksSerializer,
            401: error_response("Not signed in."),
            403: error_response("The caller coaches no team, or it does not play this season."),
            404: error_response("No such round."),
        },
        summary="My team's pick for a round, and its history",
    )
    def get(self, request: SignedInApiRequest, competition: str, round: int) -> Response:
        team, found = self._team_and_round(request, competition, round)
        entry = Entry.objects.current_of(team, season=found.season_id).first()
        if entry is None:
            raise PermissionDenied(_("Your team does not play this season."))
        history = list(competition_selectors.pick_history(entry=entry, round=found))
        data: dict[str, Any] = {
            "competition": found.competition,
            "round": found.number,
            "deadline": deadline_iso(found),
            "status": competition_selectors.round_status(round=found),
            "current": history[0] if history else None,
            "history": history,
        }
        return Response(PicksSerializer(data).data)

    @extend_schema(
        parameters=[COMPETITION, ROUND],
        request=PickInSerializer,
        examples=[
            OpenApiExample("A championship pick", value={"pick": "F+(2)"}, request_only=True)
        ],
        responses={
            200: PickSentSerializer,
            400: OpenApiResponse(PickErrorSerializer, description="Which part is wrong."),
            401: error_response("Not signed in."),
            403: error_response("The caller coaches no team, or it does not play this round."),
            404: error_response("No such round."),
            409: error_response("The deadline has passed (R13)."),
        },
        summary="Send my team's pick for a round",
    )
    def put(self, request: SignedInApiRequest, competition: str, round: int) -> Response:
        team, found = self._team_and_round(request, competition, round)
        data = PickInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            submitted = services.pick_send(
                team=team,
                round=found,
                notation=data.validated_data["pick"],
                entered_by=request.user,
            )
        except services.DeadlinePassed as error:
            raise Conflict(error.message) from error
        except services.PickRejected as error:
            if error.code in ("forbidden", "not_playing"):
                raise PermissionDenied(error.message) from error
            # Every wrong part at once (R10), each also as codes for programs.
            wrong = error.every
            return Response(
                {
                    "pick": [refusal.message for refusal in wrong],
                    "faults": [
                        {"code": refusal.code, "fault": refusal.fault.value, **refusal.facts}
                        for refusal in wrong
                    ],
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(PickSentSerializer(submitted).data)
