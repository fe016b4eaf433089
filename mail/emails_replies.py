"""The replies to picks by email (``mail.intake``) and the late pick's refusal (R13): one kind,
``pick-reply``, in five forms (``context["kind"]``), each queued by ids and codes and rendered
by the worker that sends it, in the recipient's language then.

- ``picks``: what became of each pick line, read from the message's record
  (:class:`~mail.models.InboundEmail`'s report: statuses, the stored picks' ids, each refusal's
  code, fault and facts, worded by ``competitions.services.errors``), threaded under the
  message (``In-Reply-To``, ``References``);
  and the answers to its commands (:mod:`mail.command_answers`), worded when it is sent;
- ``unknown``: to an address that is no coach's, in the language its message looks written in;
- ``join``: to an address that is no coach's that asked to join the waiting list without a
  team's name;
- ``forged``: to the coach whose address a message the mail server did not vouch for used;
- ``late_rejected``: to the coach whose late pick a referee refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone, translation

from competitions.models import Competition, LatePick, Pick
from competitions.services.errors import pick_fault_of, pick_refusal_worded
from competitions.services.picks import StalePick
from league.models import Language, Team
from league.selectors import season_current, user_language
from mail.command_answers import command_answers
from mail.models import InboundEmail, OutboundEmail
from mail.outbox import Memo, Rendering, email_queue, renders
from matrixhockey.site import site_url

AUTOMATIC = {"Auto-Submitted": "auto-replied"}
"""RFC 3834: an automatic reply says so, so that the sender's robots do not answer it."""


def email_pick_reply(
    *,
    kind: str,
    inbound: InboundEmail,
    user: User | None = None,
    team: Team | None = None,
    to: str = "",
    language: str = "",
) -> OutboundEmail:
    """Queue the reply of ``kind`` to the message ``inbound``: to ``user`` (the coach, or the
    deputy who sent it, for ``team``), or to address ``to`` in ``language`` (an unknown
    sender)."""
    if kind not in REPLIES:
        raise ValueError(f"no reply to picks by email is called {kind!r}")
    context: dict[str, object] = {"kind": kind, "inbound": inbound.pk}
    if team is not None:
        context["team"] = team.pk
    if language:
        context["language"] = Language(language).value
    return email_queue(template="pick-reply", user=user, to=to, context=context)


def email_late_pick_rejected(*, late_pick: LatePick) -> OutboundEmail | None:
    """R13: tell the coach that a referee refused the pick they emailed after the deadline."""
    coach = late_pick.entry.team.coach
    if coach is None or not coach.email:
        return None
    context = {"kind": "late_rejected", "late_pick": late_pick.pk}
    return email_queue(template="pick-reply", user=coach, context=context)


def email_times(received_at: datetime) -> dict[str, object]:
    """What a reply about a pick by email says of time: when it was received, in the season's
    time zone, and where to pick on the web."""
    season = season_current()
    zone = season.time_zone if season is not None else "Europe/Paris"
    return {
        "received_at": timezone.localtime(received_at, ZoneInfo(zone)),
        "time_zone": zone,
        "picks_url": site_url(reverse("picks")),
    }


@dataclass(frozen=True)
class ReplyLine:
    """One pick line of a message, as its reply says it (in the reader's language)."""

    text: str
    competition: str
    round_number: int | None
    status: str
    normalized: str = ""
    receipt: str = ""
    warning: str = ""
    message: str = ""

    @property
    def competition_label(self) -> str:
        return str(Competition(self.competition).label)


PICK_STATUSES = frozenset({"recorded", "late", "error"})
"""The statuses of a message's pick lines in its record (its commands' are others)."""


