"""A small league's history written by hand, for the memory's tests (issue 25): each season's
games stored as an arbitration stores them (fixtures, results, each team's played row), then
published through the real service (:func:`competitions.services.pool_round_publish`) and the
season closed through the real one (:func:`competitions.services.season_close.season_close`).

Teams: the Elite's and D2A's four each, by slug (``aigles`` … ``ibis``). A season is written as
its divisions' rounds (three each) and the cups' last week (the KDH's final; the WG's final and
third-place game): ``(home, away, home goals, away goals, decided, winner)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from competitions import services as competitions
from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    Pool,
    PoolRound,
    Round,
    Stage,
    TeamResult,
)
from competitions.services import season_close as season_close_module
from competitions.services import withdrawal as withdrawal_module
from competitions.services.season_close import season_close
from competitions.services.withdrawal import entry_withdraw
from league import services as league
from league.models import Division, Entry, Season, Team

Game = tuple[str, str, int, int, str, str | None]
"""home, away, home goals, away goals, how it was decided, the winner (``None``: no winner)."""

NAMES = {
    "aigles": "Aigles",
    "boucs": "Boucs",
    "castors": "Castors",
    "dauphins": "Dauphins",
    "elans": "Élans",
    "faucons": "Faucons",
    "grizzlis": "Grizzlis",
    "hiboux": "Hiboux",
    "ibis": "Ibis",
}
COLUMNS = "ABCDEFGHIJK"
REG, ET, DRAW, SO, GG = "regulation", "extra_time", "draw", "shootout", "group_goals"
"""How a game was decided (``Decided``)."""
FIRST_MONDAY = date(2021, 3, 1)
"""Season 1's first week; each season starts 52 weeks after the one before (all in the past)."""


