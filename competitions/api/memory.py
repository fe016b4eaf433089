"""The league's memory in the API (issue 25), for anyone: a head-to-head
(``GET /api/head-to-head/{team_a}/{team_b}/``), the records (``GET /api/records/``) and the
records broken in a season or one of its weeks (``GET /api/records/breaks/?season=N&week=W``).

Published results only: a meeting and a break are stored when their round is published
(:mod:`competitions.services.memory_games`, :mod:`competitions.services.memory_records`), so
nothing of an arbitrated, unpublished round is here. Each read costs a constant number of queries
whatever the number of seasons. Every game names its results page (opened at the game's
explanation) and its results in the API.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from competitions.api.history import TeamNameSerializer
from competitions.api.public import SEASON, SLUG_PATTERN
from competitions.models import Competition, Decided, RecordKind, Stage
from competitions.selectors.memory import (
    MeetingLine,
    RecordBroken,
    RecordHolder,
    TeamName,
    head_to_head,
    record_breaks,
    records,
)
from competitions.selectors.memory_links import GamePlace, Placed, game_path, game_places
from league.api import error_response
from league.public_cache import PublicRead, public_read
from league.season_lookup import season_asked_api
from league.selectors import team_find


class GameLinksSerializer(serializers.Serializer):
    """Where a published game is explained: its round's results page (opened at the game) and
    the same results in the API."""

    fixture = serializers.IntegerField(help_text="The game's id (its anchor: #game-{fixture}).")
    season = serializers.IntegerField()
    competition = serializers.ChoiceField(choices=Competition.choices)
    pool = serializers.CharField()
    round = serializers.IntegerField()
    page = serializers.CharField(help_text="The results page's path, at the game's explanation.")
    api = serializers.CharField(help_text="The round's results in the API (its path).")


def _links(place: Placed) -> dict[str, Any]:
    where = [place.competition, place.pool_slug, place.round_number]
    return {
        "fixture": place.fixture_id,
        "season": place.season_number,
        "competition": place.competition,
        "pool": place.pool_slug,
        "round": place.round_number,
        "page": game_path(place),
        "api": f"{reverse('api-results', args=where)}?season={place.season_number}",
    }


def _team(team: TeamName | None) -> dict[str, str] | None:
    return None if team is None else {"slug": team.slug, "name": team.name}


class MeetingSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    week = serializers.IntegerField()
    competition = serializers.ChoiceField(choices=Competition.choices)
    round = serializers.IntegerField()
    stage = serializers.ChoiceField(
        choices=["", *Stage.values], help_text="A cup round's stage; empty in the championship."
    )
    fixture_label = serializers.CharField(help_text="final, third_place, or empty.")
    home = TeamNameSerializer()
    away = TeamNameSerializer()
    home_goals = serializers.IntegerField()
    away_goals = serializers.IntegerField()
    decided = serializers.ChoiceField(choices=Decided.values)
    winner = TeamNameSerializer(allow_null=True, help_text="null: a draw (R8), a double forfeit.")
    game = GameLinksSerializer()


def _meeting(meeting: MeetingLine) -> dict[str, Any]:
    return {
        "season": meeting.season_number,
        "week": meeting.week,
        "competition": meeting.competition,
        "round": meeting.round_number,
        "stage": meeting.stage,
        "fixture_label": meeting.label,
        "home": _team(meeting.home),
        "away": _team(meeting.away),
        "home_goals": meeting.home_goals,
        "away_goals": meeting.away_goals,
        "decided": meeting.decided,
        "winner": _team(meeting.winner),
        "game": _links(meeting),
    }


class HeadToHeadSerializer(serializers.Serializer):
    team_a = TeamNameSerializer()
    team_b = TeamNameSerializer()
    a_wins = serializers.IntegerField()
    b_wins = serializers.IntegerField()
    draws = serializers.IntegerField(help_text="Meetings with no winner (R8 draws, R15).")
    a_goals = serializers.IntegerField()
    b_goals = serializers.IntegerField()
    meetings = MeetingSerializer(many=True, help_text="Newest first.")


def _slug(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "string", "pattern": SLUG_PATTERN},
        OpenApiParameter.PATH,
        description=description,
    )


class HeadToHeadView(PublicRead, APIView):
    """Two teams' every published meeting, in every competition and season, newest first, and
    the balance (wins each, games with no winner, goals each)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[_slug("team_a", "A team's slug."), _slug("team_b", "Another team's slug.")],
        responses={
            200: HeadToHeadSerializer,
            400: error_response("The same team twice."),
            404: error_response("No such team."),
        },
        summary="A head-to-head",
    )
    @public_read
    def get(self, request: Request, team_a: str, team_b: str) -> Response:
        found_a, found_b = team_find(slug=team_a), team_find(slug=team_b)
        for slug, found in ((team_a, found_a), (team_b, found_b)):
            if found is None:
                raise NotFound(_("There is no team “%(team)s”.") % {"team": slug})
        assert found_a is not None and found_b is not None
        if found_a.pk == found_b.pk:
            raise ValidationError(
                {"detail": _("A team does not play itself: pick two different teams.")}
            )
        rivalry = head_to_head(team_a=found_a, team_b=found_b)
        data = {
            "team_a": _team(rivalry.team_a),
            "team_b": _team(rivalry.team_b),
            "a_wins": rivalry.a_wins,
            "b_wins": rivalry.b_wins,
            "draws": rivalry.draws,
            "a_goals": rivalry.a_goals,
            "b_goals": rivalry.b_goals,
            "meetings": [_meeting(meeting) for meeting in rivalry.meetings],
        }
        return Response(HeadToHeadSerializer(data).data)


