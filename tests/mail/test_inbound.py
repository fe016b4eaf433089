"""``league.mail_picks``: reading what a coach wrote, who sent it, and whether to believe it.

No database here: pick lines (R10 notation is the engine's business, only the line's shape is
read here), bodies (charsets, HTML, quotes, signatures), senders, automatic messages,
``Authentication-Results`` (RFC 8601) and the mailbox's INTERNALDATE.
"""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from mail import authentication, limits, mailbox
from mail import inbound as mail_picks
from mail.authentication import authentication_results, authentication_verdict
from mail.commands import Unknown, message_items
from mail.inbound import (
    automatic_reason,
    body_text,
    message_id,
    message_parse,
    message_subject,
    own_text,
    pick_line,
    pick_lines,
    received_time,
    sender_addresses,
)
from mail.limits import MessageRead, message_read

EML = Path(__file__).parent / "fixtures" / "eml"
MX = "mx.matrixhockey.test"
RECEIVED = f"Received: from mail.example.org by {MX}; Wed, 4 Mar 2026 10:15:02 +0100\n"


@pytest.mark.parametrize("module", [mail_picks, limits, authentication, mailbox])
def test_the_modules_examples_hold(module: object) -> None:
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0


# --- Pick lines ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "competition", "number", "notation"),
    [
        ("Championnat : F+(2)", "championship", None, "F+(2)"),
        ("CHAMPIONNAT:f+(2)", "championship", None, "f+(2)"),
        ("championnat\u00a0: F + (2)", "championship", None, "F + (2)"),
        ("Championship: D++(1)", "championship", None, "D++(1)"),
        ("  - Championship = D(1)", "championship", None, "D(1)"),
        ("• Championnat : F(1)", "championship", None, "F(1)"),
        ("KDH : C(1)(4)", "kdh", None, "C(1)(4)"),
        ("Coupe KDH : C(1)(4)", "kdh", None, "C(1)(4)"),
        ("KDH cup: C(1)(4)", "kdh", None, "C(1)(4)"),
        ("K.D.H. : C(1)(4)", "kdh", None, "C(1)(4)"),
        ("Coupe Klaus-Dieter Hoffmann : C(1)(4)", "kdh", None, "C(1)(4)"),
        ("klaus dieter hoffmann: C(1)(4)", "kdh", None, "C(1)(4)"),
        ("WG : A(0)", "wg", None, "A(0)"),
        ("Coupe WG : A(0)", "wg", None, "A(0)"),
        ("Wayne Gretzky: A(0)", "wg", None, "A(0)"),
        ("Coupe Wayne-Gretzky : A(0)", "wg", None, "A(0)"),
        ("WG cup: A(0)", "wg", None, "A(0)"),
        ("KDH C(1)(4)", "kdh", None, "C(1)(4)"),
        ("Championnat J(1)", "championship", None, "J(1)"),  # column J, not a round
        ("Championnat J5 : F+(2)", "championship", 5, "F+(2)"),
        ("Championnat j 5: F+(2)", "championship", 5, "F+(2)"),
        ("Championnat journée 5 : F+(2)", "championship", 5, "F+(2)"),
        ("Championnat JOURNEE 11 : F+(2)", "championship", 11, "F+(2)"),
        ("Coupe KDH tour 3 : C(1)(4)", "kdh", 3, "C(1)(4)"),
        ("Championship round 5: F+(2)", "championship", 5, "F+(2)"),
        ("Championship, round 5: F+(2)", "championship", 5, "F+(2)"),
        ("WG R2: A(0)", "wg", 2, "A(0)"),
        ("Championnat J10 F(2)", "championship", 10, "F(2)"),
    ],
)
def test_pick_lines_read_in_french_and_english(
    text: str, competition: str, number: int | None, notation: str
) -> None:
    line = pick_line(text)
    assert line is not None
    assert (line.competition, line.round_number, line.notation, line.error) == (
        competition,
        number,
        notation,
        None,
    )
    assert line.text == text.strip()


@pytest.mark.parametrize(
    "text",
    [
        "Je joue le championnat cette semaine",
        "Championnat prochain : je serai absent",
        "KDHx : C(1)(4)",
        "Wagner : A(0)",
        "Le championnat : F(1)",
        "",
    ],
)
def test_other_text_is_not_a_pick_line(text: str) -> None:
    assert pick_line(text) is None