@dataclass
class History:
    divisions: dict[str, Division]
    teams: dict[str, Team]
    admin: User
    seasons: dict[int, Season] = field(default_factory=dict)
    entries: dict[tuple[int, str], Entry] = field(default_factory=dict)
    pools: dict[tuple[int, str], Pool] = field(default_factory=dict)
    rounds: dict[tuple[int, str, int], Round] = field(default_factory=dict)
    later: dict[int, PoolRound] = field(default_factory=dict)
    """Season 3's D2A rounds 2 and 3, scheduled before the replacement (R14 moves them)."""

    def entry(self, number: int, slug: str) -> Entry:
        """``slug``'s entry in season ``number``."""
        return Entry.objects.get(season=self.seasons[number], team=self.teams[slug])

    def season_open(self, number: int, divisions: dict[str, Iterable[str]]) -> Season:
        """Season ``number`` running, its teams in ``divisions`` (by code order), each
        division's three rounds and the cups' last week on the calendar."""
        season = league.season_create(
            number=number, starts_on=FIRST_MONDAY + timedelta(weeks=52 * (number - 1))
        )
        self.seasons[number] = season
        for slug, members in divisions.items():
            for code, team in enumerate(members, start=1):
                self.entries[number, team] = competitions.entry_create(
                    season=season, team=self.teams[team], division=self.divisions[slug], code=code
                )
            self.pools[number, slug] = competitions.pool_create(
                season=season, competition=Competition.CHAMPIONSHIP, division=self.divisions[slug]
            )
        for n in (1, 2, 3):
            self.rounds[number, "championship", n] = competitions.round_create(
                season=season, competition=Competition.CHAMPIONSHIP, number=n, week=n
            )
        for cup, last in ((Competition.KDH, 7), (Competition.WG, 8)):
            self.pools[number, cup] = competitions.pool_create(season=season, competition=cup)
            self.rounds[number, cup, last] = competitions.round_create(
                season=season, competition=cup, number=last, week=4, stage=Stage.FINAL
            )
        Season.objects.filter(pk=season.pk).update(status=Season.Status.RUNNING)
        league.season_make_current(season=season)
        season.refresh_from_db()
        return season

    def schedule(
        self, number: int, pool: str, round: int, pairs: Iterable[tuple[str, str]]
    ) -> PoolRound:
        """``pool``'s part of a round with its games, not played yet."""
        competition = Competition.CHAMPIONSHIP if pool not in Competition.values else pool
        pool_round = competitions.pool_round_create(
            pool=self.pools[number, pool], round=self.rounds[number, competition, round]
        )
        labels = ("final", "third_place") if competition == Competition.WG else ("",)
        for index, (home, away) in enumerate(pairs):
            competitions.fixture_create(
                pool_round=pool_round,
                home=self.entry(number, home),
                away=self.entry(number, away),
                label=labels[min(index, len(labels) - 1)],
            )
        return pool_round

    def arbitrate(self, pool_round: PoolRound, games: list[Game]) -> PoolRound:
        """``games`` stored as ``pool_round``'s results (arbitrated, not published): each game's
        fixture in order, its teams' played rows (columns by game, extra time 1)."""
        fixtures = list(
            Fixture.objects.filter(pool_round=pool_round).select_related("home", "away")
        )
        for index, (fixture, game) in enumerate(zip(fixtures, games, strict=True)):
            _home, _away, home_goals, away_goals, decided, winner = game
            FixtureResult.objects.create(
                fixture=fixture,
                home_goals=home_goals,
                away_goals=away_goals,
                decided=decided,
                winner=None
                if winner is None
                else self.entry(pool_round.round.season.number, winner),
            )
            for side, (entry, goals) in enumerate(
                ((fixture.home, home_goals), (fixture.away, away_goals))
            ):
                TeamResult.objects.create(
                    pool_round=pool_round,
                    entry=entry,
                    column=COLUMNS[2 * index + side],
                    extra_time="1",
                    goals=goals,
                    display=f"{COLUMNS[2 * index + side]}(1)",
                )
        PoolRound.objects.filter(pk=pool_round.pk).update(
            status=PoolRound.Status.ARBITRATED, arbitrated_at=timezone.now()
        )
        pool_round.refresh_from_db()
        return pool_round

    def publish(self, pool_round: PoolRound) -> PoolRound:
        return competitions.pool_round_publish(pool_round=pool_round, by=self.admin, announce=False)

    def play(self, number: int, pool: str, round: int, games: list[Game]) -> PoolRound:
        """A round's part played and published."""
        pool_round = self.schedule(number, pool, round, [(g[0], g[1]) for g in games])
        return self.publish(self.arbitrate(pool_round, games))

    def play_season(self, number: int, season: dict[str, object]) -> None:
        """Every round of ``season`` (:data:`SEASONS`' shape) played and published, week by
        week (the Elite's part first), then the cups' last week."""
        for round in (1, 2, 3):
            for pool in season["divisions"]:  # type: ignore[attr-defined]
                self.play(number, pool, round, season[pool][round - 1])  # type: ignore[index]
        self.play(number, Competition.KDH, 7, [season["kdh"]])  # type: ignore[list-item]
        self.play(number, Competition.WG, 8, season["wg"])  # type: ignore[arg-type]

    def close(self, number: int) -> None:
        season_close(season=self.seasons[number], by=self.admin)


def history_start(
    monkeypatch: pytest.MonkeyPatch, coaches: dict[str, User] | None = None
) -> History:
    """The divisions, the teams (``coaches``: some teams' coaches, by team slug) and an admin.

    The close's last step, the next season's plan, needs the league's full shape (R22: twelve
    teams a division, seven divisions); these histories are far smaller, and the plan is not
    what they test: the close and the withdrawal leave it out here (all else of them runs)."""
    for module in (season_close_module, withdrawal_module):
        monkeypatch.setattr(module, "season_plan_store", lambda *, season: None)
    divisions = {d.slug: d for d in league.divisions_create_standard()}
    coaches = coaches or {}
    teams = {
        slug: league.team_create(name=name, slug=slug, coach=coaches.get(slug))
        for slug, name in NAMES.items()
    }
    admin = User.objects.create_superuser("memory-admin", "admin@example.org", None)
    return History(divisions=divisions, teams=teams, admin=admin)


