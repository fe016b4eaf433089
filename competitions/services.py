"""Writes to the competitions: one ``transaction.atomic`` per business action.

Scoring is the engine's (``engine/``); these functions only set up what it plays and store what
it returns.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q, Sum
from django.dispatch import Signal
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from kombu.exceptions import OperationalError as BrokerUnavailable

from competitions import selectors
from competitions.models import (
    KDH_STAGES,
    Competition,
    Fixture,
    FixtureResult,
    Matrix,
    MatrixCell,
    OnrSanction,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    Stage,
    TeamResult,
)
from competitions.selectors import PLAYED, PlayedPick
from engine import Competition as EngineCompetition
from engine import (
    Dice,
    Draw,
    RoundResult,
    StockRequest,
    TeamEntry,
    allot_stocks,
    commitment,
    kdh,
    onr_sanction,
    play_round,
    wg,
)
from engine import Pick as EnginePick
from engine import Round as EngineRound
from engine.calendar import round_robin, week_of
from league.models import (
    AuditLog,
    Division,
    Entry,
    Pick,
    Season,
    StockKind,
    StockMovement,
    StockReason,
    Team,
    WaitingListEntry,
)
from league.services import audit_record, entry_replace, stock_move, team_create
from matrixhockey.db import save_valid

_die = random.SystemRandom()
logger = logging.getLogger(__name__)


@transaction.atomic
def matrix_create(
    *,
    season: Season,
    competition: Competition | str,
    values: Mapping[int, Mapping[str, int]] | None = None,
) -> Matrix:
    """``competition``'s matrix for ``season``: ``values[round][column]``, or a die per cell.

    R19: a row per round and a column per game of the competition, values 1–6. Given values
    must fill the whole matrix.
    """
    competition = Competition(competition)
    rules = competition.rules
    matrix = save_valid(Matrix(season=season, competition=competition))
    rows = range(1, rules.rounds + 1)
    if values is None:
        values = {row: {col: _die.randint(1, 6) for col in rules.columns} for row in rows}
    if set(values) != set(rows) or any(set(values[row]) != set(rules.columns) for row in rows):
        raise ValidationError(
            _("A %(competition)s matrix has rounds 1–%(rounds)d and columns %(first)s–%(last)s.")
            % {
                "competition": competition.label,
                "rounds": rules.rounds,
                "first": rules.columns[0],
                "last": rules.columns[-1],
            }
        )
    cells = [
        MatrixCell(matrix=matrix, round_number=row, column=col, value=values[row][col])
        for row in rows
        for col in rules.columns
    ]
    for cell in cells:
        cell.full_clean(exclude=["matrix"], validate_unique=False, validate_constraints=False)
    MatrixCell.objects.bulk_create(cells)
    return matrix


@transaction.atomic
def round_create(
    *,
    season: Season,
    competition: Competition | str,
    number: int,
    week: int,
    stage: Stage | str = Stage.REGULAR,
    deadline: datetime | None = None,
) -> Round:
    """A round of ``competition``; its deadline defaults to the season's for ``week`` (R13)."""
    return save_valid(
        Round(
            season=season,
            competition=Competition(competition),
            number=number,
            week=week,
            stage=Stage(stage),
            deadline=deadline or season.deadline_for_week(week),
        )
    )


@transaction.atomic
def pool_create(
    *,
    season: Season,
    competition: Competition | str,
    division: Division | None = None,
    referees: Iterable[AbstractBaseUser] = (),
) -> Pool:
    """A championship division's pool (give ``division``) or a cup's pool (named after it)."""
    competition = Competition(competition)
    pool = save_valid(
        Pool(
            season=season,
            competition=competition,
            division=division,
            slug=division.slug if division is not None else competition.value,
        )
    )
    pool.referees.set(referees)
    return pool


@transaction.atomic
def pool_round_create(*, pool: Pool, round: Round) -> PoolRound:
    """``pool``'s part of ``round``, with a fresh secret seed and its public SHA-256 (R23)."""
    seed = _seed(pool, round)
    return save_valid(PoolRound(pool=pool, round=round, seed=seed, seed_hash=commitment(seed)))


@transaction.atomic
def fixture_create(
    *, pool_round: PoolRound, home: Entry, away: Entry, label: Fixture.Label | str = ""
) -> Fixture:
    """A game of ``pool_round``; a team plays at most once per pool round."""
    return save_valid(
        Fixture(pool_round=pool_round, home=home, away=away, label=Fixture.Label(label))
    )


def _seed(pool: Pool, round: Round) -> str:
    """A fresh secret seed for ``pool``'s part of ``round`` (R23), readable where it belongs."""
    where = f"{round.season.number}/{pool.slug}/{round.competition}-{round.number}"
    return f"{where}/{secrets.token_hex(16)}"


def _pool_rounds_bulk_create(pool: Pool, rounds: Sequence[Round]) -> list[PoolRound]:
    """``pool``'s part of each of ``rounds`` in one insert, each with its seed commitment."""
    pool_rounds = []
    for round in rounds:
        seed = _seed(pool, round)
        pool_rounds.append(PoolRound(pool=pool, round=round, seed=seed, seed_hash=commitment(seed)))
    return PoolRound.objects.bulk_create(pool_rounds)


def _fixtures_bulk_create(
    pool_round: PoolRound,
    games: Iterable[tuple[str, str]],
    entries: Mapping[str, Entry],
    labels: Sequence[str] = (),
) -> list[Fixture]:
    """The drawn or scheduled games (team ids → entries) of ``pool_round``, in order."""
    fixtures = [
        Fixture(
            pool_round=pool_round,
            home=entries[home],
            away=entries[away],
            label=labels[index] if labels else Fixture.Label.NONE,
        )
        for index, (home, away) in enumerate(games)
    ]
    return Fixture.objects.bulk_create(fixtures)


def _log(seed: str, draws: Iterable[Draw]) -> list[dict[str, object]]:
    """Draws for a draw log: each names the seed of the generator that made it, so anyone can
    re-run it once the seed is public (R23)."""
    return [{"seed": seed, **draw.as_dict()} for draw in draws]


# --- The season's calendar (R17, R18, R20) --------------------------------------------------------

_KDH_STAGES_BY_GAMES = {
    32: Stage.ROUND_OF_64,
    16: Stage.ROUND_OF_32,
    8: Stage.ROUND_OF_16,
    4: Stage.QUARTER_FINAL,
    2: Stage.SEMI_FINAL,
    1: Stage.FINAL,
}


@transaction.atomic
def season_rounds_create(*, season: Season) -> list[Round]:
    """Every round of ``season``'s three competitions, with its week (R20, the engine's calendar)
    and its deadline (R13): championship 1–11, KDH 1–7 (the qualifying round first, R17), WG
    1–8 (six group rounds, the semi-finals, the final week, R18)."""
    stages = {
        Competition.CHAMPIONSHIP: [Stage.REGULAR] * Competition.CHAMPIONSHIP.rules.rounds,
        Competition.KDH: KDH_STAGES,
        Competition.WG: [Stage.GROUP] * wg.GROUP_ROUNDS + [Stage.SEMI_FINAL, Stage.FINAL],
    }
    rounds = []
    for competition, competition_stages in stages.items():
        for number, stage in enumerate(competition_stages, start=1):
            week = week_of(competition.value, number)
            rounds.append(
                Round(
                    season=season,
                    competition=competition,
                    number=number,
                    week=week,
                    stage=stage,
                    deadline=season.deadline_for_week(week),
                )
            )
    return Round.objects.bulk_create(rounds)