@pytest.mark.parametrize(
    "text",
    ["Championnat :", "Championnat J0 : F(1)", "KDH J3 :", "Championship"],
)
def test_a_line_naming_a_competition_without_a_readable_pick_is_an_error(text: str) -> None:
    line = pick_line(text)
    assert line is not None and line.error


@pytest.mark.parametrize("text", ["Championnat F+", "Championnat : F+(7", "WG : hello"])
def test_a_broken_pick_is_a_pick_line_for_the_engine_to_refuse(text: str) -> None:
    line = pick_line(text)
    assert line is not None and line.error is None and line.notation


@pytest.mark.parametrize(
    ("text", "notation"),
    [
        ("Championnat : \u0131(1)", "\u0131(1)"),  # dotless i, not I
        ("Championnat : \u017f+(2)", "\u017f+(2)"),  # long s, not S
        ("Championnat : \u212a(1)", "\u212a(1)"),  # the Kelvin sign, not K
        ("Championnat : ﬀ(1)", "ﬀ(1)"),  # a ligature, not FF
        ("Championnat : É(1)", "É(1)"),  # an accent is no part of the notation
        ("Championnat journée 2 : c(1)", "c(1)"),
    ],
)
def test_the_pick_is_taken_as_written_for_the_engine_to_read(text: str, notation: str) -> None:
    # R10: case folding is the engine's; the line's accents are folded only to find its name.
    line = pick_line(text)
    assert line is not None and line.error is None
    assert line.notation == notation


@pytest.mark.parametrize(
    "text", ["Championnat : F+(2)\x00", "Championnat : F\x00+(2)", "KDH\x00 : C(1)(4)"]
)
def test_a_line_with_a_nul_byte_is_an_error_and_keeps_no_control_character(text: str) -> None:
    line = pick_line(text)
    assert line is not None and line.error
    assert "\x00" not in line.text and "\x00" not in line.notation
    assert "\ufffd" in line.text


def test_quoted_lines_and_the_signature_are_not_the_senders() -> None:
    body = (
        "Championnat : F(1)\n"
        "  > KDH : A(1)(2)\n"
        ">Championnat : B(1)\n"
        "WG : A(0)\n"
        "-- \n"
        "Jean\n"
        "Championnat : C(1)\n"
    )
    assert [line.notation for line in pick_lines(body)] == ["F(1)", "A(0)"]


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "----- Message d'origine -----",
        "---------- Forwarded message ---------",
        "________________________________",
    ],
)
def test_text_after_an_unquoted_original_message_is_left_out(separator: str) -> None:
    assert own_text(f"Championnat : F(1)\n{separator}\nChampionnat : A(0)") == [
        "Championnat : F(1)"
    ]


def test_english_is_recognised_for_a_stranger() -> None:
    assert mail_picks.looks_english("Hi\nChampionship: F(1)")
    assert not mail_picks.looks_english("Bonjour\nChampionnat : F(1)")


# --- Bodies -------------------------------------------------------------------------------------


def test_latin1_quoted_printable_with_a_soft_line_break_is_decoded() -> None:
    message = message_parse((EML / "iso-8859-1-qp.eml").read_bytes())
    text = body_text(message)
    assert "Championnat journée 1 : G(2)" in text.splitlines()
    assert "André (Sleigh Dogs)" in text


def test_an_html_body_is_read_without_style_or_quoted_part() -> None:
    message = message_parse((EML / "html-only.eml").read_bytes())
    text = body_text(message)
    assert [(line.competition, line.notation) for line in pick_lines(text)] == [
        ("championship", "F+(2)"),
        ("kdh", "C(1)(4)"),
    ]
    assert "A(0)" not in text and "B(0)(0)" not in text


def test_the_plain_text_part_is_preferred_to_the_html_one() -> None:
    message = EmailMessage()
    message.set_content("Championnat : F(1)\n")
    message.add_alternative("<p>Championnat : A(0)</p>", subtype="html")
    assert [line.notation for line in pick_lines(body_text(message))] == ["F(1)"]


def test_a_message_with_a_lying_charset_still_gives_its_text() -> None:
    raw = b"From: a@example.org\nContent-Type: text/plain; charset=klingon\n\nChampionnat : F(1)\n"
    assert "Championnat : F(1)" in body_text(message_parse(raw))


def test_a_message_without_a_text_part_has_no_text() -> None:
    raw = b"From: a@example.org\nContent-Type: image/png\n\n\x89PNG"
    assert body_text(message_parse(raw)) == ""


