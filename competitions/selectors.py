"""Reads of the competitions, named ``<thing>_<action>`` with keyword-only arguments.

Selectors stay thin: they turn stored rows into the engine's values and let the engine compute
(standings, R9). What a team has *used* is read from the :class:`TeamResult` rows the
arbitration stored, so it is exactly what the engine played (R11 redraws and ONR draws included).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import pgettext

from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    Matrix,
    Pool,
    PoolMember,
    PoolRound,
    Stage,
    TeamResult,
)
from engine import Decided, Dice, MatchResult, StandingRow, commitment, standings
from engine.promotion import division_zones
from engine.season import Used
from league.models import AuditLog, Entry, LatePick, Pick

PLAYED = (PoolRound.Status.ARBITRATED, PoolRound.Status.PUBLISHED)
"""Pool-round statuses whose results count (arbitrated: referees and the arbitration; published:
everyone)."""


def matrix_row(*, matrix: Matrix, round_number: int) -> dict[str, int]:
    """Round ``round_number``'s row of ``matrix``: ``{column: value}`` (the engine's
    ``matrix_row``)."""
    cells = matrix.cells.filter(round_number=round_number).order_by("column")
    return {cell.column: cell.value for cell in cells}


def _statuses(published_only: bool) -> tuple[str, ...]:
    return (PoolRound.Status.PUBLISHED,) if published_only else PLAYED


def entry_lineage(*, entry: Entry) -> list[Entry]:
    """``entry`` and the entries it replaced, newest first (R14: the replacement keeps their
    record)."""
    lineage = [entry]
    while lineage[-1].replaces_id is not None:
        lineage.append(Entry.objects.get(pk=lineage[-1].replaces_id))
    return lineage


def entries_used(
    *,
    entries: Iterable[Entry],
    competition: Competition | str,
    published_only: bool,
    before_round: int | None = None,
) -> dict[int, Used]:
    """For each entry (by id), what its place already played this season in ``competition``.

    ``competition`` is ``championship``, ``kdh`` or ``wg`` (the WG's group and knockout rounds
    share one set, R19). Only pool rounds that are arbitrated or published count, or only the
    published ones when ``published_only`` (what the public sees, « infos équipes »). A team
    that replaced another (R14) inherits the replaced entry's record. Values are in play order;
    a cup forfeit (R15) used nothing. ``before_round``: only the rounds numbered below it (what
    a team had used when that round was played).
    """
    entries = list(entries)
    owner: dict[int, int] = {}
    for entry in entries:
        for ancestor in entry_lineage(entry=entry):
            owner[ancestor.pk] = entry.pk
    rows = TeamResult.objects.filter(
        entry_id__in=owner,
        pool_round__round__competition=Competition(competition),
        pool_round__status__in=_statuses(published_only),
    )
    if before_round is not None:
        rows = rows.filter(pool_round__round__number__lt=before_round)
    rows = rows.order_by("pool_round__round__number", "id").values_list(
        "entry_id", "column", "extra_time", "shootout"
    )
    played: dict[int, tuple[list[str], list[str], list[str]]] = {
        entry.pk: ([], [], []) for entry in entries
    }
    for entry_id, column, extra_time, shootout in rows:
        columns, extra_times, shootouts = played[owner[entry_id]]
        if column:
            columns.append(column)
        if extra_time:
            extra_times.append(extra_time)
        if shootout:
            shootouts.append(shootout)
    return {
        pk: Used(tuple(columns), tuple(extra_times), tuple(shootouts))
        for pk, (columns, extra_times, shootouts) in played.items()
    }


def entry_used(*, entry: Entry, competition: Competition | str, published_only: bool) -> Used:
    """What ``entry``'s place already played this season in ``competition`` (see
    :func:`entries_used`): columns, extra-time and shootout values, as tuples in play order."""
    return entries_used(entries=[entry], competition=competition, published_only=published_only)[
        entry.pk
    ]


def entry_holder(*, entry: Entry) -> Entry:
    """The entry now holding ``entry``'s place (R14: a replacement takes over its record)."""
    while entry.replaced_at is not None:
        entry = Entry.objects.select_related("team").get(replaces_id=entry.pk)
    return entry


