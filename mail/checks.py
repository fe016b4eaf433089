"""The mail's system checks: Django warns at start-up (``migrate``, ``runserver``, every
management command, ``manage.py check``) when the picks read by email cannot be trusted as
configured."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register

_AUTHSERV_ID = re.compile(r"[^\s;()\"\\]+")
"""An authserv-id as an ``Authentication-Results`` header starts with (RFC 8601 §2.2: a
value, here a token such as a host name)."""


@register(Tags.security)
def email_picks_authentication_check(**kwargs: Any) -> list[CheckMessage]:
    """Whether the senders of emailed picks can be believed: a mailbox is read
    (``IMAP_HOST``) or a mail server named (``MAIL_AUTHSERV_ID``), and the settings that
    decide whom to believe do not hold together."""
    ids: list[str] = settings.MAIL_AUTHSERV_ID
    if not settings.IMAP_HOST and not ids:
        return []  # no picks by email here
    if not settings.MAIL_AUTH_REQUIRED:
        return [
            Warning(
                "MAIL_AUTH_REQUIRED=0: any sender may send picks in a coach's name.",
                hint="Have the league's mail server add its Authentication-Results header "
                "(see the README, « Picks by email ») and set MAIL_AUTH_REQUIRED=1 with "
                "MAIL_AUTHSERV_ID.",
                id="mail.W001",
            )
        ]
    if not ids:
        return [
            Warning(
                "MAIL_AUTHSERV_ID is not set: no emailed pick can be authenticated, every one "
                "is refused.",
                hint="Set MAIL_AUTHSERV_ID to the authserv-id the league's mail server writes "
                "in its Authentication-Results header.",
                id="mail.W002",
            )
        ]
    return [
        Warning(
            f"MAIL_AUTHSERV_ID {value!r} is no authserv-id: no header can name it.",
            hint="An authserv-id is one word, usually the mail server's host name "
            "(mx.example.org).",
            id="mail.W003",
        )
        for value in ids
        if not _AUTHSERV_ID.fullmatch(value)
    ]