# --- Senders, ids, times ------------------------------------------------------------------------


def test_reply_to_is_not_an_identity_and_from_is_lower_cased() -> None:
    two = message_parse((EML / "two-competitions.eml").read_bytes())
    assert sender_addresses(two) == ["sleigh-coach@example.org"]
    english = message_parse((EML / "en-championship.eml").read_bytes())
    assert sender_addresses(english) == ["freezing-coach@example.org"]


def test_several_from_addresses_or_headers_are_all_counted() -> None:
    several = message_parse((EML / "several-from.eml").read_bytes())
    assert len(sender_addresses(several)) == 2
    twice = b"From: a@example.org\nFrom: a@example.org\n\nhi\n"
    assert sender_addresses(message_parse(twice)) == ["a@example.org", "a@example.org"]
    assert sender_addresses(message_parse(b"From: nobody\n\nhi\n")) == []
    crlf = b"From: =?utf-8?q?a=0D=0Ab@example.org?=\n\nhi\n"
    assert sender_addresses(message_parse(crlf)) == []


def test_a_from_with_8_bit_bytes_gives_its_address_only_when_they_are_utf_8() -> None:
    latin1 = message_parse(b"From: Jean <sl\xe9igh@example.org>\n\nhi\n")
    assert sender_addresses(latin1) == []
    utf8 = message_parse("From: Jean <sléigh@example.org>\n\nhi\n".encode())
    assert sender_addresses(utf8) == ["sléigh@example.org"]
    named = message_parse(b"From: Jean \xe9\xff <sleigh@example.org>\n\nhi\n")
    assert sender_addresses(named) == ["sleigh@example.org"]


@pytest.mark.parametrize(
    "header",
    [b'"Jean <a@example.org>, (,@:', b"=?utf-8?b?????=@@<>", b"<<<@>>>", b"a@b@c, ,;:", b"\x00"],
)
def test_a_malformed_from_gives_no_address(header: bytes) -> None:
    assert sender_addresses(message_parse(b"From: " + header + b"\n\nhi\n")) == []


def test_an_8_bit_message_id_gets_an_ascii_id_of_its_own_bytes() -> None:
    first = b"Message-ID: <caf\xe9@example.org>\n\nhi\n"
    second = b"Message-ID: <caf\xe8@example.org>\n\nhi\n"
    ids = {message_id(message_parse(raw), raw) for raw in (first, second)}
    assert len(ids) == 2
    assert all(id.isascii() and id.isprintable() for id in ids)
    assert message_id(message_parse(first), first) == message_id(message_parse(first), b"")


def test_a_subject_keeps_no_control_character() -> None:
    raw = b"Subject: Mes\x00choix \xff\n\nhi\n"
    subject = message_subject(message_parse(raw))
    assert subject.isprintable() and "\x00" not in subject


# --- Limits ---------------------------------------------------------------------------------------


def nested(depth: int) -> bytes:
    parts = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(depth)
    )
    return b"From: a@example.org\nMessage-ID: <nested@example.org>\n" + parts + b"\nhi\n"


def read(raw: bytes, **limits: int) -> MessageRead:
    limits = {"max_bytes": 10_000_000, "max_mime_depth": 10, "max_mime_parts": 50} | limits
    return message_read(raw, **limits)


def test_a_message_within_the_limits_is_read_whole() -> None:
    raw = (EML / "two-competitions.eml").read_bytes()
    done = read(raw, max_bytes=len(raw), max_mime_depth=1, max_mime_parts=1)
    assert done.refusal == "" and "KDH" in body_text(done.message)
    assert read(nested(10)).refusal == ""


def test_a_message_over_the_size_limit_is_read_for_its_headers_only() -> None:
    raw = (EML / "two-competitions.eml").read_bytes()
    done = read(raw, max_bytes=len(raw) - 1)
    assert "MAIL_MAX_BYTES" in done.refusal
    assert sender_addresses(done.message) == ["sleigh-coach@example.org"]
    assert body_text(done.message) == ""


@pytest.mark.parametrize(("depth", "why"), [(11, "MAIL_MAX_MIME_DEPTH"), (3000, "too deep")])
def test_mime_parts_nested_too_deep_are_refused_without_recursion_error(
    depth: int, why: str
) -> None:
    done = read(nested(depth))
    assert why in done.refusal
    assert message_id(done.message, b"") == "<nested@example.org>"


