"""Whether the league may believe a message's ``From``: the ``Authentication-Results`` header
(RFC 8601) that the league's own receiving mail server adds, read with the ``authres`` library.

The league's server (its authserv-id is ``MAIL_AUTHSERV_ID``) checks SPF, DKIM and DMARC and
writes what it found on top of the message, above the ``Received`` header it added when the
message came in (RFC 8601 §5: both are trace headers, prepended in order). Everything below that
``Received`` header was written by the sender or by servers on the way, whatever authserv-id it
claims, and is never read: when the league's server adds no header of its own, a sender's
header is no stand-in for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import EmailMessage

import authres
import authres.core
from django.conf import settings

from mail.inbound import printable, raw_header_items


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


AUTHENTICATION_RESULTS_CHARS = 8 * 1024
"""The longest ``Authentication-Results`` value read (the league's server writes a few hundred
characters; the parser's time grows with the square of the length)."""
_AUTHSERV_ID = re.compile(r"\s*(?:\([^()]*\)\s*)*([^\s;()]+)")


class AuthenticationResultsUnreadable(ValueError):
    """An ``Authentication-Results`` value that does not read as RFC 8601 (the reason why)."""


class _StrictHeader(authres.core.AuthenticationResultsHeader):
    """``authres``'s header, strict: by default the library skips a property it cannot read
    and reads on from wherever that left it, so that ``smtp.mailfrom="x"y;dmarc=pass …`` would
    end the ``spf`` result at the ``;`` and start a ``dmarc=pass`` one. Strict, it refuses."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.strict = True


def authentication_results(value: str) -> tuple[str, list[AuthResult]]:
    """The authserv-id and the results of one (unfolded) ``Authentication-Results`` value, read
    by the ``authres`` library's RFC 8601 parser: comments and quoted strings are what the RFC
    says they are, so a ``;`` inside ``"…"`` starts no result. Raises
    :class:`AuthenticationResultsUnreadable` for a value that is not RFC 8601.

    >>> server, results = authentication_results(
    ...     "mx.example.org; spf=pass (ok) smtp.mailfrom=a@example.org; dkim=none")
    >>> server, [(r.method, r.result, r.properties) for r in results]
    ('mx.example.org', [('spf', 'pass', {'smtp.mailfrom': 'a@example.org'}), ('dkim', 'none', {})])
    >>> authentication_results('mx.example.org; spf=none smtp.mailfrom="x;dmarc=pass"')[1]
    [AuthResult(method='spf', result='none', properties={'smtp.mailfrom': 'x;dmarc=pass'})]
    """
    if len(value) > AUTHENTICATION_RESULTS_CHARS:
        raise AuthenticationResultsUnreadable(f"over {AUTHENTICATION_RESULTS_CHARS} characters")
    try:
        header = _StrictHeader.parse_value(authres.all_features(), value)
    except (authres.AuthResError, RecursionError) as error:
        # The library quotes what it could not read: the sender's bytes, NUL included.
        why = printable(str(error) or type(error).__name__)
        raise AuthenticationResultsUnreadable(why) from error
    results = [
        AuthResult(
            str(result.method).lower(),
            str(result.result).lower(),
            {f"{p.type}.{p.name}".lower(): str(p.value) for p in result.properties},
        )
        for result in header.results
    ]
    return str(header.authserv_id).lower(), results


_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)*")
_RESULTS = "authentication-results"


def _domain(value: str) -> str:
    """The domain of an address or a domain, lower case; empty when it is no domain name."""
    domain = value.rpartition("@")[2].strip().strip(".").lower()
    return domain if _DOMAIN.fullmatch(domain) else ""


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


def league_results(message: EmailMessage, *, received_above: int) -> tuple[list[str], int]:
    """The ``Authentication-Results`` values the league's servers may have written, top first:
    those above the ``Received`` header the league's server added when the message came in —
    the message's ``received_above + 1``-th from the top (the league's own hops after the check
    add ``received_above`` more on top). None when the message has no such ``Received`` header:
    nothing then shows where the sender's part begins. Also how many lie below it (the sender's,
    or servers' on the way), for the reason given.

    >>> raw = (b"Authentication-Results: mx; dmarc=pass\\nReceived: by mx; Wed, 4 Mar 2026\\n"
    ...        b"Authentication-Results: mx; forged\\n\\n")
    >>> from mail.inbound import message_parse
    >>> league_results(message_parse(raw), received_above=0)
    (['mx; dmarc=pass'], 1)
    """
    items = raw_header_items(message)
    received = [index for index, (name, _value) in enumerate(items) if name == "received"]
    border = received[received_above] if len(received) > received_above else 0
    results = [(index, value) for index, (name, value) in enumerate(items) if name == _RESULTS]
    above = [value for index, value in results if index < border]
    return above, len(results) - len(above)


def authentication_verdict(
    message: EmailMessage,
    *,
    from_address: str,
    required: bool | None = None,
    authserv_ids: list[str] | None = None,
    received_above: int | None = None,
) -> AuthVerdict:
    """Whether the receiving mail server vouches for ``from_address``.

    Only the ``Authentication-Results`` headers above the ``Received`` header of the league's
    server are read (:func:`league_results`; ``MAIL_AUTH_RECEIVED_ABOVE`` counts the league's
    own hops above it), and of those the topmost whose authserv-id is the league's server's
    (``MAIL_AUTHSERV_ID``). The message is trusted when it shows ``dmarc=pass`` for the ``From``
    domain, or ``dkim=pass`` (``header.d``) or ``spf=pass`` (``smtp.mailfrom``) for a domain
    aligned with it — unless DMARC failed. That header is read as written (no encoded word
    decoded) by an RFC 8601 parser; one that does not read trusts nobody, and never lets a
    lower header speak instead. ``MAIL_AUTH_REQUIRED=0`` turns the check off for a mail server
    that adds no such header.
    """
    required = settings.MAIL_AUTH_REQUIRED if required is None else required
    if not required:
        return AuthVerdict(True, "sender authentication not required (MAIL_AUTH_REQUIRED=0)")
    ids = {i.lower() for i in (settings.MAIL_AUTHSERV_ID if authserv_ids is None else authserv_ids)}
    if not ids:
        return AuthVerdict(False, "MAIL_AUTHSERV_ID is not set: no mail server is trusted")
    if received_above is None:
        received_above = settings.MAIL_AUTH_RECEIVED_ABOVE
    from_domain = _domain(from_address)
    values, below = league_results(message, received_above=received_above)
    for value in values:
        claimed = _AUTHSERV_ID.match(value)
        if claimed is None or claimed.group(1).lower() not in ids:
            continue  # another server's: not read at all
        server = claimed.group(1).lower()
        try:
            parsed, results = authentication_results(value)
        except AuthenticationResultsUnreadable as error:
            return AuthVerdict(False, f"{server}: Authentication-Results unreadable ({error})")
        if parsed != server:
            return AuthVerdict(False, f"{server}: Authentication-Results unreadable ({parsed})")
        return _verdict(results, from_domain, server)
    servers = ", ".join(sorted(ids))
    if below:
        # Whatever id they claim, these were in the message before the league's server got it.
        return AuthVerdict(
            False,
            f"no Authentication-Results from {servers} above its Received header; "
            f"{below} below it, in the message before that server got it: not read",
        )
    return AuthVerdict(False, f"no Authentication-Results from {servers}")


def _verdict(results: list[AuthResult], from_domain: str, server: str) -> AuthVerdict:
    seen = ", ".join(f"{r.method}={r.result}" for r in results) or "no results"
    if any(r.method == "dmarc" and r.result == "fail" for r in results):
        return AuthVerdict(False, f"{server}: DMARC failed ({seen})")
    for r in results:
        if r.result != "pass":
            continue
        if r.method == "dmarc":
            # DMARC's pass is for the domain it names (RFC 7489 §11.2): one that names none
            # vouches for nothing.
            domain = _domain(r.properties.get("header.from", ""))
            if domain and domain == from_domain:
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
