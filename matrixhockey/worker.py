"""The Celery worker's consumer (``CELERY_WORKER_CONSUMER``): Celery's own, which survives a
Redis lost while it holds tasks.

Celery 5.7.0's consumer, on losing its broker after it connected, first "collects" the
connection (its transport detached) and then closes it: closing the channel hands back the
tasks it holds (kombu's ``restore_unacked``), which needs the transport, and the worker exits
for good (``AttributeError: 'NoneType' object has no attribute 'hostname'``). Closing the
connection first, while it still has its transport, hands the held tasks back when Redis
answers (they stay in Redis's unacknowledged set otherwise, handed back after the visibility
timeout) and leaves nothing for the second close to do; then Celery carries on as usual:
reconnecting, and cancelling the running tasks (``worker_cancel_long_running_tasks_on_
connection_loss``). ``tests/faults/test_redis_faults.py`` loses Redis under a worker holding
tasks.
"""

from __future__ import annotations

from typing import Any

from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.common import ignore_errors


class Consumer(CeleryConsumer):
    """Celery's consumer, closing a lost connection before Celery collects it."""

    def on_connection_error_after_connected(self, exc: Any) -> None:
        if self.connection is not None:
            ignore_errors(self.connection, self.connection.close)
        super().on_connection_error_after_connected(exc)
