"""``manage.py fetch_email_picks``: read the unseen messages of the picks mailbox (``IMAP_*``).

Each message is ingested like ``ingest_email`` does, with the mailbox's INTERNALDATE as the time
the league received it, then marked seen (and moved to ``IMAP_PROCESSED_FOLDER`` when set). A
message that fails stays unseen for the next run; the command then exits 1 after the others.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from mail import inbound as mail_picks
from mail import intake as services
from mail.management.commands.ingest_email import describe


class Command(BaseCommand):
    help = "Ingest every unseen message of the picks mailbox (the IMAP_* settings)."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            done = services.email_fetch()
        except mail_picks.MailboxError as error:
            raise CommandError(str(error)) from error
        failed = [item for item in done if item.result is None]
        for item in done:
            if item.result is None:
                self.stderr.write(f"message {item.uid}: left unseen, {item.error}")
            else:
                self.stdout.write("\n".join(describe(item.result)))
        self.stdout.write(f"{len(done) - len(failed)} message(s) ingested, {len(failed)} failed")
        if failed:
            raise CommandError(f"{len(failed)} message(s) left unseen for the next run")
