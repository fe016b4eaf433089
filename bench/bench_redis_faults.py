"""How long a pick, ``/healthz`` and ``/`` take with Redis up, stopped, and hung (SIGSTOP).

Run: ``.venv/bin/python bench/bench_redis_faults.py`` (``--help``).

Needs PostgreSQL on 127.0.0.1 (``DATABASE_URL``'s server, default
``postgresql://postgres@127.0.0.1:5432``) and ``redis-server``. What it does, bounded in time
and touching only 127.0.0.1:

1. Its own database (``mh_bench_redis_faults``, made again): migrated, the demo league loaded
   at week 1 (week 2's picks open), an API token for each coach who sent a pick in advance.
2. A private ``redis-server`` on a free port, and gunicorn (one worker, four threads) using it
   as its cache, throttles' store and task broker.
3. For each state of that Redis — up, stopped (SIGTERM; started again after), hung (SIGSTOP;
   SIGCONT after) — ``--picks`` coaches' picks through the API (``PUT /api/picks/…``), then
   ``/healthz`` and ``/`` ``--reads`` times each, one request at a time, the first one right
   after the state changed (the slowest: it meets Redis's timeouts before the breaker opens). A
   request unanswered after ``CLIENT_TIMEOUT`` (10 s) ends that kind's measures for the state.

Prints each request kind's slowest and median time per state, then PASS or FAIL: with Redis
stopped or hung, every pick and every ``/healthz`` must answer (200) in under ``LIMIT`` (1 s)
and ``/healthz`` say « degraded ». Exits 1 on FAIL, 2 when something it needs is missing.
Every process it started is stopped on the way out.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.databases import database_create, database_url

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DATABASE = "mh_bench_redis_faults"
LIMIT = 1.0
"""Seconds: a pick or ``/healthz`` with Redis stopped or hung answers faster than this."""
CLIENT_TIMEOUT = 10.0
"""Seconds a request may take before it counts as unanswered; the first unanswered request of a
kind ends that kind's measures for the state (a hung site would hold every one)."""

