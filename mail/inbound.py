"""Picks by email, the game's roots: reading a message and what a coach wrote in it.

This module reads; it writes nothing to the database. :func:`mail.intake.email_ingest`
stores what it finds (through ``pick_submit``), and ``manage.py ingest_email`` /
``manage.py fetch_email_picks`` feed it one message from standard input or every unseen message
of the IMAP mailbox (:mod:`mail.mailbox`). Whether to believe the sender is
:mod:`mail.authentication`'s business, whether to read it at all :mod:`mail.limits`'s (a
message over a limit is read for its headers only). Whatever the bytes, reading them raises
nothing: text that is no text (a NUL byte, 8-bit bytes that do not decode) comes out as U+FFFD
(:func:`printable`).

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
import itertools
import logging
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.headerregistry import AddressHeader
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser

from competitions.services.errors import PickFault

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
    error: PickFault | None = None
    """Why the line cannot be submitted (worded with :data:`LINE_FACTS`), or ``None``."""


LINE_FACTS = {"example": "Championnat : F+(2)"}
"""What a line's error (:attr:`PickLine.error`) is worded with: how to write a pick line."""


_NOT_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
"""Control characters (a NUL byte…) other than tab and line feed, and lone surrogates (bytes
that decoded to nothing): no text a person wrote, and nothing PostgreSQL or an email takes."""


def printable(text: str) -> str:
    """``text`` safe to store and to send back: each control character or undecodable byte
    becomes U+FFFD (the replacement character).

    >>> printable("F+(2)\\x00")
    'F+(2)\ufffd'
    """
    return _NOT_TEXT.sub("\ufffd", text)


def without_accents(text: str) -> str:
    """``text`` without its accents (« Résultats » is « Resultats »)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_without_accents = without_accents

_COMPETITION_PREFIX = re.compile(
    r"^\s*(?:"
    + "|".join(f"(?P<{key}>{pattern})" for key, pattern in _COMPETITION_LABELS)
    + r")(?![a-z0-9])(?P<rest>.*)$",
    re.IGNORECASE,
)


def competition_prefix(text: str) -> tuple[str, str] | None:
    """The competition ``text`` starts with (as a pick line names it: « KDH », « coupe WG »,
    « Championship »…, accents free) and the text after it; ``None`` when it names none.

    >>> competition_prefix("Coupe KDH J2")
    ('kdh', ' J2')
    """
    match = _COMPETITION_PREFIX.match(without_accents(text))
    if match is None:
        return None
    competition = next(key for key, _pattern in _COMPETITION_LABELS if match.group(key))
    return competition, match.group("rest")


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` without accents, to recognise a competition's name however it is written, and
    for each of its characters the index in ``text`` it comes from (plus the end of ``text``),
    to take the pick itself from ``text`` as written: the notation's case folding is the
    engine's (R10), and compatibility forms are no letters of it (« ſ » is not « s »)."""
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        for part in unicodedata.normalize("NFKD", char):
            if not unicodedata.combining(part):
                chars.append(part)
                origin.append(index)
    origin.append(len(text))
    return "".join(chars), origin


def pick_line(text: str) -> PickLine | None:
    """Read one line: ``None`` when it does not start with a competition's name.

    >>> pick_line("- Coupe KDH J2 = c+(1)(4)")
    PickLine(text='- Coupe KDH J2 = c+(1)(4)', competition='kdh', round_number=2, notation='c+(1)(4)', error=None)
    >>> pick_line("Je joue le championnat") is None
    True
    """  # noqa: E501
    stripped = text.strip()
    if not _LINE.match(_without_accents(stripped)):  # most lines: found out at C speed
        return None
    folded, origin = _folded(stripped)
    match = _LINE.match(folded)
    if match is None:
        return None
    competition = next(key for key, _pattern in _COMPETITION_LABELS if match.group(key))
    rest = _REST.match(match.group("rest"))
    assert rest is not None  # every group of _REST is optional
    number = int(rest.group("number")) if rest.group("number") else None
    notation = stripped[origin[match.start("rest") + rest.start("notation")] :].strip()
    error = None
    if _NOT_TEXT.search(stripped):
        error = PickFault.NOT_TEXT
    elif number is not None and number < 1:
        error = PickFault.ROUND_ZERO
    elif not notation:
        error = PickFault.NO_PICK
    elif rest.group("separator") is None and not number and not _BARE_PICK.match(rest["notation"]):
        # "Championnat prochain…" is a sentence, not a pick line; "KDH C(1)(4)" (no colon) and
        # "Championnat F+" (a broken pick) are pick lines.
        return None
    return PickLine(
        text=printable(stripped),
        competition=competition,
        round_number=number,
        notation=printable(notation),
        error=error,
    )


