"""Every public page and public API read against a bare Django view, on the real stack.

Run: ``.venv/bin/python bench/bench_http.py`` (``--quick`` for a short run; ``--help``).

Needs PostgreSQL and Redis on 127.0.0.1 (``DATABASE_URL``'s server, default
``postgresql://postgres@127.0.0.1:5432``; ``REDIS_URL``, default ``redis://127.0.0.1:6379/14``)
and wrk, the HTTP load tool (Debian/Ubuntu: ``sudo apt-get install wrk``; macOS: ``brew install
wrk``). What it does, bounded in time and touching only 127.0.0.1:

1. Its own database (``mh_bench_http``, made again unless ``--reuse-db``): migrated, the demo
   league loaded at ``--week`` (published results, cups drawn), static files collected.
2. For each configuration — with Redis (the cache and the throttles' store shared by the
   workers), then without (``REDIS_URL`` unset: each worker's own memory) — it starts gunicorn
   (2 sync workers, DEBUG off) with :mod:`bench.http_settings`: the site, plus ``/bench/bare/``,
   a one-line view (``HttpResponse("ok")``) behind the same middleware, the ceiling.
3. For each page: a warm-up, then ``--rounds`` pairs of wrk runs (``--connections`` connections,
   ``--seconds`` each), the bare view and the page taking turns (the order swapped every round),
   so a busy moment of the machine hits both alike. A page's share is the median of its
   throughput over the bare view's measured beside it; p50 and p99 are wrk's latencies.

Prints one line per page and configuration, then PASS or FAIL: every page must reach
``TARGET`` (50 %) of the bare view's throughput, with no answer other than 2xx or 3xx. Exits 1 on
FAIL, 2 when something it needs is missing. Every process it started is stopped on the way out;
the database is kept (``--reuse-db`` skips its making next time).

The anonymous API throttle is raised for the run (``API_THROTTLE_ANON``): it still counts every
request in the cache, it just never refuses one of the load.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import psycopg2

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TARGET = 0.50
BARE = "/bench/bare/"
DATABASE = "mh_bench_http"
WORKERS = 2
WRK = shutil.which("wrk")
PAGES = [
    "/",
    "/results/week/{season}/{week}/",
    "/results/championship/elite/1/",
    "/standings/elite/",
    "/standings/kdh/",
    "/standings/wg/",
    "/infos/championship/elite/",
    "/infos/kdh/kdh/",
    "/teams/snowmen/",
    "/seasons/",
    "/api/standings/elite/",
    "/api/results/championship/elite/1/",
    "/api/infos/championship/elite/",
    "/api/infos/kdh/kdh/",
    "/api/seasons/",
    "/api/seasons/current/",
]


@dataclass(frozen=True)
class Run:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    bad: int
    """Answers other than 2xx or 3xx, and socket errors."""


@dataclass(frozen=True)
class Figure:
    config: str
    page: str
    share: float
    bare_rps: float
    page_rps: float
    p50_ms: float
    p99_ms: float
    bad: int

    @property
    def ok(self) -> bool:
        return self.share >= TARGET and self.bad == 0


# --- Processes ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, timeout=900
    )  # fmt: skip


def database_make(server_url: str, database: str, env: dict[str, str], week: int) -> None:
    parts = urlsplit(server_url)
    connection = psycopg2.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username or "postgres",
        password=parts.password,
        dbname="postgres",
        connect_timeout=5,
    )
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        cursor.execute(f'CREATE DATABASE "{database}"')
    connection.close()
    manage(env, "migrate", "--noinput", "-v", "0")
    print(f"loading the demo league at week {week} into {database}…", flush=True)
    manage(env, "load_demo", "--week", str(week))


@contextmanager
def gunicorn(env: dict[str, str], port: int) -> Iterator[str]:
    """gunicorn serving :mod:`bench.http_settings` on 127.0.0.1:``port``, stopped on the way
    out (its whole process group)."""
    process = subprocess.Popen(
        [
            PYTHON, "-m", "gunicorn", "matrixhockey.wsgi:application",
            "--bind", f"127.0.0.1:{port}", "--workers", str(WORKERS), "--worker-class", "sync",
            "--access-logfile", "-" if os.environ.get("BENCH_ACCESS_LOG") else "/dev/null",
            "--error-logfile", "-", "--log-level", "warning",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn stopped at start (exit {process.returncode})")
            try:
                with urllib.request.urlopen(base + BARE, timeout=2) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not answer within 30 s")
            time.sleep(0.2)
        yield base
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


# --- wrk ---------------------------------------------------------------------------------------

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _latency(output: str, percentile: str) -> float:
    found = re.search(rf"^\s*{percentile}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.MULTILINE)
    return float(found.group(1)) * UNITS[found.group(2)] if found else float("nan")


def wrk(url: str, *, seconds: float, connections: int) -> Run:
    command = [
        WRK, "--threads", "2", "--connections", str(connections), "--duration",
        f"{max(1, round(seconds))}s", "--timeout", "10s", "--latency", url,
    ]  # fmt: skip
    output = subprocess.run(
        command, capture_output=True, text=True, check=True, timeout=seconds + 60
    ).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    return Run(
        requests_per_second=float(rps.group(1)) if rps else 0.0,
        p50_ms=_latency(output, "50"),
        p99_ms=_latency(output, "99"),
        bad=(int(non_2xx.group(1)) if non_2xx else 0)
        + (sum(int(n) for n in errors.groups()) if errors else 0),
    )


def status_of(url: str) -> tuple[int, str]:
    """The status and, for a redirect, where it goes (redirects are not followed)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=30) as answer:
            return answer.status, ""
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location", "")


