"""A receipt whose delivery meets a database error: a real worker, on a private PostgreSQL
with the demo league and a private Redis, claims a coach's receipt and is held reading its pick
(the test holds the picks' table locked, as a slow query would), and PostgreSQL is restarted
under it (``pg_ctl restart -m fast``). The delivery task retries the database error as it
retries a refusing mail server, giving back the claim it held: the receipt goes out long before
the claim's lease (``EMAIL_CLAIM_SECONDS``, ten minutes) would have let beat's sweep take it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psycopg2
import pytest

from tests.conftest import database_problem
from tests.faults.conftest import need
from tests.faults.services import (
    PrivatePostgres,
    PrivateRedis,
    Process,
    base_env,
    celery_worker,
    manage,
    wait_for,
)
from tests.faults.test_postgres_restart import DATABASE, schema_dump

pytestmark = [pytest.mark.faults, pytest.mark.celery_worker, pytest.mark.django_db]

REDIS_PORT = 8674
PG_PORT = 8675

# The demo league; every email it wrote counted as sent; then one coach's receipt, queued (its
# wake-up goes to the broker, for the worker the test starts).
RECEIPT_SCRIPT = """
from django.core.management import call_command
from django.db import transaction
from competitions.models import Pick
from mail.emails import email_pick_receipt
from mail.models import OutboundEmail
call_command("load_demo", "--week", "1", verbosity=0)
OutboundEmail.objects.update(status=OutboundEmail.Status.SENT)
with transaction.atomic():
    email = email_pick_receipt(pick=Pick.objects.order_by("-pk").first())
print(f"EMAIL {email.pk}")
"""


@dataclass
class Outbox:
    postgres: PrivatePostgres
    redis: PrivateRedis
    env: dict[str, str]
    email_id: int

    def connect(self) -> psycopg2.extensions.connection:
        return psycopg2.connect(
            host="127.0.0.1", port=self.postgres.port, user="postgres", dbname=DATABASE
        )

    def row(self) -> tuple[str, int, datetime, datetime | None]:
        """The receipt's status, attempts, due time and time sent (``None`` while the database
        is away)."""
        with self.connect() as connection, connection.cursor() as cursor:
            cursor.execute(
                "SELECT status, attempts, due_at, sent_at FROM mail_outboundemail WHERE id = %s",
                [self.email_id],
            )
            found = cursor.fetchone()
        connection.close()
        assert found is not None
        return found


@pytest.fixture
def outbox(
    pg_bin: Path, redis_server: str, django_db_setup: None, tmp_path: Path
) -> Iterator[Outbox]:
    need(database_problem())
    redis = PrivateRedis(redis_server, REDIS_PORT)
    postgres = PrivatePostgres(pg_bin, PG_PORT)
    try:
        redis.start()
        postgres.start()
        postgres.restore_database(DATABASE, schema_dump(pg_bin))
        env = base_env(
            DATABASE_URL=postgres.url(DATABASE),
            REDIS_URL=redis.url(0),
            EMAIL_BACKEND="file",
            EMAIL_FILE_PATH=str(tmp_path / "mail"),
            LOG_LEVEL="info",
        )
        email_id = int(manage(env, "shell", "-c", RECEIPT_SCRIPT).split("EMAIL ", 1)[1])
        yield Outbox(postgres, redis, env, email_id)
    finally:
        redis.remove()
        postgres.stop()


def picks_locked(outbox: Outbox) -> psycopg2.extensions.connection:
    """The test's own transaction holding the picks' table locked: a worker that reads the
    receipt's pick waits there, its email claimed."""
    locker = outbox.connect()
    with locker.cursor() as cursor:
        cursor.execute("LOCK TABLE competitions_pick IN ACCESS EXCLUSIVE MODE")
    return locker


def test_a_receipt_whose_delivery_meets_a_database_error_is_retried_and_sent(
    outbox: Outbox, tmp_path: Path
) -> None:
    locker = picks_locked(outbox)
    worker: Process | None = None
    try:
        worker = celery_worker(outbox.env, tmp_path / "worker.log", name="receipt")
        wait_for(lambda: outbox.row()[1] == 1, timeout=30, what="the receipt's claim")
        status, _, lease_until, _ = outbox.row()
        assert status == "queued"
        outbox.postgres.restart()  # the worker's connection and the lock are cut
        locker.close()

        wait_for(lambda: outbox.row()[0] == "sent", timeout=90, what="the receipt sent")
        status, attempts, _, sent_at = outbox.row()
        assert sent_at is not None and sent_at < lease_until  # not left to the lease's end
        assert attempts == 2  # the held attempt, and the retry's
        assert "Retry in" in worker.text()
        assert "Unrecoverable error" not in worker.text()
        assert list((tmp_path / "mail").iterdir())  # the file backend wrote it
    finally:
        if worker is not None:
            worker.stop()
        locker.close()
