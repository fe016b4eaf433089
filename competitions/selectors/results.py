"""Results as the public and the referees read them: a pool round's games in the rules'
display, the week's results, and the fairness panel's data once published (R23).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.translation import get_language, pgettext

from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    PoolRound,
    Stage,
    TeamResult,
)
from competitions.selectors.entries import PLAYED
from competitions.selectors.explanations import pool_rounds_explanations
from competitions.selectors.lucky_losers import LuckyLoserShown, games_lucky_losers
from engine import Decided, Explanation, commitment, rules_for
from league.models import Entry


@cache
def _marks(language: str | None) -> dict[str, str]:
    """How a game ended, by ``decided``, worded in ``language`` (the active one) once for every
    game shown in it."""
    return {
        Decided.EXTRA_TIME.value: pgettext("after extra time", "AP"),
        Decided.DRAW.value: pgettext("after extra time", "AP"),
        Decided.SHOOTOUT.value: pgettext("after a shootout", "SO"),
        Decided.DIE.value: pgettext("a tied cup game decided by", "die"),
        Decided.GROUP_GOALS.value: pgettext("a tied cup game decided by", "group goals"),
        Decided.FORFEIT.value: pgettext("a cup game lost by", "forfeit"),
    }


@cache
def _labels(language: str | None) -> dict[str, dict[str, str]]:
    """The words for how a game was decided and for a game's label (final, third place…), in
    ``language`` (the active one), worded once for every game shown in it."""
    return {
        "decided": {value: str(label) for value, label in FixtureResult.decided.field.flatchoices},
        "label": {value: str(label) for value, label in Fixture.label.field.flatchoices},
    }


def decided_marks(*, decided: Iterable[str]) -> list[tuple[str, str]]:
    """The mark shown after a score and its words, in the active language, for each of
    ``decided`` (a :class:`~competitions.models.Decided` value): a legend's lines."""
    language = get_language()
    marks, labels = _marks(language), _labels(language)["decided"]
    return [(marks[value], labels[value]) for value in decided if value in marks]


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
    explanation: Explanation | None = None
    """How its goals were made, step by step in the order of R3 (published rounds read with
    ``explain``); ``None`` otherwise."""

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
        return _marks(get_language()).get(self.decided, "")

    @property
    def decided_label(self) -> str:
        """How the game was decided, in words (« in extra time »…)."""
        return _labels(get_language())["decided"].get(self.decided, self.decided)

    @property
    def label(self) -> str:
        """The game's label in words (« final », « third-place game »), or empty."""
        value = self.fixture.label
        return _labels(get_language())["label"].get(value, value) if value else ""

    @property
    def picks(self) -> tuple[PlayedPick | None, PlayedPick | None]:
        """Both teams' played picks, home first."""
        return self.home_pick, self.away_pick

    @property
    def explained(self) -> bool:
        """Whether both teams' goals come with their explanation (R3)."""
        return all(
            pick is not None and pick.explanation is not None
            for pick in (self.home_pick, self.away_pick)
        )

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
        if self.score_hides_winner and self.winner is not None:
            text = f"{text} ({self.winner.team.name})"
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


def next_round_draw_seed(seed: str) -> str:
    """The seed of the draws a cup round's arbitration makes for the next round (R15, R17, R18:
    the KDH's pairings, the WG's best second and semi-finals), from the round's own ``seed``.
    The arbitration throws them (``services/cups.py``) and the WG's page throws them again to
    mark the semi-finalists the draw will choose (``selectors/wg_cup.py``): one seed for both;
    voiding the round takes the draws of this seed out of its log (``services/void.py``)."""
    return f"{seed}/next-round-draw"


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
    lucky_losers: tuple[LuckyLoserShown, ...] = ()
    """The KDH's lucky losers and why each went through (R15), once revealed."""
    explained: bool = False
    """Whether each team's explanation was asked for (``explain``); then ``as_dict`` gives it."""

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

        ``status``, ``seed_hash`` and ``matches`` always (``matches`` empty until revealed),
        and ``voided_at`` and ``void_reason`` (null unless the round was voided and published
        again, as its page says);
        once revealed also ``seed``, ``draws``, ``bonus_goal`` and ``teams`` — each team's
        played pick, ``display`` in the result notation (R10), as in the engine's output, and
        when ``explained`` its ``explanation`` (each step's ``code``, ``amount`` and facts; null
        when the stored facts cannot explain the goals).
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
        if rules_for(pool_round.round.engine_competition).knockout:
            lucky = {shown.entry.pk: shown.as_dict() for shown in self.lucky_losers}
            for match, game in zip(data["matches"], self.games, strict=True):
                match["qualified"] = _qualified(game, lucky)
        # A round voided and published again says so, as its results page does (a void's time
        # in the season's time zone, as the API gives deadlines); null otherwise.
        voided_at = pool_round.voided_at if pool_round.replayed else None
        zone = ZoneInfo(pool_round.round.season.time_zone)
        data["voided_at"] = None if voided_at is None else voided_at.astimezone(zone).isoformat()
        data["void_reason"] = None if voided_at is None else pool_round.void_reason
        if self.revealed:
            data["seed"] = self.seed
            data["bonus_goal"] = None if self.bonus_goal is None else self.bonus_goal.team.slug
            data["teams"] = {pick.team: self._team_dict(pick) for pick in self.teams}
            data["draws"] = [dict(draw) for draw in self.draws]
        return data

    def _team_dict(self, pick: PlayedPick) -> dict[str, Any]:
        data = pick.as_dict()
        if self.explained:
            steps = pick.explanation
            data["explanation"] = None if steps is None else [step.as_dict() for step in steps]
        return data


