"""What the sign-in pauses cost in time (``league/sign_in.py``): a user name hammered from
everywhere is slowed, never paused, and a paused address is refused without waiting.

Run: ``.venv/bin/python bench/bench_sign_in.py`` (``--repeats N``, default 5). It uses its own
PostgreSQL database (``mh_bench_sign_in`` on the server of ``$DATABASE_URL``, else
``postgresql://postgres@127.0.0.1:5432``), dropped, created and migrated, with one coach whose
password is hashed by the production hasher; Redis at ``$REDIS_URL`` (default
``redis://127.0.0.1:6379/14``). Each sign-in goes in-process through Django's test client (the
site's middleware, no HTTP), DEBUG off, with the default limits (``SIGN_IN_SLOWDOWN_AFTER`` 10,
``SIGN_IN_SLOWDOWN_MILLISECONDS`` 1000, ``SIGN_IN_ADDRESS_FAILURE_LIMIT`` 30); the wall time of
each is measured (the wait is wall time), the median of ``--repeats`` printed.

Targets, each checked; the script exits 1 on a miss:
- the right password from a clean address, its user name hammered (40 failures from 10
  addresses), signs in, taking the slowdown more than on a clean user name (at least 90 % of
  it, at most the slowdown + 0.5 s more): only the hammered name waits;
- a paused address is answered without the slowdown or a password check: faster than a clean
  sign-in, though the user name it asks for is hammered.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the code of this checkout

from databases import database_create, database_url

MARGIN_SECONDS = 0.5


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="sign-ins timed per case")
    parser.add_argument("--database", default="mh_bench_sign_in", help="its own database")
    return parser.parse_args()


def main() -> int:
    options = arguments()
    url = database_url(options.database)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/14")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")
    os.environ.setdefault("DJANGO_DEBUG", "0")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-sign-in-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
    os.environ.setdefault("DJANGO_SECURE_COOKIES", "0")

    import django

    database_create(url)
    django.setup()

    from axes.models import AccessAttempt
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    cache.clear()
    User.objects.create_user("sleigh-coach", password="secret-password")
    slowdown = settings.SIGN_IN_SLOWDOWN_MILLISECONDS / 1000
    addresses = (f"198.18.{n // 250}.{n % 250 + 1}" for n in range(100_000))

    def sign_in(username: str, password: str, address: str) -> tuple[int, float]:
        client = Client(REMOTE_ADDR=address)
        started = time.perf_counter()
        status = client.post(
            "/accounts/login/", {"username": username, "password": password}
        ).status_code
        return status, time.perf_counter() - started

    def median_of(case: Callable[[], tuple[int, float]], wanted: int) -> float:
        times = []
        for _ in range(options.repeats):
            status, seconds = case()
            if status != wanted:
                raise SystemExit(f"answered {status}, not {wanted}")
            times.append(seconds)
        return statistics.median(times)

    clean = median_of(lambda: sign_in("sleigh-coach", "secret-password", next(addresses)), 302)

    for _hammering in range(10):
        address = next(addresses)
        for _ in range(4):
            sign_in("sleigh-coach", "guess", address)
    hammered = median_of(lambda: sign_in("sleigh-coach", "secret-password", next(addresses)), 302)

    paused_address = next(addresses)
    for n in range(settings.SIGN_IN_ADDRESS_FAILURE_LIMIT):
        sign_in(f"someone-{n}", "guess", paused_address)
    paused = median_of(lambda: sign_in("sleigh-coach", "secret-password", paused_address), 429)
    failures = sum(AccessAttempt.objects.values_list("failures_since_start", flat=True))

    rows = [
        ("the right password, a clean user name", clean, True),
        (
            "the right password from a clean address, the name hammered (40 failures)",
            hammered,
            0.9 * slowdown <= hammered - clean <= slowdown + MARGIN_SECONDS,
        ),
        ("a paused address, the name it asks hammered", paused, paused < clean),
    ]
    print(f"Slowdown {slowdown * 1000:.0f} ms; {failures} failures recorded; median wall time:")
    for label, seconds, met in rows:
        print(f"  {label:<75} {seconds * 1000:8.1f} ms  {'met' if met else 'MISSED'}")
    print(f"  slowed by {(hammered - clean) * 1000:.1f} ms")
    return 0 if all(met for _label, _seconds, met in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
