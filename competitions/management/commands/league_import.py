"""``manage.py league_import FILE.csv``: a league's first season from a CSV file
(``shared/SEASON.md``): ``team,coach,email,language,division,code,extra_goals,great_saves``.

Exit 0 when season 1 was created (or already holds exactly this file: nothing changed), 1 when
the file has problems (every one printed with its line; nothing stored), 2 when the file cannot
be read or the command is misused.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.template.defaultfilters import pluralize

from competitions.services.league_import import LeagueImportRefused, league_import
from league.services.audit import via_command

EXIT_REFUSED = 1
EXIT_UNUSABLE = 2


class Command(BaseCommand):
    help = (
        "Import a first season from a CSV file (team,coach,email,language,division,code,"
        "extra_goals,great_saves). Exit 0: imported (or already imported); 1: the file has "
        "problems, all listed, nothing stored; 2: the file cannot be read."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the CSV file, UTF-8, with its header row")
        parser.add_argument(
            "--starts-on",
            type=date.fromisoformat,
            help="season 1's first Monday, YYYY-MM-DD (default: next Monday)",
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(
                f"cannot read {path}: {error.strerror or error}", returncode=EXIT_UNUSABLE
            ) from error
        try:
            result = league_import(text=data, starts_on=options["starts_on"])
        except LeagueImportRefused as refusal:
            lines = "\n".join(f"  {problem}" for problem in refusal.problems)
            problems = len(refusal.problems)
            raise CommandError(
                f"{path}: refused, nothing was stored ({problems} problem{pluralize(problems)}):\n"
                f"{lines}",
                returncode=EXIT_REFUSED,
            ) from refusal
        season = result.season
        if not result.created:
            self.stdout.write(
                f"{season} already holds exactly this file ({result.teams} teams): nothing changed."
            )
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"{season} imported, in preparation: {result.teams} teams in 7 divisions, "
                f"{result.coaches_created} new coach(es) invited by email to choose a password."
            )
        )
        self.stdout.write(
            "Next: prepare it on the season desk (matrices, calendar, referees, cup draws; "
            "the WG's twelve), then start it (manage.py season_start)."
        )
