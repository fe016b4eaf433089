"""From stored rows to the engine's round input: who plays, their current picks (R12), their
stocks (R6), the WG group goals (R8); and the same input as a downloadable document (R23).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Generic, TypeVar

from django.db.models import F, Q, QuerySet, Sum

from competitions import selectors
from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    Pick,
    Pool,
    PoolRound,
    Stage,
    StockKind,
    StockMovement,
)
from competitions.selectors.entries import PLAYED, entry_placed_late, season_matrix_row
from competitions.services.errors import NotArbitrated
from engine import Competition as EngineCompetition
from engine import Pick as EnginePick
from engine import Round as EngineRound
from engine import (
    StockRequest,
    TeamEntry,
    allot_stocks,
    late_placement,
)
from league.models import Entry, Season
from league.querysets import holding_at

if TYPE_CHECKING:
    from competitions.selectors.entries import PlacedEntry

EntryT = TypeVar("EntryT", bound="PlacedEntry")
"""The entries a round input holds: read with ``placed_at``, and what else their reader asked."""


@dataclass(frozen=True)
class RoundInput(Generic[EntryT]):
    """What a pool round's arbitration plays, rebuilt the same way from stored data for a
    replay: the engine's round and, per team id (a team's slug), the rows behind it."""

    round: EngineRound
    entries: Mapping[str, EntryT]
    picks: Mapping[str, Pick | None]
    """The pick each team plays (R12, R13); ``None``: ONR or a dummy team."""
    stocks_left: Mapping[str, tuple[int, int]]
    """Per team, the extra goals and great saves its whole week leaves (R6), for R14."""
    fixtures: Sequence[Fixture]
    """The pool round's games, in the order of the engine's ``fixtures`` (by id)."""


def pool_entries(
    pool_round: PoolRound, fixtures: Sequence[Fixture], as_of: datetime
) -> QuerySet[PlacedEntry]:
    """R2: the crowding pool's entries, by id, with their team and division — a division's teams
    holding their place at ``as_of`` in the championship (R14), the teams of the round's games in
    a cup (the WG's group rounds: all twelve). One query; the arbitration locks them with it."""
    playing = Q(pk__in={f.home_id for f in fixtures} | {f.away_id for f in fixtures})
    pool = pool_round.pool
    if pool.kind.divisional:
        playing |= Q(season_id=pool.season_id, division_id=pool.division_id) & holding_at(as_of)
    return (
        Entry.objects.filter(playing)
        .select_related("team", "division")
        .annotate(placed_at=F("replaces__replaced_at"))
        .order_by("pk")
    )


def _current_picks(
    entry_ids: Sequence[int],
    season: Season,
    week: int,
    bounds: Mapping[tuple[int, int], datetime],
) -> dict[tuple[int, int], Pick]:
    """R12, R13: per (entry, round of ``week``) the pick that counts — the latest by (received
    time, id) among those received by the deadline, and those a referee entered after it — as
    it stood at ``bounds[entry, round]`` (when that round was, or is being, arbitrated). Each
    pick comes with its round."""
    latest = max(bounds.values())
    if not entry_ids:
        return {}
    picks = (
        Pick.objects.filter(
            entry_id__in=entry_ids,
            round__season=season,
            round__week=week,
            received_at__lte=latest,
        )
        .filter(Q(received_at__lte=F("round__deadline")) | Q(channel=Pick.Channel.REFEREE))
        .select_related("round")
        .order_by("received_at", "id")
    )
    current: dict[tuple[int, int], Pick] = {}
    for pick in picks:
        key = (pick.entry_id, pick.round_id)
        if key in bounds and pick.received_at <= bounds[key]:
            current[key] = pick
    return current


def _stocks(
    entry_ids: Sequence[int], season: Season, week: int, as_of: datetime
) -> dict[tuple[int, str], tuple[int, int]]:
    """Per (entry, stock kind), from the ledger as it stood at ``as_of``: the balance, and the
    balance at the start of ``week`` (the week's played and sanction movements taken out, R6)."""
    if not entry_ids:
        return {}
    rows = (
        StockMovement.objects.filter(entry_id__in=entry_ids, created_at__lt=as_of)
        .values_list("entry_id", "kind")
        .annotate(
            balance=Sum("delta"),
            this_week=Sum("delta", filter=Q(round__season=season, round__week__gte=week)),
        )
        .order_by()
    )
    return {
        (entry_id, kind): (balance, balance - (this_week or 0))
        for entry_id, kind, balance, this_week in rows
    }


def pool_round_input(*, pool_round: PoolRound, as_of: datetime) -> RoundInput[PlacedEntry]:
    """The engine's input for ``pool_round`` as it stood at ``as_of`` — the one builder behind
    both :func:`pool_round_arbitrate` (``as_of`` = now) and :func:`pool_round_replay` (``as_of`` =
    when it was arbitrated). Reads only; ``verify_round`` may show it.

    Teams (R2), their current picks (R12, R13), what they already used in rounds before this one
    (R7, R19, a replacement inheriting its predecessor's, R14), their stocks shared out over the
    whole week from the week's starting balance (R6, so that the order in which pools are
    arbitrated changes nothing), dummy teams (R14), the WG knockout's group goals (R8), the
    matrix row (R19) and the seed (R23).
    """
    fixtures = list(pool_round.fixtures.order_by("id"))
    entries = list(pool_entries(pool_round, fixtures, as_of))
    return round_input_compute(pool_round, as_of, fixtures, entries)


def round_input_compute(
    pool_round: PoolRound, as_of: datetime, fixtures: Sequence[Fixture], rows: Sequence[EntryT]
) -> RoundInput[EntryT]:
    """:func:`pool_round_input` from the pool round's ``fixtures`` (by id) and its entries
    (:func:`pool_entries`, which the arbitration reads locked) — a constant number of queries
    whatever the week (a replaced team's lineage aside, R14)."""
    round = pool_round.round
    season = round.season
    competition = Competition(round.competition)
    entries = {entry.pk: entry for entry in rows}
    slug = {pk: entry.team.slug for pk, entry in entries.items()}
    used = selectors.entries_used(
        entries=entries.values(),
        competition=competition,
        sight=selectors.Sight.REFEREE,
        before_round=round.number,
    )

    # The week's rounds each team plays (R6): this one, and those it has a game in.
    bounds: dict[tuple[int, int], datetime] = {(pk, round.pk): as_of for pk in entries}
    ids = list(entries)
    others = (
        Fixture.objects.filter(
            Q(home_id__in=ids) | Q(away_id__in=ids),
            pool_round__round__season=season,
            pool_round__round__week=round.week,
        )
        .exclude(pool_round=pool_round)
        .values_list("home_id", "away_id", "pool_round__round_id", "pool_round__arbitrated_at")
        if ids
        else []
    )
    for home_id, away_id, round_id, arbitrated_at in others:
        bound = arbitrated_at if arbitrated_at is not None and arbitrated_at < as_of else as_of
        for entry_id in (home_id, away_id):
            if entry_id in entries:
                bounds[entry_id, round_id] = bound
    # R14: an entry placed by a replacement after this round's deadline plays the picks the
    # entry it replaces had sent for the week's rounds whose deadline had passed.
    heirs = {
        pk: entry.replaces_id
        for pk, entry in entries.items()
        if entry_placed_late(entry=entry, round=round)
        and entry.replaces_id is not None
        and entry.replaces_id not in entries
    }
    for (entry_id, round_id), bound in list(bounds.items()):
        if entry_id in heirs:
            bounds[heirs[entry_id], round_id] = bound
    picks = _current_picks([*entries, *heirs.values()], season, round.week, bounds)
    replaced_by = {replaced: heir for heir, replaced in heirs.items()}
    for (entry_id, round_id), sent in list(picks.items()):
        heir = replaced_by.get(entry_id)
        if heir is not None:
            del picks[entry_id, round_id]
            if (heir, round_id) not in picks and entry_placed_late(
                entry=entries[heir], round=sent.round
            ):
                picks[heir, round_id] = sent
    parsed = {key: EnginePick.parse(pick.normalized) for key, pick in picks.items()}
    stocks = _stocks(list(entries), season, round.week, as_of)

    teams: dict[str, TeamEntry] = {}
    round_picks: dict[str, Pick | None] = {}
    stocks_left: dict[str, tuple[int, int]] = {}
    for pk, entry in entries.items():
        team = slug[pk]
        columns, extra_time, shootout = used[pk].columns, used[pk].extra_time, used[pk].shootout
        if entry.team.is_dummy:
            # R14: a dummy plays random legal picks as regular ones, with no stocks — placed
            # after the deadline, the pick the team it replaces had sent, if any.
            pick = (
                picks.get((pk, round.pk)) if entry_placed_late(entry=entry, round=round) else None
            )
            teams[team] = TeamEntry(
                parsed[pk, round.pk] if pick else None,
                columns,
                extra_time,
                shootout,
                0,
                0,
                dummy=pick is None,
            )
            round_picks[team] = pick
            continue
        goals, goals_before = stocks.get((pk, StockKind.EXTRA_GOALS), (0, 0))
        saves, saves_before = stocks.get((pk, StockKind.GREAT_SAVES), (0, 0))
        # R6: the week's requests share the stocks the team had when the week started.
        week_picks = [(pick.round, parsed[key]) for key, pick in picks.items() if key[0] == pk]
        allotment = allot_stocks(
            [
                StockRequest(
                    EngineCompetition(r.engine_competition), r.number, p.extra_goals, p.great_saves
                )
                for r, p in week_picks
            ],
            extra_goals=max(goals_before, 0),
            great_saves=max(saves_before, 0),
        )
        grant = next(
            (g for (r, _), g in zip(week_picks, allotment.grants, strict=True) if r == round),
            None,
        )
        pick = picks.get((pk, round.pk))
        teams[team] = TeamEntry(
            parsed[pk, round.pk] if pick else None,
            columns,
            extra_time,
            shootout,
            # A pick changed after an earlier pool's arbitration this week may find less left.
            min(grant.extra_goals, goals) if grant else 0,
            min(grant.great_saves, saves) if grant else 0,
        )
        if entry_placed_late(entry=entry, round=round):
            teams[team] = late_placement(teams[team])  # R14: never ONR for this round
        round_picks[team] = pick
        stocks_left[team] = (
            min(allotment.extra_goals_left or 0, goals),
            min(allotment.great_saves_left or 0, saves),
        )

    if round.engine_competition == EngineCompetition.WG_KNOCKOUT.value:
        for pk, goals in _group_goals(pool_round.pool, entries.values()).items():
            teams[slug[pk]] = teams[slug[pk]]._replace(group_goals=goals)

    return RoundInput(
        round=EngineRound(
            competition=EngineCompetition(round.engine_competition),
            seed=pool_round.seed,
            matrix_row=season_matrix_row(
                season_id=season.pk, competition=competition, round_number=round.number
            ),
            teams=teams,
            fixtures=[(slug[f.home_id], slug[f.away_id]) for f in fixtures],
        ),
        entries={slug[pk]: entry for pk, entry in entries.items()},
        picks=round_picks,
        stocks_left=stocks_left,
        fixtures=fixtures,
    )


def _group_goals(pool: Pool, entries: Iterable[Entry]) -> dict[int, int]:
    """R8: goals each team (and the team it replaced, R14) scored in the WG's group games."""
    owner: dict[int, int] = {}
    goals: dict[int, int] = {}
    for entry in entries:
        goals[entry.pk] = 0
        for ancestor in selectors.entry_lineage(entry=entry):
            owner[ancestor.pk] = entry.pk
    results = FixtureResult.objects.filter(
        Q(fixture__home_id__in=owner) | Q(fixture__away_id__in=owner),
        fixture__pool_round__pool=pool,
        fixture__pool_round__round__stage=Stage.GROUP,
        fixture__pool_round__status__in=PLAYED,
    ).values_list("fixture__home_id", "fixture__away_id", "home_goals", "away_goals")
    for home_id, away_id, home_goals, away_goals in results:
        if home_id in owner:
            goals[owner[home_id]] += home_goals
        if away_id in owner:
            goals[owner[away_id]] += away_goals
    return goals


def pool_round_input_document(*, pool_round: PoolRound) -> dict[str, object]:
    """The ``round`` command's input (``shared/ENGINE_CLI.md``) that plays ``pool_round`` again
    as it was arbitrated — what :func:`pool_round_replay` plays — so that anyone can run
    ``python -m engine round`` on it once the seed is public and compare (R23).

    Reads only; raises :class:`NotArbitrated` for a pool round not played yet. The seed is in
    it: callers show it to the public only once the pool round is published.
    """
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if pool_round.status not in PLAYED or pool_round.arbitrated_at is None:
        raise NotArbitrated()
    given = pool_round_input(pool_round=pool_round, as_of=pool_round.arbitrated_at).round
    teams: dict[str, dict[str, object]] = {}
    for team, entry in given.teams.items():
        data: dict[str, object] = {
            "pick": None if entry.pick is None else entry.pick.notation(),
            "used_columns": list(entry.used_columns),
            "used_extra_time": list(entry.used_extra_time),
            "used_shootout": list(entry.used_shootout),
        }
        if entry.extra_goals is not None:
            data["extra_goals"] = entry.extra_goals
        if entry.great_saves is not None:
            data["great_saves"] = entry.great_saves
        if entry.group_goals:
            data["group_goals"] = entry.group_goals
        if entry.dummy:
            data["dummy"] = True
        teams[team] = data
    # No ``bonus_goal`` key: the bonus goal is drawn from the seed (R5), as in the arbitration.
    return {
        "competition": given.competition.value,
        "seed": given.seed,
        "matrix_row": dict(given.matrix_row),
        "teams": teams,
        "fixtures": [list(fixture) for fixture in given.fixtures],
    }