@transaction.atomic
def championship_schedule_create(*, pool: Pool) -> list[PoolRound]:
    """The division's whole championship (R20): a round robin of its teams by code, every round's
    pool round (with its seed commitment, R23) and games. The rounds must exist."""
    entries = list(
        Entry.objects.filter(
            season_id=pool.season_id, division_id=pool.division_id, replaced_at__isnull=True
        )
        .select_related("team")
        .order_by("code")
    )
    by_id = {entry.team.slug: entry for entry in entries}
    schedule = round_robin([entry.team.slug for entry in entries])
    rounds = list(
        Round.objects.filter(season_id=pool.season_id, competition=Competition.CHAMPIONSHIP)
        .select_related("season")
        .order_by("number")
    )
    pool_rounds = _pool_rounds_bulk_create(pool, rounds[: len(schedule)])
    for pool_round, games in zip(pool_rounds, schedule, strict=True):
        _fixtures_bulk_create(pool_round, [(g.home, g.away) for g in games], by_id)
    return pool_rounds


@transaction.atomic
def kdh_start(*, pool: Pool) -> PoolRound:
    """The KDH's field and first round (R17): every playing team enters (a member of the pool);
    the teams with the highest D3 codes play the qualifying round, drawn at random.

    The draws come from the first pool round's seed (``<seed>/opening-draw``) and open its draw
    log, so they can be checked once it is published (R23).
    """
    entries = list(
        Entry.objects.filter(season_id=pool.season_id, replaced_at__isnull=True).select_related(
            "team", "division"
        )
    )
    PoolMember.objects.bulk_create([PoolMember(pool=pool, entry=entry) for entry in entries])
    by_id = {entry.team.slug: entry for entry in entries}
    first = Round.objects.select_related("season").get(
        season_id=pool.season_id, competition=Competition.KDH, number=1
    )
    (pool_round,) = _pool_rounds_bulk_create(pool, [first])
    dice = Dice(f"{pool_round.seed}/opening-draw")
    field = [kdh.Entrant(e.team.slug, e.division.tier, e.code) for e in entries]
    split = kdh.split_field(field, dice)
    teams = split.qualifying or split.exempt
    games = kdh.draw_pairings(teams, dice, what="kdh.pairings.1")
    _fixtures_bulk_create(pool_round, [(g.home, g.away) for g in games], by_id)
    pool_round.draw_log = _log(dice.seed, dice.draws)
    pool_round.save(update_fields=["draw_log"])
    return pool_round


@transaction.atomic
def wg_start(*, pool: Pool, entries: Sequence[Entry]) -> list[PoolRound]:
    """The WG's twelve (R18; the first season an admin's choice), its three groups drawn at random
    and the six group rounds' games (a double round robin per group).

    The draw comes from the first pool round's seed (``<seed>/opening-draw``) and opens its draw
    log (R23).
    """
    by_id = {entry.team.slug: entry for entry in entries}
    teams = wg.admin_qualifiers([entry.team.slug for entry in entries])
    rounds = list(
        Round.objects.filter(
            season_id=pool.season_id, competition=Competition.WG, stage=Stage.GROUP
        )
        .select_related("season")
        .order_by("number")
    )
    pool_rounds = _pool_rounds_bulk_create(pool, rounds)
    dice = Dice(f"{pool_rounds[0].seed}/opening-draw")
    groups = wg.draw_groups(teams, dice)
    PoolMember.objects.bulk_create(
        [
            PoolMember(pool=pool, entry=by_id[team], group=name)
            for name, group in zip(wg.GROUP_NAMES, groups, strict=True)
            for team in group
        ]
    )
    for pool_round, games in zip(pool_rounds, wg.group_rounds(groups), strict=True):
        _fixtures_bulk_create(pool_round, [(g.home, g.away) for g in games], by_id)
    pool_rounds[0].draw_log = _log(dice.seed, dice.draws)
    pool_rounds[0].save(update_fields=["draw_log"])
    return pool_rounds


# --- Round statuses -------------------------------------------------------------------------------


def rounds_close_due(*, now: datetime | None = None) -> int:
    """Close every open round whose deadline has passed (R13); how many were closed.

    Issue 5's beat task calls this; the web form already refuses late picks on its own.
    """
    now = now or timezone.now()
    return Round.objects.filter(status=Round.Status.OPEN, deadline__lte=now).update(
        status=Round.Status.CLOSED
    )


def _round_status_refresh(round: Round, now: datetime) -> None:
    """A round is arbitrated when all its pool rounds are, published when all are published."""
    statuses = set(PoolRound.objects.filter(round=round).values_list("status", flat=True))
    if statuses and statuses <= {PoolRound.Status.PUBLISHED}:
        status = Round.Status.PUBLISHED
    elif statuses and statuses <= set(PLAYED):
        status = Round.Status.ARBITRATED
    elif now >= round.deadline:
        status = Round.Status.CLOSED
    else:
        status = Round.Status.OPEN
    Round.objects.filter(pk=round.pk).update(status=status)
    round.status = status


# --- Arbitration (R1–R8, R11–R15, R23) ------------------------------------------------------------


class ArbitrationRefused(Exception):
    """An arbitration or a publication that cannot happen now (the API answers 409).

    ``code`` says which refusal it is; the message says it to a referee.
    """

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ArbitrationTooEarly(ArbitrationRefused):
    """R13: the round's deadline has not passed yet."""

    code = "too_early"


class ArbitrationInProgress(ArbitrationRefused):
    """Another worker holds the pool round (its status is ``arbitrating``)."""

    code = "in_progress"


class ArbitrationOutOfOrder(ArbitrationRefused):
    """An earlier round of the same pool is not arbitrated yet: what a team has used, and so this
    round's input, depends on it."""

    code = "out_of_order"


class NotArbitrated(ArbitrationRefused):
    """Publishing or replaying a pool round that has no result yet."""

    code = "not_arbitrated"


class SeedCommitmentBroken(ArbitrationRefused):
    """R23: the stored seed does not hash to the published commitment; nothing is played."""

    code = "seed_commitment"


@dataclass(frozen=True)
class RoundInput:
    """What a pool round's arbitration plays, rebuilt the same way from stored data for a
    replay: the engine's round and, per team id (a team's slug), the rows behind it."""

    round: EngineRound
    entries: Mapping[str, Entry]
    picks: Mapping[str, Pick | None]
    """The pick each team plays (R12, R13); ``None``: ONR or a dummy team."""
    stocks_left: Mapping[str, tuple[int, int]]
    """Per team, the extra goals and great saves its whole week leaves (R6), for R14."""


def _playing_at(as_of: datetime) -> Q:
    """Entries holding their place at ``as_of``: not yet replaced, and in place (R14)."""
    return (Q(replaced_at__isnull=True) | Q(replaced_at__gt=as_of)) & (
        Q(replaces__isnull=True) | Q(replaces__replaced_at__lte=as_of)
    )


def _team_ids(pool_round: PoolRound, fixtures: Sequence[Fixture], as_of: datetime) -> list[int]:
    """R2: the crowding pool's entries — a division's teams in the championship, the teams of the
    round's games in a cup (the WG's group rounds: all twelve)."""
    ids = {f.home_id for f in fixtures} | {f.away_id for f in fixtures}
    pool = pool_round.pool
    if pool.competition == Competition.CHAMPIONSHIP:
        ids |= set(
            Entry.objects.filter(season_id=pool.season_id, division_id=pool.division_id)
            .filter(_playing_at(as_of))
            .values_list("pk", flat=True)
        )
    return sorted(ids)


