"""``manage.py ingest_email`` against hostile messages: forged authentication, a backdated
late pick, bytes the parser chokes on, and messages past the limits. Each case is recorded as an
:class:`InboundEmail` with its outcome — never a traceback — and the valid lines still count.

The league of ``test_ingest_email``: week 1 runs from Monday 2 to Sunday 8 March 2026, its
deadline is Friday 6 March, 17:00 Europe/Paris (R13); the league's server is
``mx.matrixhockey.test``.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from pytest_django.fixtures import Settings

from competitions.models import LatePick, Pick
from mail import intake
from mail.models import InboundEmail, OutboundEmail
from mail.outbox import emails_send_due
from tests.mail.test_ingest_email import AUTHSERV_ID, COACH, EmailLeague, ingest, league

__all__ = ["league"]  # the fixture, shared with test_ingest_email

PARIS = ZoneInfo("Europe/Paris")
PASSED = f"{AUTHSERV_ID}; dkim=pass header.d=example.org; spf=pass smtp.mailfrom={COACH}"
FAILED = f"{AUTHSERV_ID}; spf=softfail smtp.mailfrom=bounce@evil.example; dkim=none"
ON_TIME = "Wed, 4 Mar 2026 10:15:02 +0100"


def email(
    *,
    received: str = ON_TIME,
    below: str = "",
    results: str = PASSED,
    sender: bytes = COACH.encode(),
    message_id: bytes = b"<hardening@mail.example.org>",
    subject: bytes = b"Mes choix",
    body: bytes = b"Championnat : F+(2)\n",
) -> bytes:
    """A message as the league's server delivers it: its ``Authentication-Results`` on top,
    above its own ``Received`` header (and ``below``, the sender's own, under it), then the
    sender's headers."""
    own = f"Received: from mail.example.org by {AUTHSERV_ID} (Postfix); {received}\n"
    senders = f"Received: from [10.0.0.7] by mail.example.org; {below}\n" if below else ""
    head = f"Authentication-Results: {results}\n{own}{senders}".encode()
    return (
        head
        + b"From: "
        + sender
        + b"\nTo: picks@matrixhockey.test\nSubject: "
        + subject
        + b"\nMessage-ID: "
        + message_id
        + b"\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
        + body
    )


def picks() -> list[tuple[str, int, str]]:
    return [
        (p.round.competition, p.round.number, p.normalized)
        for p in Pick.objects.order_by("id").select_related("round")
    ]


def the_inbound() -> InboundEmail:
    return InboundEmail.objects.get()


# --- Authentication-Results: only the league's server, read as RFC 8601 --------------------------


@pytest.mark.parametrize(
    "results",
    [
        f'{AUTHSERV_ID}; spf=softfail smtp.mailfrom="x;dmarc=pass header.from=example.org";'
        " dkim=none; dmarc=none header.from=example.org",
        f"{AUTHSERV_ID}; spf=softfail"
        " smtp.helo==?us-ascii?q?x=3B_dmarc=3Dpass_header.from=3Dexample.org?=;"
        " dkim=none; dmarc=none header.from=example.org",
    ],
    ids=["quoted-semicolon", "encoded-word"],
)
def test_a_pass_hidden_in_a_value_of_the_servers_header_stores_no_pick(
    league: EmailLeague, results: str
) -> None:
    ingest(email(results=results))
    assert picks() == [] and LatePick.objects.count() == 0
    assert the_inbound().outcome == "forged"


def test_an_unreadable_header_of_the_server_is_recorded_with_a_printable_reason(
    league: EmailLeague,
) -> None:
    # The parser quotes what it could not read: here a NUL byte and 8-bit bytes.
    raw = email().replace(PASSED.encode(), f"{AUTHSERV_ID}; dkim=pass (".encode() + b"\x00\xe9")
    ingest(raw)
    assert picks() == []
    row = the_inbound()
    assert row.outcome == "forged" and "unreadable" in row.authentication
    assert row.authentication.isprintable() and row.reason.isprintable()


# --- The time received: the league's server's, never the sender's --------------------------------


@pytest.mark.parametrize(
    ("received", "late_at"),
    [
        # -0000 is UTC (RFC 5322): Saturday 08:12:44 UTC is 09:12:44 in Paris, after the deadline.
        ("Sat, 7 Mar 2026 08:12:44 -0000", datetime(2026, 3, 7, 9, 12, 44, tzinfo=PARIS)),
        ("Saturday morning, I think", None),  # unreadable: the time it is ingested (now)
    ],
    ids=["naive-0000", "unparsable"],
)
def test_a_late_pick_cannot_be_backdated_by_a_lower_received_header(
    league: EmailLeague, received: str, late_at: datetime | None
) -> None:
    # The sender's own Received header says Friday 16:58, before the deadline (R13).
    ingest(email(received=received, below="Fri, 6 Mar 2026 16:58:00 +0100"))
    assert picks() == []
    assert the_inbound().received_at > datetime(2026, 3, 6, 17, 0, tzinfo=PARIS)
    if late_at is not None:  # in the referee's queue, at the server's time
        assert LatePick.objects.get().received_at == late_at


# --- Bytes that are no text ---------------------------------------------------------------------


def test_a_nul_byte_in_the_subject_is_recorded_and_the_pick_stored(league: EmailLeague) -> None:
    ingest(email(subject=b"Mes\x00choix"))
    assert picks() == [("championship", 1, "F+(2)")]
    assert "\x00" not in the_inbound().subject


def test_a_line_with_a_nul_byte_is_refused_and_the_other_lines_stored(
    league: EmailLeague,
) -> None:
    ingest(email(body=b"Championnat : F\x00+(2)\nKDH : C(1)(4)\nWG : A(0)\x00\n"))
    assert picks() == [("kdh", 1, "C(1)(4)")]
    report = the_inbound().report
    assert [line["status"] for line in report] == ["error", "recorded", "error"]
    assert all("\x00" not in line["line"] for line in report)
    emails_send_due()  # rendered, as the worker woken by the commit does it
    [reply] = OutboundEmail.objects.filter(template="pick-reply")
    assert reply.to == [COACH] and "\x00" not in reply.body_text


def test_8_bit_bytes_in_the_message_id_give_an_ascii_id(league: EmailLeague) -> None:
    ingest(email(message_id=b"<caf\xe9\xff@mail.example.org>"))
    assert picks() == [("championship", 1, "F+(2)")]
    row = the_inbound()
    assert row.message_id.isascii() and row.message_id.isprintable()
    emails_send_due()
    assert OutboundEmail.objects.get().headers["In-Reply-To"] == row.message_id


@pytest.mark.parametrize(
    "sender",
    [
        b"Jean <sl\xe9igh-coach@example.org>",  # 8-bit bytes in the address (not UTF-8)
        b'"Jean <sleigh-coach@example.org>, (,@:',
        b"=?utf-8?b?????=@@<>",
        b"\x00",
    ],
)
def test_a_from_that_is_no_address_is_refused_without_reply(
    league: EmailLeague, sender: bytes
) -> None:
    ingest(email(sender=sender))
    assert picks() == [] and OutboundEmail.objects.count() == 0
    assert the_inbound().outcome == "bad_sender"


def test_a_second_from_header_is_refused_even_when_the_first_does_not_read(
    league: EmailLeague,
) -> None:
    # The first From names nobody; the second names an address the server authenticated.
    ingest(email(sender=b'"Jean <sleigh-coach@example.org>, (,@:\nFrom: other@example.org'))
    assert picks() == [] and OutboundEmail.objects.count() == 0
    assert the_inbound().outcome == "bad_sender"


def test_8_bit_bytes_in_the_from_display_name_are_harmless(league: EmailLeague) -> None:
    ingest(email(sender=b"Jean \xe9\xff <" + COACH.encode() + b">"))
    assert picks() == [("championship", 1, "F+(2)")]


@pytest.mark.parametrize(
    "letter", ["\u212a", "\u0131", "\u017f"], ids=["kelvin", "dotless-i", "long-s"]
)
def test_a_letter_that_only_looks_like_a_column_is_a_notation_error(
    league: EmailLeague, letter: str
) -> None:
    # R10: neither the line's accent folding nor case folding makes K, I or S of them.
    ingest(email(body=f"Championnat : {letter}(1)\n".encode()))
    assert picks() == []
    [line] = the_inbound().report
    assert (line["status"], line["code"]) == ("error", "notation")
    assert letter in line["message"]


# --- Limits -------------------------------------------------------------------------------------


def test_3000_nested_multiparts_are_refused_and_recorded(league: EmailLeague) -> None:
    nested = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(3000)
    )
    raw = email().replace(b"Content-Type: text/plain; charset=utf-8\n", nested)
    output = ingest(raw)
    assert picks() == [] and OutboundEmail.objects.count() == 0
    row = the_inbound()
    assert (row.outcome, row.sender) == ("refused", COACH)
    assert "nested" in row.reason and "refused" in output


