"""The league's memory at the same cost after twenty seasons (issue 25): the pages that look
back over the seasons, on a league of one season and on a league of twenty, side by side.

Run: ``.venv/bin/python bench/bench_memory.py`` (``--seasons N``, default 20; ``--repeats N``,
default 15; ``--quick``; ``--reuse`` keeps the leagues already built; ``--help``).

The leagues, on PostgreSQL (the server of ``$DATABASE_URL``, else the local one), in databases
named from ``--database`` (default ``mh_bench_memory``), dropped and made again:

- ``<name>_played``: migrated, then one whole season played through the services that run the
  real one — the demo league (``competitions.demo.demo_load`` at its last week: 84 teams, every
  round of the championship, the KDH and the WG picked, arbitrated and published) — and closed
  (``season_close``: its archive, plan and memory); then exported whole (``league_export``,
  ``docs/LEAGUE_FORMAT.md``);
- ``<name>_1``: that file imported (``league_import``) without the memory's rows, so that the
  import builds the memory (``memory_rebuild``) — the league after one season;
- ``<name>_<N>``: the same file with its season written N times (:func:`seasons_repeated`), the
  played season last and current, each earlier one 52 weeks before the next, its teams dealt to
  other places (a shuffle of the teams, seeded by the season), imported the same way — the
  league after N seasons, whose last season is the other league's one.

Each page is asked in-process through Django's test client (the site's middleware, no HTTP),
DEBUG off, by a visitor, the cache on Redis (``$REDIS_URL``, default ``redis://127.0.0.1:6379/14``,
emptied often): ``/seasons/``, the last season's page, a team's honours (``/seasons/teams/…``),
its page (``/teams/…``; the Elite's code-01 team of the last season, in both cups), the home
page and, when their addresses exist (``django.urls.reverse``), the all-time table, a
head-to-head (the Elite's 01 and 02 of the last season) and the records page. Counted once per
league: its queries with the cache emptied first (uncached) and once it is kept (cached). Timed
``--repeats`` times, page by page, on one league then at once on the other (the order
alternating; the database switched, the cache emptied and one request made between them): the
page once with the cache emptied first (uncached: the page computed and stored), then ten times
more (cached: served from the cache); wall time (PostgreSQL's own work included) and this
process's CPU. Printed: per page and league the queries and the medians, and the ratios N
seasons ÷ 1 season; then the database's size per season (the memory's tables, the archive's,
the whole database).

Target (issue 25): a page costs the same after N seasons — its queries equal, uncached and
cached, and its median CPU times (uncached, cached) at most :data:`TOLERANCE` over the
one-season league's, measured in the same run (a cached answer, well under a millisecond, may
also be up to :data:`JITTER_MS` over it: the jitter of such a time here). The machine is a
shared one whose load swings (as for ``bench_screens.py``'s target, this process's CPU time is
what is judged: the wall clock moves with the neighbours; it is printed beside it). Every page
is judged but a team's honours page, measured and shown: its table is one row a season, so it
grows with what it shows (the team page's history, judged, is the same list). Exits 1 when a
judged page misses it.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the site of this checkout

from databases import database_create, database_url, query_count

TOLERANCE = 0.20
"""How much slower the N-season league's page may be than the one-season league's (median)."""
JITTER_MS = 0.25
"""A cached page's median CPU time this much (ms) over the other league's is within the jitter
of a sub-millisecond answer on a shared machine (the same answer measured twice differs by as
much): not judged slower whatever the ratio."""
SHOWN = {"honours": "its table is one row a season"}
"""Pages measured beside the issue's, not judged by the target, and why."""
CACHED_SAMPLES = 10
"""Cached requests a page a turn (under a millisecond each: more of them steady the median)."""
YEAR = timedelta(weeks=52)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=20, help="the long league's seasons")
    parser.add_argument("--repeats", type=int, default=None, help="turns per league (15)")
    parser.add_argument("--quick", action="store_true", help="5 turns per league")
    parser.add_argument("--database", default="mh_bench_memory", help="the databases' prefix")
    parser.add_argument("--reuse", action="store_true", help="keep the leagues already built")
    return parser.parse_args()