def _current_picks(
    entry_ids: Sequence[int],
    rounds: Mapping[int, Round],
    bounds: Mapping[tuple[int, int], datetime],
) -> dict[tuple[int, int], Pick]:
    """R12, R13: per (entry, round) the pick that counts — the latest by (received time, id)
    among those received by the deadline, and those a referee entered after it — as it stood at
    ``bounds[entry, round]`` (when that round was, or is being, arbitrated)."""
    latest = max(bounds.values())
    picks = (
        Pick.objects.filter(entry_id__in=entry_ids, round_id__in=rounds, received_at__lte=latest)
        .filter(Q(received_at__lte=F("round__deadline")) | Q(channel=Pick.Channel.REFEREE))
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
    rows = (
        StockMovement.objects.filter(entry_id__in=entry_ids, created_at__lt=as_of)
        .values("entry_id", "kind")
        .annotate(
            balance=Sum("delta"),
            this_week=Sum("delta", filter=Q(round__season=season, round__week__gte=week)),
        )
        .values_list("entry_id", "kind", "balance", "this_week")
    )
    return {
        (entry_id, kind): (balance, balance - (this_week or 0))
        for entry_id, kind, balance, this_week in rows
    }


def pool_round_input(*, pool_round: PoolRound, as_of: datetime) -> RoundInput:
    """The engine's input for ``pool_round`` as it stood at ``as_of`` — the one builder behind
    both :func:`pool_round_arbitrate` (``as_of`` = now) and :func:`pool_round_replay` (``as_of`` =
    when it was arbitrated). Reads only; ``verify_round`` may show it.

    Teams (R2), their current picks (R12, R13), what they already used in rounds before this one
    (R7, R19, a replacement inheriting its predecessor's, R14), their stocks shared out over the
    whole week from the week's starting balance (R6, so that the order in which pools are
    arbitrated changes nothing), dummy teams (R14), the WG knockout's group goals (R8), the
    matrix row (R19) and the seed (R23).
    """
    round = pool_round.round
    season = round.season
    competition = Competition(round.competition)
    fixtures = list(pool_round.fixtures.order_by("id"))
    entries = {
        entry.pk: entry
        for entry in Entry.objects.filter(pk__in=_team_ids(pool_round, fixtures, as_of))
        .select_related("team", "division")
        .order_by("pk")
    }
    slug = {pk: entry.team.slug for pk, entry in entries.items()}
    used = selectors.entries_used(
        entries=entries.values(),
        competition=competition,
        published_only=False,
        before_round=round.number,
    )

    # The week's rounds each team plays (R6): this one, and those it has a game in.
    week_rounds = {r.pk: r for r in Round.objects.filter(season=season, week=round.week)}
    bounds: dict[tuple[int, int], datetime] = {(pk, round.pk): as_of for pk in entries}
    others = (
        Fixture.objects.filter(pool_round__round_id__in=week_rounds)
        .exclude(pool_round=pool_round)
        .filter(Q(home_id__in=entries) | Q(away_id__in=entries))
        .values_list("home_id", "away_id", "pool_round__round_id", "pool_round__arbitrated_at")
    )
    for home_id, away_id, round_id, arbitrated_at in others:
        bound = arbitrated_at if arbitrated_at is not None and arbitrated_at < as_of else as_of
        for entry_id in (home_id, away_id):
            if entry_id in entries:
                bounds[entry_id, round_id] = bound
    picks = _current_picks(list(entries), week_rounds, bounds)
    parsed = {key: EnginePick.parse(pick.normalized) for key, pick in picks.items()}
    stocks = _stocks(list(entries), season, round.week, as_of)

    teams: dict[str, TeamEntry] = {}
    round_picks: dict[str, Pick | None] = {}
    stocks_left: dict[str, tuple[int, int]] = {}
    for pk, entry in entries.items():
        team = slug[pk]
        columns, extra_time, shootout = used[pk].columns, used[pk].extra_time, used[pk].shootout
        if entry.team.is_dummy:
            # R14: a dummy plays random legal picks as regular ones, with no stocks.
            teams[team] = TeamEntry(None, columns, extra_time, shootout, 0, 0, dummy=True)
            round_picks[team] = None
            continue
        goals, goals_before = stocks.get((pk, StockKind.EXTRA_GOALS), (0, 0))
        saves, saves_before = stocks.get((pk, StockKind.GREAT_SAVES), (0, 0))
        # R6: the week's requests share the stocks the team had when the week started.
        week_picks = [(week_rounds[r], parsed[e, r]) for e, r in picks if e == pk]
        allotment = allot_stocks(
            [
                StockRequest(r.engine_competition, r.number, p.extra_goals, p.great_saves)
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
        round_picks[team] = pick
        stocks_left[team] = (
            min(allotment.extra_goals_left or 0, goals),
            min(allotment.great_saves_left or 0, saves),
        )

    if round.engine_competition == EngineCompetition.WG_KNOCKOUT.value:
        for pk, goals in _group_goals(pool_round.pool, entries.values()).items():
            teams[slug[pk]] = teams[slug[pk]]._replace(group_goals=goals)

    matrix = Matrix.objects.get(season=season, competition=competition)
    return RoundInput(
        round=EngineRound(
            competition=round.engine_competition,
            seed=pool_round.seed,
            matrix_row=selectors.matrix_row(matrix=matrix, round_number=round.number),
            teams=teams,
            fixtures=[(slug[f.home_id], slug[f.away_id]) for f in fixtures],
        ),
        entries={slug[pk]: entry for pk, entry in entries.items()},
        picks=round_picks,
        stocks_left=stocks_left,
    )


def _group_goals(pool: Pool, entries: Iterable[Entry]) -> dict[int, int]:
    """R8: goals each team (and the team it replaced, R14) scored in the WG's group games."""
    goals: dict[int, int] = {}
    for entry in entries:
        lineage = [e.pk for e in selectors.entry_lineage(entry=entry)]
        results = FixtureResult.objects.filter(
            fixture__pool_round__pool=pool,
            fixture__pool_round__round__stage=Stage.GROUP,
            fixture__pool_round__status__in=PLAYED,
        )
        home = results.filter(fixture__home_id__in=lineage).aggregate(n=Sum("home_goals"))["n"]
        away = results.filter(fixture__away_id__in=lineage).aggregate(n=Sum("away_goals"))["n"]
        goals[entry.pk] = (home or 0) + (away or 0)
    return goals


def _check_ready(pool_round: PoolRound, now: datetime) -> None:
    """Refuse an arbitration before the deadline (R13) or before the pool's earlier rounds."""
    round = pool_round.round
    if now < round.deadline:
        raise ArbitrationTooEarly(
            _("The deadline of %(round)s has not passed yet: it cannot be arbitrated before.")
            % {"round": round}
        )
    earlier = (
        PoolRound.objects.filter(pool_id=pool_round.pool_id, round__number__lt=round.number)
        .exclude(status__in=PLAYED)
        .order_by("round__number")
        .first()
    )
    if earlier is not None:
        raise ArbitrationOutOfOrder(
            _("Round %(number)d of this pool is not arbitrated yet: arbitrate it first.")
            % {"number": earlier.round.number}
        )


def pool_round_arbitrate(*, pool_round: PoolRound, by: AbstractBaseUser | None) -> PoolRound:
    """Play ``pool_round`` through the engine and store everything it produced, once.

    Refused before the round's deadline (:class:`ArbitrationTooEarly`, R13) and while an earlier
    round of the pool is not arbitrated (:class:`ArbitrationOutOfOrder`). Idempotent: a pool
    round already arbitrated or published is returned as stored, never played again.

    The work is claimed by a conditional update (``pending``/``void`` → ``arbitrating``) that
    must touch exactly one row, in the same transaction as the work: a second caller's update
    waits for the first to commit, then touches nothing, and it gets the stored result; a crash
    rolls the claim back with everything else, so a pool round is never left half done or stuck.
    A pool round seen ``arbitrating`` outside that transaction raises
    :class:`ArbitrationInProgress`. A ``void`` pool round is played again once the void action
    (issue 5) has taken its results, stock movements and sanctions back out.

    Stored in that one transaction: the team results and game results exactly as the engine
    returned them, the stocks played (``played`` movements), the draw log with the generator
    behind each draw (R23, after checking the seed against its published SHA-256), the ONR
    sanctions (R14, once a week), the cups' qualified teams and next round (R15, R17, R18), and
    the statuses.
    """
    now = timezone.now()
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if pool_round.status in PLAYED:
        return pool_round
    _check_ready(pool_round, now)
    with transaction.atomic():
        claimed = PoolRound.objects.filter(
            pk=pool_round.pk, status__in=[PoolRound.Status.PENDING, PoolRound.Status.VOID]
        ).update(status=PoolRound.Status.ARBITRATING)
        if claimed == 1:
            return _arbitrate(pool_round, by, now)
    pool_round.refresh_from_db()
    if pool_round.status in PLAYED:
        return pool_round
    raise ArbitrationInProgress(_("This round is already being arbitrated."))


def _arbitrate(pool_round: PoolRound, by: AbstractBaseUser | None, now: datetime) -> PoolRound:
    """The claimed work of :func:`pool_round_arbitrate`, inside its transaction."""
    if commitment(pool_round.seed) != pool_round.seed_hash:
        raise SeedCommitmentBroken(
            _("The seed of %(pool_round)s does not match its published SHA-256.")
            % {"pool_round": pool_round}
        )
    round = pool_round.round
    # Lock the teams' entries in one order, so that pools of one week arbitrated at once (a
    # team plays several) wait for each other instead of deadlocking, and read their stocks.
    fixtures = list(pool_round.fixtures.all())
    list(
        Entry.objects.select_for_update()
        .filter(pk__in=_team_ids(pool_round, fixtures, now))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    given = pool_round_input(pool_round=pool_round, as_of=now)
    result = play_round(given.round)
    entries = given.entries

    TeamResult.objects.bulk_create(
        [
            TeamResult(
                pool_round=pool_round,
                entry=entries[team],
                column=played.column or "",
                extra_time=played.extra_time or "",
                shootout=played.shootout or "",
                extra_goals_used=played.extra_goals_used,
                great_saves_used=played.great_saves_used,
                onr=played.onr,
                redrawn=played.redrawn,
                bonus_goal=played.bonus_goal,
                goals=played.goals,
                display=played.display,
                pick=given.picks[team],
            )
            for team, played in result.teams.items()
        ]
    )
    fixtures = list(pool_round.fixtures.order_by("id"))
    FixtureResult.objects.bulk_create(
        [
            FixtureResult(
                fixture=fixture,
                home_goals=match.home_goals,
                away_goals=match.away_goals,
                decided=match.decided.value,
                winner=None if match.winner is None else entries[match.winner],
                created_at=now,
            )
            for fixture, match in zip(fixtures, result.matches, strict=True)
        ]
    )
    for team in sorted(result.teams, key=lambda t: entries[t].pk):
        played = result.teams[team]
        for kind, used in (
            (StockKind.EXTRA_GOALS, played.extra_goals_used),
            (StockKind.GREAT_SAVES, played.great_saves_used),
        ):
            if used:
                stock_move(
                    entry=entries[team],
                    kind=kind,
                    delta=-used,
                    reason=StockReason.PLAYED,
                    round=round,
                    by=by,
                )
    for team in sorted(result.teams, key=lambda t: entries[t].pk):
        if result.teams[team].onr:
            _onr_sanction(entries[team], round, given.stocks_left.get(team, (0, 0)), by)

    pool_round.status = PoolRound.Status.ARBITRATED
    pool_round.arbitrated_at = now
    pool_round.arbitrated_by = by
    pool_round.draw_log = [*pool_round.draw_log, *_log(pool_round.seed, result.draws)]
    pool_round.save(update_fields=["status", "arbitrated_at", "arbitrated_by", "draw_log"])
    _cup_progress(pool_round, result, entries)
    _round_status_refresh(round, now)
    audit_record(
        actor=by,
        action="pool_round_arbitrate",
        obj=pool_round,
        payload={"seed_hash": pool_round.seed_hash, "games": len(result.matches)},
    )
    return pool_round


def _onr_sanction(
    entry: Entry, round: Round, stocks_left: tuple[int, int], by: AbstractBaseUser | None
) -> OnrSanction | None:
    """R14 for a team ONR in ``round``: the engine's sanction, once a week across the
    championship and the WG group stage (a cup forfeit is never sanctioned, R15).

    The stocks it takes are those the team's week leaves (``stocks_left``), so the picks of the
    week's other rounds keep what R6 granted them whichever pool is arbitrated first. At the
    third ONR the replacement is only proposed: an admin confirms it (issue 5).
    """
    extra_goals, great_saves = stocks_left
    sanction = onr_sanction(
        onr_before=entry.onr_count,
        onr_in=[round.engine_competition],
        tier=entry.division.tier,
        extra_goals=min(extra_goals, entry.extra_goals),
        great_saves=min(great_saves, entry.great_saves),
        waiting_list=WaitingListEntry.objects.filter(
            status=WaitingListEntry.Status.WAITING
        ).exists(),
    )
    if sanction.onr_count == entry.onr_count:
        return None
    if OnrSanction.objects.filter(entry=entry, week=round.week).exists():
        return None  # R14: already sanctioned this week (the other competition, or round 10/11).
    row = OnrSanction.objects.create(
        entry=entry,
        week=round.week,
        round=round,
        onr_count=sanction.onr_count,
        extra_goals_removed=sanction.extra_goals_removed,
        great_saves_removed=sanction.great_saves_removed,
        barred_from_promotion=sanction.barred_from_promotion,
        replacement=sanction.replacement.value if sanction.replacement else "",
    )
    for kind, removed in (
        (StockKind.EXTRA_GOALS, sanction.extra_goals_removed),
        (StockKind.GREAT_SAVES, sanction.great_saves_removed),
    ):
        if removed:
            stock_move(
                entry=entry,
                kind=kind,
                delta=-removed,
                reason=StockReason.ONR_SANCTION,
                round=round,
                note=f"ONR {sanction.onr_count}",
                by=by,
            )
    entry.onr_count = sanction.onr_count
    entry.promotion_barred = entry.promotion_barred or sanction.barred_from_promotion
    Entry.objects.filter(pk=entry.pk).update(
        onr_count=entry.onr_count, promotion_barred=entry.promotion_barred
    )
    if sanction.replacement is not None:
        audit_record(
            actor=by,
            action="onr_replacement_proposed",
            obj=entry,
            payload={"replacement": sanction.replacement.value, "onr_sanction": row.pk},
        )
    return row


def _cup_progress(pool_round: PoolRound, result: RoundResult, entries: Mapping[str, Entry]) -> None:
    """Who a cup round sends on, and the next round drawn when this one completes a stage
    (R15, R17, R18). The draws come from ``<seed>/next-round-draw`` of the finished round and go
    into its draw log, to be checked once its seed is published (R23)."""
    round = pool_round.round
    if round.competition == Competition.CHAMPIONSHIP:
        return
    dice = Dice(f"{pool_round.seed}/next-round-draw")
    if round.competition == Competition.KDH:
        pool_round.qualified.add(*(entries[team] for team in result.qualified or ()))
        if len(result.matches) > 1:
            _kdh_next_round(pool_round, dice)
    elif round.stage == Stage.GROUP:
        if round.number == wg.GROUP_ROUNDS:
            _wg_semi_finals(pool_round, dice)
    else:
        pool_round.qualified.add(*(entries[team] for team in result.qualified or ()))
        if round.stage == Stage.SEMI_FINAL:
            _wg_final_week(pool_round, result, entries)
    if dice.draws:
        pool_round.draw_log = [*pool_round.draw_log, *_log(dice.seed, dice.draws)]
        pool_round.save(update_fields=["draw_log"])


def _next_round(pool_round: PoolRound, games: int) -> Round:
    """The competition's next round (created when the calendar has not got it yet)."""
    round = pool_round.round
    number = round.number + 1
    found = Round.objects.filter(
        season_id=round.season_id, competition=round.competition, number=number
    ).first()
    if found is not None:
        return found
    stage = (
        _KDH_STAGES_BY_GAMES[games]
        if round.competition == Competition.KDH
        else (Stage.SEMI_FINAL if number == wg.SEMI_FINAL_ROUND else Stage.FINAL)
    )
    return round_create(
        season=round.season,
        competition=round.competition,
        number=number,
        week=week_of(round.competition, number),
        stage=stage,
    )


def _next_pool_round(pool: Pool, round: Round) -> PoolRound:
    """``pool``'s part of the cup's next ``round``: the one a void left without its games (R23: its
    seed's SHA-256 may already be public, so it keeps its seed), or a new one."""
    kept = PoolRound.objects.filter(pool=pool, round=round).first()
    if kept is not None:
        return kept
    (created,) = _pool_rounds_bulk_create(pool, [round])
    return created


def _kdh_next_round(pool_round: PoolRound, dice: Dice) -> PoolRound:
    """R17: the winners and lucky losers (R15) — with, after the qualifying round, the teams it
    exempted — drawn in pairs for the next round. An odd number left by double forfeits gives
    the die's pick a bye (our decision, the engine's season driver's)."""
    pool = pool_round.pool
    round = pool_round.round
    going_on = list(pool_round.qualified.select_related("team"))
    if round.stage == Stage.QUALIFYING:
        played = Fixture.objects.filter(pool_round=pool_round)
        going_on += (
            Entry.objects.filter(pool_members__pool=pool)
            .exclude(Q(pk__in=played.values("home_id")) | Q(pk__in=played.values("away_id")))
            .select_related("team")
        )
    by_id = {entry.team.slug: entry for entry in going_on}
    teams = sorted(by_id)
    number = round.number + 1
    bye = None
    if len(teams) % 2:
        bye = dice.choice(f"kdh.bye.{number}", teams)
        teams.remove(bye)
    games = kdh.draw_pairings(teams, dice, what=f"kdh.pairings.{number}")
    created = _next_pool_round(pool, _next_round(pool_round, len(games)))
    _fixtures_bulk_create(created, [(g.home, g.away) for g in games], by_id)
    if bye is not None:
        created.qualified.add(by_id[bye])
    return created


def _wg_semi_finals(pool_round: PoolRound, dice: Dice) -> PoolRound:
    """R18: the three group winners and the best second, drawn so that two teams of one group do
    not meet. The group tables are the selectors' (R9), over the arbitrated group rounds."""
    tables = selectors.wg_group_standings(pool=pool_round.pool, published_only=False)
    semi = wg.semi_finalists([tables[name] for name in wg.GROUP_NAMES], dice)
    games = wg.draw_semi_finals(semi, dice)
    by_id = {
        entry.team.slug: entry
        for entry in Entry.objects.filter(
            season_id=pool_round.pool.season_id, team__slug__in=semi
        ).select_related("team")
    }
    pool_round.qualified.add(*by_id.values())
    created = _next_pool_round(pool_round.pool, _next_round(pool_round, len(games)))
    _fixtures_bulk_create(created, [(g.home, g.away) for g in games], by_id)
    return created


def _wg_final_week(
    pool_round: PoolRound, result: RoundResult, entries: Mapping[str, Entry]
) -> PoolRound:
    """R18: the final and the third-place game, the same week (one pool round, one crowd, R2)."""
    final, third_place = wg.final_games(result.matches)
    created = _next_pool_round(pool_round.pool, _next_round(pool_round, 2))
    _fixtures_bulk_create(
        created,
        [(final.home, final.away), (third_place.home, third_place.away)],
        entries,
        labels=[Fixture.Label.FINAL, Fixture.Label.THIRD_PLACE],
    )
    return created


def pool_round_replay(*, pool_round: PoolRound) -> RoundResult:
    """Play ``pool_round`` again from stored data, as it stood when it was arbitrated — the same
    input builder as :func:`pool_round_arbitrate` — and return the engine's result without
    storing anything. Issue 5's ``verify_round`` compares it with what is stored (R23)."""
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if pool_round.status not in PLAYED or pool_round.arbitrated_at is None:
        raise NotArbitrated(_("This round has not been arbitrated yet."))
    return play_round(pool_round_input(pool_round=pool_round, as_of=pool_round.arbitrated_at).round)


pool_round_published = Signal()
"""Sent (``pool_round=``, ``by=``) once a publication is committed: issue 5 connects the results
emails here."""


@transaction.atomic
def pool_round_publish(*, pool_round: PoolRound, by: AbstractBaseUser | None) -> PoolRound:
    """Make an arbitrated pool round public (results, seed and draws, R23), once.

    A conditional update (``arbitrated`` → ``published``) that must touch exactly one row:
    publishing twice returns the published round; publishing before arbitration raises
    :class:`NotArbitrated`. The round is published when all its pool rounds are. After the
    commit, :data:`pool_round_published` is sent (the results emails' hook).
    """
    now = timezone.now()
    published = PoolRound.objects.filter(
        pk=pool_round.pk, status=PoolRound.Status.ARBITRATED
    ).update(status=PoolRound.Status.PUBLISHED, published_at=now, published_by=by)
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if published != 1:
        if pool_round.status == PoolRound.Status.PUBLISHED:
            return pool_round
        raise NotArbitrated(_("This round has not been arbitrated yet: nothing to publish."))
    _round_status_refresh(pool_round.round, now)
    audit_record(actor=by, action="pool_round_publish", obj=pool_round, payload={})
    transaction.on_commit(
        lambda: pool_round_published.send(sender=PoolRound, pool_round=pool_round, by=by)
    )
    return pool_round


# --- The weekend's operations (issue 5): arbitration requests, void and redo, R14 replacements ----


class ArbitrationQueueUnavailable(ArbitrationRefused):
    """The task queue did not take the arbitration: nothing was played, ask again later."""

    code = "queue_unavailable"


class VoidRefused(ArbitrationRefused):
    """A void that would leave the pool's later results built on a result that no longer
    exists, or a replaced team's record without its games."""

    code = "void_refused"


REFUSALS: dict[str, type[ArbitrationRefused]] = {
    refusal.code: refusal
    for refusal in (
        ArbitrationRefused,
        ArbitrationTooEarly,
        ArbitrationInProgress,
        ArbitrationOutOfOrder,
        NotArbitrated,
        SeedCommitmentBroken,
        ArbitrationQueueUnavailable,
        VoidRefused,
    )
}
"""Each refusal by its ``code``, to raise again a refusal a worker recorded."""

ARBITRATION_POLL_SECONDS = 0.2
"""How often :func:`pool_round_arbitration_wait` looks at the pool round."""


@dataclass(frozen=True)
class ArbitrationRequest:
    """A referee's request to arbitrate a pool round: the task queued for it, or ``None`` when
    the pool round was already arbitrated (nothing to queue)."""

    pool_round: PoolRound
    task_id: str | None


@transaction.atomic
def pool_round_arbitration_request(
    *, pool_round: PoolRound, by: AbstractBaseUser | None
) -> ArbitrationRequest:
    """Queue the arbitration of ``pool_round`` on a Celery worker (``competitions.tasks``).

    Checked now, so that a referee hears it at once: the deadline has passed (R13) and the pool's
    earlier rounds are arbitrated (:class:`ArbitrationTooEarly`, :class:`ArbitrationOutOfOrder`).
    A pool round already arbitrated or published is returned as it is and nothing is queued. The
    task is queued when the transaction commits, under a task id recorded in the audit log with
    the request. A double click or two referees at once queue two tasks: the arbitration's claim
    lets one play and the other returns the stored result, so there is one result either way.
    """
    from competitions.tasks import pool_round_arbitrate as arbitrate_task

    now = timezone.now()
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if pool_round.status in PLAYED:
        return ArbitrationRequest(pool_round=pool_round, task_id=None)
    _check_ready(pool_round, now)
    task_id = str(uuid.uuid4())
    audit_record(
        actor=by, action=selectors.ARBITRATION_REQUESTED, obj=pool_round, payload={"task": task_id}
    )
    by_id = by.pk if by is not None else None

    def enqueue() -> None:
        try:
            arbitrate_task.apply_async(args=[pool_round.pk, by_id], task_id=task_id)
        except BrokerUnavailable as error:  # say so, rather than leave the referee waiting
            logger.exception("Could not queue the arbitration of pool round %s", pool_round.pk)
            pool_round_arbitration_refused(
                pool_round=pool_round,
                by=by,
                task_id=task_id,
                refusal=ArbitrationQueueUnavailable(
                    _("The arbitration could not be queued (%(error)s): try again later.")
                    % {"error": type(error).__name__}
                ),
            )

    transaction.on_commit(enqueue)
    return ArbitrationRequest(pool_round=pool_round, task_id=task_id)


def pool_round_arbitration_refused(
    *,
    pool_round: PoolRound,
    by: AbstractBaseUser | None,
    task_id: str | None,
    refusal: ArbitrationRefused,
) -> AuditLog:
    """Record that the arbitration task ``task_id`` was refused (final: it is not retried), so the
    referee's page and the waiting API call can say why."""
    return audit_record(
        actor=by,
        action=selectors.ARBITRATION_REFUSED,
        obj=pool_round,
        payload={"task": task_id, "code": refusal.code, "detail": refusal.message},
    )


def pool_round_arbitration_wait(*, request: ArbitrationRequest, timeout: float) -> PoolRound:
    """Wait up to ``timeout`` seconds for ``request``'s task: the pool round, arbitrated when the
    worker finished in time (still pending otherwise). A refusal the worker recorded for this
    task is raised again here. Reads only; polls the database, so it works the same with a
    worker on another machine and with tasks run eagerly (no broker)."""
    deadline = time.monotonic() + max(timeout, 0)
    while True:
        pool_round = PoolRound.objects.select_related("round__season", "pool").get(
            pk=request.pool_round.pk
        )
        if pool_round.status in PLAYED or request.task_id is None:
            return pool_round
        refused = selectors.arbitration_refusal(pool_round=pool_round, task_id=request.task_id)
        if refused is not None:
            raise REFUSALS.get(refused["code"], ArbitrationRefused)(refused["detail"])
        if time.monotonic() >= deadline:
            return pool_round
        time.sleep(ARBITRATION_POLL_SECONDS)


def _next_pool_round_made_by(pool_round: PoolRound) -> PoolRound | None:
    """The cup's next pool round that ``pool_round``'s arbitration drew (R15, R17, R18): every
    KDH round's, the WG's last group round's and semi-finals'. The championship's calendar and
    the WG's group rounds exist from the start."""
    round = pool_round.round
    if round.competition == Competition.CHAMPIONSHIP or (
        round.stage == Stage.GROUP and round.number < wg.GROUP_ROUNDS
    ):
        return None
    return (
        PoolRound.objects.filter(pool_id=pool_round.pool_id, round__number=round.number + 1)
        .select_related("round")
        .first()
    )


def _slug(entry: Entry | None) -> str | None:
    return entry.team.slug if entry is not None else None


@transaction.atomic
def pool_round_void(
    *, pool_round: PoolRound, by: AbstractBaseUser | None, reason: str
) -> PoolRound:
    """Take an arbitrated or published pool round's result back out, so that it is arbitrated
    again (same seed, R23: the same result unless its picks changed, e.g. a late pick accepted
    since, R13).

    The whole old result goes into the audit log first (team and game results, draws, stock
    movements, ONR sanctions, qualified teams, the next round's games it drew). Then: the stocks
    it spent or took (R6, R14) are given back by compensating ``void`` movements (the ledger is
    append-only), the ONR count and promotion bar of its sanctions are taken back, its results,
    sanctions and qualified teams and the next round's games it drew are removed (that next pool
    round stays, with its seed and public SHA-256), and the status becomes ``void``, which
    :func:`pool_round_arbitrate` plays again.

    Refused (:class:`VoidRefused`) when a later round of the pool is already arbitrated (what a
    team used and had left there comes from this round: void that one first) or when one of its
    teams has been replaced since (R14: the replacement holds its record now); and
    (:class:`NotArbitrated`) when there is nothing to void.
    """
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say why this round is voided: the audit log keeps the reason."))
    now = timezone.now()
    pool_round = (
        PoolRound.objects.select_for_update(of=("self",))
        .select_related("round__season", "pool")
        .get(pk=pool_round.pk)
    )
    if pool_round.status not in PLAYED:
        raise NotArbitrated(
            _("%(pool_round)s is not arbitrated (%(status)s): there is nothing to void.")
            % {"pool_round": pool_round, "status": pool_round.get_status_display()}
        )
    round = pool_round.round
    later = (
        PoolRound.objects.filter(
            pool_id=pool_round.pool_id, round__number__gt=round.number, status__in=PLAYED
        )
        .select_related("round")
        .order_by("-round__number")
        .first()
    )
    if later is not None:
        raise VoidRefused(
            _(
                "Round %(number)d of this pool is already arbitrated, and what its teams used and "
                "had left comes from this round: void round %(number)d first."
            )
            % {"number": later.round.number}
        )
    team_results = list(
        TeamResult.objects.filter(pool_round=pool_round)
        .select_related("entry__team")
        .order_by("entry_id")
    )
    entries = {result.entry_id: result.entry for result in team_results}
    replaced = sorted(str(e.team) for e in entries.values() if e.replaced_at is not None)
    if replaced:
        raise VoidRefused(
            _(
                "%(teams)s has been replaced since (R14) and its replacement holds its record: "
                "this round can no longer be voided."
            )
            % {"teams": ", ".join(replaced)}
        )
    fixture_results = list(
        FixtureResult.objects.filter(fixture__pool_round=pool_round)
        .select_related("fixture__home__team", "fixture__away__team", "winner__team")
        .order_by("fixture_id")
    )
    sanctions = list(
        OnrSanction.objects.filter(round=round, entry_id__in=entries).order_by("entry_id")
    )
    # What this result took from the ledger: its played and sanction movements, less what an
    # earlier void of this round gave back (each void brings the round's net back to 0).
    movements = list(
        StockMovement.objects.filter(
            round=round,
            entry_id__in=entries,
            reason__in=[StockReason.PLAYED, StockReason.ONR_SANCTION, StockReason.VOID],
        ).order_by("created_at", "id")
    )
    net: dict[tuple[int, str], int] = {}
    for movement in movements:
        key = (movement.entry_id, movement.kind)
        net[key] = net.get(key, 0) + movement.delta
    next_pool_round = _next_pool_round_made_by(pool_round)
    next_fixtures = (
        list(next_pool_round.fixtures.select_related("home__team", "away__team").order_by("id"))
        if next_pool_round is not None
        else []
    )
    own_seeds = {pool_round.seed, f"{pool_round.seed}/next-round-draw"}
    kept_draws = [d for d in pool_round.draw_log if d.get("seed") not in own_seeds]

    audit_record(
        actor=by,
        action="pool_round_void",
        obj=pool_round,
        payload={
            "reason": reason,
            "status": pool_round.status,
            "seed_hash": pool_round.seed_hash,
            "arbitrated_at": pool_round.arbitrated_at,
            "arbitrated_by": pool_round.arbitrated_by_id,
            "published_at": pool_round.published_at,
            "published_by": pool_round.published_by_id,
            "team_results": [
                {
                    "entry": r.entry_id,
                    "team": r.entry.team.slug,
                    "column": r.column,
                    "extra_time": r.extra_time,
                    "shootout": r.shootout,
                    "extra_goals_used": r.extra_goals_used,
                    "great_saves_used": r.great_saves_used,
                    "onr": r.onr,
                    "redrawn": r.redrawn,
                    "bonus_goal": r.bonus_goal,
                    "goals": r.goals,
                    "display": r.display,
                    "pick": r.pick_id,
                }
                for r in team_results
            ],
            "fixture_results": [
                {
                    "fixture": r.fixture_id,
                    "home": r.fixture.home.team.slug,
                    "away": r.fixture.away.team.slug,
                    "home_goals": r.home_goals,
                    "away_goals": r.away_goals,
                    "decided": r.decided,
                    "winner": _slug(r.winner),
                    "created_at": r.created_at,
                }
                for r in fixture_results
            ],
            "draws": [d for d in pool_round.draw_log if d.get("seed") in own_seeds],
            "stock_movements": [
                {
                    "id": m.pk,
                    "entry": m.entry_id,
                    "kind": m.kind,
                    "delta": m.delta,
                    "reason": m.reason,
                    "at": m.created_at,
                }
                for m in movements
            ],
            "onr_sanctions": [
                {
                    "id": s.pk,
                    "entry": s.entry_id,
                    "team": entries[s.entry_id].team.slug,
                    "week": s.week,
                    "onr_count": s.onr_count,
                    "extra_goals_removed": s.extra_goals_removed,
                    "great_saves_removed": s.great_saves_removed,
                    "barred_from_promotion": s.barred_from_promotion,
                    "replacement": s.replacement,
                }
                for s in sanctions
            ],
            "qualified": sorted(e.team.slug for e in pool_round.qualified.select_related("team")),
            "next_round": None
            if next_pool_round is None
            else {
                "pool_round": next_pool_round.pk,
                "round": next_pool_round.round.number,
                "fixtures": [[f.home.team.slug, f.away.team.slug, f.label] for f in next_fixtures],
                "qualified": sorted(
                    e.team.slug for e in next_pool_round.qualified.select_related("team")
                ),
            },
        },
    )

    for (entry_id, kind), taken in sorted(net.items()):
        if taken:
            stock_move(
                entry=entries[entry_id],
                kind=kind,
                delta=-taken,
                reason=StockReason.VOID,
                round=round,
                note=_("Round voided: %(reason)s") % {"reason": reason},
                by=by,
            )
    for sanction in sanctions:
        entry = entries[sanction.entry_id]
        still_barred = (
            OnrSanction.objects.filter(entry=entry, barred_from_promotion=True)
            .exclude(pk=sanction.pk)
            .exists()
        )
        Entry.objects.filter(pk=entry.pk).update(
            onr_count=sanction.onr_count - 1,
            promotion_barred=F("promotion_barred")
            if not sanction.barred_from_promotion
            else still_barred,
        )
    OnrSanction.objects.filter(pk__in=[s.pk for s in sanctions]).delete()
    FixtureResult.objects.filter(pk__in=[r.pk for r in fixture_results]).delete()
    TeamResult.objects.filter(pool_round=pool_round).delete()
    pool_round.qualified.clear()
    if next_pool_round is not None:
        Fixture.objects.filter(pool_round=next_pool_round).delete()
        next_pool_round.qualified.clear()
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.VOID,
        arbitrated_at=None,
        arbitrated_by=None,
        published_at=None,
        published_by=None,
        draw_log=kept_draws,
    )
    _round_status_refresh(round, now)
    pool_round.refresh_from_db()
    return pool_round


DUMMY_TEAM_NAME = "Équipe fantôme {number}"
"""A dummy team's name (R14). Team names are the league's data, in French whatever the reader's
language, like every other team's."""


def _dummy_team_create() -> Team:
    """A new dummy team (R14: random legal picks, no coach), with the next free number."""
    number = Team.objects.filter(is_dummy=True).count() + 1
    while Team.objects.filter(
        Q(name=DUMMY_TEAM_NAME.format(number=number))
        | Q(slug=slugify(DUMMY_TEAM_NAME.format(number=number)))
    ).exists():
        number += 1
    return team_create(name=DUMMY_TEAM_NAME.format(number=number), is_dummy=True)


def _free_team_name(name: str) -> str:
    """``name``, or ``name (2)``, ``name (3)``… when a team already has that name or slug."""
    candidate, number = name, 1
    while Team.objects.filter(Q(name=candidate) | Q(slug=slugify(candidate))).exists():
        number += 1
        candidate = f"{name} ({number})"
    return candidate


def _waiting_coach(waiting: WaitingListEntry) -> AbstractBaseUser | None:
    """The coach of a waiting-list team taking a place: its user, else the account with its
    contact email, else a new account (no password: the league's one-click links sign them in);
    ``None`` when that user already coaches a team."""
    user_model = get_user_model()
    user = waiting.user or user_model.objects.filter(email__iexact=waiting.email).first()
    if user is None:
        base = slugify(waiting.email.split("@")[0]) or "coach"
        username, number = base, 1
        while user_model.objects.filter(username=username).exists():
            number += 1
            username = f"{base}-{number}"
        user = user_model.objects.create_user(username=username, email=waiting.email)
    if Team.objects.filter(coach=user).exists():
        return None
    return user


def _replacement_team(*, waiting_list: bool) -> tuple[Team, WaitingListEntry | None]:
    """R14's replacement: the first team of the waiting list when ``waiting_list`` and the list
    is not empty (its team and coach created, the entry marked placed), else a new dummy team.

    The waiting list's rows are locked, so two replacements at once do not take the same team.
    """
    waiting = (
        list(
            WaitingListEntry.objects.select_for_update(of=("self",))
            .filter(status=WaitingListEntry.Status.WAITING)
            .select_related("user")
            .order_by("registered_at", "id")
        )
        if waiting_list
        else []
    )
    if not waiting:
        return _dummy_team_create(), None
    first = waiting[0]
    team = team_create(name=_free_team_name(first.name), coach=_waiting_coach(first))
    first.status = WaitingListEntry.Status.PLACED
    first.team = team
    save_valid(first)
    return team, first


def _replace(entry: Entry, *, waiting_list: bool, by: AbstractBaseUser | None, why: str) -> Entry:
    team, waiting = _replacement_team(waiting_list=waiting_list)
    new = entry_replace(entry=entry, team=team, by=by)
    audit_record(
        actor=by,
        action="onr_replacement_confirm",
        obj=entry,
        payload={
            "why": why,
            "replaced_by_entry": new.pk,
            "team": team.slug,
            "dummy": team.is_dummy,
            "waiting_list_entry": waiting.pk if waiting is not None else None,
        },
    )
    return new


def _locked_playing_entry(entry: Entry) -> Entry:
    locked = (
        Entry.objects.select_for_update(of=("self",))
        .select_related("team", "division", "season")
        .get(pk=entry.pk)
    )
    if locked.replaced_at is not None:
        raise ValidationError(
            _("%(team)s was already replaced (R14).") % {"team": locked.team}, code="replaced"
        )
    return locked


@transaction.atomic
def onr_replacement_confirm(*, sanction: OnrSanction, by: AbstractBaseUser | None) -> Entry:
    """An admin confirms the replacement a third ONR proposed (R14): an Elite or D2 team by a new
    dummy team, a D3 team by the first team of the waiting list (a dummy when the list is empty —
    the list as it is now, not as it was at the arbitration). Through
    :func:`league.services.entry_replace`: the replacement keeps the record (points, results,
    stocks) and takes over the games not yet played. Returns the replacement's entry."""
    sanction = OnrSanction.objects.select_related("entry").get(pk=sanction.pk)
    if not sanction.replacement:
        raise ValidationError(
            _("No replacement was proposed for this ONR: only a third ONR proposes one (R14)."),
            code="no_replacement",
        )
    entry = _locked_playing_entry(sanction.entry)
    return _replace(
        entry, waiting_list=entry.division.tier == 3, by=by, why=f"onr_{sanction.onr_count}"
    )


@transaction.atomic
def entry_replace_first_week_onr(*, entry: Entry, by: AbstractBaseUser | None) -> Entry:
    """R14: an admin replaces a new team (one that played no earlier season) that was ONR in week
    1, straight away, by the first team of the waiting list (a dummy team when it is empty), as
    the rules' « replaced immediately by a team from the waiting list ». Returns the
    replacement's entry."""
    entry = _locked_playing_entry(entry)
    if Entry.objects.filter(team=entry.team, season__number__lt=entry.season.number).exists():
        raise ValidationError(
            _("%(team)s played an earlier season: only a new team is replaced at its first ONR.")
            % {"team": entry.team},
            code="not_new",
        )
    if not OnrSanction.objects.filter(entry=entry, week=1).exists():
        raise ValidationError(
            _("%(team)s was not ONR in week 1 (R14).") % {"team": entry.team}, code="not_onr"
        )
    return _replace(entry, waiting_list=True, by=by, why="onr_week_1")


# --- Checking a pool round (R23, issue 5's verify_round) ------------------------------------------


def pool_round_input_document(*, pool_round: PoolRound) -> dict[str, object]:
    """The ``round`` command's input (``shared/ENGINE_CLI.md``) that plays ``pool_round`` again
    as it was arbitrated — what :func:`pool_round_replay` plays — so that anyone can run
    ``python -m engine round`` on it once the seed is public and compare (R23).

    Reads only; raises :class:`NotArbitrated` for a pool round not played yet. The seed is in
    it: callers show it to the public only once the pool round is published.
    """
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if pool_round.status not in PLAYED or pool_round.arbitrated_at is None:
        raise NotArbitrated(_("This round has not been arbitrated yet."))
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


@dataclass(frozen=True)
class Verification:
    """What :func:`pool_round_verify` found: each difference between the stored results and a
    replay, in words (empty when everything matches)."""

    pool_round: PoolRound
    differences: tuple[str, ...]

    @property
    def matches(self) -> bool:
        return not self.differences


_TEAM_FIELDS = (
    "column",
    "extra_time",
    "shootout",
    "extra_goals_used",
    "great_saves_used",
    "onr",
    "redrawn",
    "bonus_goal",
    "goals",
    "display",
)
_MATCH_FIELDS = ("home", "away", "home_goals", "away_goals", "decided", "winner")


def pool_round_verify(*, pool_round: PoolRound) -> Verification:
    """R23: play ``pool_round`` again from stored data (:func:`pool_round_replay`) and compare
    every team result, game, the bonus goal and every draw of the arbitration with what is
    stored; the seed is checked against its published SHA-256 too.

    Reads only; raises :class:`NotArbitrated` for a pool round not played yet. The cups' draws
    for the next round (``<seed>/next-round-draw``, ``<seed>/opening-draw``) are logged with
    their own seed and are not replayed here.
    """
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    replay = pool_round_replay(pool_round=pool_round)
    differences: list[str] = []
    if commitment(pool_round.seed) != pool_round.seed_hash:
        differences.append("seed: its SHA-256 is not the published seed_hash")

    def compare(where: str, stored: Mapping[str, object], replayed: Mapping[str, object]) -> None:
        for name, value in stored.items():
            if replayed[name] != value:
                differences.append(f"{where}: {name} stored {value!r}, replayed {replayed[name]!r}")

    rows = TeamResult.objects.filter(pool_round=pool_round).select_related("entry__team")
    stored_teams = {row.entry.team.slug: PlayedPick.of(row).as_dict() for row in rows}
    for team in sorted(set(stored_teams) | set(replay.teams)):
        if team not in replay.teams:
            differences.append(f"team {team}: stored, but it does not play in the replay")
        elif team not in stored_teams:
            differences.append(f"team {team}: plays in the replay, but has no stored result")
        else:
            replayed = replay.teams[team]
            compare(
                f"team {team}",
                stored_teams[team],
                {name: getattr(replayed, name) for name in _TEAM_FIELDS},
            )

    fixtures = list(
        pool_round.fixtures.select_related(
            "home__team", "away__team", "result__winner__team"
        ).order_by("id")
    )
    if len(fixtures) != len(replay.matches):
        differences.append(f"games: {len(fixtures)} stored, {len(replay.matches)} in the replay")
    pairs = zip(fixtures, replay.matches, strict=False)  # a count mismatch is reported above
    for number, (fixture, match) in enumerate(pairs, start=1):
        result = getattr(fixture, "result", None)
        if result is None:
            differences.append(f"game {number}: no stored result")
            continue
        compare(
            f"game {number}",
            {
                "home": fixture.home.team.slug,
                "away": fixture.away.team.slug,
                "home_goals": result.home_goals,
                "away_goals": result.away_goals,
                "decided": result.decided,
                "winner": None if result.winner is None else result.winner.team.slug,
            },
            match.as_dict(),
        )

    stored_bonus = [team for team, played in stored_teams.items() if played["bonus_goal"]]
    replayed_bonus = [replay.bonus_goal] if replay.bonus_goal else []
    if stored_bonus != replayed_bonus:
        differences.append(f"bonus goal: stored {stored_bonus!r}, replayed {replayed_bonus!r}")

    # The arbitration's own draws carry the pool round's seed (R23); the cups' opening and
    # next-round draws carry seeds of their own.
    stored_draws = [
        (draw["what"], list(draw["options"]), draw["result"])
        for draw in pool_round.draw_log
        if draw.get("seed") == pool_round.seed
    ]
    replayed_draws = [(draw.what, list(draw.options), draw.result) for draw in replay.draws]
    draws = zip(stored_draws, replayed_draws, strict=False)  # a count mismatch is reported below
    for number, (stored, replayed) in enumerate(draws, start=1):
        if stored != replayed:
            differences.append(f"draw {number}: stored {stored!r}, replayed {replayed!r}")
    if len(stored_draws) != len(replayed_draws):
        differences.append(
            f"draws: {len(stored_draws)} stored, {len(replayed_draws)} in the replay"
        )
    return Verification(pool_round=pool_round, differences=tuple(differences))
