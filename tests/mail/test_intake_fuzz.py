"""Fuzzing :func:`mail.intake.email_ingest`: whatever bytes arrive, it raises nothing, records
the message once as an :class:`InboundEmail`, and stores only text PostgreSQL and an email take.

Two kinds of input: random bytes, and messages built to look real — the league's coach, its
server's headers — with hostile parts (NUL and 8-bit bytes, malformed addresses and dates,
lookalike letters in the picks, charsets that lie, MIME nested past the limit).
"""

from __future__ import annotations

from itertools import count

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pytest_django.fixtures import Settings

from competitions.models import LatePick, Pick
from mail.intake import EMAIL_DUPLICATE, email_ingest
from mail.models import InboundEmail, OutboundEmail
from mail.outbox import emails_send_due
from tests.mail.test_ingest_email import AUTHSERV_ID, COACH, EmailLeague, league

__all__ = ["league"]  # the fixture, shared with test_ingest_email

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

nasty_bytes = st.sampled_from(
    [b"\x00", b"\xe9", b"\xff\xfe", b"\r", b"\n ", b"=?utf-8?q?=00?=", b";", b'"', b"(", b"\\"]
)
header_values = st.lists(
    st.binary(max_size=12) | nasty_bytes | st.sampled_from([COACH.encode(), b"<a@b>"]),
    max_size=5,
).map(b"".join)
senders = (
    st.sampled_from(
        [COACH.encode(), b"Jean <" + COACH.encode() + b">", b"Jean \xe9 <" + COACH.encode() + b">"]
    )
    | header_values
)
received = (
    st.sampled_from(
        [b"Wed, 4 Mar 2026 10:15:02 +0100", b"Sat, 7 Mar 2026 08:12:44 -0000", b"never", b""]
    )
    | header_values
)
results = st.sampled_from(
    [
        f"{AUTHSERV_ID}; dkim=pass header.d=example.org".encode(),
        f'{AUTHSERV_ID}; spf=pass smtp.mailfrom="x;dmarc=pass header.from=example.org"'.encode(),
        f"{AUTHSERV_ID}; dmarc=pass header.from=example.org (".encode(),
        AUTHSERV_ID.encode() + b"; " + b"(" * 2000,
    ]
) | header_values.map(lambda value: AUTHSERV_ID.encode() + b"; " + value)
labels = st.sampled_from(["Championnat", "KDH", "WG J1", "Championship round 2", "Coupe WG"])
notations = st.text(
    alphabet="ABCDEFGHIJKabcxX+#()0123456 \u0131\u017f\u212a\u00e9\ufb00\x00\ufffd", max_size=10
)
pick_lines = st.builds("{} : {}".format, labels, notations)
command_words = st.sampled_from(
    [
        "AIDE",
        "help",
        "Résultats",
        "RESULTATS",
        "re\u0301sultats",
        "classement",
        "Standings",
        "- ordres",
        "PICKS",
        "matrice",
        "Matrix",
        "infos",
        "ADJOINT",
        "deputy",
        "LISTE",
        "join",
    ]
)
command_args = st.text(
    alphabet="abcdeKDHWGJ0123456789 éÉ@.-:()\x00\ufffd\u0131\u212a", max_size=24
) | st.sampled_from(["KDH J2", "wg", "aucun", "NONE", "championnat 999", "elite", "J0"])
command_lines = st.builds("{} {}".format, command_words, command_args)
body_lines = st.lists(pick_lines | command_lines | st.text(max_size=30), max_size=12).map("\n".join)
charsets = st.sampled_from(["utf-8", "iso-8859-1", "us-ascii", "x-unknown", "utf-16"])


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    """A message shaped like one the league's server delivers, hostile in its details."""
    body = draw(body_lines).encode(draw(st.sampled_from(["utf-8", "latin-1"])), "replace")
    content = b"Content-Type: text/plain; charset=" + draw(charsets).encode() + b"\n\n" + body
    depth = draw(st.integers(0, 14))
    for level in range(depth):
        boundary = b"b%d" % level
        content = (
            b"Content-Type: multipart/mixed; boundary="
            + boundary
            + b"\n\n--"
            + boundary
            + b"\n"
            + content
            + b"\n--"
            + boundary
            + b"--\n"
        )
    headers = [
        b"Authentication-Results: " + draw(results),
        b"Received: from x by " + AUTHSERV_ID.encode() + b"; " + draw(received),
        b"Received: by mail.example.org; Fri, 6 Mar 2026 16:58:00 +0100",
        b"From: " + draw(senders),
        b"Subject: " + draw(header_values),
        b"Message-ID: " + draw(header_values | st.just(b"<fuzz@example.org>")),
    ]
    extra = draw(st.lists(st.sampled_from([b"From: other@example.org", b"Auto-Submitted: no"])))
    return b"\n".join(headers + extra) + b"\n" + content