# --- The league of N seasons, from one season's file -------------------------------------------


def _target(field: Any) -> str | None:
    """The label of the model a foreign key points to (``None``: not a link)."""
    from django.db.models import Model

    model = field.related_model if field.is_relation else None
    return model._meta.label_lower if isinstance(model, type) and issubclass(model, Model) else None


def season_scoped(models: list[Any]) -> set[str]:
    """The labels of the models whose rows belong to a season: a season, and every model with a
    foreign key that must point to one of those (an entry, a fixture, a pick…)."""
    from league.models import Season

    scoped = {Season._meta.label_lower}
    grown = True
    while grown:
        grown = False
        for model in models:
            label = model._meta.label_lower
            if label not in scoped and any(
                not f.null and _target(f) in scoped for f in model._meta.concrete_fields
            ):
                scoped.add(label)
                grown = True
    return scoped


def _moment_back(value: str | None, kind: str, back: timedelta) -> str | None:
    if value is None:
        return None
    if kind == "datetime":
        return (datetime.fromisoformat(value) - back).isoformat(timespec="microseconds")
    return (date.fromisoformat(value) - back).isoformat()


MEMORY = (
    "competitions.meeting",
    "competitions.seasonline",
    "competitions.alltimeline",
    "competitions.leaguerecord",
    "competitions.recordbreak",
)
"""The league's memory's models: left out of the files, for the import to build the memory."""


