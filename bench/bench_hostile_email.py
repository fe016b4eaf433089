"""What a hostile email costs the intake before it is refused (or read, when within the limits).

Run: ``.venv/bin/python bench/bench_hostile_email.py``. No database: each message goes through
what :func:`mail.intake.email_ingest` does before it writes the message's row —
``message_read`` with the league's default limits (10 MiB, 200 MIME parts, 10 deep), then the
sender, subject, Message-ID and time received read from what it returns — and, for a message
within the limits, the text read for pick lines. Each case is timed in CPU seconds
(``time.process_time``, so a busy machine slows it less than the wall clock), then read again
for its memory with ``tracemalloc`` (the most the reading held at once, the message's own bytes
excepted).

Target: every case under 2 s of CPU and 100 MB; the script exits 1 when one is over. Before
the limits were checked during the parse, the first case took 160 s of CPU and 482 MB.
"""

from __future__ import annotations

import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the code of this checkout
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "matrixhockey.settings")

import django

django.setup()

from mail import inbound, limits  # noqa: E402

TEN_MIB = 10 * 1024 * 1024
TARGET_CPU_SECONDS = 2.0
TARGET_PEAK_MB = 100.0
HEAD = b"From: sleigh-coach@example.org\nMessage-ID: <bench@hostile.example>\n"


def empty_parts() -> bytes:
    """870,000 empty MIME parts, 12 bytes each, in 10 MiB: the issue's message."""
    head = HEAD + b"Content-Type: multipart/mixed; boundary=bnd\n\n"
    return head + b"--bnd\n\n\n\n\n\n\n" * 870_000 + b"--bnd--\n"


def nested_rfc822() -> bytes:
    """Messages inside messages, 10 MiB deep."""
    level = b"Content-Type: message/rfc822\n\n"
    return HEAD + level * ((TEN_MIB - len(HEAD)) // len(level))


def nested_multiparts() -> bytes:
    """Multiparts inside multiparts, 10 MiB deep."""
    levels, size, number = [], len(HEAD), 0
    while size < TEN_MIB - 1024:
        level = b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (number, number)
        levels.append(level)
        size += len(level)
        number += 1
    return HEAD + b"".join(levels)


def encoded_words() -> bytes:
    """A header section just under 256 KiB of encoded words in the Subject (the parser's time
    grows with the square of their number)."""
    return HEAD + b"Subject: " + b"=?utf-8?q?a?= " * 18_000 + b"\n\nChampionnat : F(1)\n"


def nested_comments() -> bytes:
    """A From with 500 nested comments (the parser recurses once per level)."""
    nested = b"(" * 500 + b")" * 500
    return b"From: Jean " + nested + b" <sleigh-coach@example.org>\n\nChampionnat : F(1)\n"


def long_text() -> bytes:
    """Within the limits: 10 MiB of text lines, none a pick, read whole for pick lines."""
    line = b"Je ne joue pas cette semaine, mais voici une longue lettre au commissaire.\n"
    body = line * ((TEN_MIB - 200) // len(line))
    return HEAD + b"Content-Type: text/plain; charset=utf-8\n\n" + body


def two_hundred_parts() -> bytes:
    """Within the limits: 199 text parts of 50 KiB, the first one read for pick lines."""
    part = b"--bnd\nContent-Type: text/plain\n\n" + b"Championnat : F(1)\n" * 2_700
    return HEAD + b"Content-Type: multipart/mixed; boundary=bnd\n\n" + part * 199 + b"--bnd--\n"


CASES: list[tuple[str, Callable[[], bytes]]] = [
    ("870,000 empty MIME parts", empty_parts),
    ("message/rfc822 nested 10 MiB deep", nested_rfc822),
    ("multiparts nested 10 MiB deep", nested_multiparts),
    ("18,000 encoded words in a Subject", encoded_words),
    ("From with 500 nested comments", nested_comments),
    ("10 MiB of text, read (within limits)", long_text),
    ("199 parts of 50 KiB, read (within limits)", two_hundred_parts),
]


def ingest_reading(raw: bytes) -> str:
    """What ``email_ingest`` reads of ``raw`` before it writes its row (and, within the
    limits, the pick lines): the refusal, or how many pick lines."""
    read = limits.message_read(raw, max_bytes=TEN_MIB, max_mime_depth=10, max_mime_parts=200)
    inbound.message_id(read.message, raw)
    inbound.received_time(read.message)
    inbound.sender_addresses(read.message)
    inbound.message_subject(read.message)
    if read.refusal:
        return read.refusal
    lines = inbound.pick_lines(inbound.body_text(read.message), limit=51)
    return f"read: {len(lines)} pick lines"


def main() -> int:
    over = 0
    print(f"{'case':44} {'bytes':>10} {'CPU s':>7} {'peak MB':>8}  outcome")
    for name, build in CASES:
        raw = build()
        started = time.process_time()
        outcome = ingest_reading(raw)
        cpu = time.process_time() - started
        tracemalloc.start()  # a second reading, for its memory: tracing slows it down
        ingest_reading(raw)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        met = cpu <= TARGET_CPU_SECONDS and peak <= TARGET_PEAK_MB
        over += not met
        mark = "" if met else "  OVER TARGET"
        print(f"{name:44} {len(raw):>10,} {cpu:>7.3f} {peak:>8.1f}  {outcome}{mark}")
    print(f"target: each under {TARGET_CPU_SECONDS} s of CPU and {TARGET_PEAK_MB:.0f} MB")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