_SIGNATURE = re.compile(r"^--\s?$")
_FORWARD_OR_OUTLOOK_QUOTE = re.compile(
    r"^\s*(?:-{3,}\s*(?:original message|message d'origine|forwarded message|message transfere)"
    r"\s*-{3,}|_{10,})\s*$",
    re.IGNORECASE,
)


_ATTRIBUTION = re.compile(r"(?:wrote|a ecrit)\s*:\s*$", re.IGNORECASE)
"""The end of the line a mail client writes above what it quotes (« On …, X wrote: », « Le …,
X a écrit : »): the client's words, not the sender's."""

_ATTRIBUTION_START = re.compile(r"^\s*(?:on|le)\s", re.IGNORECASE)


def own_text(body: str) -> list[str]:
    """The lines the sender wrote: no quoted lines (``>``), no mail client's attribution line
    above a quote (a long one it wrapped in two included), nothing after a signature (``-- ``)
    or an Outlook-style "Original Message" separator.

    >>> own_text("Championnat : F(1)\\n> Championnat : A(0)\\n-- \\nJean\\nKDH : B(1)(2)")
    ['Championnat : F(1)']
    >>> own_text("KDH : B(1)\\nLe mer. 25 nov. à 08:00, Ligue <\\nligue@example.org> a écrit :")
    ['KDH : B(1)']
    """
    return list(_own_lines(body))


def _own_lines(body: str) -> Iterator[str]:
    held: str | None = None  # a line that may be the first half of a wrapped attribution
    for line in body.splitlines():
        if _SIGNATURE.match(line) or _separates(line):
            break
        if line.lstrip().startswith(">"):
            continue
        if ("rit" in line or "rote" in line) and _ATTRIBUTION.search(_without_accents(line)):
            if not _ATTRIBUTION_START.match(line):
                held = None  # the attribution's first half, when the client wrapped it
            continue
        if held is not None:
            yield held
        held = line if _ATTRIBUTION_START.match(line) else None
        if held is None:
            yield line
    if held is not None:
        yield held


def _separates(line: str) -> bool:
    # The separators are dashes or underscores in a row: most lines are out at a glance.
    return ("---" in line or "_" * 10 in line) and bool(
        _FORWARD_OR_OUTLOOK_QUOTE.match(_without_accents(line))
    )


def pick_lines(body: str, *, limit: int | None = None) -> list[PickLine]:
    """Every pick line of a message's text, in order (quoted text and signature left out); no
    more than ``limit`` when one is given (the rest is not read)."""
    lines = (line for text in _own_lines(body) if (line := pick_line(text)) is not None)
    return list(itertools.islice(lines, limit))


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


def raw_header_items(message: EmailMessage) -> list[tuple[str, str]]:
    """Every header of ``message``, top first, as its name in lower case and its value as the
    message carries it, unfolded: no RFC 2047 encoded word decoded (``=?…?=`` is no ``;`` in an
    ``Authentication-Results``), bytes that are not ASCII kept as lone surrogates."""
    return [(key.lower(), _FOLD.sub("", str(value)).strip()) for key, value in message.raw_items()]


def raw_headers(message: EmailMessage, name: str) -> list[str]:
    """Every ``name`` header as the message carries it (:func:`raw_header_items`), top
    first."""
    wanted = name.lower()
    return [value for key, value in raw_header_items(message) if key == wanted]


_FOLD = re.compile(r"\r?\n(?=[ \t])|\r|\n")


def header_text(message: EmailMessage, name: str) -> str:
    """The decoded value of header ``name`` (empty when it is missing or does not read)."""
    try:
        value = message.get(name)
    except (ValueError, IndexError, TypeError, AttributeError):  # a header the parser cannot read
        return ""
    return "" if value is None else str(value).strip()


def _headers(message: EmailMessage, name: str) -> list[object]:
    try:
        return list(message.get_all(name) or [])
    except (ValueError, IndexError, TypeError, AttributeError):  # an encoded word hiding a CRLF
        return []