class RecordHolderSerializer(serializers.Serializer):
    team = TeamNameSerializer()
    value = serializers.IntegerField()
    season = serializers.IntegerField(help_text="The season it was set (a run: reached).")
    since_season = serializers.IntegerField(allow_null=True, help_text="A run's first season.")
    opponent = TeamNameSerializer(allow_null=True, help_text="A game record's opponent.")
    goals_for = serializers.IntegerField(allow_null=True)
    goals_against = serializers.IntegerField(allow_null=True)
    coach = serializers.CharField(help_text="The holder's coach then (empty: none).")
    this_season = serializers.BooleanField(
        help_text="Set this season, by a published round (or at the close)."
    )
    game = GameLinksSerializer(allow_null=True, help_text="The game that set it, if any.")


def _holder(holder: RecordHolder, places: dict[int, GamePlace]) -> dict[str, Any]:
    place = places.get(holder.fixture_id) if holder.fixture_id is not None else None
    return {
        "team": _team(holder.team),
        "value": holder.value,
        "season": holder.season_number,
        "since_season": holder.since_season_number,
        "opponent": _team(holder.opponent),
        "goals_for": holder.goals_for,
        "goals_against": holder.goals_against,
        "coach": holder.coach_name,
        "this_season": holder.this_season,
        "game": None if place is None else _links(place),
    }


class RecordSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=RecordKind.choices)
    name = serializers.CharField(help_text="The record's name, in the answer's language.")
    value = serializers.IntegerField(allow_null=True, help_text="null while nobody holds it.")
    holders = RecordHolderSerializer(many=True, help_text="Ties share a record.")


class RecordsView(PublicRead, APIView):
    """The league's records, each with its holders, value and when (the closed seasons', or this
    season's best break once one beat them)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: RecordSerializer(many=True)}, summary="The records")
    @public_read
    def get(self, request: Request) -> Response:
        lines = records()
        places = game_places(
            fixture_ids=(holder.fixture_id for line in lines for holder in line.holders)
        )
        data = [
            {
                "kind": line.kind,
                "name": str(RecordKind(line.kind).label),
                "value": line.value,
                "holders": [_holder(holder, places) for holder in line.holders],
            }
            for line in lines
        ]
        return Response(RecordSerializer(data, many=True).data)


class RecordBrokenSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=RecordKind.choices)
    name = serializers.CharField(help_text="The record's name, in the answer's language.")
    holder = RecordHolderSerializer()
    week = serializers.IntegerField(
        allow_null=True, help_text="null: a season record settled at the season's close."
    )
    previous_value = serializers.IntegerField()
    previous_team = TeamNameSerializer(allow_null=True)
    previous_season = serializers.IntegerField(allow_null=True)


WEEK = OpenApiParameter(
    "week",
    {"type": "integer", "minimum": 1},
    OpenApiParameter.QUERY,
    required=False,
    description="Only the records broken that week (default: the whole season's).",
)


def _week(request: Request) -> int | None:
    value = request.query_params.get("week")
    if value is None:
        return None
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= 1000:
        raise ValidationError({"week": [_("A week is a number from 1.")]})
    return int(value)


class RecordBreaksView(PublicRead, APIView):
    """The records broken in a season (``?season=N``, default the current one), in the order
    they fell, by its published rounds and at its close; only a week's with ``?week=W``."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SEASON, WEEK],
        responses={
            200: RecordBrokenSerializer(many=True),
            400: error_response("A week that is not a number."),
            404: error_response("No such season."),
        },
        summary="Records broken in a season or a week",
    )
    @public_read
    def get(self, request: Request) -> Response:
        season = season_asked_api(request)
        broken: list[RecordBroken] = record_breaks(season=season, week=_week(request))
        places = game_places(fixture_ids=(row.holder.fixture_id for row in broken))
        data = [
            {
                "kind": row.kind,
                "name": str(RecordKind(row.kind).label),
                "holder": _holder(row.holder, places),
                "week": row.week,
                "previous_value": row.previous_value,
                "previous_team": _team(row.previous_team),
                "previous_season": row.previous_season_number,
            }
            for row in broken
        ]
        return Response(RecordBrokenSerializer(data, many=True).data)
