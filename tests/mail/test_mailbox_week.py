"""A whole week played from the mailbox, end to end on real parts (issue 23).

The demo at week 3 (``tests/demo_worlds.py``: week 3 waiting for its referee, week 4 open). A
real SMTP server (aiosmtpd on 127.0.0.1) takes every email the site sends through its outbox
(``mail.outbox``, the SMTP backend pointed at it); a real Dovecot (``test_fetch_email_picks``'s)
holds the league's mailbox. Wednesday's job sends the turn sheets; a French coach and the English
deputy of the same team answer theirs as mail clients do (the coach's picks written above the
quoted sheet, the deputy's filled in the quoted lines), threaded under the sheet; the replies go
into the mailbox, ``manage.py fetch_email_picks`` reads them, the answers come back through SMTP,
threaded under each reply. Then a message of commands each, the referee's arbitration and
publication (services, the clock moved to the next Tuesday), a ``RÉSULTATS`` command and the next
Wednesday's sheet with the published results.

Every email a coach may reply to (sheets, answers, reminders, results) is also sent back
unquoted, as a careless client does: only the sheet's own lines to fill in read as pick lines.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from itertools import count

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import Q
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings

from competitions import services as competitions
from competitions.demo import DemoLeague
from competitions.models import Competition, Pick, PoolRound, Round
from league.models import Profile, Team
from mail import inbound
from mail.intake import email_ingest
from mail.models import InboundEmail
from mail.outbox import emails_send_due
from mail.turn_sheet import SheetRound, turn_sheet_read
from mail.weekly import reminders_send, week_find, week_teams_missing, weekly_emails_send
from tests.demo_worlds import demo_world
from tests.mail.smtp_server import smtp_serving
from tests.mail.test_fetch_email_picks import ImapServer, fetch, imap_server, mailbox
from tests.mail.test_ingest_email import AUTHSERV_ID
from tests.mail.test_turn_sheet import cup_coach

__all__ = ["imap_server", "mailbox"]  # the fixtures, shared with test_fetch_email_picks

week_3 = demo_world(3)

LEAGUE_ADDRESS = "picks@matrixhockey.test"


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test reads the database, in its own transaction, rolled back."""


@pytest.fixture(autouse=True)
def rates_afresh() -> Iterator[None]:
    """The commands' rate counters start afresh (they live in the cache)."""
    cache.clear()
    yield
    cache.clear()


# --- The SMTP server ------------------------------------------------------------------------------


@dataclass
class SmtpInbox:
    """What a real SMTP server received: each message with its envelope's recipients."""

    received: list[tuple[list[str], EmailMessage]] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.received.append((list(envelope.rcpt_tos), message))
        return "250 Message accepted"

    def to(self, address: str, *, since: int = 0) -> list[EmailMessage]:
        """The messages delivered to ``address``, after the first ``since`` of the server's."""
        return [m for rcpt, m in self.received[since:] if address in rcpt]

    def one(self, address: str, *, since: int, in_reply_to: str | None = None) -> EmailMessage:
        found = [
            m
            for m in self.to(address, since=since)
            if in_reply_to is None or m["In-Reply-To"] == in_reply_to
        ]
        assert len(found) == 1, [(m["Subject"], m["In-Reply-To"]) for m in found]
        return found[0]


@pytest.fixture
def smtp(settings: Settings) -> Iterator[SmtpInbox]:
    """A real SMTP server on 127.0.0.1, the site's email backend pointed at it."""
    handler = SmtpInbox()
    with smtp_serving(handler, settings):
        yield handler


def text_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None, message["Subject"]
    return part.get_content()


# --- The mail client ------------------------------------------------------------------------------

