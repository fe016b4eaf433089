"""Whose ``Authentication-Results`` the intake believes: only a header the league's server
added above the ``Received`` header it prepended when the message came in (RFC 8601 §5), never
one the sender wrote, whatever authserv-id it claims — on real message files; and the start-up
warnings when the settings cannot be trusted.

The league of ``test_ingest_email``: its server is ``mx.matrixhockey.test``, week 1's deadline
Friday 6 March 2026, 17:00 Europe/Paris (R13).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from competitions.models import Pick
from mail.authentication import authentication_verdict, league_results
from mail.checks import email_picks_authentication_check
from mail.inbound import message_parse
from mail.models import InboundEmail
from tests.mail.test_ingest_email import AUTHSERV_ID, COACH, EmailLeague, ingest, league

__all__ = ["league"]  # the fixture, shared with test_ingest_email

EML = Path(__file__).parent / "fixtures" / "eml"


def test_a_genuine_header_above_the_leagues_received_stores_the_pick(league: EmailLeague) -> None:
    ingest("fr-championship.eml")
    assert [p.normalized for p in Pick.objects.all()] == ["F+(2)"]
    assert InboundEmail.objects.get().outcome == "processed"


@pytest.mark.parametrize(
    ("name", "message_id"),
    [
        # Sent through the forger's own server: the header below both Received headers.
        ("forged-results-only.eml", "<forged.4@mail.evil.example>"),
        # Sent straight to the league's server: the header just below its Received header.
        ("forged-results-first.eml", "<forged.5@vps.evil.example>"),
    ],
)
def test_a_message_with_only_a_sender_written_header_is_refused_as_unauthenticated(
    league: EmailLeague, name: str, message_id: str
) -> None:
    output = ingest(name)
    row = InboundEmail.objects.get(message_id=message_id)
    assert row.outcome == "forged"
    assert row.authentication == (
        f"no Authentication-Results from {AUTHSERV_ID} above its Received header; 1 below it, "
        "in the message before that server got it: not read"
    )
    assert not Pick.objects.exists()
    assert ": forged" in output


def test_a_forged_header_below_the_leagues_own_is_ignored(league: EmailLeague) -> None:
    ingest("forged-below-league.eml")
    row = InboundEmail.objects.get()
    assert row.outcome == "forged"
    assert row.authentication == (
        f"{AUTHSERV_ID}: nothing passed for example.org (spf=none, dkim=none, dmarc=none)"
    )
    assert not Pick.objects.exists()


def test_a_message_without_a_received_header_shows_no_trusted_header() -> None:
    raw = f"Authentication-Results: {AUTHSERV_ID}; dmarc=pass header.from=example.org\n"
    message = message_parse((raw + f"From: {COACH}\n\nhi\n").encode())
    assert league_results(message, received_above=0) == ([], 1)
    verdict = authentication_verdict(
        message, from_address=COACH, required=True, authserv_ids=[AUTHSERV_ID]
    )
    assert not verdict.trusted


def test_the_leagues_own_hops_above_its_header_are_counted_by_the_setting(
    settings: Settings,
) -> None:
    """Postfix's milters never see the Received header Postfix prepends: their header lands
    just below it, and MAIL_AUTH_RECEIVED_ABOVE=1 says so."""
    raw = (
        f"Received: from mail.example.org by {AUTHSERV_ID}; Wed, 4 Mar 2026 10:15:02 +0100\n"
        f"Authentication-Results: {AUTHSERV_ID}; dmarc=pass header.from=example.org\n"
        "Received: from [10.0.0.7] by mail.example.org; Wed, 4 Mar 2026 10:14:58 +0100\n"
        f"Authentication-Results: {AUTHSERV_ID}; forged\n"
        f"From: {COACH}\n\nhi\n"
    )
    message = message_parse(raw.encode())
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    settings.MAIL_AUTH_RECEIVED_ABOVE = 0
    assert not authentication_verdict(message, from_address=COACH).trusted
    settings.MAIL_AUTH_RECEIVED_ABOVE = 1
    assert authentication_verdict(message, from_address=COACH).trusted
    assert league_results(message, received_above=1) == (
        [f"{AUTHSERV_ID}; dmarc=pass header.from=example.org"],
        1,
    )


# --- The start-up warnings --------------------------------------------------------------------


def warnings(settings: Settings, **values: object) -> list[str]:
    for name, value in values.items():
        setattr(settings, name, value)
    return [message.id or "" for message in email_picks_authentication_check()]


def test_no_warning_without_picks_by_email(settings: Settings) -> None:
    assert warnings(settings, IMAP_HOST="", MAIL_AUTHSERV_ID=[], MAIL_AUTH_REQUIRED=True) == []


def test_a_mailbox_read_with_the_check_off_is_warned_about(settings: Settings) -> None:
    assert warnings(settings, IMAP_HOST="imap.example.org", MAIL_AUTH_REQUIRED=False) == [
        "mail.W001"
    ]


def test_a_mailbox_read_without_an_authserv_id_is_warned_about(settings: Settings) -> None:
    values = {"IMAP_HOST": "imap.example.org", "MAIL_AUTH_REQUIRED": True, "MAIL_AUTHSERV_ID": []}
    assert warnings(settings, **values) == ["mail.W002"]


def test_an_authserv_id_that_no_header_can_name_is_warned_about(settings: Settings) -> None:
    ids = [AUTHSERV_ID, "mx.example.org; dmarc=pass", "two words"]
    values = {"IMAP_HOST": "", "MAIL_AUTH_REQUIRED": True, "MAIL_AUTHSERV_ID": ids}
    assert warnings(settings, **values) == ["mail.W003", "mail.W003"]
    assert warnings(settings, MAIL_AUTHSERV_ID=[AUTHSERV_ID]) == []
