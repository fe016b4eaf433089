"""What the rules pages read: the guide's examples, played live by the engine so that the page
can never disagree with it, and the rulings in force (R1–R25 with the rulebook, those the league
added since as :class:`~league.models.Ruling` rows).

Nothing here reads a round of the league: the examples are made-up rounds built from the
rulebook's own matrix (section 2.1.1) and its teams.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from engine import Competition, Pick, Round, RoundResult, TeamEntry, play_round
from league.models import BUILT_IN_RULINGS, Ruling, Season

RULING_TITLES: dict[str, Promise] = {
    "r1": _("Column value"),
    "r2": _("Crowding pool"),
    "r3": _("The order of a score"),
    "r4": _("An ONR team's score"),
    "r5": _("Bonus goal"),
    "r6": _("Extra goals and great saves"),
    "r7": _("Extra-time and shootout values"),
    "r8": _("Still tied after extra time"),
    "r9": _("Points and ties in a table"),
    "r10": _("How a pick is written"),
    "r11": _("Stale advance picks"),
    "r12": _("The last pick received counts"),
    "r13": _("Deadline"),
    "r14": _("Championship ONR sanctions"),
    "r15": _("ONR in the cups"),
    "r16": _("Team codes"),
    "r17": _("KDH"),
    "r18": _("WG"),
    "r19": _("Matrices"),
    "r20": _("Calendar"),
    "r21": _("Next season's stocks"),
    "r22": _("Promotion and relegation"),
    "r23": _("Verifiable dice"),
    "r24": _("Leaving teams and vacancies"),
    "r25": _("Public matrices"),
}
"""R1–R25's titles, the guide's headings and the rulings page's lines (``shared/RULINGS.md``)."""

# Rows of the rulebook's championship matrix (section 2.1.1): weeks 1 and 5.
WEEK_1 = dict(zip("ABCDEFGHIJK", (3, 3, 1, 4, 3, 5, 1, 1, 4, 3, 2), strict=True))
WEEK_5 = dict(zip("ABCDEFGHIJK", (6, 6, 6, 5, 2, 5, 6, 4, 5, 6, 6), strict=True))

TEAM_NAMES = {
    "sleigh-dogs": "Sleigh Dogs",
    "snowmen": "Snowmen",
    "cyberians": "Cybérians",
    "ice-crocodiles": "Ice Crocodiles",
    "teddy-bears": "Teddy Bears",
    "grizzlies": "Grizzlies",
    "freezing-ass": "Freezing Ass",
    "groggs": "Groggs",
    "igloos": "Igloos",
    "icebergs": "Icebergs",
    "puck-pukers": "Puck Pukers",
    "ice-breakers": "Ice Breakers",
}

# The rulebook's full championship week (section 3.1.4); None is ONR. Its seed is one whose
# draws give the Cybérians column F and value X, as the rulebook tells (R4, R23).
WORKED_PICKS: dict[str, str | None] = {
    "sleigh-dogs": "F+(2)",
    "snowmen": "I(3)",
    "cyberians": None,
    "ice-crocodiles": "F(0)",
    "teddy-bears": "D(1)",
    "grizzlies": "F(2)",
    "freezing-ass": "D++(1)",
    "groggs": "B(X)",
    "igloos": "F#(3)",
    "icebergs": "I(3)",
    "puck-pukers": "J(1)",
    "ice-breakers": "K(3)",
}
WORKED_FIXTURES = (
    ("sleigh-dogs", "ice-crocodiles"),
    ("cyberians", "grizzlies"),
    ("snowmen", "teddy-bears"),
    ("freezing-ass", "groggs"),
    ("igloos", "icebergs"),
    ("puck-pukers", "ice-breakers"),
)
WORKED_SEED = "rules-3.1.4-44"


@dataclass(frozen=True)
class ExampleGame:
    """One game of an example as results show it (R10): picks, score, how it was decided."""

    home: str
    away: str
    home_pick: str
    away_pick: str
    home_goals: int
    away_goals: int
    decided: str
    """The engine's ``Decided`` value: ``regulation``, ``extra_time``, ``draw``…"""


@dataclass(frozen=True)
class Example:
    games: tuple[ExampleGame, ...]
    bonus_goal: str | None
    """Who scored the bonus goal (R5), ``None`` when nobody did."""


def _play(
    picks: Mapping[str, str | None],
    fixtures: tuple[tuple[str, str], ...],
    *,
    row: Mapping[str, int],
    seed: str = "rules-page",
    bonus_goal: str | None = None,
    used_columns: Mapping[str, tuple[str, ...]] | None = None,
) -> Example:
    """Plays a made-up championship round (its crowding pool is ``picks``' teams, R2) and keeps
    the games of ``fixtures``, the first of them being the one the guide talks about."""
    used = used_columns or {}
    teams = {
        team: TeamEntry(None if pick is None else Pick.parse(pick), used_columns=used.get(team, ()))
        for team, pick in picks.items()
    }
    result: RoundResult = play_round(
        Round(Competition.CHAMPIONSHIP, seed, row, teams, fixtures, bonus_goal=bonus_goal)
    )
    games = tuple(
        ExampleGame(
            home=TEAM_NAMES.get(match.home, match.home),
            away=TEAM_NAMES.get(match.away, match.away),
            home_pick=result.teams[match.home].display,
            away_pick=result.teams[match.away].display,
            home_goals=match.home_goals,
            away_goals=match.away_goals,
            decided=match.decided.value,
        )
        for match in result.matches
    )
    bonus = None if result.bonus_goal is None else TEAM_NAMES[result.bonus_goal]
    return Example(games, bonus)