def test_a_message_over_the_size_limit_is_refused_and_recorded(
    league: EmailLeague, settings: Settings
) -> None:
    settings.MAIL_MAX_BYTES = 2048
    ingest(email(body=b"Championnat : F+(2)\n" + b"x" * 2048 + b"\n"))
    assert picks() == []
    row = the_inbound()
    assert (row.outcome, row.message_id) == ("refused", "<hardening@mail.example.org>")
    assert "MAIL_MAX_BYTES" in row.reason


def test_only_the_first_pick_lines_are_read_and_the_others_reported(
    league: EmailLeague, settings: Settings
) -> None:
    settings.MAIL_MAX_PICK_LINES = 2
    ingest(email(body=b"Championnat : F+(2)\nKDH : C(1)(4)\nWG : A(0)\nChampionnat : B(1)\n"))
    assert picks() == [("championship", 1, "F+(2)"), ("kdh", 1, "C(1)(4)")]
    *_read, unread = the_inbound().report
    assert (unread["line"], unread["status"], unread["code"]) == ("WG : A(0)", "error", "limit")
    # In the coach's language (this one writes French): the limit is named.
    assert re.search(r"\b2 (premières|first)|first 2\b", unread["message"])


def test_ten_thousand_lines_are_read_up_to_the_limit(league: EmailLeague) -> None:
    ingest(email(body=b"Championnat : F+(2)\n" * 10_000))
    assert Pick.objects.count() == 50  # MAIL_MAX_PICK_LINES' default; R12 keeps every pick
    assert len(the_inbound().report) == 51


