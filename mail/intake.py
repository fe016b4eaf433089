"""Picks by email: one message read once per Message-ID, its sender authenticated, each pick
line stored (or queued for the referee after the deadline, R13), the coach answered in their
language; and the mailbox fetched.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError, transaction
from django.utils import timezone, translation

from competitions.models import (
    Competition,
    Pick,
    Round,
)
from competitions.services.errors import PickFault
from competitions.services.late_picks import late_pick_queue
from competitions.services.picks import DeadlinePassed, PickRejected, pick_submit
from league import selectors
from league.models import Team
from league.selectors import user_language
from mail import inbound as mail_picks
from mail.authentication import authentication_verdict
from mail.commands import (
    message_items,
)
from mail.emails_replies import email_pick_reply
from mail.intake_commands import email_commands_read, email_reply_unknown
from mail.limits import message_read
from mail.mailbox import Mailbox, MailboxMessage, mailbox_open
from mail.models import InboundEmail, InboundFailure, OutboundEmail

logger = logging.getLogger(__name__)


EMAIL_DUPLICATE = "duplicate"
"""What :func:`email_ingest` reports for a Message-ID already ingested: nothing done again."""


FORGED_NOTICE_INTERVAL = timedelta(days=1)
"""At most one « a message in your name was refused » notice per coach in this time."""


@dataclass(frozen=True)
class EmailLineResult:
    """What became of one pick line of an email."""

    text: str
    competition: str
    round_number: int | None
    status: str
    """``recorded``, ``late`` (in the referee's queue, R13) or ``error``."""
    normalized: str = ""
    receipt: str = ""
    message: str = ""
    code: str = ""
    """Why a line is an error: :class:`PickRejected`'s code (``notation``, ``deadline``…),
    ``line`` for a line that does not read, or ``round`` when no round fits."""
    warning: str = ""
    """A recorded line's R11 warning (:class:`~competitions.services.picks.StalePick`), in the
    coach's language: the one the pick page and the API give."""
    refusal: dict[str, object] = field(default_factory=dict)
    """An error line's refusal as codes (:attr:`PickRejected.record`: its code, fault and
    facts), which the reply is worded from when it is sent."""
    pick_id: int | None = None
    """A recorded line's stored pick, whose receipt the reply gives."""
    stale: list[str | int | None] | None = None
    """A recorded line's R11 warning as facts (:attr:`StalePick.record`)."""

    @property
    def competition_label(self) -> str:
        return str(Competition(self.competition).label)


@dataclass
class EmailIngestResult:
    """What :func:`email_ingest` did with one message."""

    message_id: str
    outcome: str
    """An :class:`InboundEmail.Outcome` value, or :data:`EMAIL_DUPLICATE`."""
    sender: str
    received_at: datetime
    reason: str = ""
    lines: list[EmailLineResult] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)
    """The records of the message's commands and of its lines not understood
    (:func:`mail.commands.command_record`), as the reply answers them."""
    replied_to: list[str] = field(default_factory=list)