SEASON_1: dict[str, object] = {
    "divisions": {"elite": ("aigles", "boucs", "castors", "dauphins"),
                  "d2a": ("elans", "faucons", "grizzlis", "hiboux")},
    "elite": [
        [("aigles", "boucs", 3, 1, REG, "aigles"),
         ("castors", "dauphins", 2, 2, DRAW, None)],
        [("aigles", "castors", 2, 0, REG, "aigles"),
         ("boucs", "dauphins", 1, 3, REG, "dauphins")],
        [("dauphins", "aigles", 1, 2, ET, "aigles"),
         ("boucs", "castors", 5, 0, REG, "boucs")],
    ],
    "d2a": [
        [("elans", "faucons", 1, 0, REG, "elans"),
         ("grizzlis", "hiboux", 0, 2, REG, "hiboux")],
        [("elans", "grizzlis", 2, 1, REG, "elans"),
         ("faucons", "hiboux", 1, 1, DRAW, None)],
        [("hiboux", "elans", 6, 0, REG, "hiboux"),
         ("faucons", "grizzlis", 3, 3, DRAW, None)],
    ],
    "kdh": ("boucs", "elans", 2, 2, SO, "elans"),
    "wg": [("aigles", "hiboux", 1, 2, ET, "hiboux"),
           ("dauphins", "elans", 3, 0, REG, "dauphins")],
}  # fmt: skip
"""Elite: Aigles 6 pts, Dauphins 4, Boucs 2, Castors 1. D2A: Hiboux 5, Élans 4, Faucons 2,
Grizzlis 1. KDH: Élans beat the Boucs on the shootout. WG: Hiboux, Aigles, Dauphins, Élans."""

SEASON_2: dict[str, object] = {
    "divisions": {"elite": ("aigles", "boucs", "dauphins", "hiboux"),
                  "d2a": ("castors", "elans", "faucons", "grizzlis")},
    "elite": [
        [("aigles", "boucs", 1, 0, REG, "aigles"),
         ("dauphins", "hiboux", 0, 0, DRAW, None)],
        [("aigles", "dauphins", 2, 2, DRAW, None),
         ("boucs", "hiboux", 7, 1, REG, "boucs")],
        [("hiboux", "aigles", 0, 3, REG, "aigles"),
         ("boucs", "dauphins", 1, 2, ET, "dauphins")],
    ],
    "d2a": [
        [("castors", "elans", 2, 1, REG, "castors"),
         ("faucons", "grizzlis", 0, 1, REG, "grizzlis")],
        [("castors", "faucons", 3, 0, REG, "castors"),
         ("elans", "grizzlis", 2, 2, DRAW, None)],
        [("grizzlis", "castors", 1, 1, DRAW, None),
         ("elans", "faucons", 4, 0, REG, "elans")],
    ],
    "kdh": ("aigles", "castors", 3, 1, REG, "aigles"),
    "wg": [("dauphins", "boucs", 2, 0, REG, "dauphins"),
           ("aigles", "castors", 1, 1, GG, "aigles")],
}  # fmt: skip
"""Elite: Aigles 5, Dauphins 4, Boucs 3, Hiboux 1. D2A: Castors 5, Grizzlis 4, Élans 3,
Faucons 0. KDH: the Aigles. WG: Dauphins, Boucs, Aigles, Castors."""