# --- A failure stays with its line --------------------------------------------------------------


def test_a_line_the_database_refuses_leaves_the_others_stored(
    league: EmailLeague, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_submit = intake.pick_submit

    def failing_for_kdh(**kwargs: object) -> Pick:
        if kwargs["round"] == league.rounds["kdh", 1]:
            with connection.cursor() as cursor:  # an error that aborts the transaction
                cursor.execute("SELECT 1 / 0")
        return real_submit(**kwargs)

    monkeypatch.setattr(intake, "pick_submit", failing_for_kdh)
    ingest(email(body=b"Championnat : F+(2)\nKDH : C(1)(4)\nWG : A(0)\n"))
    assert picks() == [("championship", 1, "F+(2)"), ("wg", 1, "A(0)")]
    statuses = [(line["status"], line["code"]) for line in the_inbound().report]
    assert statuses == [("recorded", ""), ("error", "stored"), ("recorded", "")]


def test_a_message_the_reading_breaks_on_is_refused_with_nothing_of_it_stored(
    league: EmailLeague, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(message: object) -> str:
        raise IndexError("a parser bug on strange bytes")

    monkeypatch.setattr(intake.mail_picks, "body_text", broken)
    output = ingest(email())
    assert picks() == [] and OutboundEmail.objects.count() == 0
    row = the_inbound()
    assert (row.outcome, row.user) == ("refused", None)
    assert "IndexError" in row.reason and "refused" in output
