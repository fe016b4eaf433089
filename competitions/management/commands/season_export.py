"""``manage.py season_export SEASON > FILE.json``: a whole season as JSON on standard output
(``shared/SEASON.md``, "Past seasons"; the format: :mod:`competitions.services.season_transfer`).

``manage.py season_export --all > FILE.json``: the whole league — every season, the people and
the league's current state — to move it to another server (``docs/LEAGUE_FORMAT.md``;
:mod:`competitions.services.league_transfer`).

Exit 0: written; 2: no such season, or neither a season nor ``--all`` (bad usage).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.services.league_transfer import league_export_json
from competitions.services.season_transfer import season_export_json
from league.selectors import season_find

EXIT_UNUSABLE = 2


class Command(BaseCommand):
    help = (
        "Write a whole season as JSON to standard output: teams, entries, picks as received, "
        "results, draws and seeds, the stock ledger, sanctions. Load it with season_import. "
        "With --all: the whole league (every season, the accounts, the league's current state), "
        "to load into an empty database on another server."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("season", type=int, nargs="?", help="the season's number")
        parser.add_argument(
            "--all",
            action="store_true",
            help="the whole league instead of one season",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"] == (options["season"] is not None):
            raise CommandError(
                "name one season (season_export 3) or the whole league (season_export --all)",
                returncode=EXIT_UNUSABLE,
            )
        if options["all"]:
            self.stdout.write(league_export_json(), ending="")
            return
        season = season_find(number=options["season"])
        if season is None:
            raise CommandError(
                f"there is no season {options['season']} in this database",
                returncode=EXIT_UNUSABLE,
            )
        self.stdout.write(season_export_json(season=season), ending="")
