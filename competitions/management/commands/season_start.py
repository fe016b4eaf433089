"""``manage.py season_start [--plan FILE]``: start the next season (``shared/SEASON.md``).

With ``--plan FILE`` (the JSON of ``season_plan --json``, perhaps edited): the season after the
last finished one, from that plan. Without it: the season in preparation (an imported first
season), whatever it still lacks prepared by default; or, when none is, the plan of the last
finished season as the season desk's draft leaves it (``season_plan --draft``). From a plan,
the first Monday and the skipped weeks not given are the draft's (the desk's calendar). Entries,
matrices (R19), calendar (R20), pools with last season's referees, the KDH's first round (R17),
the WG's groups (R18), every championship round's seed committed (R23); the season current and
running. One transaction: printed progress, and nothing stored when refused.

Exit 0 started, 1 refused (the reasons printed; nothing changed), 2 bad usage or an unreadable
plan file.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.selectors.archive import season_in_preparation, season_last_finished
from competitions.services.season_plan import SeasonPlanRefused, season_plan_drafted
from competitions.services.season_plan_calendar import season_plan_calendar
from competitions.services.season_start import season_start
from competitions.services.start_plan import SeasonStartRefused
from league.services.audit import via_command

EXIT_REFUSED = 1
EXIT_UNUSABLE = 2


def _weeks(text: str) -> list[int]:
    return [int(week) for week in text.split(",") if week.strip()]


def _slugs(text: str) -> list[str]:
    return [slug.strip() for slug in text.split(",") if slug.strip()]


class Command(BaseCommand):
    help = (
        "Start the next season: from --plan FILE (season_plan --json), or the season in "
        "preparation. Exit 0: started; 1: refused, nothing changed; 2: bad usage or plan file."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--plan", help="the plan's JSON file (season_plan --json)")
        parser.add_argument(
            "--starts-on", type=date.fromisoformat, help="the first Monday, YYYY-MM-DD"
        )
        parser.add_argument(
            "--skip-weeks",
            type=_weeks,
            help="calendar weeks without rounds, e.g. 4 or 4,5 (week 1 is the first)",
        )
        parser.add_argument(
            "--wg",
            type=_slugs,
            help="without a plan: the WG's twelve team slugs, comma-separated (R18), when its "
            "groups are not drawn yet",
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        plan = None
        if options["plan"]:
            path = Path(options["plan"])
            try:
                plan = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
                raise CommandError(
                    f"cannot read the plan {path}: {error}", returncode=EXIT_UNUSABLE
                ) from error

        if plan is None and not season_in_preparation():
            # SEASON.md: without a file, the plan of the last finished season, as computed,
            # with the admins' draft applied (their group swaps on the season desk, R22).
            finished = season_last_finished()
            if finished is not None:
                try:
                    plan = season_plan_drafted(season=finished).as_dict()
                except SeasonPlanRefused as refusal:
                    raise CommandError(refusal.message, returncode=EXIT_REFUSED) from None

        starts_on, skipped_weeks = options["starts_on"], options["skip_weeks"]
        finished = season_last_finished()
        if plan is not None and finished is not None:
            # R20: the next season's calendar as the admins' draft keeps it (the season desk's
            # « Calendar » card), where the command line says nothing else.
            drafted_calendar = season_plan_calendar(season=finished)
            starts_on = starts_on or drafted_calendar.starts_on
            if skipped_weeks is None:
                skipped_weeks = drafted_calendar.skipped_weeks

        def progress(done: int, total: int, message: str) -> None:
            self.stdout.write(f"[{done}/{total}] {message}")

        try:
            season = season_start(
                plan=plan,
                progress=progress,
                starts_on=starts_on,
                skipped_weeks=skipped_weeks,
                wg_teams=options["wg"],
            )
        except SeasonStartRefused as refusal:
            reasons = "\n".join(f"  {problem}" for problem in refusal.problems)
            if refusal.code == "no_season" and plan is None:
                reasons += (
                    "\n  Write the plan first: manage.py season_plan --json > plan.json, then "
                    "manage.py season_start --plan plan.json"
                )
            raise CommandError(
                f"refused ({refusal.code}), nothing was changed:\n{reasons}",
                returncode=EXIT_REFUSED,
            ) from refusal
        self.stdout.write(self.style.SUCCESS(f"{season} started: current and running."))
