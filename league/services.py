"""Writes to the league: one ``transaction.atomic`` per business action.

Functions are named ``<thing>_<action>`` and take keyword-only arguments. They validate with the
models' ``full_clean`` so a caller (admin, command, task) gets a ``ValidationError`` with a
message rather than half-saved rows; the database constraints stay the last line.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from rest_framework.authtoken.models import Token

from competitions.models import Competition, Fixture, Pool, PoolRound, Round
from engine import NotationError, Refusal, refusal, refusal_of
from engine import Pick as EnginePick
from league import mail_picks, selectors
from league.emails import email_pick_receipt, email_send, site_url, user_language
from league.models import (
    AuditLog,
    Division,
    Entry,
    InboundEmail,
    Language,
    LatePick,
    OutboundEmail,
    Pick,
    Season,
    StockKind,
    StockMovement,
    StockReason,
    Team,
)
from league.selectors import EntryChoices, entry_choices, entry_plays_round, entry_pool
from matrixhockey.db import save_valid

STANDARD_DIVISIONS: tuple[tuple[str, str, int, str], ...] = (
    ("elite", "Elite", 1, ""),
    ("d2a", "D2A", 2, "A"),
    ("d2b", "D2B", 2, "B"),
    ("d3a", "D3A", 3, "A"),
    ("d3b", "D3B", 3, "B"),
    ("d3c", "D3C", 3, "C"),
    ("d3d", "D3D", 3, "D"),
)
"""The league's seven divisions: (slug, name, tier, group)."""


class StockBelowZero(ValidationError):
    """A stock movement that would leave a negative balance: refused, nothing written."""


@transaction.atomic
def season_create(
    *,
    number: int,
    starts_on: date,
    name: str = "",
    time_zone: str = "Europe/Paris",
    deadline_weekday: int = Season.Weekday.FRIDAY,
    deadline_time: time = time(17, 0),
) -> Season:
    """A new season in preparation (R13's deadline defaults: Friday 17:00 Europe/Paris)."""
    return save_valid(
        Season(
            number=number,
            name=name,
            starts_on=starts_on,
            time_zone=time_zone,
            deadline_weekday=deadline_weekday,
            deadline_time=deadline_time,
        )
    )


@transaction.atomic
def season_make_current(*, season: Season) -> Season:
    """Make ``season`` the league's current season (only one is)."""
    Season.objects.filter(is_current=True).exclude(pk=season.pk).update(is_current=False)
    season.is_current = True
    season.save(update_fields=["is_current"])
    return season


@transaction.atomic
def divisions_create_standard() -> list[Division]:
    """The seven divisions of the league, created where missing (idempotent)."""
    return [
        Division.objects.get_or_create(
            slug=slug, defaults={"name": name, "tier": tier, "group": group}
        )[0]
        for slug, name, tier, group in STANDARD_DIVISIONS
    ]


@transaction.atomic
def team_create(
    *,
    name: str,
    slug: str = "",
    coach: AbstractBaseUser | None = None,
    is_dummy: bool = False,
) -> Team:
    """A new team; its slug defaults to the slugified name. A user coaches one team at most."""
    return save_valid(Team(name=name, slug=slug or slugify(name), coach=coach, is_dummy=is_dummy))


@transaction.atomic
def entry_create(
    *,
    season: Season,
    team: Team,
    division: Division,
    code: int,
    extra_goals: int = 0,
    great_saves: int = 0,
    by: AbstractBaseUser | None = None,
) -> Entry:
    """Enter ``team`` in ``season``'s ``division`` with ``code``, and open its stock ledger.

    The starting stocks (R21) are written as ``season_start`` movements, so the ledger always
    adds up to the balances.
    """
    entry = save_valid(Entry(season=season, team=team, division=division, code=code))
    for kind, amount in (
        (StockKind.EXTRA_GOALS, extra_goals),
        (StockKind.GREAT_SAVES, great_saves),
    ):
        stock_move(entry=entry, kind=kind, delta=amount, reason=StockReason.SEASON_START, by=by)
    return entry