def _table(
    pool: Pool, entries: list[Entry], published_only: bool, what: str, stages: tuple[str, ...]
) -> list[StandingRow]:
    """``entries``' table over ``pool``'s stored results between them, teams named by slug."""
    owner = {
        ancestor.pk: entry.team.slug for entry in entries for ancestor in entry_lineage(entry=entry)
    }
    results = (
        FixtureResult.objects.filter(
            fixture__pool_round__pool=pool,
            fixture__pool_round__status__in=_statuses(published_only),
            fixture__home_id__in=owner,
            fixture__away_id__in=owner,
            fixture__pool_round__round__stage__in=stages,
        )
        .select_related("fixture")
        .order_by("fixture__pool_round__round__number", "fixture_id")
    )
    matches = [
        MatchResult(
            owner[result.fixture.home_id],
            owner[result.fixture.away_id],
            result.home_goals,
            result.away_goals,
            Decided(result.decided),
            None if result.winner_id is None else owner[result.winner_id],
        )
        for result in results
    ]
    last = (
        PoolRound.objects.filter(
            pool=pool, status__in=_statuses(published_only), round__stage__in=stages
        )
        .order_by("-round__number")
        .values_list("seed", flat=True)
        .first()
    )
    # R9, R23: a tie no criterion breaks goes to a die seeded by the last round counted.
    dice = Dice(f"{last or pool.slug}/standings/{what}")
    return standings(sorted(owner[entry.pk] for entry in entries), matches, dice)


def pool_standings(*, pool: Pool, published_only: bool = True) -> list[StandingRow]:
    """A championship pool's table (R9) over its stored results, in rank order.

    Rows name teams by their slug; a replacement's row carries the record of the team it
    replaced (R14). ``published_only`` (the default): what the public sees.
    """
    if pool.competition != Competition.CHAMPIONSHIP:
        raise ValueError(f"{pool.slug} is a cup: use wg_group_standings for the WG's groups")
    entries = Entry.objects.filter(
        season_id=pool.season_id, division_id=pool.division_id, replaced_at__isnull=True
    ).select_related("team")
    return _table(pool, list(entries), published_only, pool.slug, (Stage.REGULAR,))


def wg_group_standings(*, pool: Pool, published_only: bool = True) -> dict[str, list[StandingRow]]:
    """The WG's group tables (R9, R18), by group name, over the stored group-stage results."""
    if pool.competition != Competition.WG:
        raise ValueError(f"{pool.slug} is not the WG")
    members = PoolMember.objects.filter(pool=pool).exclude(group="").select_related("entry__team")
    groups: dict[str, list[Entry]] = {}
    for member in members.order_by("group", "entry_id"):
        groups.setdefault(member.group, []).append(entry_holder(entry=member.entry))
    return {
        name: _table(pool, entries, published_only, f"group-{name}", (Stage.GROUP,))
        for name, entries in sorted(groups.items())
    }


# --- Results (R10, R23) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayedPick:
    """What one team played in a pool round and scored, as the arbitration stored it."""

    entry: Entry
    display: str
    """The result notation (R10): ``D++*(1)``, ``ONR : F(X)``, ``ONR`` for a cup forfeit."""
    goals: int
    column: str
    extra_time: str
    shootout: str
    extra_goals_used: int
    great_saves_used: int
    onr: bool
    redrawn: bool
    bonus_goal: bool

    @classmethod
    def of(cls, row: TeamResult) -> PlayedPick:
        """The played pick a stored :class:`TeamResult` records."""
        return cls(
            entry=row.entry,
            display=row.display,
            goals=row.goals,
            column=row.column,
            extra_time=row.extra_time,
            shootout=row.shootout,
            extra_goals_used=row.extra_goals_used,
            great_saves_used=row.great_saves_used,
            onr=row.onr,
            redrawn=row.redrawn,
            bonus_goal=row.bonus_goal,
        )

    @property
    def team(self) -> str:
        return self.entry.team.slug

    def as_dict(self) -> dict[str, Any]:
        """The team's part of the engine's ``round`` output (``shared/ENGINE_CLI.md``)."""
        return {
            "column": self.column or None,
            "extra_time": self.extra_time or None,
            "shootout": self.shootout or None,
            "extra_goals_used": self.extra_goals_used,
            "great_saves_used": self.great_saves_used,
            "onr": self.onr,
            "redrawn": self.redrawn,
            "bonus_goal": self.bonus_goal,
            "goals": self.goals,
            "display": self.display,
        }


