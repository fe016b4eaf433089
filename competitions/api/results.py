"""``GET /api/results/{competition}/{pool}/{round}/?season=N`` (``shared/API.md``,
``shared/SEASON.md``): a pool round's results, for anyone, of any season (default: the current).

Publishing is what makes results public (R23): before it the answer holds the status and the
seed's SHA-256 and an empty ``matches``, whoever asks — referees read their unpublished results
through the arbitration endpoint, never here — so no score, pick, seed or draw leaks before.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from competitions.api.public import COMPETITION, POOL, ROUND, SEASON
from competitions.models import Competition, Decided
from competitions.selectors import pool_round_find, pool_round_results
from competitions.selectors.explanations import STEP_CODES
from engine import LuckyLoserCriterion
from league.public_cache import PublicRead, public_read
from league.season_lookup import season_asked_api
from league.serializers import ErrorSerializer


class QualifiedSerializer(serializers.Serializer):
    """A team a cup game sent on, and how (R15): its winner, or its loser as a lucky loser
    (in the place of a game lost by two ONR teams) with the criterion that put it ahead of the
    best loser left out."""

    team = serializers.CharField()
    went_on_as = serializers.ChoiceField(choices=["winner", "lucky_loser"])
    criterion = serializers.ChoiceField(
        choices=[criterion.value for criterion in LuckyLoserCriterion],
        required=False,
        help_text="A lucky loser's deciding criterion (R15), in the rule's order: alone (no "
        "other loser left), defeat (a shootout loser before an extra-time one, an extra-time "
        "loser before a regulation one), shootout_margin, shootout_goals, extra_time_goals, "
        "goal_difference, goals, die.",
    )
    figure = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="The lucky loser's figure on that criterion (a margin, a difference, goals); "
        "null for alone, defeat and die.",
    )
    runner_up = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="The same figure for the best loser left out; null for alone, defeat, die.",
    )
    die = serializers.CharField(
        required=False,
        allow_null=True,
        help_text="The die's result (the draw lucky_loser_die:N of the round's draws, R23) "
        "when the die decided, else null.",
    )


class MatchSerializer(serializers.Serializer):
    """A game as the engine's ``round`` output gives it (``shared/ENGINE_CLI.md``); cup games
    also say who went on and how (``qualified``, R15)."""

    home = serializers.CharField()
    away = serializers.CharField()
    home_goals = serializers.IntegerField()
    away_goals = serializers.IntegerField()
    decided = serializers.ChoiceField(choices=Decided.values)
    winner = serializers.CharField(allow_null=True)
    qualified = QualifiedSerializer(
        many=True,
        required=False,
        help_text="Cup knockout games only: who the game sent on — its winner, and its loser "
        "when it went on as a lucky loser (R15) — and why.",
    )


class StepSerializer(serializers.Serializer):
    """One step of how a team's goals were made, in the order of R3 (``engine.StepCode``): its
    ``code``, what it adds to the score (``amount``, negative when it takes goals off; a team's
    amounts add up to its goals) and the facts it rests on, each present only where it has one.
    """

    code = serializers.ChoiceField(
        choices=STEP_CODES,
        help_text=(
            "onr_pick (R4: the referee drew the column and extra-time value), dummy_pick (R14),"
            " redraw (R11: `part` asked as `asked` was already used, played as `played`),"
            " column (R1: `column` is worth `value`), crowding (R1, R2: `others` other teams"
            " of the pool played it, never below 0), onr_crowding (R4: `others` regular teams"
            " played it), onr_penalty (R4: −1), extra_goals (R6: `count` played, `asked` when"
            " the stock allowed fewer), great_saves (R3: the opponent's `count`, never below 0),"
            " bonus_goal (R5), offside (R5: drawn for this ONR team, denied), extra_time (R3,"
            " R7: `played`, worth `value`, `die` for an X, against `opponent`), shootout (R8,"
            " KDH), group_goals (R8, WG knockout: `value` against `opponent`), die (R8, R15:"
            " `won`), forfeit (R15), opponent_forfeit (R15)."
        ),
    )
    amount = serializers.IntegerField()
    column = serializers.CharField(required=False)
    value = serializers.IntegerField(required=False)
    others = serializers.IntegerField(required=False, min_value=0)
    count = serializers.IntegerField(required=False, min_value=0)
    asked = serializers.CharField(required=False)
    played = serializers.CharField(required=False)
    part = serializers.ChoiceField(choices=["column", "extra_time", "shootout"], required=False)
    die = serializers.IntegerField(required=False, min_value=0, max_value=5)
    opponent = serializers.IntegerField(required=False)
    won = serializers.BooleanField(required=False)


class PlayedPickSerializer(serializers.Serializer):
    """What a team played, as the engine's ``round`` output gives it; ``display`` is the result
    notation (R10: ``D++*(1)``, ``ONR : F(X)``)."""

    column = serializers.CharField(allow_null=True)
    extra_time = serializers.CharField(allow_null=True)
    shootout = serializers.CharField(allow_null=True)
    extra_goals_used = serializers.IntegerField()
    great_saves_used = serializers.IntegerField()
    onr = serializers.BooleanField()
    redrawn = serializers.BooleanField()
    bonus_goal = serializers.BooleanField()
    goals = serializers.IntegerField()
    display = serializers.CharField()
    explanation = StepSerializer(
        many=True,
        required=False,
        allow_null=True,
        help_text=(
            "Once published: how the goals were made, step by step in the order of R3; null"
            " when the stored facts cannot explain them."
        ),
    )


class DrawSerializer(serializers.Serializer):
    """One random draw (R23): the seed of its generator, what it decided, its options, result."""

    seed = serializers.CharField()
    what = serializers.CharField()
    options = serializers.ListField(child=serializers.CharField())
    result = serializers.CharField()


class ResultsSerializer(serializers.Serializer):
    competition = serializers.ChoiceField(choices=Competition.values)
    pool = serializers.CharField()
    round = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "closed", "arbitrated", "published"])
    seed_hash = serializers.CharField(help_text="SHA-256 hex of the seed, public from the start.")
    matches = MatchSerializer(many=True, help_text="Empty until the round is published.")
    seed = serializers.CharField(required=False, help_text="Once published (R23).")
    bonus_goal = serializers.CharField(
        required=False, allow_null=True, help_text="Once published: who scored it (R5)."
    )
    teams = serializers.DictField(
        child=PlayedPickSerializer(), required=False, help_text="Once published, by team slug."
    )
    draws = DrawSerializer(many=True, required=False, help_text="Once published, in order.")
    voided_at = serializers.DateTimeField(
        allow_null=True,
        help_text="A round voided and published again: when its last void was (the season's "
        "time zone), as its results page says « voided on …, replayed »; else null.",
    )
    void_reason = serializers.CharField(
        allow_null=True,
        help_text="The reason the referee gave for that void; null when voided_at is.",
    )


class ResultsView(PublicRead, APIView):
    """A pool round's results: games, played picks, seed and draws once published (R23), with
    each team's explanation of its goals (R3)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[COMPETITION, POOL, ROUND, SEASON],
        responses={
            200: ResultsSerializer,
            404: OpenApiResponse(ErrorSerializer, description="No such season, pool or round."),
        },
        summary="Results of a pool's round",
    )
    @public_read
    def get(self, request: Request, competition: str, pool: str, round: int) -> Response:
        season = season_asked_api(request)
        pool_round = pool_round_find(
            season_id=season.pk, competition=competition, pool_slug=pool, number=round
        )
        if pool_round is None:
            raise NotFound(_("There is no such round in this pool."))
        return Response(pool_round_results(pool_round=pool_round, explain=True).as_dict())
