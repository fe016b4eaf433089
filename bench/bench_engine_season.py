"""Time a whole 84-team season on one core: championship, KDH, WG, standings and season end.

    .venv/bin/python bench/bench_engine_season.py [RUNS]

Each run plays :func:`engine.season.play_season` on the standard league with random legal picks
(a new seed per run, so no run reuses another's work) and then works out next season's setup
(stocks, promotion, placement, WG qualifiers). Prints every run, the best, and PASS or FAIL
against the target of under one second for the best run. Exits 1 on FAIL.
"""

from __future__ import annotations

import sys
import time

from engine.season import play_season, standard_setup

TARGET_SECONDS = 1.0
"""A whole season must be played in under a second on one core."""


def one_season(seed: str) -> float:
    """Seconds to play one season and prepare the next."""
    start = time.perf_counter()
    season = play_season(standard_setup(seed))
    season.next_setup(f"{seed}/next")
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    runs = int(argv[1]) if len(argv) > 1 else 7
    times = [one_season(f"bench/{run}") for run in range(runs)]
    for run, seconds in enumerate(times, start=1):
        print(f"run {run}: {seconds * 1000:8.1f} ms")
    best = min(times)
    verdict = "PASS" if best < TARGET_SECONDS else "FAIL"
    print(
        f"84-team season (championship, KDH, WG, standings, season end): best of {runs} "
        f"{best * 1000:.1f} ms, target < {TARGET_SECONDS * 1000:.0f} ms: {verdict}"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