@dataclass(frozen=True)
class GameResult:
    """One game of a pool round with its stored result and both teams' played picks."""

    fixture: Fixture
    home_goals: int
    away_goals: int
    decided: str
    """One of :class:`~competitions.models.Decided`'s values (the engine's ``decided``)."""
    winner: Entry | None
    home_pick: PlayedPick | None
    away_pick: PlayedPick | None

    @property
    def home(self) -> Entry:
        return self.fixture.home

    @property
    def away(self) -> Entry:
        return self.fixture.away

    @property
    def mark(self) -> str:
        """How the game ended, shown after its score in the reader's language (our wording where
        the rules are silent): « AP » after extra time — and for a championship or WG-group draw,
        which always went through it (R8) —, « TAB » / « SO » after a shootout, the die, the
        WG group goals (R8), « forfait » / « forfeit » (R15); nothing in regular time."""
        marks = {
            Decided.EXTRA_TIME.value: pgettext("after extra time", "AP"),
            Decided.DRAW.value: pgettext("after extra time", "AP"),
            Decided.SHOOTOUT.value: pgettext("after a shootout", "SO"),
            Decided.DIE.value: pgettext("a tied cup game decided by", "die"),
            Decided.GROUP_GOALS.value: pgettext("a tied cup game decided by", "group goals"),
            Decided.FORFEIT.value: pgettext("a cup game lost by", "forfeit"),
        }
        return marks.get(self.decided, "")

    @property
    def score_hides_winner(self) -> bool:
        """A cup game whose score is tied but has a winner (shootout, die, group goals, a double
        forfeit's die): the winner must be named."""
        return self.winner is not None and self.home_goals == self.away_goals

    def line(self) -> str:
        """The game as the rules' results show it (section 3.1.4, R10):
        ``Freezing Ass [D++*(1)] – Groggs [B(X)] : 6-3``, ``… : 4-3 AP``; a tied cup game
        names its winner after the mark."""
        home = f"{self.home.team.name} [{self.home_pick.display if self.home_pick else '?'}]"
        away = f"{self.away.team.name} [{self.away_pick.display if self.away_pick else '?'}]"
        text = f"{home} – {away} : {self.home_goals}-{self.away_goals}"
        if self.mark:
            text = f"{text} {self.mark}"
        if self.score_hides_winner:
            text = f"{text} ({self.winner.team.name})"  # type: ignore[union-attr]
        return text

    def involves(self, entry_id: int) -> bool:
        return entry_id in (self.fixture.home_id, self.fixture.away_id)

    def as_dict(self) -> dict[str, Any]:
        """The match as the engine's ``round`` output gives it (team slugs)."""
        return {
            "home": self.home.team.slug,
            "away": self.away.team.slug,
            "home_goals": self.home_goals,
            "away_goals": self.away_goals,
            "decided": self.decided,
            "winner": None if self.winner is None else self.winner.team.slug,
        }


