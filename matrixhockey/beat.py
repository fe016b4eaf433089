"""Celery beat's schedule, in one place (``CELERY_BEAT_SCHEDULE`` in the settings).

Each entry names a task by its registered name and when it runs (``celery.schedules.crontab`` in
the league's time zone, Europe/Paris). The weekend's jobs — Wednesday's weekly email, Friday's
reminder, the deadline closing and the arbitration watchdog — are added here as they are built.
"""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

SCHEDULE: dict[str, dict[str, Any]] = {
    # Emails whose delivery task was lost (broker down when queued) go out late, not never.
    "emails-requeue-stale": {
        "task": "league.emails_requeue_stale",
        "schedule": crontab(minute="*/5"),
    },
}
