"""``manage.py ingest_email < message.eml``: read one email of picks on standard input.

A mail server can pipe each message to it (Postfix ``pipe``, procmail, an alias). It prints what
the league did and exits 0 whenever the message was handled — refused picks and ignored senders
included; a non-zero status means unusable input (nothing on standard input, a bad option).
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any, BinaryIO

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from league.services.audit import via_command
from mail import intake as services


def describe(result: services.EmailIngestResult) -> list[str]:
    """What ``email_ingest`` did, a line per fact (shared with ``fetch_email_picks``)."""
    lines = [
        f"{result.message_id} from {result.sender or '(no sender)'}, received "
        f"{result.received_at.isoformat(timespec='seconds')}: {result.outcome}"
        + (f" ({result.reason})" if result.reason else "")
    ]
    for line in result.lines:
        where = f"{line.competition} round {line.round_number or '?'}"
        if line.status == "recorded":
            lines.append(f"  recorded  {where}: {line.normalized} (receipt {line.receipt})")
        elif line.status == "late":
            lines.append(f"  late      {where}: {line.normalized} → the referee's queue (R13)")
        else:
            lines.append(f"  error     {line.text!r} [{line.code}]: {line.message}")
    lines.append(
        f"  replied to {', '.join(result.replied_to)}" if result.replied_to else "  no reply"
    )
    return lines


def _aware(value: str) -> datetime:
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--received-at {value!r}: expected an ISO 8601 time") from None
    return when if timezone.is_aware(when) else timezone.make_aware(when)


class Command(BaseCommand):
    help = (
        "Read one email of picks (RFC 5322) on standard input: store its picks (channel email), "
        "queue late ones for a referee and reply to the coach."
    )
    stealth_options = ("stdin",)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--received-at",
            help="When the league received the message (ISO 8601; default: the date of its "
            "newest Received header, else now). It decides the deadline.",
        )

    @via_command
    def handle(self, *args: Any, **options: Any) -> None:
        stream: BinaryIO = options.get("stdin") or sys.stdin.buffer
        raw = stream.read()
        if not raw.strip():
            raise CommandError("nothing on standard input: give one email message (RFC 5322)")
        received_at = _aware(options["received_at"]) if options["received_at"] else None
        result = services.email_ingest(raw=raw, received_at=received_at)
        self.stdout.write("\n".join(describe(result)))