@dataclass(frozen=True)
class PoolRoundResults:
    """A pool round's results as a given reader may see them (:func:`pool_round_results`)."""

    pool_round: PoolRound
    status: str
    """``open``, ``closed``, ``arbitrated`` or ``published`` (the calendar's words, API.md)."""
    seed_hash: str
    revealed: bool
    """Whether the results below are shown; when not, they are empty and ``seed`` is ``None``."""
    seed: str | None
    games: tuple[GameResult, ...]
    teams: tuple[PlayedPick, ...]
    """Every team of the crowding pool (R2) with what it played, by team name."""
    draws: tuple[dict[str, Any], ...]
    """Every draw of the draw log, in order: ``seed`` (its generator), ``what``, ``options``,
    ``result`` (R23)."""
    bonus_goal: Entry | None

    @property
    def seed_matches_hash(self) -> bool:
        """R23: the revealed seed hashes to the fingerprint published beforehand."""
        return self.seed is not None and commitment(self.seed) == self.seed_hash

    @property
    def bonus_goal_drawn(self) -> PlayedPick | None:
        """R5: the team the bonus goal was drawn for — when it is ONR, the goal was denied
        (offside) and :attr:`bonus_goal` is ``None``."""
        drawn = next(
            (
                draw["result"]
                for draw in self.draws
                if draw["what"] == "bonus_goal" and draw.get("seed") == self.seed
            ),
            None,
        )
        return next((pick for pick in self.teams if pick.team == drawn), None)

    def as_dict(self) -> dict[str, Any]:
        """The shape of ``GET /api/results/{competition}/{pool}/{round}/`` (``shared/API.md``).

        ``status``, ``seed_hash`` and ``matches`` always (``matches`` empty until revealed);
        once revealed also ``seed``, ``draws``, ``bonus_goal`` and ``teams`` — each team's
        played pick, ``display`` in the result notation (R10), as in the engine's output.
        """
        pool_round = self.pool_round
        data: dict[str, Any] = {
            "competition": pool_round.pool.competition,
            "pool": pool_round.pool.slug,
            "round": pool_round.round.number,
            "status": self.status,
            "seed_hash": self.seed_hash,
            "matches": [game.as_dict() for game in self.games],
        }
        if self.revealed:
            data["seed"] = self.seed
            data["bonus_goal"] = None if self.bonus_goal is None else self.bonus_goal.team.slug
            data["teams"] = {pick.team: pick.as_dict() for pick in self.teams}
            data["draws"] = [dict(draw) for draw in self.draws]
        return data


@dataclass(frozen=True)
class TableLine:
    """A row of a public table (R9) with its team's entry and, in a division, its zone (R22)."""

    row: StandingRow
    entry: Entry
    zone: str = ""
    """``up`` (promotion place), ``down`` (relegation place) or empty, if the season ended now."""

    @property
    def barred(self) -> bool:
        """R14: a second ONR bars promotion; R22 skips the team."""
        return self.entry.promotion_barred


def table_lines(*, pool: Pool, rows: Iterable[StandingRow]) -> list[TableLine]:
    """``rows`` (a division's or a WG group's table) with their entries; in a division, the
    promotion and relegation places as they stand (R22: the tier's places, the engine's
    :data:`~engine.promotion.PLACES`; a team barred from promotion is skipped for the next
    eligible one, never one from the drop zone)."""
    rows = list(rows)
    entries = {
        entry.team.slug: entry
        for entry in Entry.objects.filter(
            season_id=pool.season_id, team__slug__in=[row.team for row in rows]
        ).select_related("team", "division")
    }
    zones: dict[str, str] = {}
    if pool.division is not None:
        barred = {team for team, entry in entries.items() if entry.promotion_barred}
        up, down = division_zones(pool.division.tier, [row.team for row in rows], barred)
        zones = {team: "down" for _, team in down} | {team: "up" for _, team in up}
    return [
        TableLine(row=row, entry=entries[row.team], zone=zones.get(row.team, "")) for row in rows
    ]


def results_weeks(*, season_id: int) -> list[int]:
    """The weeks of a season with at least one published pool round, in order."""
    return sorted(
        set(
            PoolRound.objects.filter(
                pool__season_id=season_id, status=PoolRound.Status.PUBLISHED
            ).values_list("round__week", flat=True)
        )
    )


def week_results(*, season_id: int, week: int) -> list[PoolRoundResults]:
    """Every pool round of a season's week, championship (Elite first) then KDH then WG, each
    as the public sees it (:func:`pool_round_results`: only published ones show their games)."""
    competition_order = {value: index for index, value in enumerate(Competition.values)}
    pool_rounds = sorted(
        PoolRound.objects.filter(pool__season_id=season_id, round__week=week).select_related(
            "pool__division", "round__season"
        ),
        key=lambda pr: (
            competition_order[pr.pool.competition],
            pr.round.number,
            pr.pool.division.tier if pr.pool.division else 0,
            pr.pool.division.group if pr.pool.division else "",
        ),
    )
    return [pool_round_results(pool_round=pool_round) for pool_round in pool_rounds]


