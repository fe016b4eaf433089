"""Reading a message of picks within the league's limits (the ``MAIL_MAX_*`` settings, the
header section, the headers the league decodes), checked while the standard parser reads it:
a message over one is refused before it is read whole, and read for its headers only.

:mod:`mail.inbound` reads what a message says; this module decides whether it is read at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import policy
from email.feedparser import BytesFeedParser
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import Policy
from typing import Self

HEADER_BYTES = 256 * 1024
"""The largest header section read (a refused message is read for its first ``HEADER_BYTES``
only: who sent it, its Message-ID)."""

FEED_BYTES = 64 * 1024
"""How much of a message the parser is fed at a time."""

READ_HEADER_CHARS = 8 * 1024
"""The longest value of a header the league decodes (:data:`READ_HEADERS`): a ``From`` or a
``Subject`` is a few hundred characters, and the standard parser's time grows with the square
of the number of encoded words (280 KB of them in a ``Subject``: 8 s)."""

COMMENT_DEPTH = 32
"""How deep comments may nest in a header the league decodes: the standard parser recurses once
per level, and a ``From`` 500 deep ends it with a ``RecursionError``."""

READ_HEADERS = frozenset(
    {
        "from",
        "subject",
        "return-path",
        "auto-submitted",
        "precedence",
        "x-autoreply",
        "x-autorespond",
        "list-id",
        "content-type",
        "content-disposition",
        "content-transfer-encoding",
        "content-language",
    }
)
"""The headers the league decodes with the standard parser (any part's ``Content-*`` among
them); the others (``Received``, ``Authentication-Results``, ``Message-ID``…) are read as
written, or not at all (``To``, ``Cc``, ``Reply-To``…)."""


@dataclass(frozen=True)
class MessageRead:
    """A message read within the limits, or its headers and why the league reads no further."""

    message: EmailMessage
    refusal: str = ""
    """Which limit the message is over (size, header section, MIME depth or parts, a header too
    long or nested too deep), or empty."""


class _OverLimit(Exception):
    """The parsing stopped at a limit (the limit's words)."""


class _Shape:
    """The parser's message factory: counts the parts as the parser makes them and stops the
    parsing with :class:`_OverLimit` at the first one over ``max_parts`` or nested deeper than
    ``max_depth`` — before the rest is read at all."""

    def __init__(self, *, max_parts: int, max_depth: int) -> None:
        self.max_parts = max_parts
        self.max_depth = max_depth
        self.parts = 0

    def __call__(self, policy: Policy) -> EmailMessage:
        self.parts += 1
        if self.parts > self.max_parts:
            raise _OverLimit(f"over {self.max_parts} MIME parts (MAIL_MAX_MIME_PARTS)")
        return _Part(policy=policy, shape=self)


class _Part(EmailMessage):
    """A part made by :class:`_Shape`, which knows how deep it is (the parser attaches each
    part to its parent as soon as it makes it) and refuses a header the league decodes that is
    over its limits as the parser sets it, before anything decodes it (the parser itself reads
    each part's ``Content-Type``)."""

    depth = 0

    def __init__(self, *, policy: Policy, shape: _Shape) -> None:
        super().__init__(policy=policy)
        self.shape = shape

    def attach(self, payload: Self) -> None:  # type: ignore[override]  # narrowed as typeshed's MIMEPart
        payload.depth = self.depth + 1
        if payload.depth > self.shape.max_depth:
            raise _OverLimit(
                f"MIME parts nested too deep: over {self.shape.max_depth} (MAIL_MAX_MIME_DEPTH)"
            )
        super().attach(payload)

    def set_raw(self, name: str, value: str) -> None:
        if name.lower() in READ_HEADERS:
            _header_within_limits(name, value)
        super().set_raw(name, value)


def message_read(
    raw: bytes, *, max_bytes: int, max_mime_depth: int, max_mime_parts: int
) -> MessageRead:
    """Read ``raw`` within the limits of the ``MAIL_MAX_*`` settings: a message over
    ``max_bytes``, whose header section is over :data:`HEADER_BYTES`, whose MIME parts number
    more than ``max_mime_parts`` or nest deeper than ``max_mime_depth``, or with a header the
    league decodes longer than :data:`READ_HEADER_CHARS` or with comments nested deeper than
    :data:`COMMENT_DEPTH`, is refused, read for its headers only. The parts are counted as the
    parser makes them: the parsing stops at the first one over the limit, so a message of a
    million empty parts costs what 200 parts do.

    >>> read = message_read(b"From: a@example.org\\n\\nhi\\n", max_bytes=10, max_mime_depth=1,
    ...                     max_mime_parts=1)
    >>> read.refusal, read.message["From"]
    ('message of 24 bytes, over the limit of 10 (MAIL_MAX_BYTES)', 'a@example.org')
    """
    if len(raw) > max_bytes:
        return MessageRead(
            _headers_only(raw),
            f"message of {len(raw)} bytes, over the limit of {max_bytes} (MAIL_MAX_BYTES)",
        )
    if _header_section_end(raw) > HEADER_BYTES:
        return MessageRead(_headers_only(raw), f"header section over {HEADER_BYTES} bytes")
    shape = _Shape(max_parts=max_mime_parts, max_depth=max_mime_depth)
    parser = BytesFeedParser(policy=policy.default.clone(message_factory=shape))
    try:
        # Fed a chunk at a time, the parser stops at a limit before the rest is even split
        # into lines.
        for start in range(0, len(raw), FEED_BYTES):
            parser.feed(raw[start : start + FEED_BYTES])
        message = parser.close()
    except _OverLimit as limit:
        return MessageRead(_headers_only(raw), str(limit))
    except RecursionError:  # MAIL_MAX_MIME_DEPTH's 100 under a call stack already deep
        return MessageRead(_headers_only(raw), "MIME parts nested too deep to be read")
    assert isinstance(message, EmailMessage)
    return MessageRead(message)


def _header_section_end(raw: bytes) -> int:
    """Where the header section of ``raw`` ends (the first empty line), looked for no further
    than just past :data:`HEADER_BYTES`."""
    end = re.search(rb"\r?\n\r?\n", raw[: HEADER_BYTES + 4])
    return end.start() if end else min(len(raw), HEADER_BYTES + 1)


def _headers_only(raw: bytes) -> EmailMessage:
    """The headers of ``raw`` (its first :data:`HEADER_BYTES`), without those the league
    decodes that are over their limits: a refused message is still read for who sent it and
    its subject, and that reading must not cost what the refusal saved."""
    head = raw[:HEADER_BYTES]
    end = re.search(rb"\r?\n\r?\n", head)
    message = BytesParser(policy=policy.default).parsebytes(
        head[: end.start()] if end else head, headersonly=True
    )
    assert isinstance(message, EmailMessage)
    for name, value in message.raw_items():
        if name.lower() in READ_HEADERS:
            try:
                _header_within_limits(name, str(value))
            except _OverLimit:
                del message[name]
    return message


def _header_within_limits(name: str, value: str) -> None:
    if len(value) > READ_HEADER_CHARS:
        raise _OverLimit(f"{name} header of {len(value)} characters, over {READ_HEADER_CHARS}")
    depth = comment_depth(value)
    if depth > COMMENT_DEPTH:
        raise _OverLimit(f"{name} header with comments nested {depth} deep, over {COMMENT_DEPTH}")


def comment_depth(value: str) -> int:
    """How deep the comments of a structured header's value nest (RFC 5322 §3.2.2): a
    parenthesis in a quoted string or after a backslash opens none.

    >>> comment_depth('Jean (the coach (Sleigh Dogs)) <a@example.org>')
    2
    >>> comment_depth('"Jean (not a comment" <a@example.org>')
    0
    """
    depth = deepest = 0
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"' and not depth:
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")" and depth:
            depth -= 1
    return deepest
