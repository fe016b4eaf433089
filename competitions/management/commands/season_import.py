"""``manage.py season_import FILE.json``: load a season written by ``season_export`` into this
database (``shared/SEASON.md``, "Past seasons"), in one transaction.

Exit 0: loaded; 1: refused, nothing stored (the season number exists here, a new team's name or
coach is another team's); 2: the file cannot be read (missing, not JSON, not a season file, a
field missing or wrong, an unknown reference, a pick that does not match its receipt).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.services.season_transfer import SeasonFileInvalid, SeasonImportRefused
from competitions.services.season_transfer_import import season_import_json
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
            season = season_import_json(text=text)
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