def pool_round_fixtures(*, pool_round: PoolRound) -> list[Fixture] | None:
    """Who plays whom in ``pool_round``, without any result, when that is public: always in
    the championship and the WG group stage (the calendar is known from the start, R20); in a
    cup's later rounds once the round whose arbitration drew them is published (its draws are
    then public, R23). ``None`` while it is not."""
    earlier = (
        PoolRound.objects.filter(
            pool_id=pool_round.pool_id, round__number__lt=pool_round.round.number
        )
        .order_by("-round__number")
        .first()
    )
    drawn_later = pool_round.round.stage not in (Stage.REGULAR, Stage.GROUP)
    if drawn_later and earlier is not None and not earlier.is_published:
        return None
    return list(
        pool_round.fixtures.select_related("home__team", "away__team", "home__division").order_by(
            "id"
        )
    )


def pool_round_find(
    *, season_id: int, competition: str, pool_slug: str, number: int
) -> PoolRound | None:
    """The pool round of ``season_id``'s ``competition``, pool ``pool_slug`` and round ``number``
    (the results' URLs), or ``None``."""
    return (
        PoolRound.objects.filter(
            pool__season_id=season_id,
            pool__competition=competition,
            pool__slug=pool_slug,
            round__number=number,
        )
        .select_related("pool__division", "round__season")
        .first()
    )


def pool_round_public_status(*, pool_round: PoolRound, now: datetime | None = None) -> str:
    """``pool_round``'s status in the calendar's words (``open``, ``closed``, ``arbitrated``,
    ``published``): a pool round not yet played (pending, being arbitrated, voided to be
    played again) is open until its round's deadline (R13), closed after it."""
    if pool_round.status in PLAYED:
        return pool_round.status
    now = now or timezone.now()
    return "open" if now < pool_round.round.deadline else "closed"


def pool_round_results(*, pool_round: PoolRound, reveal: bool = False) -> PoolRoundResults:
    """``pool_round``'s results as one reader may see them.

    Publishing is what makes results public (R23, API.md): before it, everyone gets only the
    status and the seed's SHA-256 — no game score, no played pick, no seed, no draw, since a
    score or a pick would tell what a team played. Once the pool round is published, everything
    is revealed: every game, each team's played pick in the result notation (R10), the seed and
    every draw. ``reveal=True`` shows an arbitrated but unpublished round in full too: only for
    a referee of the pool or staff (the caller checks who asks); before arbitration there is
    nothing to show whoever asks.
    """
    pool_round = PoolRound.objects.select_related("pool", "round__season").get(pk=pool_round.pk)
    status = pool_round_public_status(pool_round=pool_round)
    revealed = pool_round.is_published or (reveal and pool_round.status in PLAYED)
    if not revealed:
        return PoolRoundResults(
            pool_round=pool_round,
            status=status,
            seed_hash=pool_round.seed_hash,
            revealed=False,
            seed=None,
            games=(),
            teams=(),
            draws=(),
            bonus_goal=None,
        )
    picks = {
        row.entry_id: PlayedPick.of(row)
        for row in TeamResult.objects.filter(pool_round=pool_round)
        .select_related("entry__team", "entry__division")
        .order_by("entry__team__name")
    }
    fixtures = (
        Fixture.objects.filter(pool_round=pool_round, result__isnull=False)
        .select_related(
            "home__team", "away__team", "result__winner__team", "home__division", "away__division"
        )
        .order_by("id")
    )
    games = tuple(
        GameResult(
            fixture=fixture,
            home_goals=fixture.result.home_goals,
            away_goals=fixture.result.away_goals,
            decided=fixture.result.decided,
            winner=fixture.result.winner,
            home_pick=picks.get(fixture.home_id),
            away_pick=picks.get(fixture.away_id),
        )
        for fixture in fixtures
    )
    bonus = next((pick.entry for pick in picks.values() if pick.bonus_goal), None)
    return PoolRoundResults(
        pool_round=pool_round,
        status=status,
        seed_hash=pool_round.seed_hash,
        revealed=True,
        seed=pool_round.seed,
        games=games,
        teams=tuple(picks.values()),
        draws=tuple(pool_round.draw_log),
        bonus_goal=bonus,
    )