def email_ingest(*, raw: bytes, received_at: datetime | None = None) -> EmailIngestResult:
    """Read one email of picks (RFC 5322 bytes) and do what it asks, once per Message-ID.

    ``received_at`` is when the league's mail server got the message (the mailbox's
    INTERNALDATE); without it, the date of the topmost ``Received`` header (the one that server
    added; never a lower one, which the sender may have written), else now; never later than
    now. That time decides the deadline (R13) — the ``Date`` header is only the sender's claim.

    In order: a Message-ID already ingested → nothing (``duplicate``, no second reply); a message
    over a limit (``MAIL_MAX_BYTES``, ``MAIL_MAX_MIME_DEPTH``, ``MAIL_MAX_MIME_PARTS``) →
    refused, no reply; a machine's message (auto-reply, bounce, list) → ignored, no reply; not
    exactly one ``From`` address → refused, no reply; an address that is not exactly one coach's
    → no pick, one polite reply per address, only when the mail server authenticated the sender
    (no backscatter); a coach's address that the mail server does not vouch for
    (:func:`~mail.authentication.authentication_verdict`) → no pick, and at most one notice a day
    to the coach's registered address, never to the sender or its ``Reply-To``. Otherwise each
    pick line (the first ``MAIL_MAX_PICK_LINES``) goes to :func:`pick_submit` (channel email,
    R12) in its own savepoint, a line past the deadline to the referee's queue
    (:class:`LatePick`, R13), and the coach gets one reply, at their registered address, in
    their language.

    Whatever the bytes, it raises nothing but the database's own failures: every message is
    recorded as an :class:`InboundEmail` with its outcome and reason, and one that the reading
    breaks on is ``refused`` with nothing of it stored.
    """
    read = message_read(
        raw,
        max_bytes=settings.MAIL_MAX_BYTES,
        max_mime_depth=settings.MAIL_MAX_MIME_DEPTH,
        max_mime_parts=settings.MAIL_MAX_MIME_PARTS,
    )
    message = read.message
    now = timezone.now()
    claimed = received_at or mail_picks.received_time(message)
    result = EmailIngestResult(
        message_id=mail_picks.message_id(message, raw),
        outcome=InboundEmail.Outcome.PROCESSED,
        sender=", ".join(mail_picks.sender_addresses(message)),
        received_at=now if claimed is None or claimed > now else claimed,
    )
    with transaction.atomic():
        try:
            # The unique Message-ID is the lock: a second ingestion (even a concurrent one)
            # fails here and does nothing.
            with transaction.atomic():
                inbound = InboundEmail.objects.create(
                    message_id=result.message_id,
                    sender=result.sender[:254],
                    subject=mail_picks.message_subject(message),
                    received_at=result.received_at,
                    outcome=result.outcome,
                )
        except IntegrityError:
            result.outcome = EMAIL_DUPLICATE
            result.reason = "this Message-ID was already ingested"
            return result
        if read.refusal:
            result.outcome = InboundEmail.Outcome.REFUSED
            result.reason = f"not read: {read.refusal}"
            logger.warning("Email %s refused, %s", result.message_id, result.reason)
        else:
            inbound.reply = _email_handle_guarded(message=message, inbound=inbound, result=result)
        inbound.outcome = result.outcome
        inbound.reason = mail_picks.printable(result.reason)[:300]
        inbound.report = [
            {
                "line": line.text,
                "competition": line.competition,
                "round": line.round_number,
                "status": line.status,
                "pick": line.normalized,
                "message": line.message,
                "code": line.code,
                "fault": line.refusal.get("fault", ""),
                "facts": line.refusal.get("facts", {}),
                "also": line.refusal.get("also", []),
                "pick_id": line.pick_id,
                "stale": line.stale,
            }
            for line in result.lines
        ] + result.commands
        inbound.save()
    return result


def _email_handle_guarded(
    *, message: EmailMessage, inbound: InboundEmail, result: EmailIngestResult
) -> OutboundEmail | None:
    """:func:`_email_handle` in a savepoint: when reading the message breaks (the standard
    library's parser on bytes it does not expect), the message is refused and nothing of it
    stays — no pick, no reply. A database that fails is not the message's fault: that raises."""
    try:
        with transaction.atomic():
            return _email_handle(message=message, inbound=inbound, result=result)
    except (OperationalError, InterfaceError):
        raise
    except Exception as error:  # any reading failure: a refusal recorded, never a crash
        logger.exception("Email %s could not be read; refused", result.message_id)
        result.outcome = InboundEmail.Outcome.REFUSED
        result.reason = f"unreadable message ({type(error).__name__})"
        result.lines, result.commands, result.replied_to = [], [], []
        inbound.user, inbound.authentication = None, ""
        return None


