"""The Celery application: ``celery -A matrixhockey worker`` and ``celery -A matrixhockey beat``.

Configuration comes from the Django settings under the ``CELERY_`` prefix; without ``REDIS_URL``
tasks run eagerly in the calling process (the embedded default).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")

app = Celery("matrixhockey")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="matrixhockey.ping", ignore_result=False)  # its answer is the point
def ping() -> str:
    """Answer ``"pong"``: proves a worker is consuming the broker (health checks, smoke test)."""
    return "pong"