_sent = count(1)


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def reply_to(
    sheet: EmailMessage, *, sender: str, body: str, subject: str | None = None
) -> EmailMessage:
    """A reply as a mail client writes it: threaded under ``sheet`` (In-Reply-To, References),
    its subject « Re: », as the league's server delivers it (its Authentication-Results)."""
    domain = sender.rsplit("@", 1)[1]
    message = EmailMessage()
    message["Authentication-Results"] = (
        f"{AUTHSERV_ID}; spf=pass smtp.mailfrom={sender};"
        f" dkim=pass header.d={domain}; dmarc=pass header.from={domain}"
    )
    message["Received"] = f"from mail.{domain} by {AUTHSERV_ID}; {format_datetime(timezone.now())}"
    message["From"] = sender
    message["To"] = LEAGUE_ADDRESS
    message["Subject"] = subject or f"Re: {sheet['Subject']}"
    message["Message-ID"] = make_msgid(idstring=f"mailweek{next(_sent)}", domain=domain)
    message["In-Reply-To"] = sheet["Message-ID"]
    references = f"{sheet['References'] or ''} {sheet['Message-ID']}".strip()
    message["References"] = references
    message.set_content(body)
    return message


def put(server: ImapServer, message: EmailMessage, *, at: datetime) -> str:
    """``message`` delivered into the mailbox, received at ``at``; its Message-ID."""
    unique = f"{int(at.timestamp())}.M{next(_sent)}P{os.getpid()}.mh-week"
    path = server.maildir / "new" / unique
    path.write_bytes(bytes(message))
    os.utime(path, (at.timestamp(), at.timestamp()))
    os.chown(path, server.uid, server.gid)
    return str(message["Message-ID"])


# --- The week -------------------------------------------------------------------------------------


def speaks(user: User, language: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"language": language})


def wednesday(league: DemoLeague, week: int) -> datetime:
    """Wednesday 08:00 of ``week`` (its deadline, R13, is Friday 17:00)."""
    deadline = Round.objects.filter(season=league.season, week=week).earliest("deadline").deadline
    return deadline - timedelta(days=2, hours=9)


def notation(sheet_round: SheetRound) -> str:
    """A pick the team may play in the sheet's round: its first column and values left."""
    mine = sheet_round.mine
    shootout = f"({mine.shootout[0][0]})" if sheet_round.shootout else ""
    return f"{mine.columns[0][0]}({mine.extra_time[0][0]}){shootout}"


def answered(
    smtp: SmtpInbox, address: str, message_id: str, *, since: int
) -> tuple[EmailMessage, str]:
    """The one answer to ``message_id`` delivered to ``address``, threaded under it."""
    answer = smtp.one(address, since=since, in_reply_to=message_id)
    assert message_id in (answer["References"] or "").split()
    return answer, text_of(answer)


def clock_at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    """The site's clock (``django.utils.timezone.now``) moved to ``moment``, running on."""
    real = timezone.now
    offset = moment - real()
    monkeypatch.setattr(timezone, "now", lambda: real() + offset)


def pick_lines_read(text: str) -> list[str]:
    """The lines of ``text`` the intake reads as pick lines, were it sent back unquoted."""
    return [line.text for line in inbound.pick_lines(text)]


