"""``manage.py ingest_email`` against hostile messages kept as files (``hostile/``) and built
here: every one recorded as an :class:`InboundEmail` with its outcome and a reason that says
what is wrong — never a traceback — and a message over a limit refused before it is parsed
whole.

Each file is a message the league's server delivered (its ``Authentication-Results`` vouching
for the coach, above its ``Received`` header) with one hostile part. The timing of the largest
ones is ``bench/bench_hostile_email.py``'s business; here only what is kept in memory is
measured, which does not depend on the machine's load.
"""

from __future__ import annotations

import logging
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from competitions.models import Pick
from mail.intake import email_ingest
from mail.limits import message_read
from mail.models import InboundEmail, OutboundEmail
from tests.mail.test_ingest_email import EmailLeague, ingest, league
from tests.mail.test_intake_fuzz import ingested_cleanly

__all__ = ["league"]  # the fixture, shared with test_ingest_email

HOSTILE = Path(__file__).parent / "hostile"

EXPECTED = {
    # Comments the standard parser would recurse into, once per level.
    "from-nested-comments": ("refused", "From header with comments nested 500 deep, over 32"),
    "from-comments-unclosed": ("refused", "From header with comments nested 5000 deep"),
    "part-content-type-nested-comments": ("refused", "Content-Type header with comments nested"),
    "part-disposition-nested-comments": ("refused", "Content-Disposition header with comments"),
    # Encoded words: the parser's time grows with the square of their number.
    "subject-encoded-word-bomb": ("refused", "Subject header of 42000 characters, over 8192"),
    "from-encoded-word-bomb": ("refused", "From header of 28026 characters, over 8192"),
    "nested-rfc822": ("refused", "MIME parts nested too deep: over 10 (MAIL_MAX_MIME_DEPTH)"),
    "no-from": ("bad_sender", "0 From addresses"),
    "two-from": ("bad_sender", "2 From addresses"),
    # Headers the league does not read may be what they like; charsets that do not exist and
    # base64 that does not decode still give what can be read.
    "to-nested-groups": ("processed", ""),
    "from-unknown-charset": ("processed", ""),
    "body-unknown-charset": ("processed", ""),
    "broken-base64": ("processed", ""),
}


def test_every_hostile_file_has_its_expected_outcome() -> None:
    assert sorted(EXPECTED) == sorted(path.stem for path in HOSTILE.glob("*.eml"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_hostile_message_is_recorded_with_its_reason_never_a_traceback(
    league: EmailLeague, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    outcome, reason = EXPECTED[name]
    with caplog.at_level(logging.WARNING, logger="mail"):
        output = ingest((HOSTILE / f"{name}.eml").read_bytes())
    row = InboundEmail.objects.get()
    assert row.message_id == f"<{name}@hostile.example>"
    assert (row.outcome, reason in row.reason) == (outcome, True), row.reason
    assert f": {outcome}" in output
    assert not any(record.exc_info for record in caplog.records)
    if outcome == "processed":
        assert [p.normalized for p in Pick.objects.all()] == ["F+(2)"]
    else:
        assert not Pick.objects.exists()
    if outcome == "refused":
        assert not OutboundEmail.objects.exists()
        assert any(reason in record.getMessage() for record in caplog.records)


HOSTILE_FILES = [(HOSTILE / f"{name}.eml").read_bytes() for name in sorted(EXPECTED)]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A hostile file cut, with a slice repeated, or with bytes put in."""
    raw = draw(st.sampled_from(HOSTILE_FILES))
    start = draw(st.integers(0, len(raw)))
    end = draw(st.integers(start, min(len(raw), start + 400)))
    how = draw(st.sampled_from(["cut", "repeat", "insert"]))
    if how == "cut":
        return raw[:start] + raw[end:]
    if how == "repeat":
        return raw[:end] + raw[start:end] * draw(st.integers(2, 50)) + raw[end:]
    nasty = draw(st.sampled_from([b"(", b")", b"\\", b'"', b"=?", b"?=", b"\n", b"\n\n", b"\x00"]))
    return raw[:start] + nasty * draw(st.integers(1, 600)) + raw[start:]


@pytest.mark.django_db
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=mutated())
def test_hostile_files_cut_repeated_or_spliced_never_raise(league: EmailLeague, raw: bytes) -> None:
    ingested_cleanly(raw)


# --- Over a limit, refused before a full parse -----------------------------------------------

TEN_MIB = 10 * 1024 * 1024


def empty_parts(count: int) -> bytes:
    """A message of ``count`` empty MIME parts, 12 bytes each: 870,000 fit in 10 MiB."""
    head = (
        b"From: sleigh-coach@example.org\nMessage-ID: <parts@hostile.example>\n"
        b"Content-Type: multipart/mixed; boundary=bnd\n\n"
    )
    return head + b"--bnd\n\n\n\n\n\n\n" * count + b"--bnd--\n"


def read_peak(raw: bytes, **limits: int) -> tuple[str, int]:
    """:func:`message_read`'s refusal of ``raw`` with the league's default limits, and the most
    memory it held at once."""
    limits = {"max_bytes": TEN_MIB, "max_mime_depth": 10, "max_mime_parts": 200} | limits
    tracemalloc.start()
    try:
        refusal = message_read(raw, **limits).refusal
        return refusal, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_870000_empty_parts_are_refused_at_the_201st_without_reading_the_rest() -> None:
    raw = empty_parts(870_000)
    assert len(raw) <= TEN_MIB
    refusal, peak = read_peak(raw)
    assert refusal == "over 200 MIME parts (MAIL_MAX_MIME_PARTS)"
    # The whole parse held 482 MB; the parts up to the limit, and a chunk of the bytes, hold
    # a few.
    assert peak < 8 * 1024 * 1024


def test_a_message_nested_ten_mib_deep_is_refused_at_the_limit() -> None:
    level = b"Content-Type: message/rfc822\n\n"
    raw = b"From: a@example.org\n" + level * (TEN_MIB // len(level) - 1)
    refusal, peak = read_peak(raw)
    assert refusal == "MIME parts nested too deep: over 10 (MAIL_MAX_MIME_DEPTH)"
    assert peak < 8 * 1024 * 1024


def test_a_header_section_over_its_limit_is_refused_before_it_is_parsed() -> None:
    raw = (
        b"From: a@example.org\n"
        + b"X-Filler: "
        + b"x" * 60
        + b"\n" * 1
        + (b"X-Filler: " + b"x" * 60 + b"\n") * 5000
        + b"\nChampionnat : F(1)\n"
    )
    refusal, _peak = read_peak(raw)
    assert refusal == "header section over 262144 bytes"


def test_a_message_over_a_limit_is_refused_and_its_row_written(league: EmailLeague) -> None:
    result = email_ingest(raw=empty_parts(870_000))
    assert result.outcome == "refused"
    row = InboundEmail.objects.get()
    assert row.reason == "not read: over 200 MIME parts (MAIL_MAX_MIME_PARTS)"
    assert row.sender == "sleigh-coach@example.org"
