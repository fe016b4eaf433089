"""``manage.py load_demo [--week N] [--if-empty]``: the demo league at week N (default 3; 11: the
season played to its end) into an empty database (``competitions.demo``, ``shared/SEASON.md``).

Exit codes: 0 loaded (or, with ``--if-empty``, a league already there and left alone); 1 refused
(the database already holds a league); 2 bad usage (a week outside 1–11).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.demo import (
    ADMIN,
    DEFAULT_WEEK,
    DEPUTY,
    LAST_WEEK,
    PASSWORD,
    REFEREE,
    DemoLeague,
    DemoRefused,
    DemoWeekInvalid,
    demo_load,
)
from league.services.audit import via_command


def week_argument(text: str) -> int:
    """``--week``'s value: a whole number from 1 to :data:`LAST_WEEK` (argparse exits with 2)."""
    try:
        week = int(text)
    except ValueError:
        week = None
    if week is None or not 1 <= week <= LAST_WEEK:
        raise argparse.ArgumentTypeError(
            f"a week from 1 to {LAST_WEEK} ({LAST_WEEK}: the season played to its end), "
            f"not {text!r}"
        )
    return week


class Command(BaseCommand):
    help = (
        "Load the demo league (84 teams at week N of a season placed around now: the weeks before "
        "it published, week N waiting for its referee; 11: the season played to its end) into "
        "an empty database, and print its accounts. Refused when a season or a team already "
        "exists."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--week",
            type=week_argument,
            default=DEFAULT_WEEK,
            metavar="N",
            help=(
                f"The week the demo stands at, 1–{LAST_WEEK} (default {DEFAULT_WEEK}): weeks "
                f"before N published, week N waiting for its referee; {LAST_WEEK}: every round "
                "of the season published, the season not yet closed."
            ),
        )
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="When the database already holds a league, say so and succeed (make run).",
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        try:
            demo = demo_load(
                week=options["week"], progress=lambda step: self.stdout.write(f"  {step}…")
            )
        except DemoWeekInvalid as invalid:
            raise CommandError(str(invalid), returncode=2) from invalid
        except DemoRefused as refused:
            if options["if_empty"]:
                self.stdout.write(
                    f"{refused} Not loading it. The demo's accounts: {'/'.join(ADMIN)}, "
                    f"{'/'.join(REFEREE)}, {'/'.join(DEPUTY[:2])} (deputy of {DEPUTY[2]}), one "
                    f"coach per team (username = team slug, password: {PASSWORD})."
                )
                return
            raise CommandError(
                f"{refused} Start from a fresh database (make run uses var/db.sqlite3)."
            ) from refused
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo league loaded in {time.monotonic() - started:.1f} s: {demo.season}, "
                f"{_where(demo)}."
            )
        )
        self.stdout.write("Accounts:")
        self.stdout.write(f"  {ADMIN[0]} / {ADMIN[1]}          (league admin, /admin/)")
        self.stdout.write(f"  {REFEREE[0]} / {REFEREE[1]}      (referee of every pool)")
        self.stdout.write(f"  {DEPUTY[0]} / {DEPUTY[1]}        (deputy of {DEPUTY[2]}, R12)")
        self.stdout.write(f"  <team slug> / {PASSWORD}    (one coach per team):")
        names = sorted(demo.coaches)
        for start in range(0, len(names), 4):
            self.stdout.write("    " + "  ".join(names[start : start + 4]))


def _where(demo: DemoLeague) -> str:
    """Where the demo's season stands, in a few words."""
    if demo.week == LAST_WEEK:
        return (
            f"the season played to its end, every round published, not yet closed "
            f"({len(demo.waiting_list)} on the waiting list)"
        )
    onr = demo.onr.get(demo.week, ())
    return f"week {demo.week} waiting for its referee (ONR: {', '.join(onr) or 'none'})"