def test_a_week_played_from_the_mailbox_by_a_coach_and_a_deputy(
    week_3: DemoLeague,
    smtp: SmtpInbox,
    mailbox: ImapServer,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    coach = cup_coach(week_3)
    speaks(coach, "fr")
    deputy = User.objects.create_user("mailweek-deputy", email="mailweek-deputy@example.net")
    speaks(deputy, "en")
    team = Team.objects.get(coach=coach)
    Team.objects.filter(pk=team.pk).update(deputy=deputy)
    wednesday_4 = wednesday(week_3, 4)
    friday = wednesday_4 + timedelta(days=2)
    # The league's other coaches have no address here but one whose team has not picked yet
    # (Friday's reminder): the jobs run over the whole league, the emails stay few (fast).
    week_4 = week_find(now=friday)
    assert week_4 is not None
    late = next(e for e in week_teams_missing(week=week_4) if e.team_id != team.pk)
    User.objects.exclude(pk__in=[coach.pk, deputy.pk, late.team.coach_id]).update(email="")
    sent_back: list[str] = []  # every text a coach may reply to, checked at the end

    # Wednesday: the turn sheets, through the outbox and SMTP.
    assert weekly_emails_send(now=wednesday_4) == 3
    emails_send_due()
    french_sheet = smtp.one(coach.email, since=0)
    english_sheet = smtp.one(deputy.email, since=0)
    french, english = text_of(french_sheet), text_of(english_sheet)
    assert "Votre équipe" in french and "Your team:" in english
    data = turn_sheet_read(coach, at=wednesday_4)
    data_en = turn_sheet_read(deputy, at=wednesday_4)
    assert data is not None and data_en is not None and len(data.rounds) == 3
    fills_fr = [r.fill for r in data.rounds]
    fills_en = [r.fill for r in data_en.rounds]
    assert all(f in french for f in fills_fr) and all(f in english for f in fills_en)
    sent_back += [french, english]

    # The coach writes the championship's and the KDH's picks above the quoted sheet; the
    # deputy fills the WG's line in place in the quoted sheet.
    by_competition = {r.round.competition: r for r in data.rounds}
    wanted = {c: notation(r) for c, r in by_competition.items()}
    coach_lines = "\n".join(
        f"{by_competition[c].fill} {wanted[c]}" for c in (Competition.CHAMPIONSHIP, Competition.KDH)
    )
    coach_body = (
        f"Bonjour,\n\n{coach_lines}\n\nAmicalement\n\n"
        f"Le mer. à 08:00, Matrix Hockey <{LEAGUE_ADDRESS}> a écrit :\n{quoted(french)}\n"
    )
    wg_fill = next(r.fill for r in data_en.rounds if r.round.competition == Competition.WG)
    deputy_body = "\n".join(
        f"{wg_fill} {wanted[Competition.WG]}" if line == f"> {wg_fill}" else line
        for line in quoted(english).splitlines()
    )
    assert wanted[Competition.WG] in deputy_body
    received = timezone.now() - timedelta(minutes=5)  # before week 4's deadline
    coach_reply = reply_to(french_sheet, sender=coach.email, body=coach_body)
    deputy_reply = reply_to(english_sheet, sender=deputy.email, body=f"{deputy_body}\n")
    coach_id = put(mailbox, coach_reply, at=received)
    deputy_id = put(mailbox, deputy_reply, at=received)
    before = len(smtp.received)
    assert "2 messages ingested, 0 failed" in fetch()
    emails_send_due()

    # The picks stored, as the site's pick page shows them.
    picks = {
        p.round.competition: p
        for p in Pick.objects.filter(entry__team=team, round__week=4)
        .select_related("round")
        .order_by("received_at", "pk")  # the latest, the current one (R12)
    }
    assert {c: p.normalized for c, p in picks.items()} == wanted
    assert picks[Competition.WG].entered_by == deputy
    assert picks[Competition.KDH].entered_by == coach
    assert {p.channel for p in picks.values()} == {Pick.Channel.EMAIL}
    client = Client()
    client.force_login(coach)
    page = client.get("/picks/").content.decode()
    for pick in picks.values():
        assert pick.receipt in page and pick.normalized in page

    # Each reply answered once, threaded under it, in its writer's language, with the receipts.
    answer_fr, text_fr = answered(smtp, coach.email, coach_id, since=before)
    answer_en, text_en = answered(smtp, deputy.email, deputy_id, since=before)
    for competition in (Competition.CHAMPIONSHIP, Competition.KDH):
        assert picks[competition].receipt in text_fr
        assert picks[competition].normalized in text_fr
    assert picks[Competition.WG].receipt in text_en
    assert answer_fr["Subject"] != answer_en["Subject"]
    assert "« Bonjour, »" in text_fr  # the coach's own words, not understood: the help
    assert "Write one command a line" not in text_en  # nothing but the pick in the deputy's
    sent_back += [text_fr, text_en]

    # A second message each: commands, answered in one threaded reply.
    before = len(smtp.received)
    commands_fr = reply_to(
        answer_fr, sender=coach.email, body="INFOS\nORDRES\nClassement\n", subject="Ordres"
    )
    commands_en = reply_to(
        answer_en, sender=deputy.email, body="info\nPICKS\nstandings\n", subject="Orders"
    )
    commands_fr_id = put(mailbox, commands_fr, at=timezone.now())
    commands_en_id = put(mailbox, commands_en, at=timezone.now())
    assert "2 messages ingested, 0 failed" in fetch()
    emails_send_due()
    _, infos_fr = answered(smtp, coach.email, commands_fr_id, since=before)
    _, infos_en = answered(smtp, deputy.email, commands_en_id, since=before)
    for pick in picks.values():
        assert pick.receipt in infos_fr and pick.receipt in infos_en
    assert "Classement — " in infos_fr and "Standings — " in infos_en
    sent_back += [infos_fr, infos_en]

    # Friday morning: another team that has not picked gets the reminder.
    before = len(smtp.received)
    assert reminders_send(now=friday) == 1
    emails_send_due()
    late_coach = late.team.coach
    assert late_coach is not None
    [reminder] = smtp.to(late_coach.email, since=before)  # ours picked every round
    assert "Journée" in text_of(reminder) or "Round" in text_of(reminder)
    sent_back.append(text_of(reminder))

    # The next Tuesday: the referee arbitrates weeks 3 and 4 of the team's pools and publishes
    # them (the other pools' rounds wait: each pool is played in its own order).
    wednesday_5 = wednesday(week_3, 5)
    clock_at(monkeypatch, wednesday_5 - timedelta(days=1))
    before = len(smtp.received)
    assert data.entry is not None
    for week in (3, 4):
        pool_rounds = PoolRound.objects.filter(
            round__season=week_3.season,
            round__week=week,
        ).filter(Q(pool__members__entry__team=team) | Q(pool__division=data.entry.division))
        pool_rounds = pool_rounds.distinct().order_by("round__competition", "pool_id")
        for pool_round in pool_rounds:
            competitions.pool_round_arbitrate(pool_round=pool_round, by=week_3.referee)
        for pool_round in pool_rounds:
            competitions.pool_round_publish(pool_round=pool_round, by=week_3.referee)
    emails_send_due()
    results_mails = [text_of(m) for m in smtp.to(coach.email, since=before)]
    sent_back += results_mails

    # RÉSULTATS from the coach, RESULTS from the deputy: week 4's published games.
    before = len(smtp.received)
    championship_4 = by_competition[Competition.CHAMPIONSHIP].round
    results_fr = reply_to(
        answer_fr,
        sender=coach.email,
        body=f"Résultats championnat J{championship_4.number}\n",
        subject="Résultats",
    )
    results_fr_id = put(mailbox, results_fr, at=timezone.now())
    assert "1 message ingested, 0 failed" in fetch()
    emails_send_due()
    _, results_text = answered(smtp, coach.email, results_fr_id, since=before)
    # The team's game of week 4, its pick as the coach wrote it, and its score.
    [game] = [
        line.strip()
        for line in results_text.splitlines()
        if f"{team.name} [{wanted[Competition.CHAMPIONSHIP]}]" in line and " : " in line
    ]
    assert f"journée {championship_4.number}" in results_text.lower()
    results_page = client.get(f"/results/championship/{data.entry.division.slug}/4/")
    assert results_page.status_code == 200
    teams = re.fullmatch(r"(.+?) \[.*?\] – (.+?) \[.*?\] : \d+-\d+.*", game)
    assert teams is not None, game
    home, away = teams.groups()
    page_text = " ".join(results_page.content.decode().split())
    assert home in page_text and away in page_text
    sent_back.append(results_text)

    # The next Wednesday's sheet shows the published results.
    before = len(smtp.received)
    assert weekly_emails_send(now=wednesday_5) > 0
    emails_send_due()
    next_sheet = text_of(smtp.one(coach.email, since=before))
    next_data = turn_sheet_read(coach, at=wednesday_5)
    assert next_data is not None and next_data.results
    assert game in next_sheet  # the week's published result
    assert next_data.week == 5 and all(r.fill in next_sheet for r in next_data.rounds)
    sent_back.append(next_sheet)

    assert InboundEmail.objects.count() == 5

    # Any of these emails sent back unquoted, as a careless client does: only the sheets' lines
    # to fill in read as pick lines, and left empty they change nothing — no pick stored, none
    # refused.
    fills = {*fills_fr, *fills_en, *(r.fill for r in next_data.rounds)}
    last = Pick.objects.order_by("-pk").values_list("pk", flat=True).first()
    for text in sent_back:
        assert set(pick_lines_read(text)) <= fills, pick_lines_read(text)
        careless = reply_to(french_sheet, sender=coach.email, body=text)
        assert email_ingest(raw=bytes(careless)).lines == [], text
    assert Pick.objects.order_by("-pk").values_list("pk", flat=True).first() == last