def test_too_many_mime_parts_are_refused() -> None:
    parts = b"".join(b"--b\nContent-Type: text/plain\n\nhi\n" for _ in range(51))
    raw = b"From: a@example.org\nContent-Type: multipart/mixed; boundary=b\n\n" + parts + b"--b--\n"
    assert "MAIL_MAX_MIME_PARTS" in read(raw).refusal
    assert read(raw, max_mime_parts=52).refusal == ""


def test_a_message_without_message_id_gets_a_stable_one_from_its_bytes() -> None:
    raw = b"From: a@example.org\n\nChampionnat : F(1)\n"
    first = message_id(message_parse(raw), raw)
    assert first == message_id(message_parse(raw), raw)
    assert first != message_id(message_parse(raw + b"x"), raw + b"x")


def test_a_message_id_keeps_no_space_or_line_break() -> None:
    raw = b"Message-ID: =?utf-8?q?<a=0D=0Ab@example.org>?= \n\nhi\n"
    assert message_id(message_parse(raw), raw).isprintable()
    assert " " not in message_id(message_parse(raw), raw)


def test_the_time_received_is_the_topmost_received_headers_not_date() -> None:
    message = message_parse((EML / "late.eml").read_bytes())
    assert received_time(message) == datetime(2026, 3, 7, 8, 12, 44, tzinfo=UTC)
    assert received_time(message_parse(b"From: a@example.org\n\nhi\n")) is None


SENDERS_RECEIVED = b"Received: by mail.example.org; Fri, 6 Mar 2026 16:58:00 +0100\n"


@pytest.mark.parametrize(
    ("topmost", "expected"),
    [
        # RFC 5322 3.3: -0000 is UTC whose local zone is unknown; 4.3: an unknown zone too.
        (b"Sat, 7 Mar 2026 09:12:44 -0000", datetime(2026, 3, 7, 9, 12, 44, tzinfo=UTC)),
        (b"Sat, 7 Mar 2026 09:12:44 XYZ", datetime(2026, 3, 7, 9, 12, 44, tzinfo=UTC)),
        (b"not a date", None),
        (b"Sat, 99 Mar 2026 99:12:44 +0100", None),
        (b"", None),
    ],
)
def test_only_the_topmost_received_header_tells_the_time_never_a_lower_one(
    topmost: bytes, expected: datetime | None
) -> None:
    # The lower header is the sender's: trusting it would backdate a late pick (R13).
    raw = b"Received: from x by mx.matrixhockey.test; " + topmost + b"\n" + SENDERS_RECEIVED
    assert received_time(message_parse(raw + b"From: a@example.org\n\nhi\n")) == expected


def test_a_received_header_without_a_date_tells_no_time() -> None:
    raw = b"Received: from x by mx.matrixhockey.test\n" + SENDERS_RECEIVED + b"\nhi\n"
    assert received_time(message_parse(raw)) is None


def test_the_internaldate_of_a_fetch_response() -> None:
    assert mailbox.internal_date(
        b'3 (UID 9 INTERNALDATE "07-Mar-2026 09:12:44 +0100" BODY[] {9}'
    ) == (datetime(2026, 3, 7, 9, 12, 44, tzinfo=timezone(timedelta(hours=1))))
    assert mailbox.internal_date(b"3 (UID 9 BODY[] {9}") is None
    assert mailbox.internal_date(b'3 (INTERNALDATE "yesterday")') is None


# --- Automatic messages -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "automatic"),
    [
        (b"Auto-Submitted: auto-replied\n", True),
        (b"Auto-Submitted: no\n", False),
        (b"Precedence: bulk\n", True),
        (b"Precedence: list\n", True),
        (b"X-Autoreply: yes\n", True),
        (b"List-Id: <hockey.lists.example.org>\n", True),
        (b"Return-Path: <>\n", True),
        (b"Return-Path: <a@example.org>\n", False),
        (b"", False),
    ],
)
def test_machines_messages_are_recognised(headers: bytes, automatic: bool) -> None:
    raw = b"From: a@example.org\n" + headers + b"\nChampionnat : F(1)\n"
    assert (automatic_reason(message_parse(raw)) is not None) is automatic


@pytest.mark.parametrize("name", ["auto-reply.eml", "bounce.eml"])
def test_the_auto_reply_and_bounce_fixtures_are_machines(name: str) -> None:
    assert automatic_reason(message_parse((EML / name).read_bytes())) is not None