def reply_lines(report: list[dict[str, Any]]) -> list[ReplyLine]:
    """A message's pick lines from its record, worded in the active language: a refusal from
    its code, fault and facts, an R11 warning from its column and round, a receipt from the
    stored pick (one query). Its commands are answered by :func:`command_answers`."""
    report = [line for line in report if line.get("status") in PICK_STATUSES]
    picks = [line["pick_id"] for line in report if line.get("pick_id")]
    receipts = dict(Pick.objects.filter(pk__in=picks).values_list("pk", "receipt"))
    lines = []
    for line in report:
        message = ""
        if line["status"] == "error":
            said = [line, *line.get("also", [])]  # every wrong part of the pick (R10)
            message = " ".join(
                pick_refusal_worded(
                    pick_fault_of(code=wrong["code"], fault=wrong["fault"]), wrong["facts"]
                )
                for wrong in said
            )
        stale = line.get("stale")
        lines.append(
            ReplyLine(
                text=line["line"],
                competition=line["competition"],
                round_number=line["round"],
                status=line["status"],
                normalized=line["pick"],
                receipt=receipts.get(line.get("pick_id"), ""),
                warning=StalePick.of_record(stale).message if stale else "",
                message=message,
            )
        )
    return lines


Reply = Callable[[OutboundEmail], Rendering | None]


def _picks_reply(email: OutboundEmail) -> Rendering | None:
    inbound = InboundEmail.objects.filter(pk=email.context["inbound"]).first()
    team = Team.objects.filter(pk=email.context["team"]).first()
    coach = email.user
    if inbound is None or team is None or coach is None:
        return None
    language = user_language(coach)
    with translation.override(language):
        lines = reply_lines(inbound.report)
        answers = command_answers(inbound.report, user=coach, team=team)
    return Rendering(
        user=coach,
        language=language,
        context={
            "kind": "picks",
            "coach": coach,
            "team": team,
            "lines": lines,
            "recorded": sum(line.status == "recorded" for line in lines),
            "late": sum(line.status == "late" for line in lines),
            "errors": sum(line.status == "error" for line in lines),
            "answers": answers,
            "subject": inbound.subject,
            **email_times(inbound.received_at),
        },
        headers={
            "In-Reply-To": inbound.message_id,
            "References": inbound.message_id,
            **AUTOMATIC,
        },
    )


def _address_reply(kind: str) -> Reply:
    """The reply to an address the league does not know, threaded under its message: ``unknown``
    (who may write to the league, once per address) or ``join`` (``LISTE`` / ``JOIN`` without a
    team's name that reads: how to write it; with one, the answer is the waiting list's own
    email, :mod:`mail.intake_commands`)."""

    def reply(email: OutboundEmail) -> Rendering | None:
        inbound = InboundEmail.objects.filter(pk=email.context["inbound"]).first()
        if inbound is None or not email.to:
            return None
        [address] = email.to
        return Rendering(
            user=None,
            to=address,
            language=email.context["language"],
            context={"kind": kind, "address": address, **email_times(inbound.received_at)},
            headers={
                "In-Reply-To": inbound.message_id,
                "References": inbound.message_id,
                **AUTOMATIC,
            },
        )

    return reply


def _forged_notice(email: OutboundEmail) -> Rendering | None:
    inbound = InboundEmail.objects.filter(pk=email.context["inbound"]).first()
    coach = email.user
    if inbound is None or coach is None:
        return None
    return Rendering(
        user=coach,
        language=user_language(coach),
        context={"kind": "forged", "coach": coach, **email_times(inbound.received_at)},
        headers=AUTOMATIC,
    )


def _late_pick_refusal(email: OutboundEmail) -> Rendering | None:
    late_pick = (
        LatePick.objects.select_related("entry__team__coach", "round")
        .filter(pk=email.context["late_pick"])
        .first()
    )
    coach = late_pick.entry.team.coach if late_pick is not None else None
    if late_pick is None or coach is None:
        return None
    return Rendering(
        user=coach,
        language=user_language(coach),
        context={
            "kind": "late_rejected",
            "coach": coach,
            "team": late_pick.entry.team,
            "round": late_pick.round,
            "notation": late_pick.notation,
            **email_times(late_pick.received_at),
        },
        headers={"Auto-Submitted": "auto-generated"},
    )


REPLIES: dict[str, Reply] = {
    "picks": _picks_reply,
    "unknown": _address_reply("unknown"),
    "join": _address_reply("join"),
    "forged": _forged_notice,
    "late_rejected": _late_pick_refusal,
}
"""Each form of ``pick-reply`` with what renders it from its row."""


@renders("pick-reply")
def pick_reply_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A reply about picks by email, when sent, rendered by its form (:data:`REPLIES`)."""
    return REPLIES[email.context["kind"]](email)