def measure(config: str, base: str, page: str, args: argparse.Namespace) -> Figure:
    url = base + page
    for warm in (url, base + BARE):
        wrk(warm, seconds=1, connections=args.connections)
    shares, bare_rps, page_rps, p50s, p99s, bad = [], [], [], [], [], 0
    for round_number in range(args.rounds):
        order = [BARE, page] if round_number % 2 == 0 else [page, BARE]
        runs = {
            which: wrk(base + which, seconds=args.seconds, connections=args.connections)
            for which in order
        }
        bare, measured = runs[BARE], runs[page]
        shares.append(measured.requests_per_second / max(bare.requests_per_second, 1e-9))
        bare_rps.append(bare.requests_per_second)
        page_rps.append(measured.requests_per_second)
        p50s.append(measured.p50_ms)
        p99s.append(measured.p99_ms)
        bad += measured.bad
    return Figure(
        config=config,
        page=page,
        share=statistics.median(shares),
        bare_rps=statistics.median(bare_rps),
        page_rps=statistics.median(page_rps),
        p50_ms=statistics.median(p50s),
        p99_ms=statistics.median(p99s),
        bad=bad,
    )


# --- The run -----------------------------------------------------------------------------------


def server_env(database_url: str, redis_url: str | None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "REDIS_URL", "DATABASE_URL", "API_THROTTLE"))
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.http_settings",
            "PYTHONPATH": str(ROOT),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "bench-http-not-a-secret-" + "x" * 40,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SECURE_SSL_REDIRECT": "0",
            "DJANGO_HSTS_SECONDS": "0",
            "DATABASE_URL": database_url,
            "API_THROTTLE_ANON": "100000000/minute",
            "API_THROTTLE_USER": "100000000/minute",
            "LOG_LEVEL": "warning",
        }
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def pages_of(base: str) -> list[str]:
    """The public pages, the week's results at the latest published week (``/results/``
    redirects there)."""
    status, location = status_of(base + "/results/")
    found = re.search(r"/results/week/(\d+)/(\d+)/", location) if status == 302 else None
    if found is None:
        raise RuntimeError(f"/results/ answered {status} {location!r}: no published week")
    season, week = found.groups()
    return [page.format(season=season, week=week) for page in PAGES]


def report(figures: Sequence[Figure]) -> None:
    print()
    print(f"{'configuration':<9} {'page':<38} {'share':>7} {'req/s':>8} {'bare':>8} "
          f"{'p50 ms':>8} {'p99 ms':>8} {'bad':>4}")  # fmt: skip
    for f in figures:
        print(
            f"{f.config:<9} {f.page:<38} {f.share:>7.1%} {f.page_rps:>8.0f} {f.bare_rps:>8.0f} "
            f"{f.p50_ms:>8.2f} {f.p99_ms:>8.2f} {f.bad:>4}{'' if f.ok else '  MISS'}"
        )


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 round of 2 s per page")
    parser.add_argument("--seconds", type=float, default=4.0, help="each wrk run (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of runs a page (default 3)")
    parser.add_argument("--connections", type=int, default=16, help="wrk's (default 16)")
    parser.add_argument("--week", type=int, default=6, help="the demo league's week (default 6)")
    parser.add_argument("--database", default=DATABASE, help=f"its name (default {DATABASE})")
    parser.add_argument("--reuse-db", action="store_true", help="keep the database as it is")
    parser.add_argument("--port", type=int, default=0, help="gunicorn's (default: a free one)")
    parser.add_argument(
        "--only", choices=["redis", "no-redis"], help="one configuration (default: both)"
    )
    parser.add_argument("--page", action="append", help="only these pages (repeatable)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.rounds = 2.0, 1
    if WRK is None:
        print("wrk is needed: sudo apt-get install wrk (Debian/Ubuntu), brew install wrk (macOS)")
        return 2

    server = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    if not server.startswith(("postgres://", "postgresql://")):
        print("DATABASE_URL must name a PostgreSQL server (the bench makes its own database)")
        return 2
    parts = urlsplit(server)
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", args.database):
        print("--database: a lower-case name")
        return 2
    database_url = parts._replace(path=f"/{args.database}").geturl()
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14")
    if not redis_url.startswith("redis://") or urlsplit(redis_url).hostname not in (
        "127.0.0.1",
        "localhost",
    ):
        print("REDIS_URL must be a Redis on 127.0.0.1")
        return 2

    started = time.monotonic()
    setup_env = server_env(database_url, None) | {"DJANGO_SETTINGS_MODULE": "matrixhockey.settings"}
    if not args.reuse_db:
        database_make(server, args.database, setup_env, args.week)
    manage(setup_env, "collectstatic", "--noinput", "-v", "0")

    configs = [("redis", redis_url), ("no-redis", None)]
    if args.only:
        configs = [c for c in configs if c[0] == args.only]
    figures: list[Figure] = []
    for config, redis in configs:
        env = server_env(database_url, redis)
        with gunicorn(env, args.port or free_port()) as base:
            pages = args.page or pages_of(base)
            for page in pages:
                status, _location = status_of(base + page)
                if status >= 400:
                    raise RuntimeError(f"{page} answered {status}")
                figure = measure(config, base, page, args)
                figures.append(figure)
                print(
                    f"{config:<9} {page:<38} {figure.share:7.1%}  p50 {figure.p50_ms:.2f} ms"
                    f"  p99 {figure.p99_ms:.2f} ms",
                    flush=True,
                )
    report(figures)
    missed = [f for f in figures if not f.ok]
    print(
        f"\n{len(figures)} pages, {WORKERS} sync workers, wrk {args.connections} connections, "
        f"{args.rounds} × {args.seconds:g} s a side, target ≥ {TARGET:.0%} of the bare view, "
        f"{time.monotonic() - started:.0f} s: {'FAIL' if missed else 'PASS'}"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
