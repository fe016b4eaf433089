"""Setting a scene on played rounds: a test that changes an arbitrated or published round's
games, results, draws, qualified teams or ONR sanctions directly (to shape a standings table, or
to play a tampered row that ``verify_round`` must catch) does it inside :func:`unguarded`, the
leave the void-and-redo path takes; the database refuses such writes otherwise (migrations
``competitions/0012_published_results_final`` and ``0014_published_results_final_cups_onr``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction

from matrixhockey.db import published_results_final, published_results_void


@contextmanager
def unguarded() -> Iterator[None]:
    """Let the block change played rounds' records, in its own atomic block."""
    with transaction.atomic():
        published_results_void()
        yield
        published_results_final()
