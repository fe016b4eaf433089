"""``manage.py load_demo``: the demo league at week 3 (``league.demo``), into an empty database."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from competitions.demo import PASSWORD, DemoRefused, demo_load


class Command(BaseCommand):
    help = (
        "Load the demo league (84 teams at week 3 of a season placed around now) into an empty "
        "database, and print its accounts. Refused when a season or a team already exists."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="When the database already holds a league, say so and succeed (make run).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        try:
            demo = demo_load(progress=lambda step: self.stdout.write(f"  {step}…"))
        except DemoRefused as refused:
            if options["if_empty"]:
                self.stdout.write(
                    f"{refused} Not loading it. The demo's accounts: admin/admin, "
                    f"referee/referee, one coach per team (username = team slug, password: "
                    f"{PASSWORD})."
                )
                return
            raise CommandError(
                f"{refused} Start from a fresh database (make run uses var/db.sqlite3)."
            ) from refused
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo league loaded in {time.monotonic() - started:.1f} s: {demo.season}, week 3 "
                f"waiting for its referee (ONR: {', '.join(demo.onr_week_3)})."
            )
        )
        self.stdout.write("Accounts:")
        self.stdout.write("  admin / admin          (league admin, /admin/)")
        self.stdout.write("  referee / referee      (referee of every pool)")
        self.stdout.write(f"  <team slug> / {PASSWORD}    (one coach per team):")
        names = sorted(demo.coaches)
        for start in range(0, len(names), 4):
            self.stdout.write("    " + "  ".join(names[start : start + 4]))
