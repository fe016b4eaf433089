"""``manage.py season_import FILE.json``: load a season written by ``season_export`` into this
database (``shared/SEASON.md``, "Past seasons"), in one transaction; or the whole league written
by ``season_export --all`` into this empty database (``docs/LEAGUE_FORMAT.md``).

Exit 0: loaded; 1: refused, nothing stored (the season number exists here, a new team's name or
coach is another team's; for the whole league: this database holds league rows already); 2: the
file cannot be read (missing, not JSON, not a season file, a field missing or wrong, an unknown
reference, a pick that does not match its receipt, an unknown format or version; every problem
of a league file listed at once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.services import league_transfer
from competitions.services.league_transfer_import import league_import
from competitions.services.season_transfer import SeasonFileInvalid, SeasonImportRefused
from competitions.services.season_transfer_import import season_import
from league.services.audit import via_command

EXIT_REFUSED = 1
EXIT_UNUSABLE = 2


class Command(BaseCommand):
    help = (
        "Load a season written by season_export into this database, all or nothing. Refused "
        "(exit 1) when the season's number already exists here; exit 2 for a file it cannot read."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="the JSON file season_export wrote")

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {path}: {error}", returncode=EXIT_UNUSABLE) from error
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CommandError(
                f"{path} is not valid JSON, nothing stored: {error}", returncode=EXIT_UNUSABLE
            ) from error
        if isinstance(data, dict) and data.get("format") == league_transfer.FORMAT:
            self._league(path, data)
            return
        try:
            season = season_import(data=data)
        except SeasonImportRefused as refused:
            raise CommandError(
                f"refused, nothing stored:\n{refused}", returncode=EXIT_REFUSED
            ) from refused
        except SeasonFileInvalid as invalid:
            raise CommandError(
                f"{path} is not a season this league can read, nothing stored: {invalid}",
                returncode=EXIT_UNUSABLE,
            ) from invalid
        current = " (now the current season)" if season.is_current else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"Season {season.number} loaded from {path}{current}: "
                f"{season.entries.count()} teams, {season.rounds.count()} rounds."
            )
        )

    def _league(self, path: Path, data: dict[str, Any]) -> None:
        try:
            rows = league_import(data=data)
        except SeasonImportRefused as refused:
            raise CommandError(
                f"refused, nothing stored: a league moves into an empty database\n{refused}",
                returncode=EXIT_REFUSED,
            ) from refused
        except SeasonFileInvalid as invalid:
            raise CommandError(
                f"{path} is not a league this server can read, nothing stored:\n{invalid}",
                returncode=EXIT_UNUSABLE,
            ) from invalid
        seasons = ", ".join(str(season["number"]) for season in data.get("seasons", []))
        self.stdout.write(
            self.style.SUCCESS(f"League loaded from {path}: {rows} rows, seasons {seasons}.")
        )