def _email_handle(
    *, message: EmailMessage, inbound: InboundEmail, result: EmailIngestResult
) -> OutboundEmail | None:
    """Decide on ``message`` (see :func:`email_ingest`); the reply sent, if any."""
    Outcome = InboundEmail.Outcome
    automatic = mail_picks.automatic_reason(message)
    if automatic is not None:
        result.outcome, result.reason = Outcome.AUTOMATIC, f"not answered: {automatic}"
        return None
    senders = mail_picks.sender_addresses(message)
    if len(senders) != 1:
        result.outcome = Outcome.BAD_SENDER
        result.reason = f"{len(senders)} From addresses: no single sender"
        return None
    if mail_picks.from_header_count(message) != 1:
        # A From that does not read beside one that does: whoever wrote the second may not be
        # whom the league's server authenticated, so neither is believed nor answered.
        result.outcome = Outcome.BAD_SENDER
        result.reason = "several From headers: no single sender"
        return None
    address = senders[0]
    verdict = authentication_verdict(message, from_address=address)
    inbound.authentication = mail_picks.printable(verdict.reason)[:300]
    users = list(get_user_model().objects.filter(email__iexact=address, is_active=True)[:2])
    # The team's coach or its deputy (who may send its picks too, recorded as theirs, R12).
    team = selectors.user_team(user=users[0]) if len(users) == 1 else None
    if team is None:
        result.outcome = Outcome.UNKNOWN_SENDER
        result.reason = f"{address} is not exactly one coach's address"
        return email_reply_unknown(
            message=message, inbound=inbound, address=address, verdict=verdict, result=result
        )
    coach = users[0]
    inbound.user = coach
    if not verdict.trusted:
        result.outcome, result.reason = Outcome.FORGED, verdict.reason
        logger.warning(
            "Email %s in the name of %s refused: %s", result.message_id, address, verdict.reason
        )
        return _email_notice_forged(coach=coach, inbound=inbound, result=result)
    language = user_language(coach)
    items = message_items(mail_picks.body_text(message))
    picks = [
        item
        for item in items
        if isinstance(item, mail_picks.PickLine) and not _fill_line_left_empty(item)
    ]
    with translation.override(language):
        limit = settings.MAIL_MAX_PICK_LINES
        result.lines = [
            _email_pick_line(line, team=team, coach=coach, result=result) for line in picks[:limit]
        ]
        if len(picks) > limit:
            result.lines.append(_email_line_unread(picks[limit], limit=limit))
    result.commands = email_commands_read(items, address=address)
    asked = [record for record in result.commands if record["status"] != "limited"]
    result.outcome = Outcome.PROCESSED if picks or asked else Outcome.NO_PICKS
    result.reason = verdict.reason
    if result.commands and not asked:
        result.reason += (
            f"; commands not answered: over {settings.MAIL_MAX_COMMAND_MESSAGES} an hour"
        )
        if not picks:
            return None
    if not coach.email:
        return None
    reply = email_pick_reply(kind="picks", inbound=inbound, user=coach, team=team)
    result.replied_to = [coach.email]
    return reply


def _fill_line_left_empty(line: mail_picks.PickLine) -> bool:
    """A line to fill in of the turn sheet (« Championnat J5 : », ``mail.turn_sheet``) sent back
    without a pick: as the sheet says, it changes nothing — no pick, and no refusal either (a
    sheet sent back whole, unquoted, asks nothing)."""
    return (
        line.error == PickFault.NO_PICK
        and line.round_number is not None
        and line.text.rstrip().endswith((":", "="))
    )


def _email_notice_forged(
    *, coach: User, inbound: InboundEmail, result: EmailIngestResult
) -> OutboundEmail | None:
    """Tell the coach, at their registered address, that a message in their name was refused —
    without a word of it (it may be someone else's), and at most once a day."""
    since = timezone.now() - FORGED_NOTICE_INTERVAL
    warned = InboundEmail.objects.filter(
        user=coach,
        outcome=InboundEmail.Outcome.FORGED,
        reply__isnull=False,
        processed_at__gte=since,
    )
    if not coach.email or warned.exists():
        result.reason += "; coach not warned again"
        return None
    reply = email_pick_reply(kind="forged", inbound=inbound, user=coach)
    result.replied_to = [coach.email]
    return reply


