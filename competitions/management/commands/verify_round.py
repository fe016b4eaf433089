"""``manage.py verify_round <competition> <pool> <round>``: play a pool round again from stored
data and say whether it gives what is stored (R23).

Exit 0 when everything matches, 1 when something differs (each difference is printed), 2 for an
unknown competition, pool or round, a round not yet arbitrated, or — without ``--unpublished`` —
a round not yet published.

Before publication the seed is secret and the picks are too, so the check is refused unless
``--unpublished`` is given: whoever runs a management command is staff (they can read the
database anyway), and the option makes checking a round before publishing a deliberate act.
``--input`` prints the engine's ``round`` input instead, to run ``python -m engine round`` on.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.template.defaultfilters import pluralize

from competitions.models import Competition
from competitions.selectors import PLAYED, pool_round_find
from competitions.services import pool_round_input_document, pool_round_verify
from league.models import Season
from league.services.audit import via_command

EXIT_MISMATCH = 1
EXIT_UNUSABLE = 2


class Command(BaseCommand):
    help = (
        "Replay a pool round from stored data and compare every team result, game, bonus goal "
        "and draw with what is stored (R23). Exit 0: it matches; 1: it does not; 2: unknown or "
        "not arbitrated (or not published, without --unpublished)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("competition", help="championship, kdh or wg")
        parser.add_argument("pool", help="a division's slug (elite, d2a … d3d), or kdh / wg")
        parser.add_argument("round", type=int, help="the round's number (1…)")
        parser.add_argument(
            "--season", type=int, help="the season's number (default: the current season)"
        )
        parser.add_argument(
            "--unpublished",
            action="store_true",
            help="check a round that is arbitrated but not published (staff only: its seed "
            "and picks are secret until publication)",
        )
        parser.add_argument(
            "--input",
            action="store_true",
            help="print the engine's round input (JSON) instead of checking",
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        competition, pool, number = options["competition"], options["pool"], options["round"]
        where = f"{competition} {pool} round {number}"
        if competition not in Competition.values:
            raise CommandError(
                f"unknown competition {competition!r} (expected {', '.join(Competition.values)})",
                returncode=EXIT_UNUSABLE,
            )
        season = (
            Season.objects.filter(number=options["season"]).first()
            if options["season"] is not None
            else Season.objects.filter(is_current=True).first()
        )
        if season is None:
            raise CommandError("no such season", returncode=EXIT_UNUSABLE)
        pool_round = pool_round_find(
            season_id=season.pk, competition=competition, pool_slug=pool, number=number
        )
        if pool_round is None:
            raise CommandError(f"{where}: no such pool round", returncode=EXIT_UNUSABLE)
        if pool_round.status not in PLAYED:
            raise CommandError(
                f"{where}: not arbitrated yet ({pool_round.status})", returncode=EXIT_UNUSABLE
            )
        if not pool_round.is_published and not options["unpublished"]:
            raise CommandError(
                f"{where}: not published yet, so its seed and picks are still secret; staff may "
                "check it with --unpublished",
                returncode=EXIT_UNUSABLE,
            )
        if options["input"]:
            document = pool_round_input_document(pool_round=pool_round)
            self.stdout.write(json.dumps(document, ensure_ascii=False, indent=2))
            return
        verification = pool_round_verify(pool_round=pool_round)
        if verification.matches:
            games = pool_round.fixtures.count()
            self.stdout.write(
                f"{where} (season {season.number}): OK — a replay from stored data gives the "
                f"stored results ({games} games, their teams' picks, bonus goal and draws)."
            )
            return
        differences = len(verification.differences)
        self.stdout.write(
            f"{where} (season {season.number}): MISMATCH — "
            f"{differences} difference{pluralize(differences)} between the stored results and a "
            "replay from stored data:"
        )
        for difference in verification.differences:
            self.stdout.write(f"  - {difference}")
        raise SystemExit(EXIT_MISMATCH)
