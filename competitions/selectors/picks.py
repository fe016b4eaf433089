"""What a team may still pick (R6, R7, R19), its current pick (R12) and whether it plays a
round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.db.models import Exists, Min, OuterRef, Q, QuerySet, Sum

from competitions import hot_sql
from competitions.kinds import kind_of
from competitions.models import (
    Competition,
    Fixture,
    FixtureLabel,
    FixtureResult,
    Pick,
    Pool,
    PoolRound,
    Round,
    Stage,
    StockKind,
    StockMovement,
    TeamResult,
)
from competitions.selectors.entries import (
    Record,
    Sight,
    entries_records,
    entry_lineage,
)
from engine.cups import CupRound, KnockoutGame, RoundState, knocked_out, plays_round
from engine.quotas import columns_left, notation_order, values_left
from engine.season import Used
from league.models import Entry, Team
from league.selectors import user_team

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def pick_history(*, entry: Entry, round: Round) -> QuerySet[Pick]:
    """Every pick received for ``entry`` and ``round``, latest first (R12)."""
    return Pick.objects.filter(entry=entry, round=round).order_by("-received_at", "-id")


def picks_received(*, entry: Entry, rounds: Iterable[Round]) -> QuerySet[Pick]:
    """Every pick received for ``entry`` in any of ``rounds``, each round's latest first (R12),
    in one query, with who entered each (R12: the coach, the deputy or a referee)."""
    return (
        Pick.objects.filter(entry=entry, round__in=list(rounds))
        .select_related("entered_by")
        .order_by("round_id", "-received_at", "-id")
    )


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
        extra_time=values_left(notation_order(rules.extra_time_quota), ()),
        shootout=values_left(notation_order(rules.shootout_quota or {}), ()),
        extra_goals=STOCK_UNCOUNTED,
        great_saves=STOCK_UNCOUNTED,
    )


def pick_round_find(*, competition: str, number: int) -> Round | None:
    """Round ``number`` of ``competition`` in the current season, with its season, in one query:
    the round a coach sends a pick for (``None``: no such round, or no current season)."""
    if competition not in Competition.values:
        return None
    return _pick_rounds(competition, number).first()


def _pick_rounds(competition: str, number: int) -> QuerySet[Round]:
    return (
        Round.objects.filter(season__is_current=True, competition=competition, number=number)
        .select_related("season")
        .order_by("id")
    )


def pick_team_and_round(
    *, user: User, competition: str, number: int
) -> tuple[Team | None, Round | None]:
    """What a pick sent by ``user`` is for, in one query: the team ``user`` coaches or is the
    deputy of (:func:`league.selectors.user_team`) and round ``number`` of ``competition`` in
    the current season with its season (:func:`pick_round_find`); ``None`` for either that is
    not there (the round is not looked for without a team).

    Written out (:func:`competitions.hot_sql.pick_team_and_round`): the team is not the round's,
    which the ORM cannot join, and every pick reads it."""
    if not user.is_authenticated:
        return None, None
    if competition not in Competition.values:
        return user_team(user=user), None
    found = hot_sql.pick_team_and_round(user_id=user.pk, competition=competition, number=number)
    return found if found is not None else (None, None)


def entry_stocks(*, entry: Entry, sight: Sight) -> tuple[int, int]:
    """``entry``'s extra goals and great saves (R6) as ``sight`` sees them (:class:`Sight`).

    The published ones: the movements tied to a round whose pool round (the entry's pool in
    that round's competition) is not published are taken back out, so that an arbitrated but
    unpublished round shows nothing of what the team spent or lost in it. The team's: those, less
    what its own picks asked in the rounds arbitrated since (never below 0). The referee's: the
    balances now.
    """
    return entries_stocks(entries=[entry], sight=sight)[entry.pk]


def entries_stocks(
    *, entries: Iterable[Entry], sight: Sight, records: Mapping[int, Record] | None = None
) -> dict[int, tuple[int, int]]:
    """:func:`entry_stocks` of each of ``entries`` (by id): none, one or two queries whatever
    their number (in the team's sight, one fewer given their ``records`` in it, and the
    published stocks read only for the entries with a round arbitrated and not published)."""
    entries = list(entries)
    if sight is Sight.REFEREE or not entries:
        return {entry.pk: (entry.extra_goals, entry.great_saves) for entry in entries}
    if sight is Sight.PUBLIC:
        return _published_stocks(entries)
    if records is None:
        records = entries_records(entries=entries, competitions=(), sight=Sight.TEAM)
    asked = {pk: record.asked for pk, record in records.items() if record.asked is not None}
    published = _published_stocks([entry for entry in entries if entry.pk in asked])
    stocks = {}
    for entry in entries:
        if entry.pk not in asked:
            # No round of its arbitrated and unpublished: the balances are the published ones.
            stocks[entry.pk] = (entry.extra_goals, entry.great_saves)
            continue
        (goals, saves), (asked_goals, asked_saves) = published[entry.pk], asked[entry.pk]
        stocks[entry.pk] = (max(0, goals - asked_goals), max(0, saves - asked_saves))
    return stocks


def _published_stocks(entries: list[Entry]) -> dict[int, tuple[int, int]]:
    """Each entry's stocks as the published rounds left them, in one query (none for none)."""
    if not entries:
        return {}
    published = PoolRound.objects.filter(
        round_id=OuterRef("round_id"), status=PoolRound.Status.PUBLISHED
    ).filter(
        Q(
            pool__competition=Competition.CHAMPIONSHIP,
            pool__division_id=OuterRef("entry__division_id"),
        )
        | Q(pool__members__entry_id=OuterRef("entry_id"))
    )
    hidden: dict[tuple[int, str], int] = {
        (entry_id, kind): total
        for entry_id, kind, total in StockMovement.objects.filter(
            entry_id__in=[entry.pk for entry in entries], round__isnull=False
        )
        .exclude(Exists(published))
        .values_list("entry_id", "kind")
        .annotate(total=Sum("delta"))
        .values_list("entry_id", "kind", "total")
    }
    return {
        entry.pk: (
            entry.extra_goals - hidden.get((entry.pk, StockKind.EXTRA_GOALS), 0),
            entry.great_saves - hidden.get((entry.pk, StockKind.GREAT_SAVES), 0),
        )
        for entry in entries
    }


def entry_choices(*, entry: Entry, competition: Competition | str, sight: Sight) -> EntryChoices:
    """What ``entry`` may still play in ``competition`` as ``sight`` sees it (:class:`Sight`):
    columns, extra-time values with the uses left, shootout values (KDH), extra-goal and
    great-save stocks. « Infos équipes » reads the public's; the team's pick page and the checks
    of its picks, the team's own."""
    return entries_choices(entries=[entry], competition=competition, sight=sight)[entry.pk]


def entries_choices(
    *, entries: Iterable[Entry], competition: Competition | str, sight: Sight
) -> dict[int, EntryChoices]:
    """:func:`entry_choices` of each of ``entries`` (by id), from two queries whatever their
    number (what they used, their stocks' movements)."""
    entries = list(entries)
    competition = Competition(competition)
    records = entries_records(entries=entries, competitions=(competition,), sight=sight)
    stocks = entries_stocks(entries=entries, sight=sight, records=records)
    return {
        entry.pk: _choices(competition, records[entry.pk].used[competition], stocks[entry.pk])
        for entry in entries
    }


def entry_choices_everywhere(
    *, entry: Entry, competitions: Iterable[Competition | str], sight: Sight
) -> dict[str, EntryChoices]:
    """:func:`entry_choices` of ``entry`` in each of ``competitions``, by competition, from two
    queries at most whatever their number."""
    record = entries_records(entries=[entry], competitions=competitions, sight=sight)
    stocks = entries_stocks(entries=[entry], sight=sight, records=record)[entry.pk]
    return {
        competition: _choices(Competition(competition), what, stocks)
        for competition, what in record[entry.pk].used.items()
    }


def _choices(competition: Competition, used: Used, stocks: tuple[int, int]) -> EntryChoices:
    rules = competition.rules
    return EntryChoices(
        competition=competition.value,
        columns=columns_left(rules.columns, used.columns),
        extra_time=values_left(notation_order(rules.extra_time_quota), used.extra_time),
        shootout=values_left(notation_order(rules.shootout_quota or {}), used.shootout),
        extra_goals=stocks[0],
        great_saves=stocks[1],
    )


def entry_pool(*, entry: Entry, competition: Competition | str) -> Pool | None:
    """The pool ``entry`` plays ``competition`` in: its division's, or the cup's when it is in."""
    competition = Competition(competition)
    pools = Pool.objects.filter(season_id=entry.season_id, competition=competition)
    if competition.kind.divisional:
        return pools.filter(division_id=entry.division_id).first()
    return pools.filter(members__entry_id__in=_lineage_ids(entry)).first()


def _lineage_ids(entry: Entry) -> list[int]:
    # R14: a replacement plays where the team it replaced was.
    return [e.pk for e in entry_lineage(entry=entry)]


def cup_eliminated(*, pool: Pool) -> set[int]:
    """The entries a cup's *published* games put out (two queries): the losers of its published
    knockout games that did not go on as lucky losers (R15, R17). Arbitrated but unpublished
    rounds put nobody out."""
    games = list(
        FixtureResult.objects.filter(
            fixture__pool_round__pool=pool,
            fixture__pool_round__status=PoolRound.Status.PUBLISHED,
        )
        .exclude(fixture__pool_round__round__stage=Stage.GROUP)
        .values_list("fixture__pool_round_id", "fixture__home_id", "fixture__away_id", "winner_id")
    )
    went_on = PoolRound.qualified.through.objects.filter(
        poolround_id__in={pool_round for pool_round, _, _, _ in games}
    ).values_list("poolround_id", "entry_id")
    return knocked_out([KnockoutGame(*game) for game in games], went_on)


def entry_pools(*, entry: Entry) -> dict[str, Pool]:
    """The pools ``entry`` plays in this season, by competition (one query): its division's,
    and each cup's it is in (R14: where the team it replaced was)."""
    pools: dict[str, Pool] = {}
    for pool in (
        Pool.objects.filter(season_id=entry.season_id)
        .filter(
            Q(competition=Competition.CHAMPIONSHIP, division_id=entry.division_id)
            | Q(members__entry_id__in=_lineage_ids(entry))
        )
        .order_by("pk")
    ):
        pools.setdefault(pool.competition, pool)
    return pools


@dataclass(frozen=True)
class PublicDraws:
    """Which games of some pools the public may know (R23). The divisions' schedules, the WG's
    groups and the KDH's first round are drawn when the season starts (R20) and known from
    then on; a cup's later rounds are drawn by the arbitration of the round before (R17, R18)
    and their games stay hidden while a round of their pool up to them is arbitrated but not
    published."""

    first_unpublished: dict[int, int]
    """Each pool's (by id) first round arbitrated but not published yet, by number."""

    def shows(self, *, pool_id: int, competition: str, number: int) -> bool:
        """Whether the games of round ``number`` of ``competition`` in pool ``pool_id`` are
        public as far as their draw goes."""
        first = self.first_unpublished.get(pool_id)
        return (
            first is None
            or number <= first
            or not kind_of(competition).drawn_by_arbitration(number)
        )


def public_draws(*, pools: Iterable[Pool]) -> PublicDraws:
    """:class:`PublicDraws` of ``pools``, in one query."""
    return PublicDraws(
        dict(
            PoolRound.objects.filter(pool__in=list(pools), status=PoolRound.Status.ARBITRATED)
            .values_list("pool_id")
            .annotate(first=Min("round__number"))
            .values_list("pool_id", "first")
        )
    )


@dataclass(frozen=True)
class EntryGame:
    """A team's game in a round: the fixture (both teams) and the team it plays."""

    fixture: Fixture
    opponent: Entry


def entry_games(
    *,
    entry: Entry,
    rounds: list[Round],
    pools: dict[str, Pool] | None = None,
    draws: PublicDraws | None = None,
) -> dict[int, EntryGame]:
    """``entry``'s game in each of ``rounds`` (by id) that is drawn — and public
    (:class:`PublicDraws`: a cup game drawn from an arbitrated, unpublished round is not).
    Three queries whatever the number of rounds (two given the team's ``pools``, one given
    their :func:`public_draws` too)."""
    pools = entry_pools(entry=entry) if pools is None else pools
    if not rounds or not pools:
        return {}
    public = public_draws(pools=pools.values()) if draws is None else draws
    mine = _lineage_ids(entry)
    games: dict[int, EntryGame] = {}
    for fixture in Fixture.objects.filter(
        Q(home_id__in=mine) | Q(away_id__in=mine),
        pool_round__pool__in=pools.values(),
        pool_round__round__in=rounds,
    ).select_related("home__team", "away__team", "pool_round__round"):
        round = fixture.pool_round.round
        if public.shows(
            pool_id=fixture.pool_round.pool_id, competition=round.competition, number=round.number
        ):
            opponent = fixture.away if fixture.home_id in mine else fixture.home
            games[fixture.pool_round.round_id] = EntryGame(fixture, opponent)
    return games


def entry_opponents(
    *,
    entry: Entry,
    rounds: list[Round],
    pools: dict[str, Pool] | None = None,
    draws: PublicDraws | None = None,
) -> dict[int, Entry]:
    """``entry``'s opponent in each of ``rounds`` (by id) whose game is drawn and public
    (:func:`entry_games`)."""
    games = entry_games(entry=entry, rounds=rounds, pools=pools, draws=draws)
    return {round_id: game.opponent for round_id, game in games.items()}


def game_stage_name(round: Round, game: EntryGame | None) -> StrOrPromise:
    """The stage a team plays ``round`` in, in words (lazy: worded in the reader's language when
    shown): its game's own label where one week holds two kinds of game (the WG's final and
    third-place game, R18), else the round's stage (its game unknown or not public yet: the
    week's stage)."""
    if game is not None and game.fixture.label:
        return FixtureLabel(game.fixture.label).label
    return Stage(round.stage).label


def entry_opponent(*, entry: Entry, round: Round) -> Entry | None:
    """``entry``'s opponent in ``round`` (:func:`entry_opponents`), if drawn and public."""
    return entry_opponents(entry=entry, rounds=[round]).get(round.pk)


def entry_plays_round(*, entry: Entry, round: Round) -> bool:
    """Whether ``entry`` plays ``round``, as the published results say: every playing team plays
    the championship; a cup's round, when its team is in the cup (a member of its pool) and
    still in it (:func:`engine.cups.plays_round`, R15, R17, R18: nothing about a round is public
    before its publication, R23, so an arbitrated but unpublished cup round counts as still to
    play and a draw made from it is not looked at).
    """
    return round.pk in entry_plays_rounds(entry=entry, rounds=[round])


_ROUND_STATES: dict[str, RoundState] = {
    PoolRound.Status.ARBITRATED: RoundState.ARBITRATED,
    PoolRound.Status.PUBLISHED: RoundState.PUBLISHED,
}
"""A pool round's status as the public may know it (R23); any other is still to play."""


def entry_plays_rounds(
    *, entry: Entry, rounds: Iterable[Round], pools: dict[str, Pool] | None = None
) -> set[int]:
    """The ids of ``rounds`` that ``entry`` plays (:func:`entry_plays_round`), from two queries
    whatever their number: the cups' pools the team is in (none given its :func:`entry_pools`,
    ``pools``), and their pool rounds."""
    rounds = [round for round in rounds if entry.season_id == round.season_id and entry.is_playing]
    # Every playing team plays its division's rounds; a cup's, as far as it is still in it.
    playing = {round.pk for round in rounds if round.kind.divisional}
    cup_rounds = [round for round in rounds if round.kind.cup]
    if not cup_rounds:
        return playing
    mine = _lineage_ids(entry)
    competitions = {round.competition for round in cup_rounds}
    if pools is None:
        pools = entry_pools(entry=entry)
    cup_pools = {
        competition: pool.pk for competition, pool in pools.items() if competition in competitions
    }
    fixtures = Fixture.objects.filter(pool_round_id=OuterRef("pk"))
    in_it = Q(home_id__in=mine) | Q(away_id__in=mine)
    qualified = PoolRound.qualified.through.objects.filter(poolround_id=OuterRef("pk"))
    cups: dict[int, list[CupRound]] = {}
    for pool_id, number, stage, status, drawn, plays, sends_on, sends_on_mine, played in (
        PoolRound.objects.filter(pool_id__in=cup_pools.values())
        .annotate(
            drawn=Exists(fixtures),
            plays=Exists(fixtures.filter(in_it)),
            sends_on=Exists(qualified),
            sends_on_mine=Exists(qualified.filter(entry_id__in=mine)),
            played_mine=Exists(
                TeamResult.objects.filter(pool_round_id=OuterRef("pk"), entry_id__in=mine)
            ),
        )
        .order_by()
        .values_list(
            "pool_id",
            "round__number",
            "round__stage",
            "status",
            "drawn",
            "plays",
            "sends_on",
            "sends_on_mine",
            "played_mine",
        )
    ):
        cups.setdefault(pool_id, []).append(
            CupRound(
                number,
                _ROUND_STATES.get(status, RoundState.TO_PLAY),
                qualifying=stage == Stage.QUALIFYING,
                drawn=drawn,
                plays=plays,
                sends_on=sends_on,
                sends_team_on=sends_on_mine,
                played=played,
            )
        )
    for round in cup_rounds:
        cup_pool_id = cup_pools.get(round.competition)
        if cup_pool_id is not None and plays_round(cups.get(cup_pool_id, []), round.number):
            playing.add(round.pk)
    return playing


def round_entries_playing(*, round: Round) -> list[Entry]:
    """The entries that play ``round`` (:func:`entry_plays_rounds`), with their team's coach
    and deputy: every playing team of the season for a championship round; for a cup's round,
    those still in it as the published results say (two queries for each team of the season)."""
    entries = list(
        Entry.objects.filter(season_id=round.season_id, replaced_at__isnull=True)
        .select_related("team__coach", "team__deputy")
        .order_by("team__name", "pk")
    )
    if round.kind.divisional:
        return entries
    return [entry for entry in entries if entry_plays_rounds(entry=entry, rounds=[round])]