SEASON_3: dict[str, object] = {
    "divisions": {"elite": ("aigles", "boucs", "dauphins", "elans"),
                  "d2a": ("castors", "faucons", "grizzlis", "ibis")},
    "elite": [
        [("aigles", "boucs", 2, 1, REG, "aigles"),
         ("dauphins", "elans", 0, 1, REG, "elans")],
        [("aigles", "dauphins", 1, 0, REG, "aigles"),
         ("boucs", "elans", 3, 3, DRAW, None)],
        [("elans", "aigles", 0, 2, REG, "aigles"),
         ("boucs", "dauphins", 2, 1, REG, "boucs")],
    ],
    "d2a": [
        [("castors", "faucons", 1, 0, REG, "castors"),
         ("grizzlis", "ibis", 2, 0, REG, "grizzlis")],
        [("castors", "fantome", 3, 1, REG, "castors"),
         ("ibis", "faucons", 7, 2, REG, "ibis")],
        [("fantome", "ibis", 0, 1, REG, "ibis"),
         ("faucons", "castors", 1, 1, DRAW, None)],
    ],
    "kdh": ("ibis", "faucons", 2, 0, REG, "ibis"),
    "wg": [("aigles", "castors", 5, 0, REG, "aigles"),
           ("boucs", "ibis", 2, 1, REG, "boucs")],
}  # fmt: skip
"""Elite: Aigles 6, Boucs 3 (more goals than the Élans, R9), Élans 3, Dauphins 0. D2A: the
Grizzlis win round 1, then a dummy team (``fantome``) takes their place (R14) and loses twice:
Castors 5, Ibis 4, the dummy 2 (the Grizzlis' record, R14), Faucons 1. KDH: the Ibis. WG:
Aigles, Castors, Boucs, Ibis."""


def history_two(monkeypatch: pytest.MonkeyPatch, coaches: dict[str, User]) -> History:
    """Seasons 1 and 2 played and closed: the Castors ONR once in season 1, the Dauphins once
    in season 2 (R14's count, set as a scene); the Hiboux withdraw after season 2 (R24)."""
    made = history_start(monkeypatch, coaches)
    for number, season, onr in ((1, SEASON_1, "castors"), (2, SEASON_2, "dauphins")):
        made.season_open(number, season["divisions"])  # type: ignore[arg-type]
        made.play_season(number, season)
        Entry.objects.filter(season=made.seasons[number], team__slug=onr).update(onr_count=1)
        made.close(number)
    entry_withdraw(entry=made.entry(2, "hiboux"), by=made.admin)
    return made


def season_three_open(made: History, *, new_coach: User) -> None:
    """Season 3 running, nothing played: the coach of the Élans moves to the Faucons and
    ``new_coach`` takes the Élans over; the dummy team ``fantome`` exists."""
    coach = made.teams["elans"].coach
    Team.objects.filter(slug="elans").update(coach=None)
    Team.objects.filter(slug="faucons").update(coach=coach)
    Team.objects.filter(slug="elans").update(coach=new_coach)
    made.teams["fantome"] = league.team_create(
        name="Équipe fantôme 1", slug="fantome", is_dummy=True
    )
    made.season_open(3, SEASON_3["divisions"])  # type: ignore[arg-type]


def season_three_play(made: History, *, weeks: Iterable[int] = (1, 2, 3)) -> None:
    """Season 3's championship ``weeks`` played and published, the Elite's part first; after
    D2A's round 1 the Grizzlis (ONR three times, set as a scene) are replaced by the dummy."""
    for week in weeks:
        made.play(3, "elite", week, SEASON_3["elite"][week - 1])  # type: ignore[index]
        games = SEASON_3["d2a"][week - 1]  # type: ignore[index]
        if week == 1:
            made.play(3, "d2a", 1, games)
            later = {
                n: made.schedule(3, "d2a", n, [(g[0].replace("fantome", "grizzlis"),
                                                g[1].replace("fantome", "grizzlis"))
                                               for g in SEASON_3["d2a"][n - 1]])  # type: ignore[index]
                for n in (2, 3)
            }  # fmt: skip
            made.later = later
            grizzlis = made.entry(3, "grizzlis")
            Entry.objects.filter(pk=grizzlis.pk).update(onr_count=3)
            competitions.entry_replace(entry=grizzlis, team=made.teams["fantome"], by=made.admin)
        else:
            made.publish(made.arbitrate(made.later[week], games))


def season_three_finish(made: History) -> None:
    """Season 3's cups' last week played, the Faucons' two ONRs set, and the season closed."""
    made.play(3, Competition.KDH, 7, [SEASON_3["kdh"]])  # type: ignore[list-item]
    made.play(3, Competition.WG, 8, SEASON_3["wg"])  # type: ignore[arg-type]
    Entry.objects.filter(season=made.seasons[3], team__slug="faucons").update(onr_count=2)
    made.close(3)
