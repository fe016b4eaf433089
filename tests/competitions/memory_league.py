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
from competitions.services.season_close import season_close
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

    def entry(self, number: int, slug: str) -> Entry:
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
    what they test: the close leaves it out here (everything else of the close runs)."""
    monkeypatch.setattr(season_close_module, "season_plan_store", lambda *, season: None)
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
        [("aigles", "boucs", 3, 1, "regulation", "aigles"), ("castors", "dauphins", 2, 2, "draw", None)],
        [("aigles", "castors", 2, 0, "regulation", "aigles"), ("boucs", "dauphins", 1, 3, "regulation", "dauphins")],
        [("dauphins", "aigles", 1, 2, "extra_time", "aigles"), ("boucs", "castors", 5, 0, "regulation", "boucs")],
    ],
    "d2a": [
        [("elans", "faucons", 1, 0, "regulation", "elans"), ("grizzlis", "hiboux", 0, 2, "regulation", "hiboux")],
        [("elans", "grizzlis", 2, 1, "regulation", "elans"), ("faucons", "hiboux", 1, 1, "draw", None)],
        [("hiboux", "elans", 6, 0, "regulation", "hiboux"), ("faucons", "grizzlis", 3, 3, "draw", None)],
    ],
    "kdh": ("boucs", "elans", 2, 2, "shootout", "elans"),
    "wg": [("aigles", "hiboux", 1, 2, "extra_time", "hiboux"), ("dauphins", "elans", 3, 0, "regulation", "dauphins")],
}  # fmt: skip
"""Elite: Aigles 6 pts, Dauphins 4, Boucs 2, Castors 1. D2A: Hiboux 5, Élans 4, Faucons 2,
Grizzlis 1. KDH: Élans beat the Boucs on the shootout. WG: Hiboux, Aigles, Dauphins, Élans."""

SEASON_2: dict[str, object] = {
    "divisions": {"elite": ("aigles", "boucs", "dauphins", "hiboux"),
                  "d2a": ("castors", "elans", "faucons", "grizzlis")},
    "elite": [
        [("aigles", "boucs", 1, 0, "regulation", "aigles"), ("dauphins", "hiboux", 0, 0, "draw", None)],
        [("aigles", "dauphins", 2, 2, "draw", None), ("boucs", "hiboux", 7, 1, "regulation", "boucs")],
        [("hiboux", "aigles", 0, 3, "regulation", "aigles"), ("boucs", "dauphins", 1, 2, "extra_time", "dauphins")],
    ],
    "d2a": [
        [("castors", "elans", 2, 1, "regulation", "castors"), ("faucons", "grizzlis", 0, 1, "regulation", "grizzlis")],
        [("castors", "faucons", 3, 0, "regulation", "castors"), ("elans", "grizzlis", 2, 2, "draw", None)],
        [("grizzlis", "castors", 1, 1, "draw", None), ("elans", "faucons", 4, 0, "regulation", "elans")],
    ],
    "kdh": ("aigles", "castors", 3, 1, "regulation", "aigles"),
    "wg": [("dauphins", "boucs", 2, 0, "regulation", "dauphins"), ("aigles", "castors", 1, 1, "group_goals", "aigles")],
}  # fmt: skip
"""Elite: Aigles 5, Dauphins 4, Boucs 3, Hiboux 1. D2A: Castors 5, Grizzlis 4, Élans 3,
Faucons 0. KDH: the Aigles. WG: Dauphins, Boucs, Aigles, Castors."""
