"""Picks by email, the game's roots: reading what a coach wrote, and the league's mailbox.

This module reads; it writes nothing to the database. :func:`mail.intake.email_ingest`
stores what it finds (through ``pick_submit``), and ``manage.py ingest_email`` /
``manage.py fetch_email_picks`` feed it one message from standard input or every unseen message
of the IMAP mailbox of the ``IMAP_*`` settings.

What a coach writes, one line per competition (case, accents and spaces are free; a bullet
``-``, ``*`` or ``•`` may start the line)::

    Championnat : F+(2)              Championship: F+(2)
    KDH : C(1)(4)                    Coupe KDH / KDH cup / Klaus-Dieter Hoffmann : …
    WG : A(0)                        Coupe WG / WG cup / Wayne Gretzky : …
    Championnat J5 : D++(1)          Championship round 5: D++(1)

A round is ``J5``, ``J 5``, ``journée 5``, ``tour 5``, ``R5`` or ``round 5`` between the
competition and the colon (rounds are numbered from 1 within a competition). Without one the pick
is for the competition's round of the week the message was received in (the next round when the
competition plays no round that week). A line that starts with a competition's name and then a
colon, a round or something shaped like a pick (a letter and ``+``, ``#`` or ``(``) but does not
read as a pick is an error reported to the coach; every other line is ignored (a sentence that
merely starts with « Championnat » too), and so are quoted lines (``>``), everything after a
signature separator (``-- ``) and quoted HTML (``<blockquote>``).

>>> [(p.competition, p.round_number, p.notation) for p in pick_lines("Championnat J5 : F+(2)")]
[('championship', 5, 'F+(2)')]
>>> pick_lines("Coupe Wayne-Gretzky: a(0)")[0].competition
'wg'
"""

from __future__ import annotations

import hashlib
import imaplib
import logging
import re
import ssl
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser

from django.conf import settings
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

# --- Pick lines -----------------------------------------------------------------------------------

_COMPETITION_LABELS: tuple[tuple[str, str], ...] = (
    ("championship", r"championnat|championship"),
    (
        "kdh",
        r"(?:coupe\s+|cup\s+)?(?:kdh|k\.\s?d\.\s?h\.?|klaus[\s-]*dieter[\s-]*hoffmann)(?:\s+cup)?",
    ),
    ("wg", r"(?:coupe\s+|cup\s+)?(?:wg|w\.\s?g\.?|wayne[\s-]*gretzky)(?:\s+cup)?"),
)
"""Each competition (``competitions.models.Competition`` values) and how coaches name it."""

_LINE = re.compile(
    r"^\s*(?:[-*•·]\s*)?(?:"
    + "|".join(f"(?P<{key}>{pattern})" for key, pattern in _COMPETITION_LABELS)
    + r")(?![a-z0-9])(?P<rest>.*)$",
    re.IGNORECASE,
)
_REST = re.compile(
    r"^\s*,?\s*(?:(?P<word>journee|tour|round|j|r)\s*\.?\s*(?P<number>\d{1,3})(?!\d))?"
    r"\s*(?P<separator>[:=])?\s*(?P<notation>.*?)\s*$",
    re.IGNORECASE,
)
_BARE_PICK = re.compile(r"^[a-z](?:\s*[+#(]|\s*$)", re.IGNORECASE)
_ENGLISH_WORDS = re.compile(r"\b(championship|round|cup)\b", re.IGNORECASE)


@dataclass(frozen=True)
class PickLine:
    """A line of a message that names a competition: a pick to submit, or why it is not one."""

    text: str
    """The line as the coach wrote it (without surrounding spaces)."""
    competition: str
    """``championship``, ``kdh`` or ``wg``."""
    round_number: int | None
    """The round the coach named, or ``None`` for the competition's round of the week."""
    notation: str
    """What follows the competition (and round), to be read as a pick (R10)."""
    error: str | None = None
    """Why the line cannot be submitted, or ``None``."""


