"""The commands of a message by email (``mail.commands`` reads them): which of them are answered
(a burst from one address is answered at ``MAIL_MAX_COMMAND_MESSAGES`` an hour), the reply to an
address the league does not know, and its ``LISTE`` / ``JOIN``. :mod:`mail.intake` calls these
for each message it reads.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any, Protocol

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from league.forms import JoinForm
from league.models import Language
from league.services import waiting_list_register
from mail import inbound as mail_picks
from mail.authentication import AuthVerdict
from mail.commands import (
    COMMANDS_MAX,
    UNKNOWN_LINES_MAX,
    Command,
    Item,
    Unknown,
    command_record,
    message_items,
)
from mail.emails_replies import email_pick_reply
from mail.models import InboundEmail, OutboundEmail
from matrixhockey.cache import rate_exceeded


class EmailIngestResult(Protocol):
    """What these functions fill in of :class:`mail.intake.EmailIngestResult` (the intake
    imports this module, so it is named by its shape here)."""

    reason: str
    replied_to: list[str]
    commands: list[dict[str, Any]]


COMMANDS_WINDOW = timedelta(hours=1)
"""The time over which an address's answered commands are counted
(``MAIL_MAX_COMMAND_MESSAGES``)."""


def commands_rate_exceeded(*, address: str, now: datetime) -> bool:
    """Whether ``address`` had ``MAIL_MAX_COMMAND_MESSAGES`` messages with commands (or lines
    the league answered with its help) answered in the last :data:`COMMANDS_WINDOW`: a burst of
    commands is answered at that rate, the rest read and not answered. Counted from the
    messages' own records (:class:`~mail.models.InboundEmail`), so the limit holds whatever
    process reads the mailbox, and costs one query."""
    answered = (
        InboundEmail.objects.filter(
            sender__iexact=address,
            processed_at__gte=now - COMMANDS_WINDOW,
            reply__isnull=False,
        )
        .filter(
            Q(report__contains=[{"status": "command"}])
            | Q(report__contains=[{"status": "unknown"}])
        )
        .count()
    )
    return answered >= settings.MAIL_MAX_COMMAND_MESSAGES


def email_commands_read(items: list[Item], *, address: str) -> list[dict[str, Any]]:
    """The records of a message's commands (the first :data:`~mail.commands.COMMANDS_MAX`) and
    of the lines it has that are neither picks nor commands (the first
    :data:`~mail.commands.UNKNOWN_LINES_MAX`, then how many more: answered with the help), in
    the message's order — each ``limited`` when the address is over its rate
    (:func:`commands_rate_exceeded`): read, recorded, not answered. Bounded
    whatever the message's length."""
    records: list[dict[str, Any]] = []
    commands = unknown = 0
    for item in items:
        if isinstance(item, Command):
            commands += 1
            if commands <= COMMANDS_MAX:
                records.append(command_record(item))
        elif isinstance(item, Unknown):
            unknown += 1
            if unknown <= UNKNOWN_LINES_MAX:
                records.append({"line": item.text[:300], "status": "unknown"})
    if unknown > UNKNOWN_LINES_MAX:
        records.append({"line": "", "status": "unknown_more", "count": unknown - UNKNOWN_LINES_MAX})
    if commands > COMMANDS_MAX:
        records.append({"line": "", "status": "commands_more", "count": commands - COMMANDS_MAX})
    if records and commands_rate_exceeded(address=address, now=timezone.now()):
        return [{"line": record["line"], "status": "limited"} for record in records]
    return records


def email_reply_unknown(
    *,
    message: EmailMessage,
    inbound: InboundEmail,
    address: str,
    verdict: AuthVerdict,
    result: EmailIngestResult,
) -> OutboundEmail | None:
    """One polite reply per unknown address, only to a sender the mail server authenticated:
    never a reply to an address someone else may have written in ``From``."""
    if not verdict.trusted:
        result.reason += f"; not answered ({verdict.reason})"
        return None
    joins = [
        item
        for item in message_items(mail_picks.body_text(message))
        if isinstance(item, Command) and item.name == "join"
    ]
    if joins:
        return email_join(
            joins[0], message=message, inbound=inbound, address=address, result=result
        )
    answered = InboundEmail.objects.filter(
        sender__iexact=address,
        outcome=InboundEmail.Outcome.UNKNOWN_SENDER,
        reply__isnull=False,
    )
    if answered.exists():
        result.reason += "; already answered once"
        return None
    body = mail_picks.body_text(message)
    words = [item.language for item in message_items(body) if isinstance(item, Command)]
    english = (
        (words[:1] == ["en"])
        or mail_picks.looks_english(body)
        or (mail_picks.header_text(message, "Content-Language").lower().startswith("en"))
    )
    language = Language.ENGLISH if english else Language.FRENCH
    reply = email_pick_reply(kind="unknown", inbound=inbound, to=address, language=language)
    result.replied_to = [address]
    return reply


def email_join(
    join: Command,
    *,
    message: EmailMessage,
    inbound: InboundEmail,
    address: str,
    result: EmailIngestResult,
) -> OutboundEmail | None:
    """``LISTE`` / ``JOIN`` from an address the league does not know (and its mail server
    authenticated): the team named after the word goes on the waiting list as the site's form
    puts it (:class:`~league.forms.JoinForm`, :func:`~league.services.waiting_list_register`,
    its limit per address shared with the form), and the answer is that registration's own
    email — the link that confirms the address, or its place —, threaded under the message, in
    the language of the word. Without a team's name, one reply says how to write it."""
    result.commands = [command_record(join)]
    over = commands_rate_exceeded(address=address, now=timezone.now()) or rate_exceeded(
        key=f"join:email:{address}", limit=settings.WAITING_LIST_RATE_PER_EMAIL, seconds=86400
    )
    if over:
        result.commands = [{"line": join.text, "status": "limited"}]
        result.reason += "; JOIN over its rate: not answered"
        return None
    form = JoinForm(
        data={
            "contact_name": mail_picks.sender_name(message) or address.split("@")[0],
            "email": address,
            "team_name": join.args.get("team_name", ""),
            "language": join.language,
        }
    )
    if not form.is_valid():
        result.reason += "; JOIN without a team's name that reads"
        result.replied_to = [address]
        return email_pick_reply(kind="join", inbound=inbound, to=address, language=join.language)
    registration = waiting_list_register(**form.cleaned_data, in_reply_to=inbound.message_id)
    result.reason += "; registered on the waiting list" + (
        " (already on it)" if registration.known else ""
    )
    result.replied_to = [address]
    return (
        OutboundEmail.objects.filter(template="waiting-list", context__entry=registration.entry.pk)
        .order_by("-pk")
        .first()
    )
