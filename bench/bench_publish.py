"""How long the referee waits for « Publish »: the KDH's round of 64 (64 results emails) and a
division's round (12), through the referee's own request.

Run: ``.venv/bin/python bench/bench_publish.py`` (``--repeats N``, default 7; ``--reuse`` keeps a
database already built).

It builds its own league on PostgreSQL: the database named by ``--database`` (default
``mh_bench_publish``, on the server of ``$DATABASE_URL``, else the local one) is dropped and
created again, migrated, filled with the demo league at week 3 (``competitions.demo.demo_load``:
the week whose KDH round is its round of 64, every team with a coach who gets results), and
``ANALYZE``d. The week's KDH pool round and its first division are arbitrated once.

Each repeat publishes each of the two through Django's test client signed in as the referee
(``POST /referee/<competition>/<pool>/<number>/publish/``: sessions, middleware, the view, the
service, the commit and what runs on it), timed on the wall clock and this process's CPU, its
queries counted; then puts the pool round back to « arbitrated » and deletes the emails it
wrote, for the next repeat. The broker is the Redis of ``--redis-url`` (default
``$REDIS_URL``; a database of its own: its ``celery`` list is emptied after each repeat) and no
worker runs: what the request queues waits there, as in production while the worker is busy.
Printed per pool round: the median and the slowest time, the CPU, the queries, the emails in
the outbox after the request, and how many of them the request rendered; where the site has
the outbox's worker (``mail.outbox.emails_send_due``), the time its sweep then takes to render
and send them (Django's in-memory email backend: no mail server's time), which the referee does
not wait for.

Target (issue 20): the KDH's publication well under a second. Exits 1 over
:data:`TARGET_MS`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the site of this checkout

from databases import database_create, database_url, query_count

TARGET_MS = 500.0
WEEK = 3


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="how many repeats")
    parser.add_argument("--database", default="mh_bench_publish", help="the bench's database")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""), help="broker")
    parser.add_argument(
        "--reuse", action="store_true", help="keep the database when it holds the demo already"
    )
    return parser.parse_args()


def main() -> int:
    options = arguments()
    if not options.redis_url:
        print("A broker is needed (--redis-url or $REDIS_URL): without one tasks run eagerly.")
        return 2
    url = database_url(options.database)
    os.environ["DATABASE_URL"] = url
    os.environ["REDIS_URL"] = options.redis_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")
    os.environ.setdefault("DJANGO_DEBUG", "0")  # as in production: no query log kept
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-publish-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")  # in-process: no TLS proxy before it

    import django

    if not options.reuse:
        database_create(url)
    django.setup()

    import redis
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from competitions.demo import REFEREE, demo_load
    from competitions.models import Competition, PoolRound, Round
    from competitions.services import pool_round_arbitrate
    from league.models import Season
    from mail.models import OutboundEmail

    built = time.perf_counter()
    if not (options.reuse and Season.objects.exists()):
        call_command("migrate", verbosity=0)
        demo_load(week=WEEK)
        print(f"Built the demo league at week {WEEK} in {time.perf_counter() - built:.1f} s")
    season = Season.objects.get(is_current=True)
    referee = get_user_model().objects.get(username=REFEREE[0])
    chosen = []
    for competition in (Competition.KDH, Competition.CHAMPIONSHIP):
        pool_round = (
            PoolRound.objects.filter(
                round__season=season, round__week=WEEK, round__competition=competition
            )
            .select_related("pool", "round")
            .order_by("pool__slug")
            .first()
        )
        assert pool_round is not None
        if pool_round.status == PoolRound.Status.PENDING:
            pool_round_arbitrate(pool_round=pool_round, by=referee)
        chosen.append(pool_round)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

    try:
        from mail.outbox import emails_send_due
    except ImportError:  # a site that renders its emails in the referee's request
        emails_send_due = None
    if emails_send_due is not None:
        settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
        emails_send_due()  # the demo's own emails (its picks' receipts), out of the way

    broker = redis.Redis.from_url(options.redis_url)
    broker.delete("celery")
    client = Client()
    client.force_login(referee)
    print(
        f"{'pool round':<20} {'median ms':>9} {'max ms':>8} {'CPU ms':>7} {'queries':>7} "
        f"{'emails':>6} {'rendered':>8} {'worker ms':>9}"
    )
    worst = 0.0
    for pool_round in chosen:
        pool = pool_round.pool
        path = reverse(
            "referee_publish", args=[pool.competition, pool.slug, pool_round.round.number]
        )
        round_status = Round.objects.get(pk=pool_round.round_id).status
        times: list[float] = []
        cpu: list[float] = []
        counts: list[int] = []
        written: list[tuple[int, int]] = []
        worker: list[float] = []
        for _ in range(options.repeats):
            before = OutboundEmail.objects.order_by("-pk").values_list("pk", flat=True).first()
            counted = [0]
            with connection.execute_wrapper(partial(query_count, counted)):
                start, start_cpu = time.perf_counter(), time.process_time()
                answer = client.post(path)
                elapsed = time.perf_counter() - start
                cpu.append(time.process_time() - start_cpu)
            if answer.status_code != 302:
                raise SystemExit(f"the publication answered {answer.status_code}")
            if PoolRound.objects.get(pk=pool_round.pk).status != PoolRound.Status.PUBLISHED:
                raise SystemExit("the pool round was not published")
            times.append(elapsed)
            counts.append(counted[0])
            new = OutboundEmail.objects.filter(pk__gt=before or 0)
            written.append((new.count(), new.exclude(body_text="").count()))
            if emails_send_due is not None:
                start = time.perf_counter()
                emails_send_due()
                worker.append(time.perf_counter() - start)
            # Back to « arbitrated », the emails gone, the broker emptied: the next repeat
            # publishes the same round again.
            new.delete()
            PoolRound.objects.filter(pk=pool_round.pk).update(
                status=PoolRound.Status.ARBITRATED, published_at=None, published_by=None
            )
            Round.objects.filter(pk=pool_round.round_id).update(status=round_status)
            broker.delete("celery")
        name = f"{pool.competition} {pool.slug} r{pool_round.round.number}"
        median = statistics.median(times) * 1000
        worst = max(worst, median)
        emails, rendered = written[-1]
        swept = f"{statistics.median(worker) * 1000:>9.1f}" if worker else f"{'—':>9}"
        print(
            f"{name:<20} {median:>9.1f} {max(times) * 1000:>8.1f} "
            f"{statistics.median(cpu) * 1000:>7.1f} {statistics.median(counts):>7.0f} "
            f"{emails:>6} {rendered:>8} {swept}"
        )
    print(f"Target: every publication under {TARGET_MS:.0f} ms (the median).")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