def _without_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def pick_line(text: str) -> PickLine | None:
    """Read one line: ``None`` when it does not start with a competition's name.

    >>> pick_line("- Coupe KDH J2 = c+(1)(4)")
    PickLine(text='- Coupe KDH J2 = c+(1)(4)', competition='kdh', round_number=2, notation='c+(1)(4)', error=None)
    >>> pick_line("Je joue le championnat") is None
    True
    """  # noqa: E501
    stripped = text.strip()
    match = _LINE.match(_without_accents(stripped))
    if match is None:
        return None
    competition = next(key for key, _pattern in _COMPETITION_LABELS if match.group(key))
    rest = _REST.match(match.group("rest"))
    assert rest is not None  # every group of _REST is optional
    number = int(rest.group("number")) if rest.group("number") else None
    notation = rest.group("notation")
    error = None
    if number is not None and number < 1:
        error = _("Rounds are numbered from 1.")
    elif not notation:
        error = _("No pick after the competition: write it as, e.g., « %(example)s ».") % {
            "example": "Championnat : F+(2)"
        }
    elif rest.group("separator") is None and not number and not _BARE_PICK.match(notation):
        # "Championnat prochain…" is a sentence, not a pick line; "KDH C(1)(4)" (no colon) and
        # "Championnat F+" (a broken pick) are pick lines.
        return None
    return PickLine(
        text=stripped,
        competition=competition,
        round_number=number,
        notation=notation,
        error=error,
    )


_SIGNATURE = re.compile(r"^--\s?$")
_FORWARD_OR_OUTLOOK_QUOTE = re.compile(
    r"^\s*(?:-{3,}\s*(?:original message|message d'origine|forwarded message|message transfere)"
    r"\s*-{3,}|_{10,})\s*$",
    re.IGNORECASE,
)


def own_text(body: str) -> list[str]:
    """The lines the sender wrote: no quoted lines (``>``), nothing after a signature (``-- ``)
    or an Outlook-style "Original Message" separator.

    >>> own_text("Championnat : F(1)\\n> Championnat : A(0)\\n-- \\nJean\\nKDH : B(1)(2)")
    ['Championnat : F(1)']
    """
    lines: list[str] = []
    for line in body.splitlines():
        if _SIGNATURE.match(line) or _FORWARD_OR_OUTLOOK_QUOTE.match(_without_accents(line)):
            break
        if line.lstrip().startswith(">"):
            continue
        lines.append(line)
    return lines


def pick_lines(body: str) -> list[PickLine]:
    """Every pick line of a message's text, in order (quoted text and signature left out)."""
    return [line for text in own_text(body) if (line := pick_line(text)) is not None]


def looks_english(body: str) -> bool:
    """Whether the sender seems to write English (``Championship``, ``round``, ``cup``), to
    answer someone the league does not know in their language."""
    return bool(_ENGLISH_WORDS.search("\n".join(own_text(body))))


# --- The message ----------------------------------------------------------------------------------


def message_parse(raw: bytes) -> EmailMessage:
    """One RFC 5322 message, as bytes (the charset of each part is the message's business)."""
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = message.get(name)
    except (ValueError, IndexError, TypeError):  # a header the parser cannot read
        return ""
    return "" if value is None else str(value).strip()


def _headers(message: EmailMessage, name: str) -> list[object]:
    try:
        return list(message.get_all(name) or [])
    except (ValueError, IndexError, TypeError):  # e.g. an encoded word hiding a line break
        return []


def message_id(message: EmailMessage, raw: bytes) -> str:
    """The ``Message-ID``; for a message without one, a stable id made from its bytes."""
    # No spaces or control characters: the id goes back out in the reply's In-Reply-To.
    value = re.sub(r"[\x00-\x20\x7f]", "", _header(message, "Message-ID"))
    if value:
        return value[:998]
    return f"<sha256-{hashlib.sha256(raw).hexdigest()}@message-without-id.invalid>"


def message_subject(message: EmailMessage) -> str:
    return " ".join(_header(message, "Subject").split())[:200]


def sender_addresses(message: EmailMessage) -> list[str]:
    """Every address of every ``From`` header, in lower case (``Reply-To`` does not count).

    A message whose identity is clear has exactly one; several (or a second ``From`` header) is
    a trick that the league refuses.
    """
    addresses: list[str] = []
    for header in _headers(message, "From"):
        try:
            found = header.addresses
        except (AttributeError, ValueError, IndexError):
            continue
        # Two From headers are two claims, even when they name the same address. An address
        # with spaces or control characters (decoded from an encoded word) is no address.
        addresses.extend(
            a.addr_spec.lower()
            for a in found
            if "@" in a.addr_spec and not re.search(r"[\x00-\x20\x7f]", a.addr_spec)
        )
    return addresses


