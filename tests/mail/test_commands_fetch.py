"""Commands by email end to end on a real Dovecot (``tests/mail/test_fetch_email_picks.py``'s
server): messages of picks and commands put in the mailbox, ``manage.py fetch_email_picks``
run, each answered by one reply in the outbox, threaded under it, in its sender's language."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from itertools import count

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from competitions.models import Pick
from league.models import Team, WaitingListEntry
from mail.models import InboundEmail, OutboundEmail
from mail.outbox import emails_send_due
from tests.mail.test_fetch_email_picks import (
    ImapServer,
    fetch,
    imap_server,
    league,
    mailbox,
    paris,
)
from tests.mail.test_ingest_email import AUTHSERV_ID, COACH, OTHER_COACH, EmailLeague

__all__ = ["imap_server", "league", "mailbox"]  # the fixtures, shared with test_fetch_email_picks

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rates_afresh() -> Iterator[None]:
    """The rate limits' counters start afresh (the join page's per address lives in the cache,
    shared by a run's tests)."""
    cache.clear()
    yield
    cache.clear()


_delivered = count(1)


def deliver(server: ImapServer, sender: str, body: str, *, at: datetime) -> str:
    """Put a message from ``sender`` in the inbox as the league's server delivers it, received
    at ``at``; its Message-ID."""
    domain = sender.rsplit("@", 1)[1]
    number = next(_delivered)
    message_id = f"<commands-fetch.{number}@{domain}>"
    raw = (
        f"Authentication-Results: {AUTHSERV_ID}; spf=pass smtp.mailfrom={sender};"
        f" dkim=pass header.d={domain}; dmarc=pass header.from={domain}\n"
        f"Received: from mail.{domain} by {AUTHSERV_ID}; {at:%a, %d %b %Y %H:%M:%S %z}\n"
        f"From: {sender}\nTo: picks@matrixhockey.test\nSubject: Ordres\n"
        f"Message-ID: {message_id}\nMIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
        f"{body}\n"
    ).encode()
    unique = f"{int(at.timestamp())}.M{number}P{os.getpid()}.mh-commands"
    path = server.maildir / "new" / unique
    path.write_bytes(raw)
    os.utime(path, (at.timestamp(), at.timestamp()))
    os.chown(path, server.uid, server.gid)
    return message_id


def test_commands_in_the_mailbox_are_fetched_and_answered_in_one_threaded_reply_each(
    league: EmailLeague, mailbox: ImapServer
) -> None:
    deputy = User.objects.create_user("sleigh-deputy", email="sleigh-deputy@example.org")
    Team.objects.filter(coach=league.coach).update(deputy=deputy)
    french = deliver(
        mailbox, COACH, "Bonjour,\nChampionnat : F+(2)\nORDRES\nRésultats KDH", at=paris(4, 10)
    )
    english = deliver(mailbox, OTHER_COACH, "help\nSTANDINGS\nMatrix", at=paris(4, 11))
    by_deputy = deliver(mailbox, deputy.email, "ADJOINT aucun\nclassement", at=paris(4, 12))
    newcomer = deliver(mailbox, "newcomer@example.net", "JOIN The Frozen Moose", at=paris(4, 13))
    output = fetch()
    assert "4 messages ingested, 0 failed" in output
    assert all("\\Seen" in flags for flags in mailbox.flags().values())
    emails_send_due()
    replies = {
        message_id: list(
            OutboundEmail.objects.filter(headers__contains={"In-Reply-To": message_id})
        )
        for message_id in (french, english, by_deputy, newcomer)
    }
    assert all(len(sent) == 1 for sent in replies.values()), replies
    [[coach_reply], [english_reply], [deputy_reply], [join_reply]] = replies.values()
    assert coach_reply.to == [COACH] and coach_reply.language == "fr"
    assert coach_reply.status == OutboundEmail.Status.SENT
    pick = Pick.objects.get(entry=league.entry)
    assert pick.channel == "email" and pick.receipt in coach_reply.body_text
    assert "« ORDRES »" in coach_reply.body_text and "« Résultats KDH »" in coach_reply.body_text
    assert "« Bonjour, »" in coach_reply.body_text  # not understood: answered with the help
    assert english_reply.to == [OTHER_COACH] and english_reply.language == "en"
    assert "Write one command a line" in english_reply.body_text
    assert "Standings — " in english_reply.body_text and "Matrix — " in english_reply.body_text
    assert deputy_reply.to == [deputy.email]
    assert "Seul l’entraîneur de l’équipe peut choisir son adjoint." in deputy_reply.body_text
    assert Team.objects.get(coach=league.coach).deputy == deputy
    assert join_reply.template == "waiting-list" and join_reply.to == ["newcomer@example.net"]
    assert WaitingListEntry.objects.get(email="newcomer@example.net").name == "The Frozen Moose"
    # Fetched again: nothing new, nothing answered twice.
    assert "0 messages ingested" in fetch()
    assert InboundEmail.objects.count() == 4
