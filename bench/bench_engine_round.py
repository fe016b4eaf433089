"""How fast the engine arbitrates a round, against how fast it reads the round's picks.

Run: ``.venv/bin/python bench/bench_engine_round.py`` (add ``--quick`` for a short run).

(a) A 12-team championship round. Timed, each the best of several repeats in one run:

    parse     ``Pick.parse`` of the round's 12 notations;
    play      ``play_round(round)`` on a built ``Round`` (picks already parsed and checked);
    build     ``Round(...)`` from 12 ready ``TeamEntry`` values: every input check;
    all       the 12 parses, the entries, the ``Round`` and ``play_round``: notation in, result out.

    Target: arbitrating costs at most 3× parsing. "play / parse" is the arbitration alone;
    "build + play / parse" adds the input checks; "all / parse" is the whole path, whose target
    is therefore 4× (1× parsing + 3× arbitrating). Two rounds: the rules' week-1 example (one
    ONR, bonus goal drawn) and a week-6 round (columns and values used, an ONR, a stale advance
    pick redrawn, ties rolled).

(b) N divisions, N = 10, 100, 1,000, 10,000: each a 12-team round with its own seed and picks.
    Each division's input is made just before it is played (untimed, as a service would load it);
    Round() + play_round is timed and summed. The time per division should not grow with N.
"""

from __future__ import annotations

import random
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the engine of this checkout

from engine import DRAWN, Pick, Round, TeamEntry, play_round, rules_for

TARGET = 3.0
WEEK_1 = dict(zip("ABCDEFGHIJK", (3, 3, 1, 4, 3, 5, 1, 1, 4, 3, 2), strict=True))
WEEK_6 = dict(zip("ABCDEFGHIJK", (1, 5, 3, 5, 2, 2, 2, 2, 2, 1, 4), strict=True))

# Rules 3.1.4: the week-1 example.
EXAMPLE = {
    "sleigh-dogs": "F+(2)",
    "snowmen": "I(3)",
    "cyberians": None,
    "ice-crocodiles": "F(0)",
    "teddy-bears": "D(1)",
    "grizzlies": "F(2)",
    "freezing-ass": "D++(1)",
    "groggs": "B(X)",
    "igloos": "F#(3)",
    "icebergs": "I(3)",
    "puck-pukers": "J(1)",
    "ice-breakers": "K(3)",
}
EXAMPLE_FIXTURES = [
    ("sleigh-dogs", "ice-crocodiles"),
    ("cyberians", "grizzlies"),
    ("snowmen", "teddy-bears"),
    ("freezing-ass", "groggs"),
    ("igloos", "icebergs"),
    ("puck-pukers", "ice-breakers"),
]


def best_of_interleaved(
    functions: dict[str, Callable[[], object]], number: int, repeat: int
) -> dict[str, float]:
    """Best time of one call of each function, in seconds. The functions take turns, repeat
    after repeat, so a busy moment of the machine hits them alike."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            times[name].append(timeit.timeit(function, number=number) / number)
    return {name: min(values) for name, values in times.items()}


def random_division(seed: int, week: int = 6) -> tuple[dict[str, str | None], dict, list]:
    """Twelve teams in the middle of a season: used columns and values, legal picks, one ONR
    and one stale advance pick."""
    rng = random.Random(seed)
    rules = rules_for("championship")
    teams = [f"team-{seed}-{i:02d}" for i in range(12)]
    notations: dict[str, str | None] = {}
    used: dict[str, dict[str, tuple[str, ...]]] = {}
    pool = [v for v, n in rules.extra_time_quota.items() for _ in range(n)]
    for index, team in enumerate(teams):
        columns = rng.sample(rules.columns, len(rules.columns))
        values = rng.sample(pool, len(pool))
        used_columns, left = columns[: week - 1], columns[week - 1 :]
        used_values, values_left = values[: week - 1], values[week - 1 :]
        used[team] = {"used_columns": tuple(used_columns), "used_extra_time": tuple(used_values)}
        column = used_columns[0] if index == 1 else left[0]  # team 1 sent a stale advance pick
        marks = "+" * rng.choice((0, 0, 0, 1, 2)) + "#" * rng.choice((0, 0, 0, 0, 1))
        notations[team] = None if index == 0 else f"{column}{marks}({values_left[0]})"
    order = rng.sample(teams, 12)
    fixtures = [(order[i], order[i + 1]) for i in range(0, 12, 2)]
    return notations, used, fixtures


def entries(
    notations: dict[str, str | None], used: dict[str, dict[str, tuple[str, ...]]] | None = None
) -> dict[str, TeamEntry]:
    """The round's entries, built the way a service would build them from its rows."""
    used = used or {}
    none: dict[str, tuple[str, ...]] = {"used_columns": (), "used_extra_time": ()}
    built = {}
    for team, text in notations.items():
        done = used.get(team, none)
        built[team] = TeamEntry(
            pick=None if text is None else Pick.parse(text),
            used_columns=done["used_columns"],
            used_extra_time=done["used_extra_time"],
            extra_goals=3,
            great_saves=2,
        )
    return built