@transaction.atomic
def stock_move(
    *,
    entry: Entry,
    kind: StockKind | str,
    delta: int,
    reason: StockReason | str,
    round: Round | None = None,
    note: str = "",
    by: AbstractBaseUser | None = None,
) -> StockMovement:
    """Add ``delta`` (negative to spend) to one of ``entry``'s stocks and log it in the ledger.

    The entry row is locked for the transaction, so two movements at once are applied one after
    the other. A movement that would take the stock below 0 raises :class:`StockBelowZero` and
    writes nothing (R6: stocks never go below 0).
    """
    kind = StockKind(kind)
    reason = StockReason(reason)
    locked = Entry.objects.select_for_update().select_related("team").get(pk=entry.pk)
    balance = getattr(locked, kind.value) + delta
    if balance < 0:
        raise StockBelowZero(
            _("%(team)s has %(have)d %(stock)s: %(delta)+d would leave %(after)d.")
            % {
                "team": locked.team,
                "have": getattr(locked, kind.value),
                "stock": kind.label,
                "delta": delta,
                "after": balance,
            },
            code="stock_below_zero",
        )
    Entry.objects.filter(pk=locked.pk).update(**{kind.value: balance})
    setattr(entry, kind.value, balance)
    return StockMovement.objects.create(
        entry=locked,
        kind=kind,
        delta=delta,
        balance_after=balance,
        reason=reason,
        round=round,
        note=note,
        created_by=by,
    )


@transaction.atomic
def entry_replace(*, entry: Entry, team: Team, by: AbstractBaseUser | None = None) -> Entry:
    """R14: ``team`` takes ``entry``'s place — same division and code, its record and stocks.

    The replaced entry keeps its past results and is marked replaced; the new entry's stocks
    come over as ``replacement`` movements, and the fixtures not yet played are moved to it. The
    ONR count and the promotion bar were the old team's sanctions: the newcomer starts clear.
    """
    old = Entry.objects.select_for_update().select_related("season", "division").get(pk=entry.pk)
    if old.replaced_at is not None:
        raise ValidationError(_("This team entry was already replaced."))
    old.replaced_at = timezone.now()
    old.save(update_fields=["replaced_at"])
    new = save_valid(
        Entry(
            season=old.season,
            team=team,
            division=old.division,
            code=old.code,
            replaces=old,
        )
    )
    for kind in StockKind:
        amount = getattr(old, kind.value)
        if amount:
            stock_move(entry=old, kind=kind, delta=-amount, reason=StockReason.REPLACEMENT, by=by)
            stock_move(entry=new, kind=kind, delta=amount, reason=StockReason.REPLACEMENT, by=by)
    unplayed = Fixture.objects.filter(
        pool_round__status__in=[PoolRound.Status.PENDING, PoolRound.Status.VOID]
    )
    moved = unplayed.filter(home=old).update(home=new) + unplayed.filter(away=old).update(away=new)
    audit_record(
        actor=by,
        action="entry_replace",
        obj=old,
        payload={"replaced_by_entry": new.pk, "team": team.slug, "fixtures_moved": moved},
    )
    new.refresh_from_db()
    return new


@transaction.atomic
def pick_record(
    *,
    entry: Entry,
    round: Round,
    notation: str,
    normalized: str,
    channel: Pick.Channel | str,
    entered_by: AbstractBaseUser | None = None,
    received_at: datetime | None = None,
) -> Pick:
    """Store one received pick, as received and in normal form (R12: every pick is kept).

    Storage only: the caller has parsed and checked the pick with the engine (R10) and the
    deadline (R13). The stored row gets its receipt (SHA-256 of its canonical content).
    """
    pick = Pick(
        entry=entry,
        round=round,
        notation=notation,
        normalized=normalized,
        channel=Pick.Channel(channel),
        entered_by=entered_by,
        received_at=received_at or timezone.now(),
    )
    return save_valid(pick, exclude=("receipt",))


def audit_record(
    *,
    actor: AbstractBaseUser | None,
    action: str,
    obj: models.Model,
    payload: dict[str, object],
) -> AuditLog:
    """Log ``action`` on ``obj`` by ``actor``, in the caller's transaction."""
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        content_type=ContentType.objects.get_for_model(obj),
        object_id=str(obj.pk),
        object_repr=str(obj)[:200],
        payload=payload,
    )


# --- Picks: a coach's pick, checked and stored (issue 4) -----------------------------------------


