"""The next season's plan as a season start reads it: the JSON of ``manage.py season_plan --json``
(``shared/SEASON.md``), perhaps edited by an admin, checked thoroughly before anything is stored.

Only the fields a start needs are read: each team's ``team``, ``to``, ``code``, ``extra_goals``
and ``great_saves`` (and ``move`` to tell a joining team), ``leaving``, ``kdh`` and ``wg``. Every
problem is reported at once; the ones that need the database (who played the season before,
the waiting list) are checked by :mod:`competitions.services.season_start`.

A team that joins (``"move": "joined"``) is found by, in this order: ``waiting_list_entry`` (the
id of a waiting-list entry), an existing team with that slug, the waiting-list entry still
waiting whose name gives that slug, or, with ``"dummy": true``, a new dummy team (R24: places
short in a D3 group when the waiting list runs out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from engine import Dice, kdh
from league.models import DIVISION_SIZE
from league.services.seasons import STANDARD_DIVISIONS

LEAGUE_SIZE = DIVISION_SIZE * len(STANDARD_DIVISIONS)
"""84 teams: seven divisions of twelve."""
TIERS = {slug: tier for slug, _name, tier, _group in STANDARD_DIVISIONS}
MOVES = ("promoted", "relegated", "stays", "barred", "joined")
LEAVING_WHY = ("dummy", "withdrawn")
WG_WHY = (
    "division_winner",
    "kdh_winner",
    "kdh_finalist",
    "holder",
    "most_goals",
    "fewest_against",
    "next_most_goals",
    "next_fewest_against",
)
WG_TEAMS = 12


class SeasonStartRefused(Exception):
    """A season start that cannot happen: ``code`` says which refusal, ``problems`` lists every
    reason (each a sentence for the admin). Nothing was stored.

    Codes: ``season_running``, ``plan_invalid``, ``no_season``, ``season_exists``,
    ``not_preparing``, ``not_ready``, ``deadline_passed``, ``already_drawn``, ``invalid``,
    ``in_progress`` (another start is queued or running).
    """

    def __init__(self, code: str, problems: Sequence[str]) -> None:
        self.code = code
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))

    @property
    def message(self) -> str:
        return "\n".join(self.problems)


@dataclass(frozen=True)
class PlanTeam:
    """A team of the plan: where it plays (``to``), its code (R16) and stocks (R21)."""

    team: str
    to: str
    code: int
    extra_goals: int
    great_saves: int
    joined: bool
    waiting_list_entry: int | None
    dummy: bool


@dataclass(frozen=True)
class StartPlan:
    """A checked plan: season ``season`` after ``from_season``, its 84 teams, who leaves, the
    KDH's qualifying round (R17) and the WG's twelve (R18)."""

    from_season: int
    season: int
    teams: tuple[PlanTeam, ...]
    leaving: tuple[str, ...]
    kdh_qualifying: tuple[str, ...]
    wg: tuple[str, ...]


def _whole(value: object, low: int, high: int | None = None) -> bool:
    # JSON's true is a Python int: it is not a number of goals.
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= low
        and (high is None or value <= high)
    )


def _slug(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def start_plan_read(plan: object) -> StartPlan:
    """``plan`` checked: raises :class:`SeasonStartRefused` (``plan_invalid``) with every problem
    when it is not 84 teams in 7 divisions of 12 with codes 01–12 once each, stocks not below 0,
    the KDH's qualifying round as R17 makes it and twelve distinct WG teams of the plan."""
    problems: list[str] = []
    if not isinstance(plan, Mapping):
        raise SeasonStartRefused("plan_invalid", [_("The plan is not a JSON object.")])
    from_season, season = plan.get("from_season"), plan.get("season")
    if not _whole(from_season, 1):
        problems.append(_("from_season must be a season number."))
    elif season != from_season + 1:
        problems.append(
            _("season must be %(number)d, the season after from_season.")
            % {"number": from_season + 1}
        )
    teams = _teams(plan.get("teams"), problems)
    slugs = {team.team for team in teams}
    leaving = _leaving(plan.get("leaving", []), slugs, problems)
    qualifying = _kdh(plan.get("kdh"), teams, problems)
    wg = _wg(plan.get("wg"), slugs, problems)
    if problems:
        raise SeasonStartRefused("plan_invalid", problems)
    return StartPlan(
        from_season=from_season,
        season=season,
        teams=tuple(teams),
        leaving=leaving,
        kdh_qualifying=qualifying,
        wg=wg,
    )


