"""The shapes of the competitions' API answers (``shared/API.md``)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from competitions.models import Competition, Pick, Round, RoundStatus, Stage
from competitions.selectors import EntryChoices, round_status
from league.models import SeasonStatus


def deadline_iso(round: Round) -> str:
    """R13: ``round``'s deadline in ISO 8601, with the offset of its season's time zone."""
    return round.deadline.astimezone(ZoneInfo(round.season.time_zone)).isoformat()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    team = serializers.CharField(
        allow_null=True, help_text=_("The slug of the team the user coaches, or null.")
    )
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=["coach", "referee", "admin"])
    )


class RoundSerializer(serializers.Serializer):
    """A round as the calendar shows it; its deadline in the season's time zone (R13)."""

    number = serializers.IntegerField()
    week = serializers.IntegerField()
    stage = serializers.CharField()
    deadline = serializers.SerializerMethodField(
        help_text=_("ISO 8601 with the offset of the season's time zone (R13).")
    )
    status = serializers.SerializerMethodField(
        help_text=_("An open round whose deadline has passed is closed.")
    )

    def get_deadline(self, round: Round) -> str:
        return deadline_iso(round)

    @extend_schema_field(serializers.ChoiceField(choices=RoundStatus.choices))
    def get_status(self, round: Round) -> str:
        return round_status(round=round)


class CompetitionRoundsSerializer(serializers.Serializer):
    championship = RoundSerializer(many=True)
    kdh = RoundSerializer(many=True)
    wg = RoundSerializer(many=True)


class SeasonSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    time_zone = serializers.CharField()
    competitions = CompetitionRoundsSerializer(help_text=_("Per competition, its rounds in order."))


class SeasonListItemSerializer(serializers.Serializer):
    """A season in the list of every season (``GET /api/seasons/``)."""

    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=SeasonStatus.choices)
    current = serializers.BooleanField(
        source="is_current", help_text=_("Whether it is the league's current season.")
    )


class StandingRowSerializer(serializers.Serializer):
    """A row of the engine's ``standings`` output (R9)."""

    team = serializers.CharField()
    rank = serializers.IntegerField()
    points = serializers.IntegerField()
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    regulation_wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    extra_time_losses = serializers.IntegerField()
    losses = serializers.IntegerField()
    goals_for = serializers.IntegerField()
    goals_against = serializers.IntegerField()
    group = serializers.CharField(
        allow_null=True, help_text=_("The WG group of the row; null in a division.")
    )


class StandingsSerializer(serializers.Serializer):
    pool = serializers.CharField()
    table = StandingRowSerializer(many=True)


class TeamInfosSerializer(serializers.Serializer):
    """What a team has left after the published rounds (« infos équipes »)."""

    columns = serializers.ListField(child=serializers.CharField())
    extra_time = serializers.SerializerMethodField(
        help_text=_("Extra-time values left, one item per use left (R7).")
    )
    shootout = serializers.SerializerMethodField(
        help_text=_("Shootout values left, one item per use left (KDH only, R7).")
    )
    extra_goals = serializers.IntegerField()
    great_saves = serializers.IntegerField()

    def get_extra_time(self, choices: EntryChoices) -> list[str]:
        return EntryChoices.spread(choices.extra_time)

    def get_shootout(self, choices: EntryChoices) -> list[str]:
        return EntryChoices.spread(choices.shootout)


class InfosSerializer(serializers.Serializer):
    competition = serializers.ChoiceField(choices=Competition.choices)
    pool = serializers.CharField()
    teams = serializers.DictField(
        child=TeamInfosSerializer(), help_text=_("By team slug, in the pool's order.")
    )


SPACE = (
    r"[\t\n\u000b\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a"
    r"\u2028\u2029\u202f\u205f\u3000]*"
)
"""Any run of what Python calls a space (``str.split``, which ``Pick.parse`` drops), spelled out:
a schema's ``\\s`` is ECMAScript's, which is not the same set."""