def test_mailer_daemon_is_a_machine_whatever_its_other_headers() -> None:
    raw = b"From: MAILER-DAEMON@mail.example.org\n\nUndelivered\n"
    assert automatic_reason(message_parse(raw)) == "From MAILER-DAEMON"


def test_a_delivery_report_is_a_machine() -> None:
    raw = b"From: postmaster@example.org\nContent-Type: multipart/report; boundary=b\n\n--b--\n"
    assert automatic_reason(message_parse(raw)) == "delivery report"


# --- Authentication-Results (RFC 8601) ----------------------------------------------------------


def test_results_are_read_with_comments_and_versions() -> None:
    server, results = authentication_results(
        "MX.matrixhockey.test 1; spf=pass (sender; ok) smtp.mailfrom=a@example.org;"
        ' dkim/1=pass header.d=example.org header.s="s1"; dmarc=FAIL'
    )
    assert server == "mx.matrixhockey.test"
    assert [(r.method, r.result) for r in results] == [
        ("spf", "pass"),
        ("dkim", "pass"),
        ("dmarc", "fail"),
    ]
    assert results[1].properties == {"header.d": "example.org", "header.s": "s1"}


def verdict(results: str, *, sender: str = "coach@example.org", **options: object) -> bool:
    raw = f"Authentication-Results: {results}\n{RECEIVED}From: {sender}\n\nhi\n".encode()
    options.setdefault("required", True)
    options.setdefault("authserv_ids", [MX])
    return authentication_verdict(message_parse(raw), from_address=sender, **options).trusted


@pytest.mark.parametrize(
    ("results", "trusted"),
    [
        (f"{MX}; dmarc=pass header.from=example.org", True),
        (f"{MX}; dmarc=pass", False),  # a pass for no domain in particular
        (f"{MX}; dmarc=pass header.from=evil.example", False),
        (f"{MX}; dkim=pass header.d=example.org", True),
        (f"{MX}; dkim=pass header.d=mail.example.org", True),
        (f"{MX}; dkim=pass header.i=@example.org", True),
        (f"{MX}; dkim=pass header.d=evil.example", False),
        (f"{MX}; dkim=pass header.d=org", False),
        (f"{MX}; dkim=fail header.d=example.org", False),
        (f"{MX}; spf=pass smtp.mailfrom=coach@example.org", True),
        (f"{MX}; spf=pass smtp.mailfrom=example.org", True),
        (f"{MX}; spf=pass smtp.mailfrom=bounce@evil.example", False),
        (f"{MX}; spf=softfail smtp.mailfrom=coach@example.org", False),
        (f"{MX}; spf=pass smtp.mailfrom=coach@example.org; dmarc=fail", False),
        (f"{MX}; none", False),
        ("mx.elsewhere.example; dmarc=pass header.from=example.org", False),
    ],
)
def test_a_sender_is_trusted_only_on_aligned_passing_results_of_the_leagues_server(
    results: str, trusted: bool
) -> None:
    assert verdict(results) is trusted


def test_a_quoted_semicolon_is_part_of_its_value_not_a_new_result() -> None:
    _server, results = authentication_results(
        f'{MX}; spf=softfail smtp.mailfrom="x;dmarc=pass header.from=example.org"; dkim=none'
    )
    assert [(r.method, r.result) for r in results] == [("spf", "softfail"), ("dkim", "none")]
    assert results[0].properties == {"smtp.mailfrom": "x;dmarc=pass header.from=example.org"}


@pytest.mark.parametrize(
    "value",
    [
        f"{MX}; spf=pass smtp.mailfrom=a@example.org; iprev",  # a method without its result
        f"{MX}; dkim=pass (unclosed comment",
        f"{MX}; spf=pass smtp.mailfrom=" + "(" * 5000,
        f"{MX}; spf=pass smtp.mailfrom=a@example.org " + "x" * 9000,
        f"{MX}",
    ],
)
def test_a_value_that_is_not_rfc_8601_is_unreadable(value: str) -> None:
    with pytest.raises(authentication.AuthenticationResultsUnreadable):
        authentication_results(value)


