"""Celery beat's schedule, in one place (``CELERY_BEAT_SCHEDULE`` in the settings).

Each entry names a task by its registered name and when it runs. Crontab hours are the league's
time zone's — ``CELERY_TIMEZONE = "Europe/Paris"`` — so 08:00 is 08:00 in Paris in summer and in
winter (06:00 or 07:00 UTC). The README lists this schedule ("The week's clock"); the jobs are
idempotent (``mail.weekly``: one email per person, week and kind), so two beat processes or a
retried task send nothing twice.
"""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

SCHEDULE: dict[str, dict[str, Any]] = {
    # Every minute: the outbox's emails still due — a worker's wake-up lost, a worker that died
    # holding one, an attempt that failed and is due again (the web process wakes a worker
    # within seconds of a commit that writes emails: ``mail.outbox.email_outbox_wake``).
    "emails-send-due": {
        "task": "mail.emails_send_due",
        "schedule": crontab(),
        "options": {"expires": 50},
    },
    # Wednesday 08:00 Paris (rules §4, "usually in the morning"): the week's rounds, deadlines and
    # links, and the teams still missing picks, to every coach.
    "weekly-email": {
        "task": "mail.weekly_emails_send",
        "schedule": crontab(minute=0, hour=8, day_of_week="wed"),
    },
    # Friday 08:00 Paris, nine hours before the 17:00 deadline (R13): the last reminder, only to
    # the coaches still missing a pick this week.
    "picks-reminder": {
        "task": "mail.reminders_send",
        "schedule": crontab(minute=0, hour=8, day_of_week="fri"),
    },
    # Every 5 minutes: open rounds whose deadline passed become closed (R13). A tick queued while
    # no worker ran expires: the next one does the same work.
    "rounds-close-due": {
        "task": "competitions.rounds_close_due",
        "schedule": crontab(minute="*/5"),
        "options": {"expires": 4 * 60},
    },
    # Hourly, at minute 10: a pool round not arbitrated 48 hours after its deadline alerts its
    # referees and the admins, once.
    "arbitration-watchdog": {
        "task": "mail.watchdog_alerts_send",
        "schedule": crontab(minute=10),
    },
    # Nightly, 03:30 Paris: every published pool round of the current season replayed from stored
    # data and compared with what is stored (R23); a mismatch alerts the admins once a night.
    "rounds-verify": {
        "task": "competitions.season_rounds_verify",
        "schedule": crontab(minute=30, hour=3),
    },
    # Every 2 minutes: picks sent by email, from the mailbox (does nothing without IMAP_HOST).
    "email-picks-fetch": {
        "task": "mail.email_fetch_picks",
        "schedule": crontab(minute="*/2"),
        "options": {"expires": 100},
    },
}