NOTATION_PATTERN = (
    rf"^{SPACE}[A-Ka-k]({SPACE}[+#])*{SPACE}\({SPACE}[0-3Xx]{SPACE}\)"
    rf"({SPACE}\({SPACE}[0-5Xx]{SPACE}\))?{SPACE}$"
)
"""R10's notation as a coach may write it (case and spaces free; columns A–K, the largest matrix,
R19): exactly the texts ``Pick.parse`` reads, so the schema accepts what the server reads. Whether
the team may play it (its columns, quotas, the competition's shootout) is the server's answer:
400 ``{"pick": [...]}`` with what is wrong."""


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": 200, "pattern": NOTATION_PATTERN}
)
class NotationField(serializers.CharField):
    """A pick's text; the schema gives R10's pattern, the engine reads and checks it."""


class PickInSerializer(serializers.Serializer):
    pick = NotationField(
        max_length=200,
        trim_whitespace=False,
        help_text=_("The pick in the league's notation (R10), e.g. F+(2) or C+(1)(4) in the KDH."),
    )


class PickReceiptSerializer(serializers.Serializer):
    """A stored pick: its notation, receipt and time (R12)."""

    pick = serializers.CharField(source="normalized")
    receipt = serializers.CharField(
        help_text=_("SHA-256 (hex) of the stored pick record, for the coach to keep.")
    )
    submitted_at = serializers.DateTimeField(source="received_at")


class PickSentSerializer(serializers.Serializer):
    """A pick just stored (R12), as :class:`PickReceiptSerializer` says it, with the R11 warning
    the service gave (``competitions.services.PickSubmitted``)."""

    pick = serializers.CharField(source="pick.normalized")
    receipt = serializers.CharField(
        source="pick.receipt",
        help_text=_("SHA-256 (hex) of the stored pick record, for the coach to keep."),
    )
    submitted_at = serializers.DateTimeField(source="pick.received_at")
    warning = serializers.CharField(
        source="stale.message",
        allow_null=True,
        help_text=_(
            "R11: the pick's column is already in your pick for an earlier round not played "
            "yet, and is redrawn if that round is played first; null otherwise."
        ),
    )


class PickRecordSerializer(PickReceiptSerializer):
    as_received = serializers.CharField(source="notation")
    channel = serializers.ChoiceField(choices=Pick.Channel.choices)


class PicksSerializer(serializers.Serializer):
    competition = serializers.ChoiceField(choices=Competition.choices)
    round = serializers.IntegerField()
    deadline = serializers.CharField(help_text=_("ISO 8601 with the season's offset (R13)."))
    status = serializers.ChoiceField(choices=RoundStatus.choices)
    current = PickRecordSerializer(
        allow_null=True, help_text=_("The pick that counts: the last received (R12).")
    )
    history = PickRecordSerializer(many=True, help_text=_("Every pick received, latest first."))


class PickErrorSerializer(serializers.Serializer):
    pick = serializers.ListField(
        child=serializers.CharField(),
        help_text=_("Every wrong part of the pick, a message each, in the caller's language."),
    )
    faults = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text=_(
            "The same, as codes: each its code (notation, not_allowed, unavailable), its fault "
            "and its facts (part, column, value…)."
        ),
    )


class MatrixRowSerializer(serializers.Serializer):
    """One round's row of a competition's matrix (R19), with its calendar (R13, R20)."""

    round = serializers.IntegerField(min_value=1)
    week = serializers.IntegerField(min_value=1)
    stage = serializers.ChoiceField(choices=Stage.choices)
    deadline = serializers.CharField(help_text=_("ISO 8601 with the season's offset (R13)."))
    current = serializers.BooleanField(
        help_text=_("Whether picks are open for this round now (the competition's first open).")
    )
    values = serializers.DictField(
        child=serializers.IntegerField(min_value=1, max_value=6),
        help_text=_("Each column's value in this round's row, by column letter (R19)."),
    )


class MatrixSerializer(serializers.Serializer):
    """A competition's matrix in a season: public from the season's start (R25)."""

    competition = serializers.ChoiceField(choices=Competition.choices)
    season = serializers.IntegerField(min_value=1)
    columns = serializers.ListField(child=serializers.CharField(min_length=1, max_length=1))
    rows = MatrixRowSerializer(many=True, help_text=_("A row per round, in round order."))