# --- The referees' desk (issue 5) -----------------------------------------------------------------

ARBITRATION_REQUESTED = "pool_round_arbitration_request"
ARBITRATION_REFUSED = "pool_round_arbitration_refused"
"""The audit-log actions of a referee's request to arbitrate and of a worker's refusal; both
carry the task's id (``payload["task"]``)."""
ARBITRATION_REQUEST_STALE = timedelta(minutes=10)
"""A request still unanswered after this long is taken as lost (its worker died): the referee's
page offers to arbitrate again instead of waiting."""


def user_referees_pool(*, user: AbstractBaseUser, pool: Pool) -> bool:
    """Whether ``user`` may arbitrate ``pool``: one of its referees, or staff."""
    return user.is_authenticated and (user.is_staff or pool.referees.filter(pk=user.pk).exists())


def _audit(pool_round: PoolRound) -> QuerySet[AuditLog]:
    return AuditLog.objects.filter(
        content_type=ContentType.objects.get_for_model(PoolRound), object_id=str(pool_round.pk)
    )


def arbitration_refusal(*, pool_round: PoolRound, task_id: str) -> dict[str, Any] | None:
    """The refusal a worker recorded for arbitration task ``task_id`` (``code`` and
    ``detail``), or ``None``."""
    row = _audit(pool_round).filter(action=ARBITRATION_REFUSED, payload__task=task_id).first()
    return row.payload if row is not None else None


@dataclass(frozen=True)
class ArbitrationState:
    """Where a referee's request to arbitrate a pool round stands, from the audit log."""

    requested_at: datetime | None
    """When an arbitration was asked for and is still running (``None``: none running)."""
    refusal: str | None
    """Why the last request was refused, when it was."""


def pool_round_arbitration_state(
    *, pool_round: PoolRound, now: datetime | None = None
) -> ArbitrationState:
    """Whether an arbitration of ``pool_round`` is running (asked for less than
    :data:`ARBITRATION_REQUEST_STALE` ago and not answered) or was refused last time. The claim
    that moves a pool round to ``arbitrating`` lives inside the arbitration's transaction, so
    other connections never see that status: the request in the audit log stands for it."""
    if pool_round.status in PLAYED:
        return ArbitrationState(requested_at=None, refusal=None)
    now = now or timezone.now()
    last = (
        _audit(pool_round)
        .filter(
            action__in=[
                ARBITRATION_REQUESTED,
                ARBITRATION_REFUSED,
                "pool_round_arbitrate",
                "pool_round_void",
            ]
        )
        .order_by("-at", "-id")
        .first()
    )
    if last is None:
        return ArbitrationState(requested_at=None, refusal=None)
    if last.action == ARBITRATION_REFUSED:
        return ArbitrationState(requested_at=None, refusal=str(last.payload.get("detail", "")))
    if last.action == ARBITRATION_REQUESTED and now - last.at < ARBITRATION_REQUEST_STALE:
        return ArbitrationState(requested_at=last.at, refusal=None)
    return ArbitrationState(requested_at=None, refusal=None)


@dataclass(frozen=True)
class DeskTeam:
    """A team of a pool round on the referee's desk: whether its pick came in, when and how —
    never what (R12: secret until the round is published)."""

    entry: Entry
    received_at: datetime | None
    """When the pick that counts so far was received (R12, R13), ``None`` when none did."""
    channel: str
    """How it came: ``web``, ``email`` or ``referee`` (empty when none did)."""
    picks_received: int
    """How many picks the team sent for this round (the last one counts, R12)."""

    @property
    def dummy(self) -> bool:
        """R14: a dummy team plays random legal picks, it is never ONR."""
        return self.entry.team.is_dummy

    @property
    def onr(self) -> bool:
        """No pick received so far (R4, R14, R15)."""
        return self.received_at is None and not self.dummy

    def get_channel_display(self) -> str:
        return str(Pick.Channel(self.channel).label) if self.channel else ""