def memory_left_out(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` without the league's memory: the import builds it (``memory_rebuild``),
    as for a file written before the memory existed."""
    return {**document, "models": [b for b in document["models"] if b["model"] not in MEMORY]}


def seasons_repeated(document: dict[str, Any], count: int) -> dict[str, Any]:
    """The whole-league ``document`` of one season with that season written ``count`` times:
    the rows of every season's model copied under new ids (each copy's ids past the last
    one's, every link to such a row moved with it), numbered 1 to ``count``, each copy 52 weeks
    before the next (its dates moved back), the last one the document's own season (its ids
    moved, nothing else); in the earlier ones each entry's team is another team, the teams
    shuffled by the season. People, teams, divisions and the league's history stay once."""
    from django.db import models as fields

    from competitions.services.league_transfer import league_models

    models = {model._meta.label_lower: model for model in league_models()}
    document = memory_left_out(document)
    scoped = season_scoped(list(models.values()))
    blocks = {block["model"]: block["rows"] for block in document["models"]}
    [season] = blocks["league.season"]
    step = {label: max((row["pk"] for row in blocks.get(label, ())), default=0) for label in scoped}
    teams = sorted(row["pk"] for row in blocks["league.team"])
    written = []
    for block in document["models"]:
        label = block["model"]
        if label not in scoped:
            written.append(block)
            continue
        meta = models[label]._meta
        links = {f.name: target for f in meta.concrete_fields if (target := _target(f)) in scoped}
        moments = {
            f.name: "datetime" if isinstance(f, fields.DateTimeField) else "date"
            for f in meta.concrete_fields
            if isinstance(f, fields.DateField)
        }
        rows = []
        for copy in range(count):
            last = copy == count - 1
            order = list(teams)
            if not last:
                random.Random(copy).shuffle(order)
            team_of = dict(zip(teams, order, strict=True))
            back = (count - 1 - copy) * YEAR
            for row in block["rows"]:
                values = dict(row["fields"])
                for name, target in links.items():
                    if values[name] is not None:
                        values[name] += copy * step[target]
                for name, kind in moments.items():
                    values[name] = _moment_back(values[name], kind, back)
                if label == "league.entry":
                    values["team"] = team_of[values["team"]]
                if label == "league.season":
                    values["number"] = copy + 1
                    values["is_current"] = last and values["is_current"]
                    values["name"] = values["name"] if last else f"{values['name']} {copy + 1}"
                rows.append({"pk": row["pk"] + copy * step[label], "fields": values})
        written.append({"model": label, "rows": rows})
    seasons = [
        {"number": number, "status": season["fields"]["status"], "current": number == count}
        for number in range(1, count + 1)
    ]
    return {**document, "seasons": seasons, "models": written}


# --- Measuring ---------------------------------------------------------------------------------


@dataclass
class Figures:
    """A page on a league: its queries (uncached, cached) and its times (ms) over the turns."""

    queries: tuple[int, int] = (0, 0)
    uncached: list[float] = field(default_factory=list)
    uncached_cpu: list[float] = field(default_factory=list)
    cached: list[float] = field(default_factory=list)
    cached_cpu: list[float] = field(default_factory=list)


def database_use(name: str) -> None:
    """The site's database is ``name`` from the next query on; nothing of the other kept."""
    from django.core.cache import caches
    from django.db import connection

    from league.public_cache import public_cache_forget

    connection.close()
    connection.settings_dict["NAME"] = name
    connection.ensure_connection()  # connecting is no page's cost
    for cache in caches.all():
        cache.clear()
    public_cache_forget()


def forget() -> None:
    from django.core.cache import caches

    from league.public_cache import public_cache_forget

    for cache in caches.all():
        cache.clear()
    public_cache_forget()


def timed(get: Callable[[], Any]) -> tuple[float, float]:
    """``get()``'s wall and CPU time, in ms."""
    started, clock = time.process_time(), time.perf_counter()
    response = get()
    wall, cpu = time.perf_counter() - clock, time.process_time() - started
    if response.status_code != 200:
        raise RuntimeError(f"{response.request['PATH_INFO']} answered {response.status_code}")
    return wall * 1000, cpu * 1000


def counted(path: str) -> tuple[int, int]:
    """``path``'s queries computed (the cache emptied first), then served once kept."""
    from django.db import connection
    from django.test import Client

    client = Client(headers={"Accept-Language": "en"})
    forget()
    numbers = []
    for _ in range(2):
        count = [0]
        with connection.execute_wrapper(partial(query_count, count)):
            response = client.get(path)
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")
        numbers.append(count[0])
    return numbers[0], numbers[1]


def league_pages() -> dict[str, str | None]:
    """The pages, by name, on the league in use (``None``: the page is not built yet)."""
    from django.urls import NoReverseMatch, reverse

    from league.models import Entry, Season

    season = Season.objects.get(is_current=True)
    first, second = (
        Entry.objects.select_related("team").get(season=season, division__slug="elite", code=code)
        for code in (1, 2)
    )

    def built(name: str, *args: object) -> str | None:
        try:
            return reverse(name, args=args)
        except NoReverseMatch:
            return None

    return {
        "seasons": reverse("seasons"),
        "last season": reverse("season", args=[season.number]),
        "honours": reverse("season_team", args=[first.team.slug]),
        "team": reverse("team", args=[first.team.slug]),
        "home": reverse("home"),
        "all-time table": built("all_time"),
        "head-to-head": built("head_to_head", first.team.slug, second.team.slug),
        "records": built("records"),
    }


def turn(pages: dict[str, str | None], figures: dict[str, Figures]) -> None:
    """Each page once uncached, then :data:`CACHED_SAMPLES` times cached, on the league in
    use."""
    from django.test import Client

    client = Client(headers={"Accept-Language": "en"})
    # The first request after a switch pays for the connection's first statements: not a page's.
    client.get(next(path for path in pages.values() if path is not None))
    for name, path in pages.items():
        if path is None:
            continue
        forget()
        gc.collect()  # every page measured from the same state, whatever the page before left
        wall, cpu = timed(partial(client.get, path))
        figures[name].uncached.append(wall)
        figures[name].uncached_cpu.append(cpu)
        for _ in range(CACHED_SAMPLES):
            wall, cpu = timed(partial(client.get, path))
            figures[name].cached.append(wall)
            figures[name].cached_cpu.append(cpu)


def sizes(seasons: int) -> dict[str, float]:
    """The memory's tables, the archive's and the whole database, in kB a season."""
    from django.db import connection

    from competitions.models import (
        AllTimeLine,
        CupHonour,
        FinalRow,
        LeagueRecord,
        Meeting,
        RecordBreak,
        SeasonArchive,
        SeasonLine,
    )

    groups = {
        "memory": (Meeting, SeasonLine, AllTimeLine, LeagueRecord, RecordBreak),
        "archive": (SeasonArchive, FinalRow, CupHonour),
    }
    found = {}
    with connection.cursor() as cursor:
        for name, models in groups.items():
            total = 0
            for model in models:
                cursor.execute("SELECT pg_total_relation_size(%s)", [model._meta.db_table])
                total += cursor.fetchone()[0]
            found[name] = total / 1024 / seasons
        cursor.execute("SELECT pg_database_size(current_database())")
        found["database"] = cursor.fetchone()[0] / 1024 / seasons
    return found


# --- The run -----------------------------------------------------------------------------------


def leagues_build(names: dict[int, str], played: str, count: int) -> None:
    """The played season's league, exported, and imported as the one-season league and as the
    ``count``-season one (see the module's docstring)."""
    from django.core.management import call_command
    from django.db import connection

    from competitions.demo.load import LAST_WEEK, demo_load
    from competitions.services.league_transfer import league_export
    from competitions.services.league_transfer_import import league_import
    from competitions.services.season_close import season_close

    built = time.perf_counter()
    database_create(database_url(played))
    database_use(played)
    call_command("migrate", verbosity=0)
    connection.close()
    for name in names.values():
        database_create(database_url(name), template=played)
    database_use(played)
    demo = demo_load(week=LAST_WEEK)
    season_close(season=demo.season, by=demo.admin)
    document = league_export()
    print(
        f"One season played through the services and closed in {time.perf_counter() - built:.0f} s"
    )
    for seasons, name in names.items():
        started = time.perf_counter()
        database_use(name)
        league = memory_left_out(document) if seasons == 1 else seasons_repeated(document, count)
        rows = league_import(data=league)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(
            f"The {seasons}-season league imported ({rows} rows) and its memory rebuilt in "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )


def main() -> int:
    options = arguments()
    repeats = options.repeats or (5 if options.quick else 15)
    count = options.seasons
    names = {1: f"{options.database}_1", count: f"{options.database}_{count}"}
    played = f"{options.database}_played"
    os.environ["DATABASE_URL"] = database_url(played)
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/14")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")
    os.environ.setdefault("DJANGO_DEBUG", "0")  # as in production: no query log kept
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-memory-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    os.environ.setdefault("DJANGO_SECURE_COOKIES", "0")

    import django

    django.setup()

    from django.core.management import call_command
    from django.db import OperationalError

    from league.models import Season

    def ready() -> bool:
        try:
            for name in names.values():
                database_use(name)
                if not Season.objects.exists():
                    return False
        except OperationalError:  # a database not there yet: build it
            return False
        return True

    if not (options.reuse and ready()):
        leagues_build(names, played, count)
    call_command("collectstatic", "--noinput", verbosity=0)

    pages: dict[int, dict[str, str | None]] = {}
    figures: dict[int, dict[str, Figures]] = {}
    for seasons, name in names.items():
        database_use(name)
        assert Season.objects.count() == seasons, f"{name} does not hold {seasons} seasons"
        pages[seasons] = league_pages()
        figures[seasons] = {page: Figures() for page in pages[seasons]}
        for page, path in pages[seasons].items():
            if path is not None:
                figures[seasons][page].queries = counted(path)
                turn({page: path}, {page: Figures()})  # warm this process for the page
    # Page by page, the two leagues side by side in time (the order alternating), so that what
    # the machine's neighbours do weighs on both alike.
    for repeat in range(repeats):
        for index, page in enumerate(pages[1]):
            order = list(names.items())
            if (repeat + index) % 2:
                order.reverse()
            for seasons, name in order:
                path = pages[seasons][page]
                if path is not None:
                    database_use(name)
                    turn({page: path}, figures[seasons])

    return report(figures, pages, names, count, repeats)


def report(
    figures: dict[int, dict[str, Figures]],
    pages: dict[int, dict[str, str | None]],
    names: dict[int, str],
    count: int,
    repeats: int,
) -> int:
    median = statistics.median
    print(
        f"\n{'page':<16} {'league':<11} {'queries':>7} {'cached q':>8} {'uncached ms':>11} "
        f"{'CPU ms':>7} {'cached ms':>9} {'CPU ms':>7}"
    )
    missed = []
    for page in pages[1]:
        if pages[1][page] is None or pages[count][page] is None:
            print(f"{page:<16} not built (no URL named for it in this checkout)")
            continue
        for seasons in (1, count):
            f = figures[seasons][page]
            print(
                f"{page:<16} {f'{seasons} season' + ('s' if seasons > 1 else ''):<11} "
                f"{f.queries[0]:>7} {f.queries[1]:>8} {median(f.uncached):>11.2f} "
                f"{median(f.uncached_cpu):>7.2f} {median(f.cached):>9.2f} "
                f"{median(f.cached_cpu):>7.2f}"
            )
        one, many = figures[1][page], figures[count][page]
        ratios = [
            median(getattr(many, name)) / median(getattr(one, name))
            for name in ("uncached", "uncached_cpu", "cached", "cached_cpu")
        ]
        same = one.queries == many.queries
        # A cached answer takes well under a millisecond: a difference under the jitter of
        # such a time on this machine is no cost.
        cached_more = median(many.cached_cpu) - median(one.cached_cpu)
        ok = (
            same
            and ratios[1] <= 1 + TOLERANCE
            and (ratios[3] <= 1 + TOLERANCE or cached_more < JITTER_MS)
        )
        verdict = "ok" if ok else "MISSED"
        if page in SHOWN:
            verdict = f"{verdict} (shown, not judged: {SHOWN[page]})"
        elif not ok:
            missed.append(page)
        print(
            f"{page:<16} {f'{count} ÷ 1':<11} {'=' if same else '≠':>7} {'':>8} "
            f"{ratios[0]:>10.2f}× {ratios[1]:>6.2f}× {ratios[2]:>8.2f}× {ratios[3]:>6.2f}×  "
            f"{verdict}"
        )
    print(f"\nDatabase size per season (kB): {'memory tables':>13} {'archive':>8} {'database':>9}")
    per_season = {}
    for seasons, name in names.items():
        database_use(name)
        per_season[seasons] = sizes(seasons)
        found = per_season[seasons]
        print(
            f"  {name:<29} {found['memory']:>13.0f} {found['archive']:>8.0f} "
            f"{found['database']:>9.0f}"
        )
    added = {
        key: (per_season[count][key] * count - per_season[1][key]) / (count - 1)
        for key in per_season[1]
    }
    print(
        f"  {'each season past the first':<29} {added['memory']:>13.0f} {added['archive']:>8.0f} "
        f"{added['database']:>9.0f}"
    )
    print(
        f"\n{repeats} turns, page by page on both leagues (alternating), each page once uncached "
        f"and {CACHED_SAMPLES} times cached a turn; medians (wall, and this process's CPU: "
        f"judged); DEBUG off, the cache on Redis; load {os.getloadavg()}"
    )
    if missed:
        print(
            f"FAIL: {len(missed)} page(s) cost more after {count} seasons (queries, or over "
            f"{TOLERANCE:.0%} more CPU): {', '.join(missed)}"
        )
        return 1
    print(f"PASS: every page costs the same queries after {count} seasons, within {TOLERANCE:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
