"""``manage.py season_plan [SEASON] [--json] [--draft]``: the next season's plan
(``shared/SEASON.md``).

Default: the last finished season. ``--json`` prints the plan's JSON document; without it, a
table to read. ``--draft``: the plan as the admins' draft on the season desk leaves it (their
group swaps, R22), the one ``season_start`` starts without a plan file. Exit 0 when printed; 1
when there is no finished season or the season has no plan (not finished, or not closed); 2 for
bad usage or an unknown season. Nothing of the league changes (the plan as computed is kept
beside the draft, to be read back until what it comes from changes).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from competitions.selectors.archive import season_find, season_last_finished
from competitions.services.season_plan import (
    SeasonPlanRefused,
    season_plan,
    season_plan_document,
    season_plan_drafted,
)
from engine.season_plan import SeasonPlan
from league.services.audit import via_command

EXIT_REFUSED = 1
EXIT_USAGE = 2


class Command(BaseCommand):
    help = (
        "Print the plan of the season after SEASON (default: the last finished season): moves, "
        "codes, stocks, leaving teams, the KDH's field and the WG's twelve. Exit 0: printed; "
        "1: no finished season or no plan for it; 2: bad usage or unknown season."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "season",
            nargs="?",
            type=int,
            help="the finished season's number (default: the last finished season)",
        )
        parser.add_argument("--json", action="store_true", help="print the plan as JSON")
        parser.add_argument(
            "--draft",
            action="store_true",
            help="the plan with the season desk's group swaps (the one season_start starts)",
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        if options["season"] is None:
            season = season_last_finished()
            if season is None:
                raise CommandError(_("No season is finished yet."), returncode=EXIT_REFUSED)
        else:
            season = season_find(number=options["season"])
            if season is None:
                raise CommandError(_("No such season."), returncode=EXIT_USAGE)
        try:
            drafted = season_plan_drafted(season=season) if options["draft"] else None
            if options["json"]:
                document = (
                    drafted.as_dict()
                    if drafted is not None
                    else season_plan_document(season=season)
                )
                self.stdout.write(json.dumps(document, ensure_ascii=False, indent=2))
            else:
                self.stdout.write(plan_text(drafted or season_plan(season=season)))
        except SeasonPlanRefused as refusal:
            raise CommandError(refusal.message, returncode=EXIT_REFUSED) from None


def plan_text(plan: SeasonPlan) -> str:
    """The plan as a table to read."""
    lines = [
        _("Season %(season)d, planned from season %(from)d")
        % {"season": plan.season, "from": plan.from_season}
    ]
    header = _("code  team                          from   rank  move       EG  GS  points")
    division = None
    for team in plan.teams:
        if team.to != division:
            division = team.to
            lines += ["", division.upper(), header]
        vacancy = " *" if team.vacancy else ""
        lines.append(
            f"{team.code:02d}    {team.team:<30}{team.from_division or '-':<7}"
            f"{team.rank or '-':<6}{team.move.value + vacancy:<11}{team.extra_goals:<4}"
            f"{team.great_saves:<4}{team.points.total}"
        )
    lines += ["", _("* moved up into a leaving team's place (R24)"), "", _("Leaving:")]
    lines += [f"  {team.team} ({team.why.value})" for team in plan.leaving] or ["  -"]
    lines += [
        "",
        _("KDH: %(qualifying)d teams in the qualifying round, %(later)d enter later")
        % {"qualifying": len(plan.kdh.qualifying), "later": len(plan.kdh.exempt)},
        "",
        _("WG:"),
    ]
    lines += [f"  {team.team} ({team.why.value})" for team in plan.wg]
    return "\n".join(lines)