def message_id(message: EmailMessage, raw: bytes) -> str:
    """The ``Message-ID`` as written; for a message without one, a stable id made from its
    bytes, and for one that is not printable ASCII (8-bit bytes), one made from the id's bytes.

    >>> message_id(message_parse(b"Message-ID: <caf\\xc3\\xa9@example.org>\\n\\n"), b"")[-30:]
    '@message-id-not-ascii.invalid>'
    """
    # No spaces or control characters: the id goes back out in the reply's In-Reply-To.
    value = re.sub(r"[\x00-\x20\x7f]", "", "".join(raw_headers(message, "Message-ID")[:1]))
    if value and value.isascii():
        return value[:998]
    if value:
        written = value.encode("utf-8", "surrogateescape")
        return f"<sha256-{hashlib.sha256(written).hexdigest()}@message-id-not-ascii.invalid>"
    return f"<sha256-{hashlib.sha256(raw).hexdigest()}@message-without-id.invalid>"


def message_subject(message: EmailMessage) -> str:
    return printable(" ".join(header_text(message, "Subject").split()))[:200]


def _address(addr_spec: str) -> str | None:
    """``addr_spec`` in lower case, or ``None`` when it is no address: no ``@``, spaces or
    control characters (decoded from an encoded word), 8-bit bytes that are not UTF-8."""
    try:
        address = addr_spec.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeError:
        return None
    if "@" not in address or re.search(r"[\x00-\x20\x7f]", address):
        return None
    return address.lower()


def sender_addresses(message: EmailMessage) -> list[str]:
    """Every address of every ``From`` header, in lower case (``Reply-To`` does not count).

    A message whose identity is clear has exactly one; several (or a second ``From`` header) is
    a trick that the league refuses. A ``From`` that does not read gives no address.
    """
    addresses: list[str] = []
    for header in _headers(message, "From"):
        if not isinstance(header, AddressHeader):  # a From that does not parse as addresses
            continue
        try:
            found = [a.addr_spec for a in header.addresses]
        except (AttributeError, ValueError, IndexError, TypeError):
            continue
        # Two From headers are two claims, even when they name the same address.
        addresses.extend(address for spec in found if (address := _address(spec)) is not None)
    return addresses


def sender_name(message: EmailMessage) -> str:
    """The name the ``From`` header gives its address (« Jean Dupont »), printable, or empty."""
    for header in _headers(message, "From"):
        if not isinstance(header, AddressHeader):
            continue
        try:
            names = [a.display_name for a in header.addresses]
        except (AttributeError, ValueError, IndexError, TypeError):
            continue
        return printable(" ".join((names[0] if names else "").split()))[:150]
    return ""


def from_header_count(message: EmailMessage) -> int:
    """How many ``From`` headers ``message`` has, whether or not they read: a second one is a
    second claim of identity, even when the first gives no address."""
    return len(_headers(message, "From"))


def automatic_reason(message: EmailMessage) -> str | None:
    """Why ``message`` was written by a machine (auto-reply, bounce, list), or ``None``.

    The league never answers those (RFC 3834), so that two robots cannot talk forever.
    """
    auto = header_text(message, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = header_text(message, "Precedence").lower()
    if precedence in {"bulk", "junk", "list", "auto_reply"}:
        return f"Precedence: {precedence}"
    for name in ("X-Autoreply", "X-Autorespond", "List-Id"):
        if header_text(message, name):
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
    """When the league's mail server received ``message``: the date of the topmost
    ``Received`` header, the one that server added on top of the others, or ``None`` when it
    has none that reads. Never a lower one: those, like ``Date``, are the sender's claims (a
    late pick could be backdated). A ``-0000`` zone (or an obsolete one the parser does not
    know) is UTC, as RFC 5322 (§3.3, §4.3) says.

    >>> received_time(message_parse(b"Received: by mx; Sat, 7 Mar 2026 09:12:44 -0000\\n\\n"))
    datetime.datetime(2026, 3, 7, 9, 12, 44, tzinfo=datetime.timezone.utc)
    """
    topmost = raw_headers(message, "Received")[:1]
    if not topmost:
        return None
    _, _, stamp = topmost[0].rpartition(";")
    try:
        when = parsedate_to_datetime(stamp.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