def _email_round(*, competition: str, number: int | None, at: datetime) -> Round:
    """The round a pick line is for: the one it names, else the competition's round of the week
    ``at`` falls in (the next one when the competition plays no round that week). Raises
    :class:`PickRejected` (code ``round``) when there is none or the week has two (the
    championship's last week, R20)."""
    season = selectors.season_current()
    if season is None:
        raise PickRejected(PickFault.NO_SEASON, code="round")
    rounds = Round.objects.filter(season=season, competition=competition)
    if number is not None:
        named = rounds.filter(number=number).first()
        if named is None:
            facts = {"competition": competition, "number": number}
            raise PickRejected(PickFault.NO_SUCH_ROUND, facts, code="round")
        return named
    week = season.week_at(at)
    upcoming = list(rounds.filter(week__gte=week).order_by("week", "number")[:2])
    if not upcoming:
        raise PickRejected(PickFault.NO_ROUND_LEFT, {"competition": competition}, code="round")
    if len(upcoming) == 2 and upcoming[0].week == upcoming[1].week:
        facts = {
            "week": upcoming[0].week,
            "competition": competition,
            "example_round": upcoming[0].number,
        }
        raise PickRejected(PickFault.TWO_ROUNDS, facts, code="round")
    return upcoming[0]


def _email_refused(
    line: mail_picks.PickLine, error: PickRejected, number: int | None
) -> EmailLineResult:
    message = " ".join(error.messages)
    return EmailLineResult(
        line.text,
        line.competition,
        number,
        "error",
        message=message,
        code=error.code or "",
        refusal=error.record,
    )


def _email_line_unread(first: mail_picks.PickLine, *, limit: int) -> EmailLineResult:
    """The one error line that stands for the pick lines over ``MAIL_MAX_PICK_LINES``: the
    first of them (the others are not even read)."""
    refusal = PickRejected(PickFault.LINES_LIMIT, {"limit": limit}, code="limit")
    return _email_refused(first, refusal, first.round_number)


def _email_pick_line(
    line: mail_picks.PickLine, *, team: Team, coach: User, result: EmailIngestResult
) -> EmailLineResult:
    """One pick line in its own savepoint: whatever becomes of it, the message's other lines
    are still stored (a line the database refuses is an error for that line only)."""
    if line.error is not None:
        refusal = PickRejected(line.error, mail_picks.LINE_FACTS, code="line")
        return _email_refused(line, refusal, line.round_number)
    try:
        with transaction.atomic():
            return _email_pick_line_submit(line, team=team, coach=coach, result=result)
    except (OperationalError, InterfaceError):
        raise
    except (DatabaseError, ValidationError, ValueError):
        logger.exception("Email %s: line %r not stored", result.message_id, line.text)
        refusal = PickRejected(PickFault.NOT_STORED, code="stored")
        return _email_refused(line, refusal, line.round_number)


def _email_pick_line_submit(
    line: mail_picks.PickLine, *, team: Team, coach: User, result: EmailIngestResult
) -> EmailLineResult:
    """Submit one pick line (channel email); past the deadline, queue it for a referee (R13)."""

    def refused(error: PickRejected, number: int | None = line.round_number) -> EmailLineResult:
        return _email_refused(line, error, number)

    try:
        round = _email_round(
            competition=line.competition, number=line.round_number, at=result.received_at
        )
    except PickRejected as error:
        return refused(error)
    try:
        with transaction.atomic():
            submitted = pick_submit(
                team=team,
                round=round,
                notation=line.notation,
                channel=Pick.Channel.EMAIL,
                entered_by=coach,
                received_at=result.received_at,
            )
    except DeadlinePassed as late:
        if late.code != "deadline":  # arbitrated: too late even for a referee
            return refused(late, round.number)
        try:
            normalized = late_pick_queue(
                team=team,
                round=round,
                notation=line.notation,
                received_at=result.received_at,
                message_id=result.message_id,
            )
        except PickRejected as error:
            return refused(error, round.number)
        return EmailLineResult(
            line.text, line.competition, round.number, "late", normalized=normalized
        )
    except PickRejected as error:
        return refused(error, round.number)
    return EmailLineResult(
        line.text,
        line.competition,
        round.number,
        "recorded",
        normalized=submitted.pick.normalized,
        receipt=submitted.pick.receipt,
        warning=submitted.stale.message if submitted.stale else "",
        pick_id=submitted.pick.pk,
        stale=submitted.stale.record if submitted.stale else None,
    )


