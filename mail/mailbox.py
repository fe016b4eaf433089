"""The league's IMAP mailbox of picks: its unseen messages, each marked read once ingested, or
set aside when it keeps failing.

:func:`mail.intake.email_fetch` reads it; this module only talks IMAP and writes nothing to the
database.
"""

from __future__ import annotations

import imaplib
import logging
import re
import ssl
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

logger = logging.getLogger(__name__)

IMAP_TIMEOUT_SECONDS = 60
"""How long a mailbox operation may wait for the server."""
_INTERNALDATE = re.compile(rb'INTERNALDATE "([^"]+)"')


class MailboxError(Exception):
    """The mailbox could not be reached or read (its message says which step failed)."""


@dataclass(frozen=True)
class MailboxMessage:
    """An unseen message of the mailbox: its UID, its bytes and when the server got it."""

    uid: str
    raw: bytes
    internal_date: datetime | None


def internal_date(value: bytes) -> datetime | None:
    """The ``INTERNALDATE`` of a FETCH response (when the IMAP server received the message).

    >>> internal_date(b'1 (UID 7 INTERNALDATE " 6-Mar-2026 16:59:58 +0100" BODY[] {4}')
    datetime.datetime(2026, 3, 6, 16, 59, 58, tzinfo=datetime.timezone(datetime.timedelta(seconds=3600)))
    """  # noqa: E501
    match = _INTERNALDATE.search(value)
    if match is None:
        return None
    try:
        return datetime.strptime(match.group(1).decode("ascii").strip(), "%d-%b-%Y %H:%M:%S %z")
    except ValueError:
        return None


class Mailbox:
    """The league's IMAP folder of picks, opened with :func:`mailbox_open`."""

    def __init__(
        self,
        connection: imaplib.IMAP4,
        processed_folder: str,
        capabilities: frozenset[str],
        failed_folder: str = "",
    ) -> None:
        self.connection = connection
        self.processed_folder = processed_folder
        self.failed_folder = failed_folder
        self.capabilities = capabilities

    def _ok(self, what: str, response: tuple[str, Sequence[object]]) -> Sequence[object]:
        status, data = response
        if status != "OK":
            raise MailboxError(f"IMAP {what} failed: {data!r}")
        return data

    def unseen(self) -> Iterator[MailboxMessage]:
        """Every message not yet marked ``\\Seen``, oldest first, without marking it (PEEK)."""
        data = self._ok("SEARCH UNSEEN", self.connection.uid("SEARCH", "UNSEEN"))
        uids = b" ".join(d for d in data if isinstance(d, bytes)).split()
        for uid in uids:
            fetched = self._ok(
                f"FETCH {uid.decode()}",
                self.connection.uid("FETCH", uid.decode(), "(INTERNALDATE BODY.PEEK[])"),
            )
            raw = b""
            envelope = b""
            for item in fetched:
                if isinstance(item, tuple):
                    envelope += item[0]
                    raw = item[1]
                elif isinstance(item, bytes):
                    envelope += item
            if raw:
                yield MailboxMessage(uid.decode(), raw, internal_date(envelope))

    def done(self, message: MailboxMessage) -> None:
        """Mark ``message`` ``\\Seen``; move it to ``IMAP_PROCESSED_FOLDER`` when one is set."""
        self._ok("STORE \\Seen", self.connection.uid("STORE", message.uid, "+FLAGS", "(\\Seen)"))
        self._move(message, self.processed_folder)

    def set_aside(self, message: MailboxMessage) -> None:
        """Take ``message``, which keeps failing, out of the unseen ones for good: marked
        ``\\Seen`` and ``\\Flagged`` (for a person to look at), and moved to
        ``IMAP_FAILED_FOLDER`` when one is set."""
        flags = "(\\Seen \\Flagged)"
        self._ok("STORE set aside", self.connection.uid("STORE", message.uid, "+FLAGS", flags))
        self._move(message, self.failed_folder)

    def _move(self, message: MailboxMessage, folder: str) -> None:
        if not folder:
            return
        quoted = _quoted(folder)
        if "MOVE" in self.capabilities:
            self._ok("MOVE", self.connection.uid("MOVE", message.uid, quoted))
            return
        self._ok("COPY", self.connection.uid("COPY", message.uid, quoted))
        self._ok(
            "STORE \\Deleted", self.connection.uid("STORE", message.uid, "+FLAGS", "(\\Deleted)")
        )
        self._ok("EXPUNGE", self.connection.expunge())


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


@contextmanager
def mailbox_open() -> Iterator[Mailbox]:
    """Sign in to the mailbox of the ``IMAP_*`` settings and open its folder for writing.

    ``IMAP_SSL=1`` connects over TLS; otherwise ``IMAP_STARTTLS=1`` (the default) upgrades the
    plain connection before signing in, and ``IMAP_STARTTLS=0`` stays in clear text (only for a
    server on the same machine). Certificates are checked against the system's authorities.
    """
    if not settings.IMAP_HOST:
        raise MailboxError("IMAP_HOST is not set: there is no mailbox to read")
    context = ssl.create_default_context()
    host, port = settings.IMAP_HOST, settings.IMAP_PORT
    try:
        if settings.IMAP_SSL:
            connection: imaplib.IMAP4 = imaplib.IMAP4_SSL(
                host, port, ssl_context=context, timeout=IMAP_TIMEOUT_SECONDS
            )
        else:
            connection = imaplib.IMAP4(host, port, timeout=IMAP_TIMEOUT_SECONDS)
            if settings.IMAP_STARTTLS:
                connection.starttls(ssl_context=context)
    except (OSError, imaplib.IMAP4.error) as error:
        raise MailboxError(f"cannot connect to {host}:{port}: {error}") from error
    try:
        try:
            connection.login(settings.IMAP_USER, settings.IMAP_PASSWORD)
            # Servers announce more once signed in (MOVE among them).
            _status, data = connection.capability()
            words = b" ".join(d for d in data if isinstance(d, bytes)).decode().upper().split()
            box = Mailbox(
                connection,
                settings.IMAP_PROCESSED_FOLDER,
                frozenset(words),
                failed_folder=settings.IMAP_FAILED_FOLDER,
            )
            for folder in {box.processed_folder, box.failed_folder} - {""}:
                connection.create(_quoted(folder))  # "already exists" is fine
            box._ok("SELECT", connection.select(_quoted(settings.IMAP_FOLDER)))
        except (OSError, imaplib.IMAP4.error) as error:
            raise MailboxError(f"{host}:{port}: {error}") from error
        yield box
    finally:
        try:
            connection.logout()
        except (OSError, imaplib.IMAP4.error):
            logger.warning("IMAP logout from %s failed", host)