class PickRejected(ValidationError):
    """A pick refused at submission; ``code`` says why, the message which part is wrong.

    Messages speak of the sender's own team only: never of another team's picks.
    """

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message, code=code)


class DeadlinePassed(PickRejected):
    """R13: the round's deadline has passed for this channel (code ``deadline``), or the pool's
    round is already arbitrated and nobody may enter a pick any more (code ``arbitrated``)."""

    def __init__(self, message: str, *, code: str = "deadline") -> None:
        super().__init__(message, code=code)


# The engine's notation errors (R10), in the league's languages: matched on the start of the
# engine's reason, which names the part at fault (``NotationError.part``).
_NOTATION_MESSAGES: tuple[tuple[str, str], ...] = (
    ("empty pick", gettext_lazy("Your pick is empty: write a column and a value, e.g. F+(2).")),
    (
        "no column",
        gettext_lazy("“%(part)s”: a pick starts with its column, a letter, e.g. F+(2)."),
    ),
    (
        "column must be",
        gettext_lazy("“%(part)s”: the column is a single letter, e.g. F+(2)."),
    ),
    (
        "missing extra-time",
        gettext_lazy("“%(part)s”: the extra-time value is missing, in brackets: %(part)s(2)."),
    ),
    (
        "unknown character",
        gettext_lazy(
            "“%(part)s” is not part of a pick: extra goals are +, great saves are #, "
            "values go in brackets."
        ),
    ),
    ("unclosed", gettext_lazy("“%(part)s”: a bracket is not closed.")),
    (
        "too many",
        gettext_lazy(
            "“%(part)s”: too many values in brackets; a pick has its extra-time value and, in "
            "the KDH only, its shootout value."
        ),
    ),
    (
        "bad extra-time",
        gettext_lazy("“%(part)s”: the extra-time value must be 0, 1, 2, 3 or X."),
    ),
    (
        "bad shootout",
        gettext_lazy("“%(part)s”: the shootout value must be 0, 1, 2, 3, 4, 5 or X."),
    ),
)


def _notation_message(error: NotationError) -> str:
    for start, message in _NOTATION_MESSAGES:
        if error.reason.startswith(start):
            return str(message) % {"part": error.part}
    return _("“%(part)s”: %(reason)s") % {"part": error.part, "reason": error.reason}


def _values(values: Iterable[str]) -> str:
    return ", ".join(values) or _("none")


def _refusal_message(pick: EnginePick, competition: Competition, refused: Refusal) -> str:
    """The engine's verdict (``refusal_of``: R6, R7, R19) in words people read; only the
    wording is chosen here."""
    rules = competition.rules
    label = competition.label
    match refused:
        case Refusal.COLUMN:
            return _(
                "Column %(column)s is not played in the %(competition)s: its columns are "
                "%(first)s to %(last)s."
            ) % {
                "column": pick.column,
                "competition": label,
                "first": rules.columns[0],
                "last": rules.columns[-1],
            }
        case Refusal.GREAT_SAVES:
            return _(
                "Great saves (#) are played only in the championship, not in the %(competition)s."
            ) % {"competition": label}
        case Refusal.EXTRA_TIME:
            return _(
                "Extra-time value %(value)s is not played in the %(competition)s: its values "
                "are %(values)s."
            ) % {
                "value": pick.extra_time,
                "competition": label,
                "values": _values(sorted(rules.extra_time_quota, key=lambda v: (v == "X", v))),
            }
        case Refusal.SHOOTOUT_OUTSIDE_KDH:
            return _(
                "“(%(value)s)”: a shootout value is played only in the KDH, not in the "
                "%(competition)s."
            ) % {"value": pick.shootout, "competition": label}
        case Refusal.SHOOTOUT_MISSING:
            return _(
                "The %(competition)s needs a shootout value after the extra-time value, "
                "e.g. C+(1)(4)."
            ) % {"competition": label}
    return _("Your pick %(pick)s is not allowed in the %(competition)s: %(reason)s") % {
        "pick": pick.notation(),
        "competition": label,
        "reason": refusal(pick, rules),
    }


