"""``manage.py season_close [SEASON]``: close a season (``shared/SEASON.md``).

Default: the current season. Exit 0 when it is closed, or was already finished (nothing changes);
1 when refused, listing what is left to publish; 2 for bad usage or an unknown season.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from competitions.selectors.archive import season_find
from competitions.services.season_close import SeasonCloseRefused, season_close
from league.models import Season
from league.services.audit import via_command

EXIT_REFUSED = 1
EXIT_USAGE = 2


class Command(BaseCommand):
    help = (
        "Close a season: record its final tables, cup winners and R14 bars, and mark it "
        "finished. Exit 0: closed or already finished; 1: refused (rounds left to publish, "
        "listed); 2: bad usage or unknown season."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "season", nargs="?", type=int, help="the season's number (default: the current one)"
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        season = season_find(number=options["season"])
        if season is None:
            raise CommandError(
                _("No such season.") if options["season"] else _("There is no current season."),
                returncode=EXIT_USAGE,
            )
        finished = season.status == Season.Status.FINISHED
        try:
            archive = season_close(season=season, by=None)
        except SeasonCloseRefused as refusal:
            raise CommandError(refusal.message, returncode=EXIT_REFUSED) from None
        if finished:
            self.stdout.write(
                _("%(season)s was already finished: nothing changed.") % {"season": season}
            )
            return
        assert archive is not None  # a season closed now has its archive
        self.stdout.write(
            _("%(season)s closed: %(rows)d final table rows and %(honours)d cup honours recorded.")
            % {"season": season, "rows": archive.rows.count(), "honours": archive.honours.count()}
        )
