"""``manage.py season_export SEASON > FILE.json``: a whole season as JSON on standard output
(``shared/SEASON.md``, "Past seasons"; the format: :mod:`competitions.services.season_transfer`).

Exit 0: written; 2: no such season (bad usage).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.services.season_transfer import season_export_json
from league.selectors import season_find

EXIT_UNUSABLE = 2


class Command(BaseCommand):
    help = (
        "Write a whole season as JSON to standard output: teams, entries, picks as received, "
        "results, draws and seeds, the stock ledger, sanctions. Load it with season_import."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("season", type=int, help="the season's number")

    def handle(self, *args: Any, **options: Any) -> None:
        season = season_find(number=options["season"])
        if season is None:
            raise CommandError(
                f"there is no season {options['season']} in this database",
                returncode=EXIT_UNUSABLE,
            )
        self.stdout.write(season_export_json(season=season), ending="")