def _unavailable_message(pick: EnginePick, choices: EntryChoices, competition: Competition) -> str:
    """What ``pick`` asks that the team has no more of (R6, R7, R19), or ``""``.

    Only the team's own record is looked at: what it played in arbitrated rounds, its stocks.
    """
    label = competition.label
    if pick.column not in choices.columns:
        return _(
            "Column %(column)s is already used: your team played it in an earlier round of the "
            "%(competition)s. Columns left: %(left)s."
        ) % {"column": pick.column, "competition": label, "left": _values(choices.columns)}
    if pick.extra_time not in choices.extra_time:
        return _(
            "Extra-time value %(value)s is used up for your team in the %(competition)s. "
            "Values left: %(left)s."
        ) % {"value": pick.extra_time, "competition": label, "left": _values(choices.extra_time)}
    if pick.shootout is not None and pick.shootout not in choices.shootout:
        return _(
            "Shootout value %(value)s is used up for your team in the %(competition)s. "
            "Values left: %(left)s."
        ) % {"value": pick.shootout, "competition": label, "left": _values(choices.shootout)}
    if pick.extra_goals > choices.extra_goals:
        return ngettext(
            "You ask for %(asked)d extra goal (+) but your team has %(have)d left.",
            "You ask for %(asked)d extra goals (+) but your team has %(have)d left.",
            pick.extra_goals,
        ) % {"asked": pick.extra_goals, "have": choices.extra_goals}
    if pick.great_saves > choices.great_saves:
        return ngettext(
            "You ask for %(asked)d great save (#) but your team has %(have)d left.",
            "You ask for %(asked)d great saves (#) but your team has %(have)d left.",
            pick.great_saves,
        ) % {"asked": pick.great_saves, "have": choices.great_saves}
    return ""


def _check_sender(
    *, entry: Entry, pool: Pool | None, channel: Pick.Channel, entered_by: AbstractBaseUser | None
) -> None:
    """Web picks come from the team's coach; email ones from them or unsigned (the ingester
    matched the address); a referee's from a referee of the team's pool or staff."""
    if channel == Pick.Channel.REFEREE:
        allowed = entered_by is not None and (
            entered_by.is_staff
            or (pool is not None and pool.referees.filter(pk=entered_by.pk).exists())
        )
        if not allowed:
            raise PickRejected(
                _("Only a referee of this team's pool may enter a pick for it."), code="forbidden"
            )
    elif (entered_by is None and channel == Pick.Channel.WEB) or (
        entered_by is not None and entered_by.pk != entry.team.coach_id
    ):
        raise PickRejected(_("Only the team's coach may send its picks."), code="forbidden")


def _check_time(
    *,
    round: Round,
    pool_round: PoolRound | None,
    channel: Pick.Channel,
    received_at: datetime,
) -> None:
    """R13: before the deadline, anyone may; after it, a referee only, until the pool's round is
    arbitrated; after that, nobody (a voided round is open to its referee again)."""
    if pool_round is not None and pool_round.status in (
        PoolRound.Status.ARBITRATING,
        PoolRound.Status.ARBITRATED,
        PoolRound.Status.PUBLISHED,
    ):
        raise DeadlinePassed(
            _("This round is already arbitrated for your team's pool: no pick can be entered."),
            code="arbitrated",
        )
    if received_at >= round.deadline and channel != Pick.Channel.REFEREE:
        deadline = timezone.localtime(round.deadline, ZoneInfo(round.season.time_zone))
        raise DeadlinePassed(
            _(
                "The deadline of this round was %(deadline)s (%(zone)s): picks are closed. A "
                "referee may still enter a pick sent by email until the round is arbitrated."
            )
            % {
                "deadline": date_format(deadline, "DATETIME_FORMAT"),
                "zone": round.season.time_zone,
            }
        )


def pick_send(*, team: Team, round: Round, notation: str, entered_by: AbstractBaseUser) -> Pick:
    """A coach's pick from the browser or the API: :func:`pick_submit` on the web channel, then
    the receipt by email (the same SHA-256 the coach sees on screen)."""
    pick = pick_submit(
        team=team,
        round=round,
        notation=notation,
        channel=Pick.Channel.WEB,
        entered_by=entered_by,
    )
    email_pick_receipt(pick=pick)
    return pick