@dataclass(frozen=True)
class MailboxIngest:
    """One message of the mailbox: what :func:`email_ingest` did, or the error that left it
    unseen for the next run — or set it aside for good after ``MAIL_FETCH_MAX_ATTEMPTS``."""

    uid: str
    result: EmailIngestResult | None
    error: str = ""
    set_aside: bool = False


def email_fetch() -> list[MailboxIngest]:
    """Ingest every unseen message of the picks mailbox (the ``IMAP_*`` settings), oldest first.

    Each message is ingested on its own (its own transaction) with the mailbox's INTERNALDATE as
    the time the league received it, then marked ``\\Seen`` (and moved to
    ``IMAP_PROCESSED_FOLDER`` when one is set). A message whose ingestion fails is logged and
    left unseen for the next run: none is lost, and none is stored twice (its Message-ID), so
    Celery beat may run this as often as it likes. Its failures are counted
    (:class:`InboundFailure`, by the SHA-256 of its bytes); at ``MAIL_FETCH_MAX_ATTEMPTS`` it is
    set aside (marked seen and flagged, moved to ``IMAP_FAILED_FOLDER`` when one is set) instead
    of being tried again every few minutes forever. A database that is down counts no try: the
    message is not at fault. Raises ``mail.mailbox.MailboxError`` when the mailbox cannot be
    read.
    """
    done: list[MailboxIngest] = []
    with mailbox_open() as box:
        for message in box.unseen():
            digest = hashlib.sha256(message.raw).hexdigest()
            try:
                result = email_ingest(raw=message.raw, received_at=message.internal_date)
            except (OperationalError, InterfaceError) as error:
                logger.exception("Mailbox message %s not ingested; it stays unseen", message.uid)
                done.append(MailboxIngest(message.uid, None, f"{type(error).__name__}: {error}"))
                continue
            except Exception as error:  # any other failure: one try counted
                done.append(_email_fetch_failed(box, message, digest=digest, error=error))
                continue
            box.done(message)
            InboundFailure.objects.filter(digest=digest).delete()
            done.append(MailboxIngest(message.uid, result))
    return done


def _email_fetch_failed(
    box: Mailbox, message: MailboxMessage, *, digest: str, error: Exception
) -> MailboxIngest:
    """Count the failure of ``message``; set it aside at the last try, else leave it unseen."""
    failure = inbound_failure_record(
        raw=message.raw, digest=digest, error=f"{type(error).__name__}: {error}"
    )
    set_aside = failure.set_aside_at is not None
    if set_aside:
        logger.error(
            "Mailbox message %s set aside after %d failed tries: %s",
            message.uid,
            failure.attempts,
            failure.last_error,
            exc_info=error,
        )
        box.set_aside(message)
    else:
        logger.error(
            "Mailbox message %s not ingested (try %d); it stays unseen",
            message.uid,
            failure.attempts,
            exc_info=error,
        )
    return MailboxIngest(message.uid, None, failure.last_error, set_aside)


@transaction.atomic
def inbound_failure_record(*, raw: bytes, digest: str, error: str) -> InboundFailure:
    """Count one more failed ingestion of the message ``raw`` (its SHA-256 ``digest``); set it
    aside (``set_aside_at``) when it reaches ``MAIL_FETCH_MAX_ATTEMPTS``."""
    now = timezone.now()
    failure, _created = InboundFailure.objects.select_for_update().get_or_create(digest=digest)
    if not failure.message_id:
        failure.message_id, failure.sender = _message_identity(raw)
    failure.attempts += 1
    failure.last_error = mail_picks.printable(error)[:2000]
    failure.last_failed_at = now
    if failure.attempts >= settings.MAIL_FETCH_MAX_ATTEMPTS and failure.set_aside_at is None:
        failure.set_aside_at = now
    failure.save()
    return failure


def _message_identity(raw: bytes) -> tuple[str, str]:
    """The Message-ID and sender of a message that fails, as far as its headers read."""
    try:
        headers = message_read(raw, max_bytes=0, max_mime_depth=0, max_mime_parts=0)
        message = headers.message
        sender = ", ".join(mail_picks.sender_addresses(message))
        return mail_picks.message_id(message, raw)[:998], sender[:254]
    except Exception:  # the headers do not read either: the digest names it
        logger.exception("Mailbox message without readable headers")
        return "", ""