@pytest.mark.parametrize(
    "results",
    [
        # The envelope sender is the forger's to choose, and SPF "passes" for any domain it
        # owns: its quoted ";" must not start a dmarc=pass result.
        f'{MX}; spf=softfail smtp.mailfrom="x;dmarc=pass header.from=example.org";'
        " dkim=none; dmarc=none header.from=example.org",
        f'{MX}; spf=pass smtp.mailfrom="x;dmarc=pass header.from=example.org"@evil.example',
        # An encoded word is no ";" either: the header is read as the server wrote it.
        f"{MX}; spf=softfail smtp.helo==?us-ascii?q?x=3B_dmarc=3Dpass_header.from=3Dexample.org?=;"
        " dmarc=none header.from=example.org",
        # Nor a property that does not read: no reading on from where it stopped.
        f'{MX}; spf=pass smtp.mailfrom="x"y;dmarc=pass header.from=example.org',
        # A comment's ";" neither.
        f"{MX}; spf=softfail (;dmarc=pass header.from=example.org) smtp.mailfrom=a@evil.example",
    ],
)
def test_a_pass_written_inside_a_value_forges_nothing(results: str) -> None:
    assert not verdict(results)


def test_an_unreadable_header_of_the_leagues_server_trusts_nobody_not_even_a_lower_one() -> None:
    raw = (
        f"Authentication-Results: {MX}; spf=pass smtp.mailfrom=coach@example.org; iprev\n"
        f"Authentication-Results: {MX}; dmarc=pass header.from=example.org\n"
        f"{RECEIVED}From: coach@example.org\n\nhi\n"
    ).encode()
    result = authentication_verdict(
        message_parse(raw), from_address="coach@example.org", required=True, authserv_ids=[MX]
    )
    assert not result.trusted and "unreadable" in result.reason


def test_another_servers_header_is_not_read_at_all() -> None:
    raw = (
        "Authentication-Results: relay.example.net; this does not read (\n"
        f"Authentication-Results: {MX}; dkim=pass header.d=example.org\n"
        f"{RECEIVED}From: coach@example.org\n\nhi\n"
    ).encode()
    assert authentication_verdict(
        message_parse(raw), from_address="coach@example.org", required=True, authserv_ids=[MX]
    ).trusted


def test_only_the_topmost_header_of_the_leagues_server_counts() -> None:
    forged = message_parse((EML / "forged-fake-results.eml").read_bytes())
    result = authentication_verdict(
        forged, from_address="sleigh-coach@example.org", required=True, authserv_ids=[MX]
    )
    assert not result.trusted and "DMARC failed" in result.reason


def test_the_check_can_be_turned_off_and_needs_a_trusted_server_otherwise() -> None:
    assert verdict(f"{MX}; spf=fail", required=False)
    assert not verdict(f"{MX}; dmarc=pass", authserv_ids=[])


def test_the_settings_decide_by_default(settings: Settings) -> None:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [MX.upper()]
    results = f"Authentication-Results: {MX}; dmarc=pass header.from=example.org\n"
    raw = (results + RECEIVED + "From: c@example.org\n\n").encode()
    assert authentication_verdict(message_parse(raw), from_address="c@example.org").trusted
    settings.MAIL_AUTHSERV_ID = ["another.example"]
    assert not authentication_verdict(message_parse(raw), from_address="c@example.org").trusted


@pytest.mark.parametrize(
    "attribution",
    [
        "On Wed, 25 Nov 2026 at 08:00, Matrix Hockey <ligue@example.org> wrote:",
        "Le mer. 25 nov. 2026 à 08:00, Matrix Hockey <ligue@example.org> a écrit :",
        # A client that wraps a long attribution in two lines.
        "Le mer. 25 nov. 2026 à 08:00, Ligue Matrix Hockey <\nligue@example.org> a écrit :",
        "On Wed, 25 Nov 2026 at 08:00, Matrix Hockey\n<ligue@example.org> wrote:",
    ],
)
def test_a_mail_client_s_attribution_line_is_not_the_sender_s_text(attribution: str) -> None:
    body = f"KDH : B(1)\nClassement\n\n{attribution}\n> Championnat J4 : A(0)\n"
    assert mail_picks.own_text(body)[:2] == ["KDH : B(1)", "Classement"]
    items = message_items(body)
    assert len(items) == 2
    assert not [item for item in items if isinstance(item, Unknown)]


def test_a_line_of_the_sender_s_that_starts_like_an_attribution_is_kept() -> None:
    body = "Le classement de D2B\nOn time: KDH : B(1)\nChampionnat J4 : A(0)\n"
    assert mail_picks.own_text(body) == body.splitlines()