@dataclass(frozen=True)
class DeskLatePick:
    """R13: a pick emailed after the deadline, waiting for the referee — which team and when, not
    the pick (secret until published)."""

    pk: int
    entry: Entry
    received_at: datetime


@dataclass(frozen=True)
class DeskScore:
    """A game's score as the referee checks it; the played picks only once published (R12)."""

    home: Entry
    away: Entry
    home_goals: int
    away_goals: int
    decided: str
    winner: Entry | None
    home_display: str
    """The played pick in result notation (R10) once published, empty before."""
    away_display: str

    def get_decided_display(self) -> str:
        return str(FixtureResult.Decided(self.decided).label)


@dataclass(frozen=True)
class RefereeDesk:
    """One pool round as its referee works on it (``/referee/…``)."""

    pool_round: PoolRound
    status: str
    """``pending``, ``arbitrating`` (a request is running), ``arbitrated``, ``published`` or
    ``void``."""
    deadline_passed: bool
    teams: list[DeskTeam]
    late_picks: list[DeskLatePick]
    scores: list[DeskScore]
    refusal: str | None
    """Why the last request to arbitrate was refused, when it was."""

    @property
    def onr(self) -> list[DeskTeam]:
        return [team for team in self.teams if team.onr]

    @property
    def received(self) -> int:
        return sum(1 for team in self.teams if not team.onr)


def _desk_entries(pool_round: PoolRound, now: datetime) -> list[Entry]:
    """The pool round's teams: its games', and in the championship the division's playing ones
    (R2)."""
    fixtures = Fixture.objects.filter(pool_round=pool_round)
    ids = set(fixtures.values_list("home_id", flat=True)) | set(
        fixtures.values_list("away_id", flat=True)
    )
    pool = pool_round.pool
    if pool.competition == Competition.CHAMPIONSHIP and pool_round.status not in PLAYED:
        ids |= set(
            Entry.objects.filter(
                season_id=pool.season_id, division_id=pool.division_id, replaced_at__isnull=True
            ).values_list("pk", flat=True)
        )
    return list(
        Entry.objects.filter(pk__in=ids)
        .select_related("team", "division")
        .order_by("division__tier", "division__slug", "code", "team__name")
    )


def referee_desk(*, pool_round: PoolRound, now: datetime | None = None) -> RefereeDesk:
    """What the referee of ``pool_round`` sees: each team with whether its pick came in (when and
    how, never what), who is ONR so far, the late picks waiting for a decision (R13), the state
    of the arbitration and, once arbitrated, the scores to check (the played picks only once
    published).

    The pick that counts is the arbitration's (R12, R13): the last received by the deadline, or
    entered by a referee after it.
    """
    now = now or timezone.now()
    pool_round = PoolRound.objects.select_related("pool__division", "round__season").get(
        pk=pool_round.pk
    )
    round = pool_round.round
    entries = _desk_entries(pool_round, now)
    ids = [entry.pk for entry in entries]
    counting: dict[int, tuple[datetime, str]] = {}
    for entry_id, received_at, channel in (
        Pick.objects.filter(round=round, entry_id__in=ids)
        .filter(Q(received_at__lte=round.deadline) | Q(channel=Pick.Channel.REFEREE))
        .order_by("received_at", "id")
        .values_list("entry_id", "received_at", "channel")
    ):
        counting[entry_id] = (received_at, channel)
    sent = dict(
        Pick.objects.filter(round=round, entry_id__in=ids)
        .values_list("entry_id")
        .annotate(n=Count("id"))
        .values_list("entry_id", "n")
    )
    teams = [
        DeskTeam(
            entry=entry,
            received_at=counting[entry.pk][0] if entry.pk in counting else None,
            channel=counting[entry.pk][1] if entry.pk in counting else "",
            picks_received=sent.get(entry.pk, 0),
        )
        for entry in entries
    ]
    late_picks = [
        DeskLatePick(pk=pk, entry=entry, received_at=received_at)
        for pk, entry, received_at in (
            (late.pk, late.entry, late.received_at)
            for late in LatePick.objects.filter(
                round=round, entry_id__in=ids, status=LatePick.Status.PENDING
            )
            .select_related("entry__team")
            .only("pk", "received_at", "entry")
            .order_by("received_at", "id")
        )
    ]
    scores: list[DeskScore] = []
    if pool_round.status in PLAYED:
        results = pool_round_results(pool_round=pool_round, reveal=True)
        published = pool_round.is_published
        scores = [
            DeskScore(
                home=game.home,
                away=game.away,
                home_goals=game.home_goals,
                away_goals=game.away_goals,
                decided=game.decided,
                winner=game.winner,
                home_display=game.home_pick.display if published and game.home_pick else "",
                away_display=game.away_pick.display if published and game.away_pick else "",
            )
            for game in results.games
        ]
    state = pool_round_arbitration_state(pool_round=pool_round, now=now)
    status = PoolRound.Status.ARBITRATING if state.requested_at else pool_round.status
    return RefereeDesk(
        pool_round=pool_round,
        status=status,
        deadline_passed=now >= round.deadline,
        teams=teams,
        late_picks=late_picks,
        scores=scores,
        refusal=state.refusal,
    )