def _teams(items: object, problems: list[str]) -> list[PlanTeam]:
    if not isinstance(items, list):
        problems.append(_("teams must be a list of the season's teams."))
        return []
    teams = []
    for index, item in enumerate(items):
        where = _("teams[%(index)d]") % {"index": index}
        if not isinstance(item, Mapping):
            problems.append(_("%(where)s is not an object.") % {"where": where})
            continue
        before = len(problems)
        team, to, code = item.get("team"), item.get("to"), item.get("code")
        if not _slug(team):
            problems.append(_("%(where)s has no team.") % {"where": where})
        else:
            where = f"{where} ({team})"
        if to not in TIERS:
            problems.append(
                _("%(where)s: “to” is not a division (%(known)s).")
                % {"where": where, "known": ", ".join(TIERS)}
            )
        if not _whole(code, 1, DIVISION_SIZE):
            problems.append(_("%(where)s: code is not 1 to 12.") % {"where": where})
        for stock in ("extra_goals", "great_saves"):
            if not _whole(item.get(stock), 0):
                problems.append(
                    _("%(where)s: %(stock)s is not a whole number from 0.")
                    % {"where": where, "stock": stock}
                )
        move = item.get("move", "stays")
        if move not in MOVES:
            problems.append(
                _("%(where)s: move is not one of %(moves)s.")
                % {"where": where, "moves": ", ".join(MOVES)}
            )
        waiting = item.get("waiting_list_entry")
        if waiting is not None and not _whole(waiting, 1):
            problems.append(_("%(where)s: waiting_list_entry is not an id.") % {"where": where})
        if len(problems) == before:
            teams.append(
                PlanTeam(
                    team=team.strip(),
                    to=to,
                    code=code,
                    extra_goals=item["extra_goals"],
                    great_saves=item["great_saves"],
                    joined=move == "joined",
                    waiting_list_entry=waiting,
                    dummy=item.get("dummy") is True,
                )
            )
    if len(items) != LEAGUE_SIZE:
        problems.append(
            _("The plan has %(count)d teams: a season has %(size)d, seven divisions of 12.")
            % {"count": len(items), "size": LEAGUE_SIZE}
        )
    for slug, count in sorted(Counter(team.team for team in teams).items()):
        if count > 1:
            problems.append(
                _("%(team)s is in the plan %(count)d times.") % {"team": slug, "count": count}
            )
    by_division = Counter(team.to for team in teams)
    for slug in TIERS:
        if by_division[slug] != DIVISION_SIZE and len(teams) == len(items):
            problems.append(
                _("%(division)s has %(count)d teams in the plan, it needs 12.")
                % {"division": slug, "count": by_division[slug]}
            )
    codes = Counter((team.to, team.code) for team in teams)
    for (division, code), count in sorted(codes.items()):
        if count > 1:
            clash = sorted(t.team for t in teams if (t.to, t.code) == (division, code))
            problems.append(
                _("Code %(code)02d is given %(count)d times in %(division)s (R16): %(teams)s.")
                % {"code": code, "count": count, "division": division, "teams": ", ".join(clash)}
            )
    return teams


def _leaving(items: object, slugs: set[str], problems: list[str]) -> tuple[str, ...]:
    if not isinstance(items, list):
        problems.append(_("leaving must be a list."))
        return ()
    leaving = []
    for index, item in enumerate(items):
        team = item.get("team") if isinstance(item, Mapping) else None
        if not _slug(team) or item.get("why") not in LEAVING_WHY:
            problems.append(
                _("leaving[%(index)d] needs a team and why (dummy or withdrawn).")
                % {"index": index}
            )
        elif team in slugs:
            problems.append(_("%(team)s is leaving and in the plan's teams too.") % {"team": team})
        else:
            leaving.append(team)
    return tuple(leaving)


def _kdh(value: object, teams: list[PlanTeam], problems: list[str]) -> tuple[str, ...]:
    """R17: the qualifying round and the teams entering later are the plan's teams, and the
    qualifying round is the one the engine makes from the plan's codes."""
    if not isinstance(value, Mapping) or not all(
        isinstance(value.get(key), list) and all(_slug(t) for t in value[key])
        for key in ("qualifying_round", "enter_later")
    ):
        problems.append(_("kdh must list qualifying_round and enter_later (team slugs)."))
        return ()
    qualifying, later = value["qualifying_round"], value["enter_later"]
    if len(teams) != LEAGUE_SIZE:
        return tuple(qualifying)  # the count is reported already; the split would mean nothing
    field = [kdh.Entrant(team.team, TIERS[team.to], team.code) for team in teams]
    # With 84 teams in 7 divisions of 12 the split needs no die (R17: D3 codes 03–12).
    expected = kdh.split_field(field, Dice("plan-check"))
    if sorted(qualifying) != sorted(expected.qualifying) or sorted(later) != sorted(
        expected.exempt
    ):
        problems.append(
            _(
                "The KDH's qualifying round must be the %(count)d D3 teams with codes 03–12 "
                "(R17) and every other team must enter later."
            )
            % {"count": len(expected.qualifying)}
        )
    return tuple(qualifying)


def _wg(value: object, slugs: set[str], problems: list[str]) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(item, Mapping) and _slug(item.get("team")) for item in value
    ):
        problems.append(_("wg must be a list of twelve teams, each with its reason (R18)."))
        return ()
    teams = [item["team"] for item in value]
    if len(teams) != WG_TEAMS or len(set(teams)) != WG_TEAMS:
        problems.append(
            _("The WG needs twelve different teams (R18); the plan gives %(count)d.")
            % {"count": len(set(teams))}
        )
    for item in value:
        if item["team"] not in slugs and slugs:
            problems.append(
                _("%(team)s is in the WG but not in the plan's teams.") % {"team": item["team"]}
            )
        if item.get("why") not in WG_WHY:
            problems.append(
                _("%(team)s: the WG reason is not one of %(reasons)s.")
                % {"team": item["team"], "reasons": ", ".join(WG_WHY)}
            )
    return tuple(teams)
