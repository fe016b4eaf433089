"""What a team may still pick (R6, R7, R19), its current pick (R12) and whether it plays a
round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet, Sum

from competitions.models import (
    Competition,
    Fixture,
    Pick,
    Pool,
    PoolRound,
    Round,
    Stage,
    StockKind,
    StockMovement,
)
from competitions.selectors.entries import entry_lineage, entry_used
from league.models import Entry


def pick_history(*, entry: Entry, round: Round) -> QuerySet[Pick]:
    """Every pick received for ``entry`` and ``round``, latest first (R12)."""
    return Pick.objects.filter(entry=entry, round=round).order_by("-received_at", "-id")


def pick_current(*, entry: Entry, round: Round) -> Pick | None:
    """R12: the pick that counts, the last received (ties on time go to the later stored)."""
    return pick_history(entry=entry, round=round).first()


@dataclass(frozen=True)
class EntryChoices:
    """What a team has left in one competition: « infos équipes », and the pick form's choices.

    ``extra_time`` and ``shootout`` map each value still playable to the uses left, in the
    order 0, 1, 2, 3, X; the quotas are the engine's (R7), the columns its matrix's (R19).
    """

    competition: str
    columns: tuple[str, ...]
    extra_time: dict[str, int]
    shootout: dict[str, int]
    extra_goals: int
    great_saves: int

    @staticmethod
    def spread(counts: dict[str, int]) -> list[str]:
        """``{"0": 2, "X": 1}`` → ``["0", "0", "X"]``: one item per use left."""
        return [value for value, left in counts.items() for _ in range(left)]


def _value_order(value: str) -> tuple[bool, str]:
    return (value == "X", value)


def _left(quota: Mapping[str, int], used: Iterable[str]) -> dict[str, int]:
    spent = Counter(used)
    return {
        value: quota[value] - spent[value]
        for value in sorted(quota, key=_value_order)
        if quota[value] > spent[value]
    }


STOCK_UNCOUNTED = 10**6
"""In :func:`choices_any`, extra goals and great saves stand for "not counted here"."""


def choices_any(*, competition: Competition | str) -> EntryChoices:
    """Everything ``competition``'s rules offer, whoever the team (R7, R19), read without a
    query: what a pick form reads a pick with before the service checks it against what the
    team has left (:func:`entry_choices`, under the team's lock)."""
    competition = Competition(competition)
    rules = competition.rules
    return EntryChoices(
        competition=competition.value,
        columns=tuple(rules.columns),
        extra_time=_left(rules.extra_time_quota, ()),
        shootout=_left(rules.shootout_quota or {}, ()),
        extra_goals=STOCK_UNCOUNTED,
        great_saves=STOCK_UNCOUNTED,
    )


def pick_round_find(*, competition: str, number: int) -> Round | None:
    """Round ``number`` of ``competition`` in the current season, with its season, in one query:
    the round a coach sends a pick for (``None``: no such round, or no current season)."""
    if competition not in Competition.values:
        return None
    return (
        Round.objects.filter(season__is_current=True, competition=competition, number=number)
        .select_related("season")
        .order_by("pk")  # one row at most; the model's default order joins the season again
        .first()
    )


def entry_stocks(*, entry: Entry, published_only: bool) -> tuple[int, int]:
    """``entry``'s extra goals and great saves (R6): now, or as the published rounds left them.

    Published only, the movements tied to a round whose pool round (the entry's pool in that
    round's competition) is not published are taken back out: an arbitrated but unpublished
    round must not show what the team spent in it.
    """
    if not published_only:
        return entry.extra_goals, entry.great_saves
    published = PoolRound.objects.filter(
        round_id=OuterRef("round_id"), status=PoolRound.Status.PUBLISHED
    ).filter(
        Q(pool__competition=Competition.CHAMPIONSHIP, pool__division_id=entry.division_id)
        | Q(pool__members__entry_id=entry.pk)
    )
    hidden = dict(
        StockMovement.objects.filter(entry=entry, round__isnull=False)
        .exclude(Exists(published))
        .values_list("kind")
        .annotate(total=Sum("delta"))
        .values_list("kind", "total")
    )
    return (
        entry.extra_goals - hidden.get(StockKind.EXTRA_GOALS, 0),
        entry.great_saves - hidden.get(StockKind.GREAT_SAVES, 0),
    )


def entry_choices(
    *, entry: Entry, competition: Competition | str, published_only: bool
) -> EntryChoices:
    """What ``entry`` may still play in ``competition``: columns, extra-time values with the uses
    left, shootout values (KDH), extra-goal and great-save stocks.

    ``published_only``: after the published rounds, what anyone may see (« infos équipes »);
    otherwise after every arbitrated round too, the team's own pick form (its own record).
    """
    competition = Competition(competition)
    rules = competition.rules
    used = entry_used(entry=entry, competition=competition, published_only=published_only)
    extra_goals, great_saves = entry_stocks(entry=entry, published_only=published_only)
    return EntryChoices(
        competition=competition.value,
        columns=tuple(c for c in rules.columns if c not in set(used.columns)),
        extra_time=_left(rules.extra_time_quota, used.extra_time),
        shootout=_left(rules.shootout_quota or {}, used.shootout),
        extra_goals=extra_goals,
        great_saves=great_saves,
    )


def entry_pool(*, entry: Entry, competition: Competition | str) -> Pool | None:
    """The pool ``entry`` plays ``competition`` in: its division's, or the cup's when it is in."""
    competition = Competition(competition)
    pools = Pool.objects.filter(season_id=entry.season_id, competition=competition)
    if competition == Competition.CHAMPIONSHIP:
        return pools.filter(division_id=entry.division_id).first()
    return pools.filter(members__entry_id__in=_lineage_ids(entry)).first()


def _lineage_ids(entry: Entry) -> list[int]:
    # R14: a replacement plays where the team it replaced was.
    return [e.pk for e in entry_lineage(entry=entry)]


def _first_unpublished_result(pool: Pool) -> int | None:
    """The number of the pool's first arbitrated round not yet published: what was drawn after
    it (the next cup round's games) is not public."""
    return (
        PoolRound.objects.filter(pool=pool, status=PoolRound.Status.ARBITRATED)
        .order_by("round__number")
        .values_list("round__number", flat=True)
        .first()
    )


def entry_opponent(*, entry: Entry, round: Round) -> Entry | None:
    """``entry``'s opponent in ``round`` once its game is drawn — and public: a cup game drawn
    from an arbitrated, unpublished round is not (see :func:`entry_plays_round`)."""
    pool = entry_pool(entry=entry, competition=round.competition)
    if pool is None:
        return None
    secret = _first_unpublished_result(pool)
    if secret is not None and round.number > secret:
        return None
    mine = _lineage_ids(entry)
    fixture = (
        Fixture.objects.filter(pool_round__pool=pool, pool_round__round=round)
        .filter(Q(home_id__in=mine) | Q(away_id__in=mine))
        .select_related("home__team", "away__team")
        .first()
    )
    if fixture is None:
        return None
    return fixture.away if fixture.home_id in mine else fixture.home


def entry_plays_round(*, entry: Entry, round: Round) -> bool:
    """Whether ``entry`` plays ``round``, as the published results say: every playing team plays
    the championship; a cup's round, when its team is in the cup (a member of its pool) and
    still in it.

    Nothing about a round is public before its publication, so an arbitrated but unpublished
    cup round counts as still to play, and a draw made from it (the next round's games) is not
    looked at: until the referee publishes, its losers may still send picks for the next round
    — kept, and simply not played if they turn out eliminated — and no page, answer or email
    tells them otherwise.

    Once the round's games are drawn (publicly), only their teams play it. Before that, the
    cup's latest drawn round decides: once published, the teams it sent on
    (``PoolRound.qualified``: winners, lucky losers and byes, R15, R17, R18) are still in; while
    it is still to play, its teams are, and while the KDH's qualifying round is, the teams
    exempt from it too (R17: they may send their picks for the round of 64 and after in
    advance, R12); a published round
    that sends nobody on (a WG group round) keeps its teams in. With no round drawn yet, every
    member of the cup's pool is in.
    """
    if entry.season_id != round.season_id or not entry.is_playing:
        return False
    if round.competition == Competition.CHAMPIONSHIP:
        return True
    pool = entry_pool(entry=entry, competition=round.competition)
    if pool is None:
        return False
    mine = _lineage_ids(entry)
    plays = Q(home_id__in=mine) | Q(away_id__in=mine)
    secret = _first_unpublished_result(pool)
    horizon = round.number if secret is None else min(round.number, secret)
    if round.number <= horizon:
        drawn = Fixture.objects.filter(pool_round__pool=pool, pool_round__round=round)
        if drawn.exists():
            return drawn.filter(plays).exists()
    latest = (
        PoolRound.objects.filter(pool=pool, round__number__lt=round.number)
        .filter(round__number__lte=horizon)
        .filter(Q(fixtures__isnull=False) | Q(status=PoolRound.Status.PUBLISHED))
        .select_related("round")
        .distinct()
        .order_by("-round__number")
        .first()
    )
    if latest is None:
        return True
    if latest.status != PoolRound.Status.PUBLISHED:
        if latest.fixtures.filter(plays).exists():
            return True
        # R17: the teams exempt from the KDH's qualifying round are in the round of 64.
        return latest.round.stage == Stage.QUALIFYING
    if latest.qualified.exists():
        return latest.qualified.filter(pk__in=mine).exists()
    return latest.team_results.filter(entry_id__in=mine).exists()
