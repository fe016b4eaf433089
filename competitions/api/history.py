"""The league's memory in the public API (issue 25): the all-time tables, a team's history across
the closed seasons, a coach's career. Public reads, the same for everyone and cached as the
others (:class:`league.public_cache.PublicRead`): what the season closes stored, published
results only.

A coach who opted out of their public page (« My account ») has no career here: 404 for
everyone, themselves included (their page shows it to them; this read is one answer for all).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from competitions.api.public import SEASON, SLUG_PATTERN
from competitions.memory_forms import AllTimeForm
from competitions.models import MemoryScope, RecordKind
from competitions.selectors.careers import coach_page, memory_through
from competitions.selectors.memory import (
    ALL_TIME_ORDERS,
    all_time_table,
    coach_career,
    team_history,
)
from league import selectors
from league.api import error_response
from league.public_cache import PublicRead, public_read
from league.season_lookup import SEASON_PARAMETER, season_asked_api


class TeamNameSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class AllTimeRowSerializer(serializers.Serializer):
    """A team's all-time line: its own championship games in the scope's seasons (R9 points),
    its titles won in them."""

    position = serializers.IntegerField()
    team = TeamNameSerializer()
    seasons = serializers.IntegerField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    regulation_wins = serializers.IntegerField()
    draws = serializers.IntegerField(help_text=gettext_lazy("Games still tied after extra time."))
    extra_time_losses = serializers.IntegerField()
    losses = serializers.IntegerField(
        help_text=gettext_lazy("Every loss, extra-time losses included.")
    )
    goals_for = serializers.IntegerField()
    goals_against = serializers.IntegerField()
    goal_difference = serializers.IntegerField()
    points = serializers.IntegerField()
    elite_titles = serializers.IntegerField()
    kdh_titles = serializers.IntegerField()
    wg_titles = serializers.IntegerField()
    seasons_without_onr = serializers.IntegerField()


class AllTimeSerializer(serializers.Serializer):
    scope = serializers.ChoiceField(choices=MemoryScope.choices)
    order = serializers.ChoiceField(choices=list(ALL_TIME_ORDERS))
    through = serializers.IntegerField(
        allow_null=True,
        help_text=gettext_lazy("The last closed season counted; null before the first close."),
    )
    rows = AllTimeRowSerializer(many=True)


class TeamSeasonSerializer(serializers.Serializer):
    """A closed season of a team: division and place, its own championship figures, the final
    table's points, its coach at the close, its cup runs."""

    season = serializers.IntegerField(source="season_number")
    season_name = serializers.CharField()
    division = serializers.CharField(source="division_slug")
    division_name = serializers.CharField()
    tier = serializers.IntegerField()
    rank = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("Null when the team was replaced (R14).")
    )
    table_points = serializers.IntegerField(allow_null=True)
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    goals_for = serializers.IntegerField()
    goals_against = serializers.IntegerField()
    points = serializers.IntegerField()
    coach_name = serializers.CharField()
    replaced = serializers.BooleanField()
    replacement = serializers.BooleanField()
    withdrawn = serializers.BooleanField()
    onr_count = serializers.IntegerField()
    elite_champion = serializers.BooleanField()
    kdh_stage = serializers.CharField(
        help_text=gettext_lazy("The last KDH round played; empty when none.")
    )
    kdh_place = serializers.IntegerField(allow_null=True)
    wg_group = serializers.CharField()
    wg_group_rank = serializers.IntegerField(allow_null=True)
    wg_stage = serializers.CharField()
    wg_place = serializers.IntegerField(allow_null=True)
    moved = serializers.ChoiceField(
        choices=["up", "down", "stayed"],
        allow_null=True,
        help_text=gettext_lazy("To the next season's tier; null without a next closed season."),
    )


class TeamHistorySerializer(serializers.Serializer):
    team = TeamNameSerializer()
    seasons = TeamSeasonSerializer(many=True, help_text=gettext_lazy("Oldest first."))


class CareerRecordHolderSerializer(serializers.Serializer):
    team = TeamNameSerializer()
    value = serializers.IntegerField()
    season = serializers.IntegerField(source="season_number")
    since_season = serializers.IntegerField(source="since_season_number", allow_null=True)
    fixture_id = serializers.IntegerField(allow_null=True)
    opponent = TeamNameSerializer(allow_null=True)
    goals_for = serializers.IntegerField(allow_null=True)
    goals_against = serializers.IntegerField(allow_null=True)
    coach_name = serializers.CharField()


class CareerRecordSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=RecordKind.choices)
    name = serializers.CharField(source="label", help_text=gettext_lazy("The record in words."))
    value = serializers.IntegerField()
    holders = CareerRecordHolderSerializer(many=True)


class CoachSeasonSerializer(serializers.Serializer):
    season = serializers.IntegerField(source="season_number")
    team = TeamNameSerializer()
    division_name = serializers.CharField()
    tier = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True)
    moved = serializers.ChoiceField(choices=["up", "down", "stayed"], allow_null=True)
    elite_champion = serializers.BooleanField()
    kdh_place = serializers.IntegerField(allow_null=True)
    wg_place = serializers.IntegerField(allow_null=True)


class CoachCareerSerializer(serializers.Serializer):
    username = serializers.CharField()
    name = serializers.CharField()
    seasons = CoachSeasonSerializer(many=True)
    teams = TeamNameSerializer(many=True)
    promotions = serializers.IntegerField()
    elite_titles = serializers.IntegerField()
    kdh_titles = serializers.IntegerField()
    wg_titles = serializers.IntegerField()
    records = CareerRecordSerializer(many=True)


class AllTimeView(PublicRead, APIView):
    """Every team that ever played, overall or in one tier's seasons, in the order asked for,
    through the last closed season."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "scope",
                str,
                OpenApiParameter.QUERY,
                required=False,
                enum=MemoryScope.values,
                description="all (default), elite, d2 or d3: the seasons a team played there.",
            ),
            OpenApiParameter(
                "order",
                str,
                OpenApiParameter.QUERY,
                required=False,
                enum=list(ALL_TIME_ORDERS),
                description="The column sorted by (default points).",
            ),
        ],
        responses={
            200: AllTimeSerializer,
            400: error_response('An unknown scope or order (`{"scope": [...]}`).'),
        },
        summary="The all-time table",
    )
    @public_read
    def get(self, request: Request) -> Response:
        form = AllTimeForm(request.query_params)
        if not form.is_valid():
            raise ValidationError(
                {name: [str(e) for e in errors] for name, errors in form.errors.items()}
            )
        scope, order = form.scope_order()
        through = memory_through()
        data = {
            "scope": scope,
            "order": order,
            "through": through.number if through else None,
            "rows": all_time_table(scope=scope, order=order),
        }
        return Response(AllTimeSerializer(data).data)


class TeamHistoryView(PublicRead, APIView):
    """A team's closed seasons, oldest first: up to season ``?season=N`` when given."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "slug",
                {"type": "string", "pattern": SLUG_PATTERN},
                OpenApiParameter.PATH,
                description="The team's slug.",
            ),
            SEASON,
        ],
        responses={
            200: TeamHistorySerializer,
            404: error_response("No such team, or no such season."),
        },
        summary="A team's history",
    )
    @public_read
    def get(self, request: Request, slug: str) -> Response:
        team = selectors.team_find(slug=slug)
        if team is None:
            raise NotFound(_("There is no team “%(team)s”.") % {"team": slug})
        until = None
        if request.query_params.get(SEASON_PARAMETER) is not None:
            until = season_asked_api(request).number
        data = {"team": team, "seasons": team_history(team=team, until=until)}
        return Response(TeamHistorySerializer(data).data)


class CoachCareerView(PublicRead, APIView):
    """A coach's career: every closed season they had a team at the close, their promotions,
    titles and the records they hold. 404 when they hid their page (« My account »)."""

    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            200: CoachCareerSerializer,
            404: error_response("No such coach, or their page is not public."),
        },
        summary="A coach's career",
    )
    @public_read
    def get(self, request: Request, username: str) -> Response:
        found = coach_page(username=username, reader=AnonymousUser())
        if found is None:
            raise NotFound(_("There is no coach page “%(coach)s”.") % {"coach": username[:40]})
        career = coach_career(user=found.user)
        data = {"username": found.user.get_username(), "name": found.name, **vars(career)}
        return Response(CoachCareerSerializer(data).data)