def automatic_reason(message: EmailMessage) -> str | None:
    """Why ``message`` was written by a machine (auto-reply, bounce, list), or ``None``.

    The league never answers those (RFC 3834), so that two robots cannot talk forever.
    """
    auto = _header(message, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = _header(message, "Precedence").lower()
    if precedence in {"bulk", "junk", "list", "auto_reply"}:
        return f"Precedence: {precedence}"
    for name in ("X-Autoreply", "X-Autorespond", "List-Id"):
        if _header(message, name):
            return f"{name} header"
    return_path = _headers(message, "Return-Path")
    if return_path and "".join(str(return_path[0]).split()) in {"<>", ""}:
        return "empty Return-Path (a bounce)"
    if message.get_content_type() == "multipart/report":
        return "delivery report"
    if any(a.split("@")[0] == "mailer-daemon" for a in sender_addresses(message)):
        return "From MAILER-DAEMON"
    return None


class _HtmlText(HTMLParser):
    """Text of an HTML body, a line per block; quoted parts (``<blockquote>``), styles and
    scripts left out."""

    BLOCKS = frozenset(
        {"br", "p", "div", "li", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "hr"}
    )
    SKIPPED = frozenset({"blockquote", "style", "script", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data.replace("\n", " "))


def html_text(html: str) -> str:
    """The text of an HTML body, a line per paragraph, without quoted parts.

    >>> html_text('<p>Championnat&nbsp;: F(1)</p><blockquote>KDH : A(1)(2)</blockquote>')
    'Championnat\\xa0: F(1)'
    """
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    return "\n".join(line.strip() for line in "".join(parser.parts).splitlines() if line.strip())


def _part_text(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeDecodeError):  # an unknown or lying charset
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


def body_text(message: EmailMessage) -> str:
    """The text the sender wrote: the ``text/plain`` body, else the ``text/html`` one as text.

    Charsets (ISO-8859-1…) and transfer encodings (quoted-printable, base64) are decoded.
    """
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    assert isinstance(part, EmailMessage)
    text = _part_text(part)
    return html_text(text) if part.get_content_subtype() == "html" else text


def received_time(message: EmailMessage) -> datetime | None:
    """When the league's mail server received ``message``: the date of the newest (topmost)
    ``Received`` header, the one that server added. ``Date`` is only the sender's claim."""
    for header in _headers(message, "Received"):
        _, _, stamp = str(header).rpartition(";")
        try:
            when = parsedate_to_datetime(stamp.strip())
        except (TypeError, ValueError, IndexError):
            continue
        if when.tzinfo is not None:
            return when
    return None


# --- Sender authentication ------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthResult:
    """One result of an ``Authentication-Results`` header (RFC 8601): ``spf=pass …``."""

    method: str
    result: str
    properties: dict[str, str]


@dataclass(frozen=True)
class AuthVerdict:
    """Whether the league may trust the ``From`` of a message, and why (for logs and admin)."""

    trusted: bool
    reason: str


_COMMENT = re.compile(r"\([^()]*\)")
_PAIR = re.compile(r'([A-Za-z0-9_.-]+(?:/[0-9]+)?)\s*=\s*("[^"]*"|[^\s;]+)')


def authentication_results(value: str) -> tuple[str, list[AuthResult]]:
    """The authserv-id and the results of one ``Authentication-Results`` header.

    >>> server, results = authentication_results(
    ...     "mx.example.org; spf=pass (ok) smtp.mailfrom=a@example.org; dkim=none")
    >>> server, [(r.method, r.result, r.properties) for r in results]
    ('mx.example.org', [('spf', 'pass', {'smtp.mailfrom': 'a@example.org'}), ('dkim', 'none', {})])
    """
    while _COMMENT.search(value):
        value = _COMMENT.sub(" ", value)
    first, *resinfos = value.split(";")
    server = (first.split() or [""])[0].lower()
    results = []
    for resinfo in resinfos:
        pairs = [(k.lower(), v.strip('"')) for k, v in _PAIR.findall(resinfo)]
        if not pairs:
            continue
        (method, result), *props = pairs
        results.append(AuthResult(method.split("/")[0], result.lower(), dict(props)))
    return server, results


def _domain(value: str) -> str:
    return value.rpartition("@")[2].strip().strip(".").lower()


def domains_aligned(domain: str, from_domain: str) -> bool:
    """DMARC's relaxed alignment, without a public-suffix list: the same domain, or one a
    subdomain of the other (never a bare top-level domain).

    >>> domains_aligned("mail.example.org", "example.org"), domains_aligned("evil.org", "example.org")
    (True, False)
    """  # noqa: E501
    if not domain or not from_domain or "." not in domain or "." not in from_domain:
        return False
    return (
        domain == from_domain
        or from_domain.endswith("." + domain)
        or domain.endswith("." + from_domain)
    )


def authentication_verdict(
    message: EmailMessage,
    *,
    from_address: str,
    required: bool | None = None,
    authserv_ids: list[str] | None = None,
) -> AuthVerdict:
    """Whether the receiving mail server vouches for ``from_address``.

    Only the topmost ``Authentication-Results`` header whose authserv-id is the league's own
    server (``MAIL_AUTHSERV_ID``) counts: that server adds it on top of what the sender wrote,
    so a header forged by the sender is below it, or carries another id. The message is trusted
    when it shows ``dmarc=pass`` for the ``From`` domain, or ``dkim=pass`` (``header.d``) or
    ``spf=pass`` (``smtp.mailfrom``) for a domain aligned with it — unless DMARC failed.
    ``MAIL_AUTH_REQUIRED=0`` turns the check off for a mail server that adds no such header.
    """
    required = settings.MAIL_AUTH_REQUIRED if required is None else required
    if not required:
        return AuthVerdict(True, "sender authentication not required (MAIL_AUTH_REQUIRED=0)")
    ids = {i.lower() for i in (settings.MAIL_AUTHSERV_ID if authserv_ids is None else authserv_ids)}
    if not ids:
        return AuthVerdict(False, "MAIL_AUTHSERV_ID is not set: no mail server is trusted")
    from_domain = _domain(from_address)
    for header in _headers(message, "Authentication-Results"):
        server, results = authentication_results(str(header))
        if server in ids:
            return _verdict(results, from_domain, server)
    return AuthVerdict(False, f"no Authentication-Results from {', '.join(sorted(ids))}")


def _verdict(results: list[AuthResult], from_domain: str, server: str) -> AuthVerdict:
    seen = ", ".join(f"{r.method}={r.result}" for r in results) or "no results"
    if any(r.method == "dmarc" and r.result == "fail" for r in results):
        return AuthVerdict(False, f"{server}: DMARC failed ({seen})")
    for r in results:
        if r.result != "pass":
            continue
        if r.method == "dmarc":
            domain = _domain(r.properties.get("header.from", from_domain))
            if domain == from_domain:
                return AuthVerdict(True, f"{server}: dmarc=pass for {from_domain}")
        elif r.method == "dkim":
            domain = _domain(r.properties.get("header.d") or r.properties.get("header.i", ""))
            if domains_aligned(domain, from_domain):
                return AuthVerdict(True, f"{server}: dkim=pass for {domain}")
        elif r.method == "spf":
            domain = _domain(r.properties.get("smtp.mailfrom", ""))
            if domains_aligned(domain, from_domain):
                return AuthVerdict(True, f"{server}: spf=pass for {domain}")
    return AuthVerdict(False, f"{server}: nothing passed for {from_domain} ({seen})")


# --- The IMAP mailbox -----------------------------------------------------------------------------

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
        self, connection: imaplib.IMAP4, processed_folder: str, capabilities: frozenset[str]
    ) -> None:
        self.connection = connection
        self.processed_folder = processed_folder
        self.capabilities = capabilities

    def _ok(self, what: str, response: tuple[str, list[object]]) -> list[object]:
        status, data = response
        if status != "OK":
            raise MailboxError(f"IMAP {what} failed: {data!r}")
        return data

    def unseen(self) -> Iterator[MailboxMessage]:
        """Every message not yet marked ``\\Seen``, oldest first, without marking it (PEEK)."""
        data = self._ok("SEARCH UNSEEN", self.connection.uid("SEARCH", None, "UNSEEN"))
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
        if not self.processed_folder:
            return
        folder = _quoted(self.processed_folder)
        if "MOVE" in self.capabilities:
            self._ok("MOVE", self.connection.uid("MOVE", message.uid, folder))
            return
        self._ok("COPY", self.connection.uid("COPY", message.uid, folder))
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
            box = Mailbox(connection, settings.IMAP_PROCESSED_FOLDER, frozenset(words))
            if box.processed_folder:
                connection.create(_quoted(box.processed_folder))  # "already exists" is fine
            box._ok("SELECT", connection.select(_quoted(settings.IMAP_FOLDER)))
        except (OSError, imaplib.IMAP4.error) as error:
            raise MailboxError(f"{host}:{port}: {error}") from error
        yield box
    finally:
        try:
            connection.logout()
        except (OSError, imaplib.IMAP4.error):
            logger.warning("IMAP logout from %s failed", host)