@transaction.atomic
def pick_submit(
    *,
    team: Team,
    round: Round,
    notation: str,
    channel: Pick.Channel | str,
    entered_by: AbstractBaseUser | None,
    received_at: datetime | None = None,
) -> Pick:
    """Check a pick the way the rules say (R6, R7, R10, R13) and store it (R12).

    Checked, in order: the sender may send for the team; the team plays this round (the
    championship, the KDH while in it, the WG once qualified); the time (R13); the notation
    parses (R10); the competition allows it (the engine's ``refusal``: ``#`` in the championship
    only, a shootout value in the KDH only and always there, no extra-time 3 in the cups); the
    team still has the column and the values (not played in an arbitrated round, R7, R19); and
    the extra goals and great saves asked are within the team's stock now (R6: refused above it
    here; the engine still caps a week's requests at arbitration, championship first).

    A pick for a future round is fine at any time before its deadline; the last received counts
    (R12). The team's entry row is locked while checking and storing, so two picks of one team
    at once are stored one after the other; the one that counts is the latest by
    ``(received_at, id)``. Raises :class:`PickRejected` or :class:`DeadlinePassed`.
    """
    channel = Pick.Channel(channel)
    received_at = received_at or timezone.now()
    competition = Competition(round.competition)
    entry = (
        Entry.objects.select_related("team", "season")
        .filter(season_id=round.season_id, team=team, replaced_at__isnull=True)
        .first()
    )
    if entry is None or not entry_plays_round(entry=entry, round=round):
        raise PickRejected(
            _("%(team)s does not play this round of the %(competition)s.")
            % {"team": team, "competition": competition.label},
            code="not_playing",
        )
    pool = entry_pool(entry=entry, competition=competition)
    _check_sender(entry=entry, pool=pool, channel=channel, entered_by=entered_by)
    # Locks in the arbitration's order, pool round then entry: a pick and the arbitration of its
    # round (which moves the pool round's status, then the stocks) never cross; two picks of one
    # team are stored one after the other, their stocks read after the previous one committed.
    pool_round = (
        PoolRound.objects.select_for_update().filter(pool=pool, round=round).first()
        if pool
        else None
    )
    entry = Entry.objects.select_for_update().select_related("team", "season").get(pk=entry.pk)
    _check_time(round=round, pool_round=pool_round, channel=channel, received_at=received_at)
    parsed = _pick_checked(entry=entry, competition=competition, notation=notation)
    return pick_record(
        entry=entry,
        round=round,
        notation=notation,
        normalized=parsed.notation(),
        channel=channel,
        entered_by=entered_by,
        received_at=received_at,
    )


@transaction.atomic
def api_token_obtain(*, user: AbstractBaseUser) -> str:
    """``user``'s API token (``Authorization: Token …``), created on first use."""
    token, _created = Token.objects.get_or_create(user=user)
    return token.key


# --- Picks by email and the referee's queue of late picks (issue 4) ------------------------------

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
    replied_to: list[str] = field(default_factory=list)