def ingested_cleanly(raw: bytes) -> None:
    result = email_ingest(raw=raw)
    if result.outcome == EMAIL_DUPLICATE:
        return
    row = InboundEmail.objects.get(message_id=result.message_id)
    assert row.outcome == result.outcome
    for text in (row.message_id, row.sender, row.subject, row.reason, str(row.report)):
        assert "\x00" not in text
    assert row.message_id.isascii() and row.message_id.isprintable()


@pytest.mark.django_db
@FUZZ
@given(raw=st.binary(max_size=3000))
def test_random_bytes_never_raise(league: EmailLeague, raw: bytes) -> None:
    ingested_cleanly(raw)


@pytest.mark.django_db
@FUZZ
@given(raw=messages())
def test_hostile_messages_never_raise_and_store_only_what_reads(
    league: EmailLeague, raw: bytes
) -> None:
    ingested_cleanly(raw)
    for pick in Pick.objects.all():
        assert pick.normalized.isascii()
    for late in LatePick.objects.all():
        assert "\x00" not in late.notation
    for email in OutboundEmail.objects.all():
        assert email.to == [COACH] and "\x00" not in email.body_text


_command_ids = count(1)


@pytest.mark.django_db
@FUZZ
@given(body=st.lists(command_lines | pick_lines | st.text(max_size=30), max_size=12))
@example(body=["AIDE", "ordres", "classement", "RÉSULTATS KDH", "matrice wg", "infos", "Bonjour"])
@example(body=["help", "PICKS", "STANDINGS kdh", "results", "MATRIX", "DEPUTY x@example.org"])
@example(body=["Championnat : F+(2)", "ADJOINT AUCUN", "LISTE Les Élans", "STANDINGS nowhere"])
def test_hostile_commands_are_answered_in_one_reply_that_renders(
    league: EmailLeague, settings: Settings, body: list[str]
) -> None:
    """A coach's message of commands, whatever their arguments: recorded once, answered by one
    reply to the coach that renders and is sent (no answer that breaks the worker), with no
    text an email does not take."""
    settings.MAIL_MAX_COMMAND_MESSAGES = 10**6
    raw = (
        f"Authentication-Results: {AUTHSERV_ID}; spf=pass smtp.mailfrom={COACH};"
        " dkim=pass header.d=example.org; dmarc=pass header.from=example.org\n"
        f"Received: from x by {AUTHSERV_ID}; Wed, 4 Mar 2026 10:15:02 +0100\n"
        f"From: {COACH}\nSubject: commandes\nMessage-ID: <cmd-{next(_command_ids)}@example.org>\n"
        "Content-Type: text/plain; charset=utf-8\n\n" + "\n".join(body)
    ).encode("utf-8", "surrogatepass")
    ingested_cleanly(raw)
    emails_send_due()
    for email in OutboundEmail.objects.all():
        assert email.status == OutboundEmail.Status.SENT, email.last_error
        assert email.to == [COACH] and "\x00" not in email.body_text