def _qualified(game: GameResult, lucky: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Who went on from a cup game and how (R15): its winner, and its loser if a lucky one."""
    qualified = []
    if game.winner is not None:
        qualified.append({"team": game.winner.team.slug, "went_on_as": "winner"})
    qualified += [lucky[entry.pk] for entry in (game.home, game.away) if entry.pk in lucky]
    return qualified


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
    return pool_rounds_results(pool_rounds=pool_rounds)


def pool_round_fixtures(*, pool_round: PoolRound) -> list[Fixture] | None:
    """Who plays whom in ``pool_round``, without any result, when that is public: always in
    the championship and the WG group stage (the calendar is known from the start, R20); in a
    cup's later rounds once the round whose arbitration drew them is published (its draws are
    then public, R23). ``None`` while it is not."""
    return pool_rounds_fixtures(pool_rounds=[pool_round])[pool_round.pk]


def pool_rounds_fixtures(*, pool_rounds: Iterable[PoolRound]) -> dict[int, list[Fixture] | None]:
    """:func:`pool_round_fixtures` of each of ``pool_rounds`` (by id), from two queries whatever
    their number (their pools' rounds, then the games)."""
    pool_rounds = list(pool_rounds)
    if not pool_rounds:
        return {}
    siblings: dict[int, list[tuple[int, str]]] = {}
    for pool_id, number, status in (
        PoolRound.objects.filter(pool_id__in={pool_round.pool_id for pool_round in pool_rounds})
        .order_by("-round__number")
        .values_list("pool_id", "round__number", "status")
    ):
        siblings.setdefault(pool_id, []).append((number, status))
    public = set()
    for pool_round in pool_rounds:
        earlier = next(
            (
                status
                for number, status in siblings[pool_round.pool_id]
                if number < pool_round.round.number
            ),
            None,
        )
        drawn_later = pool_round.round.stage not in (Stage.REGULAR, Stage.GROUP)
        if not (drawn_later and earlier is not None and earlier != PoolRound.Status.PUBLISHED):
            public.add(pool_round.pk)
    games: dict[int, list[Fixture]] = {pk: [] for pk in public}
    fixtures: dict[int, list[Fixture] | None] = {
        pool_round.pk: games.get(pool_round.pk) for pool_round in pool_rounds
    }
    for fixture in (
        Fixture.objects.filter(pool_round_id__in=public)
        .select_related("home__team", "away__team", "home__division")
        .order_by("id")
    ):
        games[fixture.pool_round_id].append(fixture)
    return fixtures


def pool_rounds_qualified(*, pool_rounds: Iterable[PoolRound]) -> dict[int, set[int]]:
    """The entries (ids) each of ``pool_rounds`` sent on (by id), in one query."""
    qualified: dict[int, set[int]] = {pool_round.pk: set() for pool_round in pool_rounds}
    if qualified:
        for pool_round_id, entry_id in PoolRound.qualified.through.objects.filter(
            poolround_id__in=qualified
        ).values_list("poolround_id", "entry_id"):
            qualified[pool_round_id].add(entry_id)
    return qualified


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


def pool_round_results(
    *, pool_round: PoolRound, reveal: bool = False, explain: bool = False
) -> PoolRoundResults:
    """``pool_round``'s results as one reader may see them.

    Publishing is what makes results public (R23, API.md): before it, everyone gets only the
    status and the seed's SHA-256 — no game score, no played pick, no seed, no draw, since a
    score or a pick would tell what a team played. Once the pool round is published, everything
    is revealed: every game, each team's played pick in the result notation (R10), the seed and
    every draw. ``reveal=True`` shows an arbitrated but unpublished round in full too: only for
    a referee of the pool or staff (the caller checks who asks); before arbitration there is
    nothing to show whoever asks. ``explain=True`` adds each team's explanation of its goals
    (R3), for a published round only (:mod:`competitions.selectors.explanations`).
    """
    return pool_rounds_results(pool_rounds=[pool_round], reveal=reveal, explain=explain)[0]


def pool_rounds_results(
    *, pool_rounds: Iterable[PoolRound], reveal: bool = False, explain: bool = False
) -> list[PoolRoundResults]:
    """Each of ``pool_rounds``' results, in their order, as :func:`pool_round_results` gives
    them, from three queries whatever their number (the pool rounds read afresh, then the
    revealed ones' played picks and games); ``explain``: the published ones' explanations
    too, from two more at most."""
    asked = [pool_round.pk for pool_round in pool_rounds]
    found = PoolRound.objects.select_related("pool__division", "round__season").in_bulk(asked)
    shown = [found[pk] for pk in asked]
    revealed = {
        pool_round.pk
        for pool_round in shown
        if pool_round.is_published or (reveal and pool_round.status in PLAYED)
    }
    picks: dict[int, dict[int, PlayedPick]] = {pk: {} for pk in revealed}
    games: dict[int, list[Fixture]] = {pk: [] for pk in revealed}
    rows: dict[int, list[TeamResult]] = {pk: [] for pk in revealed}
    if revealed:
        related = ["entry__team", "entry__division", *(["pick"] if explain else [])]
        entries: dict[int, Entry] = {}
        for row in (
            TeamResult.objects.filter(pool_round_id__in=revealed)
            .select_related(*related)
            .order_by("entry__team__name", "id")
        ):
            picks[row.pool_round_id][row.entry_id] = PlayedPick.of(row)
            rows[row.pool_round_id].append(row)
            entries[row.entry_id] = row.entry
        fixtures = list(
            Fixture.objects.filter(pool_round_id__in=revealed, result__isnull=False)
            .select_related("result")
            .order_by("id")
        )
        # Both sides of a played game have a result row of that round (the arbitration stores
        # one for every team of the round): their entries, read with those rows, are the
        # games' sides and winners — not read again, team and division, once per game.
        _entries_attach(fixtures, entries)
        for fixture in fixtures:
            games[fixture.pool_round_id].append(fixture)
    if explain:
        explained = pool_rounds_explanations(
            pool_rounds=[pool_round for pool_round in shown if pool_round.pk in revealed],
            rows=rows,
            fixtures=games,
        )
        for pk, steps in explained.items():
            picks[pk] = {
                entry_id: replace(pick, explanation=steps.get(entry_id))
                for entry_id, pick in picks[pk].items()
            }
    return [
        _results(pool_round, picks.get(pool_round.pk), games.get(pool_round.pk, []), explain)
        for pool_round in shown
    ]


def _entries_attach(fixtures: list[Fixture], entries: dict[int, Entry]) -> None:
    """Set each of ``fixtures``' home, away and winner from ``entries`` (by id, with their team
    and division), reading in one query those not found there (a game whose side has no result
    row, which the arbitration never stores)."""
    missing = {
        entry_id
        for fixture in fixtures
        for entry_id in (fixture.home_id, fixture.away_id, fixture.result.winner_id)
        if entry_id is not None and entry_id not in entries
    }
    if missing:
        entries = {
            **entries,
            **Entry.objects.select_related("team", "division").in_bulk(missing),
        }
    for fixture in fixtures:
        fixture.home = entries[fixture.home_id]
        fixture.away = entries[fixture.away_id]
        winner = fixture.result.winner_id
        fixture.result.winner = None if winner is None else entries[winner]


def _results(
    pool_round: PoolRound,
    picks: dict[int, PlayedPick] | None,
    fixtures: list[Fixture],
    explained: bool = False,
) -> PoolRoundResults:
    """``pool_round``'s results, revealed when its ``picks`` are given."""
    status = pool_round_public_status(pool_round=pool_round)
    if picks is None:
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
        lucky_losers=games_lucky_losers(
            games=games, seed=pool_round.seed, draws=pool_round.draw_log
        ),
        explained=explained and pool_round.is_published,
    )