TOKENS_SCRIPT = """
import json
from competitions.models import Pick, Round
from league.models import Entry
from league.services import api_token_obtain
open_round = Round.objects.filter(competition="championship", status="open").order_by("number")[0]
coaches = []
entries = Entry.objects.filter(season=open_round.season, team__coach__isnull=False)
for entry in entries.select_related("team__coach"):
    pick = Pick.objects.filter(entry=entry, round=open_round).order_by("-received_at").first()
    if pick is not None:
        coaches.append({"token": api_token_obtain(user=entry.team.coach), "pick": pick.normalized})
print("LEAGUE " + json.dumps({"round": open_round.number, "coaches": coaches}))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, timeout=600,
        capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout


@dataclass
class Answer:
    status: int
    seconds: float
    body: bytes


def request(url: str, *, method: str = "GET", token: str = "", body: object = None) -> Answer:
    data = json.dumps(body).encode() if body is not None else None
    outgoing = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        outgoing.add_header("Content-Type", "application/json")
    if token:
        outgoing.add_header("Authorization", f"Token {token}")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(outgoing, timeout=CLIENT_TIMEOUT) as answer:
            status, content = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, content = error.code, error.read()
    except OSError as error:  # no answer within CLIENT_TIMEOUT
        status, content = 0, str(error).encode()
    return Answer(status, time.monotonic() - started, content)


class Redis:
    """A private redis-server on a free port; stopped, started again, hung, resumed."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="mh-bench-redis-")
        self.process: subprocess.Popen[bytes] | None = None

    def answers(self) -> bool:
        with socket.socket() as probe:
            probe.settimeout(1)
            try:
                probe.connect(("127.0.0.1", self.port))
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
            except OSError:
                return False

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not self.answers():
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start within 20 s")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None

    def hang(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def gunicorn(env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "matrixhockey.wsgi:application", "--bind",
         f"127.0.0.1:{port}", "--workers", "1", "--threads", "4", "--timeout", "300",
         "--error-logfile", "-", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while request(f"{base}/healthz").status != 200:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not serve the site within 30 s")
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


@dataclass
class Figures:
    state: str
    times: dict[str, list[float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add(self, kind: str, answer: Answer) -> None:
        self.times.setdefault(kind, []).append(answer.seconds)
        if answer.status != 200:
            self.problems.append(f"{kind} answered {answer.status}: {answer.body[:120]!r}")


def measure(state: str, base: str, league: dict[str, object], args: argparse.Namespace) -> Figures:
    figures = Figures(state)
    coaches = league["coaches"]
    assert isinstance(coaches, list)
    path = f"{base}/api/picks/championship/{league['round']}/"
    for coach in coaches[: args.picks]:
        pick = {"pick": coach["pick"]}
        answer = request(path, method="PUT", token=coach["token"], body=pick)
        figures.add("pick", answer)
        if not answer.status:
            break
    for _ in range(args.reads):
        answer = request(f"{base}/healthz")
        figures.add("healthz", answer)
        if state != "up" and answer.status == 200:
            status = json.loads(answer.body).get("status")
            if status != "degraded":
                figures.problems.append(f"/healthz said {status!r}, not 'degraded'")
        home = request(f"{base}/")
        figures.add("home", home)
        if not (answer.status and home.status):
            break
    return figures


def report(all_figures: Sequence[Figures]) -> bool:
    passed = True
    print(f"{'redis':<8} {'request':<8} {'n':>3} {'slowest':>9} {'median':>9}")
    for figures in all_figures:
        for kind, times in figures.times.items():
            slowest = max(times)
            print(
                f"{figures.state:<8} {kind:<8} {len(times):>3} {slowest * 1000:>7.0f}ms"
                f" {statistics.median(times) * 1000:>7.0f}ms"
            )
            if figures.state != "up" and kind in ("pick", "healthz") and slowest >= LIMIT:
                passed = False
                print(f"  MISS: a {kind} took {slowest:.2f} s with Redis {figures.state}")
        for problem in figures.problems:
            passed = False
            print(f"  MISS ({figures.state}): {problem}")
    return passed


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # the servers are stopped on the way out


def main(argv: Sequence[str]) -> int:
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--picks", type=int, default=8, help="picks per state (default 8)")
    parser.add_argument("--reads", type=int, default=5, help="/healthz and / per state")
    args = parser.parse_args(argv)
    if shutil.which("redis-server") is None:
        print("redis-server is not installed", file=sys.stderr)
        return 2
    url = database_url(DATABASE)
    try:
        database_create(url)
    except Exception as error:
        print(f"PostgreSQL is not reachable: {error}", file=sys.stderr)
        return 2
    redis = Redis()
    redis.start()
    try:
        env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
        env.update(
            DJANGO_SETTINGS_MODULE="matrixhockey.settings",
            DATABASE_URL=url,
            REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
            API_THROTTLE_USER="100000/minute",
            EMAIL_BACKEND="file",
            EMAIL_FILE_PATH=str(Path(redis.dir) / "mail"),
            LOG_LEVEL="error",
        )
        manage(env, "migrate", "--noinput", "-v", "0")
        manage(env, "load_demo", "--week", "1", "-v", "0")
        league = json.loads(manage(env, "shell", "-c", TOKENS_SCRIPT).split("LEAGUE ", 1)[1])
        all_figures = []
        with gunicorn(env) as base:
            all_figures.append(measure("up", base, league, args))
            redis.stop()
            all_figures.append(measure("stopped", base, league, args))
            redis.start()
            time.sleep(6)  # REDIS_RETRY_SECONDS (5): the site uses Redis again
            redis.hang()
            try:
                all_figures.append(measure("hung", base, league, args))
            finally:
                redis.resume()
    finally:
        redis.remove()
    passed = report(all_figures)
    print("PASS" if passed else "FAIL")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