def email_ingest(*, raw: bytes, received_at: datetime | None = None) -> EmailIngestResult:
    """Read one email of picks (RFC 5322 bytes) and do what it asks, once per Message-ID.

    ``received_at`` is when the league's mail server got the message (the mailbox's
    INTERNALDATE); without it, the date of the newest ``Received`` header (the one that server
    added), else now; never later than now. That time decides the deadline (R13) — the ``Date``
    header is only the sender's claim.

    In order: a Message-ID already ingested → nothing (``duplicate``, no second reply); a
    machine's message (auto-reply, bounce, list) → ignored, no reply; not exactly one ``From``
    address → refused, no reply; an address that is not exactly one coach's → no pick, one polite
    reply per address, only when the mail server authenticated the sender (no backscatter); a
    coach's address that the mail server does not vouch for (``mail_picks.authentication_verdict``)
    → no pick, and at most one notice a day to the coach's registered address, never to the
    sender or its ``Reply-To``. Otherwise each pick line goes to :func:`pick_submit` (channel
    email, R12), a line past the deadline to the referee's queue (:class:`LatePick`, R13), and
    the coach gets one reply, at their registered address, in their language.
    """
    message = mail_picks.message_parse(raw)
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
        inbound.reply = _email_handle(message=message, inbound=inbound, result=result)
        inbound.outcome = result.outcome
        inbound.report = [
            {
                "line": line.text,
                "competition": line.competition,
                "round": line.round_number,
                "status": line.status,
                "pick": line.normalized,
                "message": line.message,
                "code": line.code,
            }
            for line in result.lines
        ]
        inbound.save()
    return result


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
    address = senders[0]
    verdict = mail_picks.authentication_verdict(message, from_address=address)
    inbound.authentication = verdict.reason[:300]
    users = list(get_user_model().objects.filter(email__iexact=address, is_active=True)[:2])
    team = Team.objects.filter(coach=users[0]).first() if len(users) == 1 else None
    if team is None:
        result.outcome = Outcome.UNKNOWN_SENDER
        result.reason = f"{address} is not exactly one coach's address"
        return _email_reply_unknown(
            message=message, address=address, verdict=verdict, result=result
        )
    coach = users[0]
    inbound.user = coach
    if not verdict.trusted:
        result.outcome, result.reason = Outcome.FORGED, verdict.reason
        logger.warning(
            "Email %s in the name of %s refused: %s", result.message_id, address, verdict.reason
        )
        return _email_notice_forged(coach=coach, result=result)
    language = user_language(coach)
    with translation.override(language):
        lines = mail_picks.pick_lines(mail_picks.body_text(message))
        result.lines = [
            _email_pick_line(line, team=team, coach=coach, result=result) for line in lines
        ]
    result.outcome = Outcome.PROCESSED if lines else Outcome.NO_PICKS
    result.reason = verdict.reason
    if not coach.email:
        return None
    reply = email_send(
        template="pick-reply",
        to=coach.email,
        language=language,
        context={
            "kind": "picks",
            "coach": coach,
            "team": team,
            "lines": result.lines,
            "recorded": sum(line.status == "recorded" for line in result.lines),
            "late": sum(line.status == "late" for line in result.lines),
            "errors": sum(line.status == "error" for line in result.lines),
            "subject": inbound.subject,
            **_email_times(result.received_at),
        },
        headers=_email_reply_headers(result.message_id),
    )
    result.replied_to = [coach.email]
    return reply


def _email_times(received_at: datetime) -> dict[str, object]:
    season = selectors.season_current()
    zone = season.time_zone if season is not None else "Europe/Paris"
    return {
        "received_at": timezone.localtime(received_at, ZoneInfo(zone)),
        "time_zone": zone,
        "picks_url": site_url(reverse("picks")),
    }


def _email_reply_headers(message_id: str) -> dict[str, str]:
    # RFC 3834: an automatic reply says so, so that the sender's robots do not answer it.
    return {"In-Reply-To": message_id, "References": message_id, "Auto-Submitted": "auto-replied"}


def _email_reply_unknown(
    *,
    message: EmailMessage,
    address: str,
    verdict: mail_picks.AuthVerdict,
    result: EmailIngestResult,
) -> OutboundEmail | None:
    """One polite reply per unknown address, only to a sender the mail server authenticated:
    never a reply to an address someone else may have written in ``From``."""
    if not verdict.trusted:
        result.reason += f"; not answered ({verdict.reason})"
        return None
    answered = InboundEmail.objects.filter(
        sender__iexact=address,
        outcome=InboundEmail.Outcome.UNKNOWN_SENDER,
        reply__isnull=False,
    )
    if answered.exists():
        result.reason += "; already answered once"
        return None
    english = mail_picks.looks_english(mail_picks.body_text(message)) or str(
        message.get("Content-Language", "")
    ).lower().startswith("en")
    reply = email_send(
        template="pick-reply",
        to=address,
        language=Language.ENGLISH if english else Language.FRENCH,
        context={"kind": "unknown", "address": address, **_email_times(result.received_at)},
        headers=_email_reply_headers(result.message_id),
    )
    result.replied_to = [address]
    return reply