@dataclass(frozen=True)
class DeskRow:
    """A pool round in the referee's list: its state, and for the current week the counts."""

    pool_round: PoolRound
    status: str
    teams: int | None
    received: int | None
    late_picks: int | None


@dataclass(frozen=True)
class DeskWeek:
    """One week of a referee's pool rounds."""

    week: int
    current: bool
    rows: list[DeskRow]


def referee_pools(*, user: AbstractBaseUser) -> list[Pool]:
    """The current season's pools ``user`` referees (staff: every pool)."""
    pools = Pool.objects.filter(season__is_current=True).select_related("division", "season")
    if not user.is_staff:
        pools = pools.filter(referees=user)
    return list(pools.order_by("competition", "division__tier", "slug"))


def referee_weeks(*, user: AbstractBaseUser, now: datetime | None = None) -> list[DeskWeek]:
    """``user``'s pool rounds (:func:`referee_pools`) by week: the current week first — the
    earliest with a pool round past its deadline and not yet published, else the next deadline's
    — then the weeks ahead, then the past ones, latest first. The current week's rows carry
    their counts of picks received and late picks waiting."""
    now = now or timezone.now()
    pool_rounds = list(
        PoolRound.objects.filter(pool__in=referee_pools(user=user))
        .select_related("pool__division", "round__season")
        .order_by(
            "round__week",
            "round__deadline",
            "pool__competition",
            "pool__division__tier",
            "pool__slug",
        )
    )
    if not pool_rounds:
        return []
    waiting = [
        pr.round.week
        for pr in pool_rounds
        if pr.round.deadline <= now and pr.status != PoolRound.Status.PUBLISHED
    ]
    ahead = [pr.round.week for pr in pool_rounds if pr.round.deadline > now]
    current = min(waiting or ahead or [pool_rounds[-1].round.week])
    by_week: dict[int, list[PoolRound]] = {}
    for pool_round in pool_rounds:
        by_week.setdefault(pool_round.round.week, []).append(pool_round)
    order = [
        current,
        *sorted(w for w in by_week if w > current),
        *sorted((w for w in by_week if w < current), reverse=True),
    ]
    weeks = []
    for week in order:
        rows = []
        for pool_round in by_week[week]:
            if week == current:
                desk = referee_desk(pool_round=pool_round, now=now)
                rows.append(
                    DeskRow(
                        pool_round=pool_round,
                        status=desk.status,
                        teams=len(desk.teams),
                        received=desk.received,
                        late_picks=len(desk.late_picks),
                    )
                )
            else:
                rows.append(
                    DeskRow(
                        pool_round=pool_round,
                        status=pool_round.status,
                        teams=None,
                        received=None,
                        late_picks=None,
                    )
                )
        weeks.append(DeskWeek(week=week, current=week == current, rows=rows))
    return weeks
