"""Team entries and their stock ledger: a team's place in a season with its code and stocks
(R16, R21), every stock movement (R6, never below 0), and a replacement taking over a team's
place and record (R14).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Case, Value, When
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions.models import Fixture, PoolRound, Round, StockKind, StockMovement, StockReason
from league.models import Division, Entry, Season, Team
from league.public_cache import public_version_bump
from league.services.audit import audit_record, snapshot
from matrixhockey.db import save_valid


class StockBelowZero(ValidationError):
    """A stock movement that would leave a negative balance: refused, nothing written."""


def _by_value(entries: Mapping[int, Entry], name: str) -> Value | Cast:
    """The value of field ``name`` each of ``entries`` holds (by id), for one ``UPDATE`` of them
    all: one ``WHEN`` per value rather than per entry (``bulk_update``'s), since a division's
    balances share a few values — the cost of building the statement follows their number."""
    field = Entry._meta.get_field(name)
    assert isinstance(field, models.Field)  # a concrete column, not a relation's other side
    ids: dict[object, list[int]] = {}
    for pk, entry in entries.items():
        ids.setdefault(getattr(entry, name), []).append(pk)
    if len(ids) == 1:
        return Value(next(iter(ids)), output_field=field)
    whens = [When(pk__in=pks, then=Value(value, output_field=field)) for value, pks in ids.items()]
    return Cast(Case(*whens, output_field=field), output_field=field)


@transaction.atomic
def entry_create(
    *,
    season: Season,
    team: Team,
    division: Division,
    code: int,
    extra_goals: int = 0,
    great_saves: int = 0,
    by: User | None = None,
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


@dataclass(frozen=True)
class EntryPlace:
    """A team's place in a season to enter: its division, code (R16) and starting stocks (R21)."""

    team: Team
    division: Division
    code: int
    extra_goals: int = 0
    great_saves: int = 0


@transaction.atomic
def entries_create(
    *, season: Season, places: Sequence[EntryPlace], by: User | None = None
) -> list[Entry]:
    """Enter many teams at once (a season's import or start), each as :func:`entry_create`
    would — its division and code, its ledger opened with its two ``season_start`` lines — in
    two inserts instead of some forty queries a team.

    The callers check the league's shape beforehand and word its problems; here each place is
    checked field by field (a code 01–12, stocks not below 0), and the database's constraints
    refuse whatever slipped through (a code twice in a division, a team twice), rolling
    everything back.
    """
    entries = []
    for place in places:
        if place.extra_goals < 0 or place.great_saves < 0:
            raise StockBelowZero(
                _("%(team)s cannot start with a negative stock.") % {"team": place.team},
                code="stock_below_zero",
            )
        entry = Entry(
            season=season,
            team=place.team,
            division=place.division,
            code=place.code,
            extra_goals=place.extra_goals,
            great_saves=place.great_saves,
        )
        entry.clean_fields(exclude=["season", "team", "division", "replaces"])
        entries.append(entry)
    Entry.objects.bulk_create(entries)
    StockMovement.objects.bulk_create(
        [
            StockMovement(
                entry=entry,
                kind=kind,
                delta=getattr(entry, kind.value),
                balance_after=getattr(entry, kind.value),
                reason=StockReason.SEASON_START,
                created_by=by,
            )
            for entry in entries
            for kind in (StockKind.EXTRA_GOALS, StockKind.GREAT_SAVES)
        ]
    )
    return entries


@transaction.atomic
def stock_move(
    *,
    entry: Entry,
    kind: StockKind | str,
    delta: int,
    reason: StockReason | str,
    round: Round | None = None,
    note: str = "",
    by: User | None = None,
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


class StockLedgerBatch:
    """Many movements of entries the caller holds locked, worked out in memory and written at
    once: one ``UPDATE`` of the balances and one ``INSERT`` of the ledger lines, whatever their
    number (an arbitration's played stocks and ONR sanctions, R6, R14).

    The entries must have been read ``select_for_update`` in the caller's transaction, so their
    balances are the current ones. Each :meth:`move` applies in order, as :func:`stock_move`
    would one after the other: a movement that would take a stock below 0 raises
    :class:`StockBelowZero` before anything is written (R6), and the database's constraints
    refuse a negative balance all the same.
    """

    def __init__(self, *, round: Round | None = None, by: User | None = None) -> None:
        self.round = round
        self.by = by
        self.lines: list[StockMovement] = []
        self.entries: dict[int, Entry] = {}

    def move(
        self,
        *,
        entry: Entry,
        kind: StockKind | str,
        delta: int,
        reason: StockReason | str,
        note: str = "",
    ) -> StockMovement:
        """Add ``delta`` to one of ``entry``'s stocks (in memory) and line it up for the ledger."""
        kind = StockKind(kind)
        held = getattr(entry, kind.value)
        balance = held + delta
        if balance < 0:
            raise StockBelowZero(
                _("%(team)s has %(have)d %(stock)s: %(delta)+d would leave %(after)d.")
                % {
                    "team": entry.team,
                    "have": held,
                    "stock": kind.label,
                    "delta": delta,
                    "after": balance,
                },
                code="stock_below_zero",
            )
        setattr(entry, kind.value, balance)
        self.entries[entry.pk] = entry
        line = StockMovement(
            entry=entry,
            kind=kind,
            delta=delta,
            balance_after=balance,
            reason=StockReason(reason),
            round=self.round,
            note=note,
            created_by=self.by,
        )
        self.lines.append(line)
        return line

    def write(
        self, *, changed: Iterable[Entry] = (), fields: Sequence[str] = ()
    ) -> list[StockMovement]:
        """The balances and the ledger lines, in two queries (none when nothing changed).

        ``changed``: more of the caller's locked entries whose ``fields`` it changed (an ONR
        count, a promotion bar, R14), written in the same ``UPDATE`` as the balances.
        """
        changed = list(changed)
        entries = {**self.entries, **{entry.pk: entry for entry in changed}}
        names = [kind.value for kind in StockKind if any(line.kind == kind for line in self.lines)]
        names += fields if changed else []
        if entries and names:
            Entry.objects.filter(pk__in=entries).update(
                **{name: _by_value(entries, name) for name in names}
            )
        if self.lines:
            StockMovement.objects.bulk_create(self.lines)
        return self.lines


@transaction.atomic
def entry_replace(*, entry: Entry, team: Team, by: User | None = None) -> Entry:
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
    team_now = snapshot(new, ["team"])["team"]  # the place's team, before and after
    moved = unplayed.filter(home=old).update(home=new) + unplayed.filter(away=old).update(away=new)
    audit_record(
        actor=by,
        action="entry_replace",
        obj=old,
        payload={
            "replaced_by_entry": new.pk,
            "team": team.slug,
            "fixtures_moved": moved,
            "changes": [
                {"field": "replaced_at", "before": None, "after": old.replaced_at},
                {"field": "team", "before": snapshot(old, ["team"])["team"], "after": team_now},
            ],
        },
    )
    public_version_bump()  # R14: the replacement holds the record on every public page
    new.refresh_from_db()
    return new
