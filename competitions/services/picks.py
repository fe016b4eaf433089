"""Coaches' picks: checked (R6, R7, R10, R11, R13), stored as received (R12) with a receipt, and
each refusal worded from the engine's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions import hot_sql
from competitions.models import Competition, Pick, Pool, PoolRound, Round
from competitions.selectors.entries import Sight
from competitions.selectors.picks import EntryChoices, entry_choices, entry_plays_round, entry_pool
from competitions.selectors.spoken import entry_spoken_for
from competitions.services.errors import PickFault, PickFaultCode, pick_refusal_worded
from competitions.signals import pick_received
from engine import NotationError, PickReading, Refusal, pick_read, refusals_of
from engine import Pick as EnginePick
from engine.quotas import notation_order
from league.models import Entry, Team

PICK_ROWS_HELD = ("receipt", "entry", "round", "entered_by")
"""Fields :func:`pick_record` does not validate by query: the caller passes them as rows."""


@transaction.atomic(savepoint=False)
def pick_record(
    *,
    entry: Entry,
    round: Round,
    notation: str,
    normalized: str,
    channel: Pick.Channel | str,
    entered_by: User | None = None,
    received_at: datetime | None = None,
) -> Pick:
    """Store one received pick, as received and in normal form (R12: every pick is kept).

    Storage only: the caller has parsed and checked the pick with the engine (R10) and the
    deadline (R13). The stored row gets its receipt (SHA-256 of its canonical content).

    One INSERT: the fields are validated in Python (lengths, the channel), but not the foreign
    keys, which the caller holds as rows it has just read, nor the channel's check constraint,
    which PostgreSQL enforces on the INSERT; no savepoint of its own (a failed INSERT fails the
    caller's transaction, as it should).
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
    pick.full_clean(exclude=PICK_ROWS_HELD, validate_unique=False, validate_constraints=False)
    pick.save(force_insert=True)
    return pick


class PickRejected(ValidationError):
    """A pick refused at submission; ``code`` says why (``notation``, ``not_allowed``,
    ``deadline``…), ``fault`` and ``facts`` what its message says — worded now, in the active
    language, from the one table (``services.errors``), and again from :attr:`record` in another
    reader's language (the reply to picks by email is worded when it is sent).

    Messages speak of the sender's own team only: never of another team's picks.
    """

    def __init__(
        self,
        fault: PickFaultCode,
        facts: Mapping[str, object] | None = None,
        *,
        code: str,
        others: tuple[PickRejected, ...] = (),
    ) -> None:
        self.fault = fault
        self.facts = dict(facts or {})
        self.others = others
        """The pick's other wrong parts, said with this one (R10: ``Z++(9)``, its column and
        its value)."""
        super().__init__(pick_refusal_worded(fault, self.facts), code=code)

    @property
    def every(self) -> tuple[PickRejected, ...]:
        """Every wrong part of the pick, this one first."""
        return (self, *self.others)

    @property
    def record(self) -> dict[str, object]:
        """The refusal as stored (JSON): its code, its fault's value and its facts, and the
        others' records (``also``), if any."""
        record: dict[str, object] = {
            "code": self.code or "",
            "fault": self.fault.value,
            "facts": self.facts,
        }
        if self.others:
            record["also"] = [other.record for other in self.others]
        return record


class DeadlinePassed(PickRejected):
    """R13: the round's deadline has passed for this channel (code ``deadline``), or the pool's
    round is already arbitrated and nobody may enter a pick any more (code ``arbitrated``)."""

    def __init__(
        self, fault: PickFault, facts: Mapping[str, object] | None = None, *, code: str = "deadline"
    ) -> None:
        super().__init__(fault, facts, code=code)


_SHOOTOUT_REFUSALS = frozenset(
    {Refusal.SHOOTOUT_OUTSIDE_KDH, Refusal.SHOOTOUT_MISSING, Refusal.SHOOTOUT_VALUE}
)
"""The refusals whose ``value`` and ``values`` are the shootout's (R7), not the extra time's."""


def _refusal_facts(
    pick: EnginePick | PickReading, competition: Competition, refused: Refusal
) -> dict[str, object]:
    """What the engine's verdict (``refusal_of``: R6, R7, R19) says, for its message in the one
    table (``services.errors.MESSAGES``)."""
    rules = competition.rules
    shootout = refused in _SHOOTOUT_REFUSALS
    values = (rules.shootout_quota or {}) if shootout else rules.extra_time_quota
    return {
        "column": pick.column,
        "competition": competition.value,
        "first": rules.columns[0],
        "last": rules.columns[-1],
        "value": pick.shootout if shootout else pick.extra_time,
        "values": list(notation_order(values)),
    }


def _unavailable(
    pick: EnginePick, choices: EntryChoices, competition: Competition
) -> PickRejected | None:
    """What ``pick`` asks that the team has no more of (R6, R7, R19), or ``None``.

    Only the team's own record is looked at, as the team knows it (:attr:`Sight.TEAM`): what it
    played in the published rounds and what its own picks asked in the rounds arbitrated since,
    its stocks. A referee's draw in an unpublished round (R4, R11) is not held against it: a pick
    that repeats one is stale, redrawn at its round's arbitration (R11).
    """
    code, where = "unavailable", competition.value
    facts: dict[str, object]
    if pick.column not in choices.columns:
        facts = {"column": pick.column, "competition": where, "left": list(choices.columns)}
        return PickRejected(PickFault.COLUMN_USED, facts, code=code)
    if pick.extra_time not in choices.extra_time:
        facts = {"value": pick.extra_time, "competition": where, "left": list(choices.extra_time)}
        return PickRejected(PickFault.EXTRA_TIME_USED, facts, code=code)
    if pick.shootout is not None and pick.shootout not in choices.shootout:
        facts = {"value": pick.shootout, "competition": where, "left": list(choices.shootout)}
        return PickRejected(PickFault.SHOOTOUT_USED, facts, code=code)
    if pick.extra_goals > choices.extra_goals:
        facts = {"asked": pick.extra_goals, "have": choices.extra_goals}
        return PickRejected(PickFault.EXTRA_GOALS_LEFT, facts, code=code)
    if pick.great_saves > choices.great_saves:
        facts = {"asked": pick.great_saves, "have": choices.great_saves}
        return PickRejected(PickFault.GREAT_SAVES_LEFT, facts, code=code)
    return None


def _check_sender(
    *, entry: Entry, pool: Pool | None, channel: Pick.Channel, entered_by: User | None
) -> None:
    """Web picks come from the team's coach or its deputy (recorded as entered by them, R12);
    email ones from them or unsigned (the ingester matched the address); a referee's from a
    referee of the team's pool or staff."""
    if channel == Pick.Channel.REFEREE:
        allowed = entered_by is not None and (
            entered_by.is_staff
            or (pool is not None and pool.referees.filter(pk=entered_by.pk).exists())
        )
        if not allowed:
            raise PickRejected(PickFault.REFEREE_ONLY, code="forbidden")
    elif (entered_by is None and channel == Pick.Channel.WEB) or (
        entered_by is not None and entered_by.pk not in (entry.team.coach_id, entry.team.deputy_id)
    ):
        raise PickRejected(PickFault.COACH_ONLY, code="forbidden")


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
        raise DeadlinePassed(PickFault.ARBITRATED, code="arbitrated")
    if received_at >= round.deadline and channel != Pick.Channel.REFEREE:
        facts = {"deadline": round.deadline.isoformat(), "zone": round.season.time_zone}
        raise DeadlinePassed(PickFault.DEADLINE, facts)


def pick_send(*, team: Team, round: Round, notation: str, entered_by: User) -> PickSubmitted:
    """A coach's pick from the browser or the API: :func:`pick_submit` on the web channel, with
    its receipt (the same SHA-256 the coach sees on screen)."""
    return pick_submit(
        team=team,
        round=round,
        notation=notation,
        channel=Pick.Channel.WEB,
        entered_by=entered_by,
        receipt=True,
    )


@transaction.atomic
def pick_submit(
    *,
    team: Team,
    round: Round,
    notation: str,
    channel: Pick.Channel | str,
    entered_by: User | None,
    received_at: datetime | None = None,
    receipt: bool = False,
) -> PickSubmitted:
    """Check a pick the way the rules say (R6, R7, R10, R13) and store it (R12); with
    ``receipt``, send ``pick_received`` in the same transaction, so that what its receivers write
    (the receipt's due row) commits with the pick or not at all.

    Checked, in order: the sender may send for the team; the team plays this round (the
    championship, the KDH while in it, the WG once qualified); the time (R13); the notation
    parses (R10); the competition allows it (the engine's ``refusal``: ``#`` in the championship
    only, a shootout value in the KDH only and always there, no extra-time 3 in the cups); the
    team still has the column and the values, as it knows its record (R7, R19, R23: played in a
    published round or by its own pick in a round arbitrated since); and the extra goals and
    great saves asked are within its stock as it knows it (R6: refused above it here; the engine
    still caps a week's requests at arbitration, championship first).

    A pick for a future round is fine at any time before its deadline; the last received counts
    (R12). The team's entry row is locked while checking and storing, so two picks of one team
    at once are stored one after the other; the one that counts is the latest by
    ``(received_at, id)``. Returns the stored pick with its R11 warning, if any
    (:func:`pick_stale`). Raises :class:`PickRejected` or :class:`DeadlinePassed`.
    """
    channel = Pick.Channel(channel)
    received_at = received_at or timezone.now()
    competition = Competition(round.competition)
    entries = Entry.objects.current_of(team, season=round.season_id)
    # Locks in the arbitration's order, pool round then entry: a pick and the arbitration of its
    # round (which moves the pool round's status, then the stocks) never cross; two picks of one
    # team are stored one after the other, their stocks read after the previous one committed.
    if competition.kind.divisional and channel != Pick.Channel.REFEREE:
        # The coach's championship pick: the pool is the entry's division's, so its pool round
        # is found through the entry and locked in one query, then the entry locked; checked once
        # both are held (a refusal rolls back and releases them).
        pool_round = _division_pool_round_locked(team=team, round=round)
        entry = _check_entry(
            entry=_entry_locked(team=team, round=round),
            team=team,
            round=round,
            competition=competition,
        )
        _check_sender(entry=entry, pool=None, channel=channel, entered_by=entered_by)
    else:
        # A cup's pool is found by membership; a referee's right is checked on the pool.
        found = _check_entry(
            entry=entries.select_related("team", "season").first(),
            team=team,
            round=round,
            competition=competition,
        )
        pool = entry_pool(entry=found, competition=competition)
        _check_sender(entry=found, pool=pool, channel=channel, entered_by=entered_by)
        pool_round = (
            PoolRound.objects.select_for_update()
            .filter(pool=pool, round=round)
            .only("id", "status")
            .order_by("pk")
            .first()
            if pool
            else None
        )
        entry = Entry.objects.select_for_update().get(pk=found.pk)
        entry.team, entry.season = found.team, found.season
    _check_time(round=round, pool_round=pool_round, channel=channel, received_at=received_at)
    parsed, choices = _pick_checked(entry=entry, competition=competition, notation=notation)
    pick = pick_record(
        entry=entry,
        round=round,
        notation=notation,
        normalized=parsed.notation(),
        channel=channel,
        entered_by=entered_by,
        received_at=received_at,
    )
    stale = pick_stale(entry=entry, round=round, pick=parsed, choices=choices)
    if receipt:
        pick_received.send(sender=Pick, pick=pick, stale=stale)
    return PickSubmitted(pick=pick, stale=stale)


def _check_entry(
    *, entry: Entry | None, team: Team, round: Round, competition: Competition
) -> Entry:
    """``entry``, refused when there is none or it does not play ``round``."""
    if entry is None or not entry_plays_round(entry=entry, round=round):
        facts = {"team": str(team), "competition": competition.value}
        raise PickRejected(PickFault.NOT_PLAYING, facts, code="not_playing")
    return entry


def _division_pool_round_locked(*, team: Team, round: Round) -> PoolRound | None:
    """The championship pool round of ``round`` of the division of ``team``'s entry, locked, in
    one query (``None`` before the pools are drawn); only its ``id`` and ``status`` are read.

    On PostgreSQL the lock is ``FOR SHARE`` (the ORM has no word for it): the picks of one
    division do not wait for each other (each then locks its own team's entry), while the
    arbitration, which locks the pool round ``FOR UPDATE`` first, waits for the picks under way
    and they wait for it — a pick and the arbitration of its round never cross (R13). Written
    out, as every pick reads it (:func:`competitions.hot_sql.division_pool_round_for_share`).
    """
    found = hot_sql.division_pool_round_for_share(round=round, team_id=team.pk)
    return PoolRound.from_db(PoolRound.objects.db, ["id", "status"], found) if found else None


def _entry_locked(*, team: Team, round: Round) -> Entry | None:
    """``team``'s entry in ``round``'s season (not replaced), locked ``FOR UPDATE``, with its
    team, in one query, and ``round``'s season. Written out, as every pick reads it
    (:func:`competitions.hot_sql.entry_for_update`)."""
    entry = hot_sql.entry_for_update(season_id=round.season_id, team_id=team.pk)
    if entry is not None:
        entry.season = round.season
    return entry


def late_pick_check(*, entry: Entry, round: Round, notation: str) -> str:
    """The checks :func:`pick_submit` makes after the time (R6, R7, R10, R19), for a pick that
    goes to the referee's queue: one a referee could not enter is an error for the coach now.
    Returns the normalized notation."""
    competition = Competition(round.competition)
    parsed, _ = _pick_checked(entry=entry, competition=competition, notation=notation)
    return parsed.notation()


def _notation_rejected(
    error: NotationError, notation: str, competition: Competition
) -> PickRejected:
    """Every wrong part of a pick that does not read (R10), and what its competition refuses
    of the parts that do (R6, R7, R19): ``Z++(9)`` is told its value and its column at once."""
    reading = pick_read(notation)
    said = [
        PickRejected(wrong.fault, {"part": wrong.part}, code="notation") for wrong in error.errors
    ]
    said += [
        PickRejected(fault, _refusal_facts(reading, competition, fault), code="not_allowed")
        for fault in refusals_of(reading, competition.rules)
    ]
    first, *others = said
    return PickRejected(first.fault, first.facts, code=first.code or "", others=tuple(others))


def _pick_checked(
    *, entry: Entry, competition: Competition, notation: str
) -> tuple[EnginePick, EntryChoices]:
    """The pick parsed (R10), allowed in its competition (R6, R7, R19) and still available to
    the team as it knows its record (:attr:`Sight.TEAM`), with what the team has left, or
    :class:`PickRejected`."""
    try:
        parsed = EnginePick.parse(notation)
    except NotationError as error:
        raise _notation_rejected(error, notation, competition) from error
    refused = refusals_of(parsed, competition.rules)
    if refused:
        first, *others = (
            PickRejected(fault, _refusal_facts(parsed, competition, fault), code="not_allowed")
            for fault in refused
        )
        raise PickRejected(first.fault, first.facts, code="not_allowed", others=tuple(others))
    # R23: what the team knows it has left, from the published rounds and its own picks.
    choices = entry_choices(entry=entry, competition=competition, sight=Sight.TEAM)
    unavailable = _unavailable(parsed, choices, competition)
    if unavailable is not None:
        raise unavailable
    return parsed, choices


@dataclass(frozen=True)
class StalePick:
    """R11: parts of the pick that the team's current picks (R12) for earlier rounds of the same
    competition, not played yet, already use: its column (the earlier pick of ``round_number``
    plays it), an ``extra_time`` or ``shootout`` value of which those picks use every use the
    team has left. The pick is kept; if those rounds are played first, each such part is
    redrawn among those left. The pick page marks the same tiles (:class:`SpokenFor`)."""

    column: str | None = None
    round_number: int | None = None
    """The earlier round whose pick uses the column."""
    extra_time: str | None = None
    shootout: str | None = None

    @property
    def message(self) -> str:
        """The warning, in the active language (the sender's): a sentence a stale part."""
        said = []
        if self.column is not None:
            said.append(
                _(
                    "Your pick for round %(number)s already uses column %(column)s: if that "
                    "round is played first, this pick's column will be redrawn among those left "
                    "(R11)."
                )
                % {"number": self.round_number, "column": self.column}
            )
        if self.extra_time is not None:
            said.append(
                _(
                    "Your picks for earlier rounds not played yet already use every extra-time "
                    "value %(value)s your team has left: if they are played first, this pick's "
                    "extra-time value will be redrawn among those left (R11)."
                )
                % {"value": self.extra_time}
            )
        if self.shootout is not None:
            said.append(
                _(
                    "Your picks for earlier rounds not played yet already use every shootout "
                    "value %(value)s your team has left: if they are played first, this pick's "
                    "shootout value will be redrawn among those left (R11)."
                )
                % {"value": self.shootout}
            )
        return " ".join(said)

    @property
    def record(self) -> list[str | int | None]:
        """The warning as stored (JSON), to word again in another reader's language."""
        return [self.column, self.round_number, self.extra_time, self.shootout]

    @classmethod
    def of_record(cls, record: list[str | int | None] | tuple[str | int | None, ...]) -> StalePick:
        """The warning :attr:`record` stored (a record of only a column and its round, too)."""
        column, number, extra_time, shootout = (*record, None, None)[:4]
        return cls(
            column=None if column is None else str(column),
            round_number=None if number is None else int(number),
            extra_time=None if extra_time is None else str(extra_time),
            shootout=None if shootout is None else str(shootout),
        )


@dataclass(frozen=True)
class PickSubmitted:
    """A pick stored by :func:`pick_submit`, and the R11 warning its sender gets with it (the
    page, the API's answer, the receipt and the email reply say the same)."""

    pick: Pick
    stale: StalePick | None = None


def pick_stale(
    *, entry: Entry, round: Round, pick: EnginePick, choices: EntryChoices
) -> StalePick | None:
    """R11: whether ``pick`` for ``round`` repeats the column of ``entry``'s current pick for an
    earlier round of the competition not played yet, or a value those picks already use every
    use of that the team has left (``choices``) — the rule the pick page marks its tiles by
    (:class:`~competitions.selectors.spoken.SpokenFor`); two queries at most."""
    spoken = entry_spoken_for(entry=entry, round=round)
    number = spoken.columns.get(pick.column)
    extra_time: str | None = pick.extra_time
    if not spoken.extra_time_promised(pick.extra_time, choices.extra_time.get(pick.extra_time, 0)):
        extra_time = None
    shootout = pick.shootout
    if shootout is not None and not spoken.shootout_promised(
        shootout, choices.shootout.get(shootout, 0)
    ):
        shootout = None
    if number is None and extra_time is None and shootout is None:
        return None
    return StalePick(
        column=pick.column if number is not None else None,
        round_number=number,
        extra_time=extra_time,
        shootout=shootout,
    )
