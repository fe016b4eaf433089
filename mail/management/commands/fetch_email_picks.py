"""``manage.py fetch_email_picks``: read the unseen messages of the picks mailbox (``IMAP_*``).

Each message is ingested like ``ingest_email`` does, with the mailbox's INTERNALDATE as the time
the league received it, then marked seen (and moved to ``IMAP_PROCESSED_FOLDER`` when set). A
message that fails stays unseen for the next run, or is set aside at its
``MAIL_FETCH_MAX_ATTEMPTS``-th failure; the command then exits 1 after the others.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize

from league.services.audit import via_command
from mail import intake as services
from mail.mailbox import MailboxError
from mail.management.commands.ingest_email import describe


class Command(BaseCommand):
    help = "Ingest every unseen message of the picks mailbox (the IMAP_* settings)."

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        try:
            done = services.email_fetch()
        except MailboxError as error:
            raise CommandError(str(error)) from error
        failed = [item for item in done if item.result is None]
        for item in done:
            if item.result is None:
                fate = "set aside after repeated failures" if item.set_aside else "left unseen"
                self.stderr.write(f"message {item.uid}: {fate}, {item.error}")
            else:
                self.stdout.write("\n".join(describe(item.result)))
        ingested = len(done) - len(failed)
        self.stdout.write(f"{ingested} message{pluralize(ingested)} ingested, {len(failed)} failed")
        if failed:
            aside = sum(item.set_aside for item in failed)
            unseen = len(failed) - aside
            raise CommandError(
                f"{unseen} message{pluralize(unseen)} left unseen for the next run, "
                f"{aside} set aside"
            )
