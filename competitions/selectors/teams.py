"""A team's page (``/teams/<slug>/``): its season from the published results — division and
code, every game with its result in the rules' display (R10), points and place, cup runs, the
stocks and ONR count the published rounds left — and, for its coach only, the ledger: every stock
movement with its reason, what the next ONR would cost (R14) and every pick ever sent.

Everything here that the public reads follows published pool rounds only: an arbitrated but
unpublished round changes nothing, not even a stock or an ONR count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q, QuerySet

from competitions.models import (
    Competition,
    Fixture,
    FixtureLabel,
    OnrSanction,
    Pick,
    Pool,
    PoolRound,
    Round,
    Stage,
    StockMovement,
    TeamResult,
)
from competitions.models.results import Decided
from competitions.selectors.entries import Sight, entry_lineage
from competitions.selectors.picks import entry_stocks
from competitions.selectors.results import GameResult, PlayedPick, pool_rounds_fixtures
from competitions.selectors.standings import StandingRow, pool_standings
from engine import wg
from engine.week import onr_sanction
from league.models import Division, Entry, Season, Team, WaitingListEntry

KNOCKOUT_ENDINGS = frozenset(
    {Decided.EXTRA_TIME, Decided.SHOOTOUT, Decided.DIE, Decided.FORFEIT, Decided.GROUP_GOALS}
)


@dataclass(frozen=True)
class TeamGame:
    """One published game of the team, seen from its side."""

    pool_round: PoolRound
    game: GameResult
    side: str
    """``home`` or ``away``: where the team played."""

    @property
    def competition(self) -> str:
        return self.pool_round.pool.competition

    @property
    def team(self) -> Entry:
        """The team's own entry in this game (its name beside its opponent's on every row)."""
        return self.game.home if self.side == "home" else self.game.away

    @property
    def opponent(self) -> Entry:
        return self.game.away if self.side == "home" else self.game.home

    @property
    def own(self) -> PlayedPick | None:
        return self.game.home_pick if self.side == "home" else self.game.away_pick

    @property
    def theirs(self) -> PlayedPick | None:
        return self.game.away_pick if self.side == "home" else self.game.home_pick

    @property
    def goals_for(self) -> int:
        return self.game.home_goals if self.side == "home" else self.game.away_goals

    @property
    def goals_against(self) -> int:
        return self.game.away_goals if self.side == "home" else self.game.home_goals

    @property
    def outcome(self) -> str:
        """``won``, ``lost`` or ``drawn`` (a championship or WG-group draw, R8)."""
        if self.game.winner is None:
            return "drawn"
        own = self.game.home if self.side == "home" else self.game.away
        return "won" if self.game.winner.pk == own.pk else "lost"


@dataclass(frozen=True)
class CupGame:
    """A cup game of the team still to be played, as public as its pairing (R23): its round's
    draw came from the arbitration of the round before, published."""

    fixture: Fixture
    round: Round


@dataclass(frozen=True)
class CupRun:
    """How far the team went in a cup this season, from its published games, and its games to
    come whose pairings are public."""

    competition: str
    games: list[TeamGame]
    out: bool
    """Lost a knockout game (R15's forfeits included), left out of the WG's semi-finals once
    they are drawn, or not the winner of a closed season's cup: out of the cup."""
    winner: bool = False
    """Won the cup's final (published)."""
    upcoming: list[CupGame] = field(default_factory=list)


@dataclass(frozen=True)
class TeamSeason:
    """The team's season as the public sees it."""

    entry: Entry
    pool: Pool | None
    place: int | None
    points: int | None
    played: int
    games: list[TeamGame]
    cups: list[CupRun]
    extra_goals: int
    great_saves: int
    onr_count: int
    table: list[StandingRow]
    """The division's table over the published rounds, which its place is read from (empty
    without a championship pool)."""

    @property
    def championship_games(self) -> list[TeamGame]:
        return [game for game in self.games if game.competition == Competition.CHAMPIONSHIP]


@dataclass(frozen=True)
class NextOnr:
    """What the team's next championship ONR would cost (R14)."""

    number: int
    extra_goals: int
    great_saves: int
    barred: bool
    replaced: bool
    replacement: str = ""
    """``dummy`` (Elite, D2) or ``waiting_list`` (D3) when ``replaced``."""


@dataclass(frozen=True)
class CoachLedger:
    """The coach's own view of the team's bookkeeping, from the published rounds."""

    movements: list[StockMovement]
    """The movements of published rounds and those of no round (R23: not even how many an
    unpublished round made: an ONR sanction's would tell the team it was found ONR)."""
    onr_count: int
    next_onr: NextOnr
    barred: bool
    picks: list[Pick] = field(default_factory=list)


def _published_for(entry: Entry) -> QuerySet[PoolRound]:
    """The published pool rounds of ``OuterRef("round_id")`` that ``entry`` plays in."""
    return PoolRound.objects.filter(
        round_id=OuterRef("round_id"), status=PoolRound.Status.PUBLISHED
    ).filter(
        Q(pool__competition=Competition.CHAMPIONSHIP, pool__division_id=entry.division_id)
        | Q(pool__members__entry_id=entry.pk)
    )


def team_entry(*, team: Team, season: Season | None = None) -> Entry | None:
    """``team``'s entry in ``season`` (default: the current season), if it plays it."""
    entries = Entry.objects.filter(team=team).select_related("season", "division", "team")
    if season is None:
        entries = entries.filter(season__is_current=True)
    else:
        entries = entries.filter(season=season)
    return entries.first()


def _games(entries: list[Entry]) -> list[TeamGame]:
    ids = [entry.pk for entry in entries]
    fixtures = list(
        Fixture.objects.filter(
            Q(home_id__in=ids) | Q(away_id__in=ids),
            pool_round__status=PoolRound.Status.PUBLISHED,
            result__isnull=False,
        )
        .select_related(
            "pool_round__round__season",
            "pool_round__pool",
            "home__team",
            "away__team",
            "result",
        )
        .order_by("pool_round__round__week", "pool_round__round__deadline", "id")
    )
    played = {
        (row.pool_round_id, row.entry_id): row
        for row in TeamResult.objects.filter(
            pool_round_id__in={f.pool_round_id for f in fixtures},
            entry_id__in={e for f in fixtures for e in (f.home_id, f.away_id)},
        ).select_related("entry__team")
    }
    games = []
    for fixture in fixtures:
        result = fixture.result
        winners = {fixture.home_id: fixture.home, fixture.away_id: fixture.away}
        winner = winners.get(result.winner_id) if result.winner_id is not None else None
        home = played.get((fixture.pool_round_id, fixture.home_id))
        away = played.get((fixture.pool_round_id, fixture.away_id))
        game = GameResult(
            fixture=fixture,
            home_goals=result.home_goals,
            away_goals=result.away_goals,
            decided=result.decided,
            winner=winner,
            home_pick=PlayedPick.of(home) if home else None,
            away_pick=PlayedPick.of(away) if away else None,
        )
        side = "home" if fixture.home_id in ids else "away"
        games.append(TeamGame(pool_round=fixture.pool_round, game=game, side=side))
    return games


def _upcoming(entries: list[Entry]) -> dict[str, list[CupGame]]:
    """The cup games of ``entries`` not yet published whose pairings are public (R23), by
    competition, from three queries whatever the season: the unpublished pool rounds of the
    cups they are drawn in, then :func:`pool_rounds_fixtures`'s two."""
    ids = {entry.pk for entry in entries}
    pool_rounds = list(
        PoolRound.objects.filter(
            pool__members__entry_id__in=ids,
            pool__competition__in=[c for c in Competition if c.kind.cup],
        )
        .exclude(status=PoolRound.Status.PUBLISHED)
        .select_related("pool", "round")
        .distinct()
        .order_by("round__week", "round__deadline", "id")
    )
    drawn = pool_rounds_fixtures(pool_rounds=pool_rounds)
    upcoming: dict[str, list[CupGame]] = {}
    for pool_round in pool_rounds:
        for fixture in drawn.get(pool_round.pk) or ():
            if fixture.home_id in ids or fixture.away_id in ids:
                upcoming.setdefault(pool_round.pool.competition, []).append(
                    CupGame(fixture=fixture, round=pool_round.round)
                )
    return upcoming


def _won_final(competition: Competition, game: TeamGame) -> bool:
    """Whether ``game`` is the cup's final and the team won it: the KDH's last stage, the WG's
    game labelled final (its final week also holds the third-place game, R18)."""
    if game.outcome != "won":
        return False
    if competition == Competition.WG:
        return game.game.fixture.label == FixtureLabel.FINAL
    return game.pool_round.round.stage == Stage.FINAL


def _cup_runs(games: list[TeamGame], entries: list[Entry], season: Season) -> list[CupRun]:
    upcoming = _upcoming(entries)
    runs = []
    for competition in Competition:
        if not competition.kind.cup:
            continue
        cup = [game for game in games if game.competition == competition]
        coming = upcoming.get(competition.value, [])
        if not cup and not coming:
            continue
        knockout = [
            game
            for game in cup
            if competition.kind.round_rules(game.pool_round.round.number).knockout
        ]
        winner = any(_won_final(competition, game) for game in cup)
        out = not winner and (
            any(game.outcome == "lost" for game in knockout)
            # A closed season's cups are over: whoever did not win the final is out.
            or season.status == Season.Status.FINISHED
            or (competition == Competition.WG and _left_out_of_semis(cup, coming, entries))
        )
        runs.append(
            CupRun(
                competition=competition.value,
                games=cup,
                out=out,
                winner=winner,
                upcoming=coming,  # a semi-final lost still leaves the WG's third-place game
            )
        )
    return runs


def _left_out_of_semis(cup: list[TeamGame], coming: list[CupGame], entries: list[Entry]) -> bool:
    """R18: the WG's group stage over and its semi-finals drawn (published, or their pairings
    public) without the team: it is out."""
    if any(game.pool_round.round.number >= wg.SEMI_FINAL_ROUND for game in cup) or any(
        game.round.number >= wg.SEMI_FINAL_ROUND for game in coming
    ):
        return False
    return (
        Fixture.objects.filter(
            pool_round__pool__competition=Competition.WG,
            pool_round__pool__season_id=entries[0].season_id,
            pool_round__round__number=wg.SEMI_FINAL_ROUND,
        )
        .filter(
            # Their pairings are public once the round before them, the group's last, is published.
            Exists(
                PoolRound.objects.filter(
                    pool_id=OuterRef("pool_round__pool_id"),
                    round__number=wg.SEMI_FINAL_ROUND - 1,
                    status=PoolRound.Status.PUBLISHED,
                )
            )
        )
        .exists()
    )


def published_onr_count(*, entry: Entry) -> int:
    """``entry``'s championship ONRs (R14) found by published rounds only."""
    return (
        OnrSanction.objects.filter(entry=entry)
        .filter(Exists(_published_for(entry)))
        .values("pk")
        .count()
    )


def _sanction_round_published() -> Exists:
    """Whether the round of the ONR sanction ``OuterRef`` is published for its team's pool: its
    division's, or the WG's for a group-stage ONR."""
    return Exists(
        PoolRound.objects.filter(
            round_id=OuterRef("round_id"), status=PoolRound.Status.PUBLISHED
        ).filter(
            Q(
                pool__competition=Competition.CHAMPIONSHIP,
                pool__division_id=OuterRef("entry__division_id"),
            )
            | Q(pool__members__entry_id=OuterRef("entry_id"))
        )
    )


def onr_sanctions_publication(sanctions: QuerySet[OnrSanction]) -> QuerySet[OnrSanction]:
    """``sanctions`` each annotated with ``published``: whether the round whose arbitration found
    the ONR is published for the team's pool. Until then nothing of the ONR may show (R23), nor
    the replacement it proposes (R14)."""
    return sanctions.annotate(published=_sanction_round_published())


def onr_sanction_published(*, sanction: OnrSanction) -> bool:
    """Whether ``sanction``'s round is published (:func:`onr_sanctions_publication`)."""
    return OnrSanction.objects.filter(pk=sanction.pk).filter(_sanction_round_published()).exists()


def team_season(*, entry: Entry) -> TeamSeason:
    """``entry``'s season from its published results (R9 table, R10 displays)."""
    lineage = entry_lineage(entry=entry)
    games = _games(lineage)
    pool = Pool.objects.filter(
        season_id=entry.season_id,
        competition=Competition.CHAMPIONSHIP,
        division_id=entry.division_id,
    ).first()
    place = points = None
    played = 0
    table = pool_standings(pool=pool) if pool is not None else []
    if pool is not None:
        row = next((row for row in table if row.team == entry.team.slug), None)
        if row is not None:
            points, played = row.points, row.played
            # Before any game of the division is published the table ranks nobody: no place.
            place = row.rank if any(line.played for line in table) else None
    extra_goals, great_saves = entry_stocks(entry=entry, sight=Sight.PUBLIC)
    return TeamSeason(
        entry=entry,
        pool=pool,
        place=place,
        points=points,
        played=played,
        games=games,
        cups=_cup_runs(games, lineage, entry.season),
        extra_goals=extra_goals,
        great_saves=great_saves,
        onr_count=published_onr_count(entry=entry),
        table=table,
    )


def next_onr(
    *,
    division: Division,
    onr_count: int,
    extra_goals: int,
    great_saves: int,
    waiting_list: bool = True,
) -> NextOnr:
    """What one more championship ONR costs a team with ``onr_count`` of them: the engine's
    R14 sanction (:func:`engine.week.onr_sanction`), as it would be applied."""
    sanction = onr_sanction(
        onr_before=onr_count,
        onr_in=[Competition.CHAMPIONSHIP.value],
        tier=division.tier,
        extra_goals=extra_goals,
        great_saves=great_saves,
        waiting_list=waiting_list,
    )
    return NextOnr(
        number=sanction.onr_count,
        extra_goals=sanction.extra_goals_removed,
        great_saves=sanction.great_saves_removed,
        barred=sanction.barred_from_promotion,
        replaced=sanction.replacement is not None,
        replacement=sanction.replacement.value if sanction.replacement else "",
    )


def coach_ledger(*, entry: Entry) -> CoachLedger:
    """The team's stock movements with their reasons and rounds, the ONR count, the next ONR's
    cost (R14), whether the team is barred from promotion, and every pick it ever sent — for its
    coach only, and from the published rounds for what an arbitration decided."""
    published = Exists(_published_for(entry))
    movements = StockMovement.objects.filter(entry=entry).select_related("round")
    shown = list(movements.filter(Q(round__isnull=True) | published).order_by("created_at", "id"))
    onr_count = published_onr_count(entry=entry)
    extra_goals, great_saves = entry_stocks(entry=entry, sight=Sight.PUBLIC)
    barred = (
        OnrSanction.objects.filter(entry=entry, barred_from_promotion=True)
        .filter(published)
        .exists()
    )
    picks = list(
        Pick.objects.filter(entry=entry)
        .select_related("round", "entered_by")
        .order_by("-received_at", "-id")
    )
    return CoachLedger(
        movements=shown,
        onr_count=onr_count,
        next_onr=next_onr(
            division=entry.division,
            onr_count=onr_count,
            extra_goals=extra_goals,
            great_saves=great_saves,
            waiting_list=WaitingListEntry.objects.filter(
                status=WaitingListEntry.Status.WAITING
            ).exists(),
        ),
        barred=barred,
        picks=picks,
    )