def ratio_case(
    name: str,
    notations: dict[str, str | None],
    used: dict[str, dict[str, tuple[str, ...]]] | None,
    row: dict[str, int],
    fixtures: list[tuple[str, str]],
    number: int,
    repeat: int,
) -> bool:
    texts = [text for text in notations.values() if text is not None]
    # The ONR team has no notation to parse: time parsing 12 picks all the same, so the
    # comparison is with "its 12 picks" (the ONR slot parses the first pick again).
    texts = (texts + texts)[:12]
    ready = entries(notations, used)
    round_ = Round("championship", "bench/week", row, ready, fixtures, DRAWN)

    def parse() -> object:
        return [Pick.parse(text) for text in texts]

    def play() -> object:
        return play_round(round_)

    def build_and_play() -> object:
        return play_round(Round("championship", "bench/week", row, ready, fixtures, DRAWN))

    def everything() -> object:
        built = entries(notations, used)
        return play_round(Round("championship", "bench/week", row, built, fixtures, DRAWN))

    timed = best_of_interleaved(
        {"parse": parse, "play": play, "build_play": build_and_play, "all": everything},
        number,
        repeat,
    )
    t_parse, t_play, t_build_play, t_all = (
        timed["parse"],
        timed["play"],
        timed["build_play"],
        timed["all"],
    )
    result = play_round(round_)
    kinds = ", ".join(sorted({draw.what.split(":")[0] for draw in result.draws}))
    print(f"\n(a) {name}: {len(result.teams)} teams, {len(result.matches)} games, "
          f"{len(result.draws)} draws ({kinds})")  # fmt: skip
    print(f"    parse 12 picks       {t_parse * 1e6:8.1f} µs")
    print(f"    play_round           {t_play * 1e6:8.1f} µs")
    print(f"    Round() + play_round {t_build_play * 1e6:8.1f} µs")
    print(f"    all, from notation   {t_all * 1e6:8.1f} µs")
    checks = [
        ("play / parse", t_play / t_parse, TARGET),
        ("build + play / parse", t_build_play / t_parse, TARGET),
        ("all / parse", t_all / t_parse, TARGET + 1),
    ]
    ok = True
    for label, ratio, target in checks:
        verdict = "PASS" if ratio <= target else "FAIL"
        ok &= verdict == "PASS"
        print(f"    {label:<22} {ratio:5.2f}×  (target ≤ {target:.0f}×)  {verdict}")
    return ok


def divisions_case(sizes: list[int], repeat: int) -> bool:
    print("\n(b) N divisions, each a 12-team round with its own seed and picks")
    print("    timed per division: Round() + play_round; its input is built just before, untimed")
    per_division: dict[int, float] = {}
    for _ in range(repeat):
        for n in sizes:
            elapsed = 0.0
            games = 0
            for i in range(n):
                notations, used, fixtures = random_division(i)
                teams = entries(notations, used)
                start = time.perf_counter()
                result = play_round(
                    Round("championship", f"2026/d{i}/r6", WEEK_6, teams, fixtures, DRAWN)
                )
                elapsed += time.perf_counter() - start
                games += len(result.matches)
            assert games == 6 * n
            per_division[n] = min(per_division.get(n, elapsed / n), elapsed / n)
    for n in sizes:
        total = per_division[n] * n * 1e3
        print(
            f"    N = {n:>6,}: {total:9.2f} ms in all, {per_division[n] * 1e6:7.1f} µs per division"
        )
    spread = max(per_division.values()) / min(per_division.values())
    verdict = "PASS" if spread <= 1.5 else "FAIL"
    print(
        f"    linear: slowest / fastest time per division = {spread:.2f}  (target ≤ 1.5)  {verdict}"
    )
    return verdict == "PASS"


def main() -> int:
    quick = "--quick" in sys.argv
    number, repeat = (500, 3) if quick else (3000, 7)
    print(f"Python {sys.version.split()[0]}; best of {repeat} repeats of {number} calls")
    ok = ratio_case("week 1, rules example 3.1.4", EXAMPLE, None, WEEK_1, EXAMPLE_FIXTURES,
                    number, repeat)  # fmt: skip
    notations, used, fixtures = random_division(2026)
    ok &= ratio_case("week 6, mid-season", notations, used, WEEK_6, fixtures, number, repeat)
    sizes = [10, 100, 1_000] if quick else [10, 100, 1_000, 10_000]
    ok &= divisions_case(sizes, 1 if quick else 2)
    print("\nPASS" if ok else "\nFAIL")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