# Columns used up before the round, so that an ONR team's random column can only be the one
# the example is about (R4 draws among the columns left).
_ALL_BUT_D = tuple(c for c in "ABCDEFGHIJK" if c != "D")


@cache
def rules_examples() -> dict[str, Example]:
    """The guide's examples, each played by the engine (computed once per process: the
    engine is the same for every visitor).

    - ``worked``: the rulebook's week (section 3.1.4), every game;
    - ``crowding``: week 5, the Snowmen on C with three other teams on C (R1);
    - ``clamp``: week 5, four teams on E (2 − 3 is 0), an extra goal added after (R1, R3);
    - ``save``: the same with the opponent's great save cancelling it (R3, R6);
    - ``onr``: week 5, an ONR team drawn column D, nobody else on it: 5 − 1 (R4);
    - ``bonus_denied``: the bonus goal drawn for an ONR team: nobody gets it (R5);
    - ``extra_time``: week 5, 6–6 after regular time, extra-time values 3 and 1 (R3, R7).
    """
    others_on_e = {"groggs": "E(0)", "igloos": "E(2)"}
    return {
        "worked": _play(
            WORKED_PICKS, WORKED_FIXTURES, row=WEEK_1, seed=WORKED_SEED, bonus_goal="freezing-ass"
        ),
        "crowding": _play(
            {
                "snowmen": "C(1)",
                "sleigh-dogs": "D(1)",
                "groggs": "C(0)",
                "igloos": "C(2)",
                "icebergs": "C(3)",
                "grizzlies": "A(1)",
            },
            (("snowmen", "sleigh-dogs"), ("groggs", "igloos"), ("icebergs", "grizzlies")),
            row=WEEK_5,
        ),
        "clamp": _play(
            {"teddy-bears": "E(1)", "freezing-ass": "E+(1)", **others_on_e},
            (("teddy-bears", "freezing-ass"), ("groggs", "igloos")),
            row=WEEK_5,
        ),
        "save": _play(
            {"teddy-bears": "E#(1)", "freezing-ass": "E+(1)", **others_on_e},
            (("teddy-bears", "freezing-ass"), ("groggs", "igloos")),
            row=WEEK_5,
        ),
        "onr": _play(
            {"cyberians": None, "grizzlies": "E(0)"},
            (("cyberians", "grizzlies"),),
            row=WEEK_5,
            used_columns={"cyberians": _ALL_BUT_D},
        ),
        "bonus_denied": _play(
            {"cyberians": None, "grizzlies": "E(0)"},
            (("cyberians", "grizzlies"),),
            row=WEEK_5,
            bonus_goal="cyberians",
            used_columns={"cyberians": _ALL_BUT_D},
        ),
        "extra_time": _play(
            {"snowmen": "A(3)", "sleigh-dogs": "B(1)"},
            (("snowmen", "sleigh-dogs"),),
            row=WEEK_5,
        ),
    }


@dataclass(frozen=True)
class RulingEntry:
    """A line of the rulings page: a ruling or a clarification, and the season it took
    effect in (``None``: with the rulebook, from the first season)."""

    code: str
    anchor: str
    number: int
    title: str
    text: str
    clarification: bool
    season: Season | None
    created_at: datetime | None


def rulings_list(*, language: str, season: Season | None = None) -> list[RulingEntry]:
    """The rulings the league added, newest first, then R1–R25 (the rulebook's own, rules
    v8, in force from the first season; their text is the guide's). With ``season``, only
    those in force in it (taking effect in it or before). One query."""
    rows = Ruling.objects.select_related("season")
    if season is not None:
        rows = rows.filter(season__number__lte=season.number)
    english = language == "en"
    added = [
        RulingEntry(
            code=f"R{row.number}",
            anchor=f"r{row.number}"
            if row.kind == Ruling.Kind.RULING
            else f"clarification-{row.pk}",
            number=row.number,
            title=row.title_en if english else row.title_fr,
            text=row.text_en if english else row.text_fr,
            clarification=row.kind == Ruling.Kind.CLARIFICATION,
            season=row.season,
            created_at=row.created_at,
        )
        for row in rows
    ]
    built_in = [
        RulingEntry(
            code=f"R{number}",
            anchor=f"r{number}",
            number=number,
            title=str(RULING_TITLES[f"r{number}"]),
            text="",
            clarification=False,
            season=None,
            created_at=None,
        )
        for number in range(BUILT_IN_RULINGS, 0, -1)
    ]
    return added + built_in
