"""``manage.py memory_rebuild``: rebuild the league's memory (issue 25: meetings, season lines,
all-time lines, records and their breaks) from the archives and the published results — for a
league whose seasons closed before the memory existed, or to check it. Idempotent: the same
data gives the same rows. Exit 0."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from competitions.services.memory import memory_rebuild
from league.public_cache import public_version_bump


class Command(BaseCommand):
    help = (
        "Rebuild the league's memory (all-time tables, head-to-heads, records) from the "
        "archives and the published results. Idempotent."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        stored = memory_rebuild()
        public_version_bump()  # the memory pages read what was just stored
        for name, count in stored.items():
            self.stdout.write(f"{name}: {count}")