def _email_notice_forged(
    *, coach: AbstractBaseUser, result: EmailIngestResult
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
    reply = email_send(
        template="pick-reply",
        to=coach.email,
        language=user_language(coach),
        context={"kind": "forged", "coach": coach, **_email_times(result.received_at)},
        headers={"Auto-Submitted": "auto-replied"},
    )
    result.replied_to = [coach.email]
    return reply


def _email_round(*, competition: str, number: int | None, at: datetime) -> Round:
    """The round a pick line is for: the one it names, else the competition's round of the week
    ``at`` falls in (the next one when the competition plays no round that week). Raises
    :class:`PickRejected` (code ``round``) when there is none or the week has two (the
    championship's last week, R20)."""
    label = Competition(competition).label
    season = selectors.season_current()
    if season is None:
        raise PickRejected(_("No season is running."), code="round")
    rounds = Round.objects.filter(season=season, competition=competition)
    if number is not None:
        named = rounds.filter(number=number).first()
        if named is None:
            raise PickRejected(
                _("The %(competition)s has no round %(number)d this season.")
                % {"competition": label, "number": number},
                code="round",
            )
        return named
    week = season.week_at(at)
    upcoming = list(rounds.filter(week__gte=week).order_by("week", "number")[:2])
    if not upcoming:
        raise PickRejected(
            _("The %(competition)s has no round left this season.") % {"competition": label},
            code="round",
        )
    if len(upcoming) == 2 and upcoming[0].week == upcoming[1].week:
        raise PickRejected(
            _(
                "Week %(week)d has two rounds of the %(competition)s: name the one your pick is "
                "for, e.g. « %(example)s »."
            )
            % {
                "week": upcoming[0].week,
                "competition": label,
                "example": _("Championship round %(number)d: F+(2)")
                % {"number": upcoming[0].number},
            },
            code="round",
        )
    return upcoming[0]


def _email_pick_line(
    line: mail_picks.PickLine, *, team: Team, coach: AbstractBaseUser, result: EmailIngestResult
) -> EmailLineResult:
    """Submit one pick line (channel email); past the deadline, queue it for a referee (R13)."""

    def refused(error: PickRejected, number: int | None = line.round_number) -> EmailLineResult:
        message = " ".join(error.messages)
        return EmailLineResult(
            line.text, line.competition, number, "error", message=message, code=error.code or ""
        )

    if line.error is not None:
        return refused(PickRejected(line.error, code="line"))
    try:
        round = _email_round(
            competition=line.competition, number=line.round_number, at=result.received_at
        )
    except PickRejected as error:
        return refused(error)
    try:
        with transaction.atomic():
            pick = pick_submit(
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
        entry = Entry.objects.get(season_id=round.season_id, team=team, replaced_at__isnull=True)
        try:
            normalized = _late_pick_check(entry=entry, round=round, notation=line.notation)
        except PickRejected as error:
            return refused(error, round.number)
        save_valid(
            LatePick(
                entry=entry,
                round=round,
                notation=line.notation,
                received_at=result.received_at,
                message_id=result.message_id,
            )
        )
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
        normalized=pick.normalized,
        receipt=pick.receipt,
    )


def _late_pick_check(*, entry: Entry, round: Round, notation: str) -> str:
    """The checks :func:`pick_submit` makes after the time (R6, R7, R10, R19), for a pick that
    goes to the referee's queue: one a referee could not enter is an error for the coach now.
    Returns the normalized notation."""
    competition = Competition(round.competition)
    return _pick_checked(entry=entry, competition=competition, notation=notation).notation()


def _pick_checked(*, entry: Entry, competition: Competition, notation: str) -> EnginePick:
    """The pick parsed (R10), allowed in its competition (R6, R7, R19) and still available to
    the team (what it played in arbitrated rounds, its stocks), or :class:`PickRejected`."""
    try:
        parsed = EnginePick.parse(notation)
    except NotationError as error:
        raise PickRejected(_notation_message(error), code="notation") from error
    refused = refusal_of(parsed, competition.rules)
    if refused is not None:
        raise PickRejected(_refusal_message(parsed, competition, refused), code="not_allowed")
    choices = entry_choices(entry=entry, competition=competition, published_only=False)
    unavailable = _unavailable_message(parsed, choices, competition)
    if unavailable:
        raise PickRejected(unavailable, code="unavailable")
    return parsed


@dataclass(frozen=True)
class MailboxIngest:
    """One message of the mailbox: what :func:`email_ingest` did, or the error that left it
    unseen for the next run."""

    uid: str
    result: EmailIngestResult | None
    error: str = ""


def email_fetch() -> list[MailboxIngest]:
    """Ingest every unseen message of the picks mailbox (the ``IMAP_*`` settings), oldest first.

    Each message is ingested on its own (its own transaction) with the mailbox's INTERNALDATE as
    the time the league received it, then marked ``\\Seen`` (and moved to
    ``IMAP_PROCESSED_FOLDER`` when one is set). A message whose ingestion fails is logged and
    left unseen for the next run: none is lost, and none is stored twice (its Message-ID), so
    Celery beat may run this as often as it likes. Raises ``mail_picks.MailboxError`` when the
    mailbox cannot be read.
    """
    done: list[MailboxIngest] = []
    with mail_picks.mailbox_open() as box:
        for message in box.unseen():
            try:
                result = email_ingest(raw=message.raw, received_at=message.internal_date)
            except Exception as error:  # any failure: keep the message for the next run
                logger.exception("Mailbox message %s not ingested; it stays unseen", message.uid)
                done.append(MailboxIngest(message.uid, None, f"{type(error).__name__}: {error}"))
                continue
            box.done(message)
            done.append(MailboxIngest(message.uid, result))
    return done


def _late_pick_lock(*, late_pick: LatePick, by: AbstractBaseUser) -> LatePick:
    """``late_pick``, locked, still pending, and ``by`` may decide on it (a referee of the team's
    pool for that competition, or staff)."""
    late = (
        LatePick.objects.select_for_update(of=("self",))
        .select_related("entry__team__coach", "round__season")
        .get(pk=late_pick.pk)
    )
    pool = entry_pool(entry=late.entry, competition=late.round.competition)
    if not (by.is_staff or (pool is not None and pool.referees.filter(pk=by.pk).exists())):
        raise PermissionDenied(
            _("Only a referee of this team's pool or an admin may decide on its late picks.")
        )
    if late.status != LatePick.Status.PENDING:
        raise ValidationError(
            _("This late pick was already decided: %(status)s.")
            % {"status": late.get_status_display()},
            code="decided",
        )
    return late


def _late_pick_decide(
    *, late: LatePick, status: LatePick.Status, by: AbstractBaseUser, pick: Pick | None
) -> LatePick:
    late.status = status
    late.decided_by = by
    late.decided_at = timezone.now()
    late.pick = pick
    save_valid(late)
    audit_record(
        actor=by,
        action=f"late_pick_{status}",
        obj=late,
        payload={"round": late.round_id, "pick": pick.pk if pick else None},
    )
    return late


@transaction.atomic
def late_pick_accept(*, late_pick: LatePick, by: AbstractBaseUser) -> LatePick:
    """R13: a referee (or an admin) enters a pick emailed after the deadline, as received and at
    the time it was received, with channel ``referee`` — until the pool's round is arbitrated
    (:func:`pick_submit` refuses it then). The coach gets the pick's receipt by email.

    Raises ``PermissionDenied`` for someone else, ``ValidationError`` when the late pick was
    already decided, :class:`PickRejected` when the pick cannot be entered any more.
    """
    late = _late_pick_lock(late_pick=late_pick, by=by)
    pick = pick_submit(
        team=late.entry.team,
        round=late.round,
        notation=late.notation,
        channel=Pick.Channel.REFEREE,
        entered_by=by,
        received_at=late.received_at,
    )
    email_pick_receipt(pick=pick)
    return _late_pick_decide(late=late, status=LatePick.Status.ACCEPTED, by=by, pick=pick)


@transaction.atomic
def late_pick_reject(*, late_pick: LatePick, by: AbstractBaseUser) -> LatePick:
    """R13: a referee (or an admin) refuses a pick emailed after the deadline; the coach is
    told by email. Same refusals as :func:`late_pick_accept`."""
    late = _late_pick_lock(late_pick=late_pick, by=by)
    coach = late.entry.team.coach
    if coach is not None and coach.email:
        email_send(
            template="pick-reply",
            to=coach.email,
            language=user_language(coach),
            context={
                "kind": "late_rejected",
                "coach": coach,
                "team": late.entry.team,
                "round": late.round,
                "notation": late.notation,
                **_email_times(late.received_at),
            },
            headers={"Auto-Submitted": "auto-generated"},
        )
    return _late_pick_decide(late=late, status=LatePick.Status.REJECTED, by=by, pick=None)
