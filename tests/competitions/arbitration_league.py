"""A small league for the arbitration tests: whole divisions of twelve, the season's matrices with
known values, every round of the calendar, and coaches sending picks (R12, R13).

Team ids are slugs such as ``elite-01`` (division slug and code).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser

from competitions import services as competitions
from competitions.models import Competition, Fixture, Pick, Pool, PoolRound, Round
from league import services as league
from league.models import Division, Entry, Season

COLUMNS = {
    Competition.CHAMPIONSHIP: "ABCDEFGHIJK",
    Competition.KDH: "ABCDEFG",
    Competition.WG: "ABCDEFGH",
}
ROUNDS = {Competition.CHAMPIONSHIP: 11, Competition.KDH: 7, Competition.WG: 8}

# Extra-time (and shootout) values round by round that stay within every season quota (R7).
EXTRA_TIME = {
    Competition.CHAMPIONSHIP: ("1", "2", "0", "3", "X", "1", "2", "0", "3", "1", "2"),
    Competition.KDH: ("0", "1", "2", "X", "0", "1", "2"),
    Competition.WG: ("0", "1", "2", "X", "0", "1", "2", "X"),
}
SHOOTOUT = ("0", "1", "2", "3", "4", "5", "X")


def default_value(round_number: int, index: int) -> int:
    """The test matrices' values, 1–6 (R19)."""
    return (round_number + index) % 6 + 1


def matrix_values(
    competition: Competition, rows: Mapping[int, Mapping[str, int]] | None = None
) -> dict[int, dict[str, int]]:
    """A whole matrix: :func:`default_value` everywhere, but the ``rows`` given."""
    values = {
        r: {c: default_value(r, i) for i, c in enumerate(COLUMNS[competition])}
        for r in range(1, ROUNDS[competition] + 1)
    }
    for number, row in (rows or {}).items():
        values[number] = dict(row)
    return values


def plain_pick(competition: Competition, round_number: int, code: int) -> str:
    """A legal pick for the team with ``code`` in round ``round_number``: a column each team
    plays once (rotating with its code), the round's extra-time (and shootout) value."""
    columns = COLUMNS[competition]
    column = columns[(code + round_number) % len(columns)]
    notation = f"{column}({EXTRA_TIME[competition][round_number - 1]})"
    if competition == Competition.KDH:
        notation += f"({SHOOTOUT[round_number - 1]})"
    return notation


@dataclass
class League:
    season: Season
    referee: AbstractBaseUser
    entries: dict[str, Entry] = field(default_factory=dict)
    pools: dict[str, Pool] = field(default_factory=dict)

    def entry(self, team: str) -> Entry:
        """The entry of ``team``, fresh from the database (stocks, ONR count)."""
        return Entry.objects.get(pk=self.entries[team].pk)

    def round(self, competition: Competition, number: int) -> Round:
        return Round.objects.get(season=self.season, competition=competition, number=number)

    def pool_round(self, pool: str, number: int) -> PoolRound:
        return PoolRound.objects.select_related("round", "pool").get(
            pool=self.pools[pool], round__number=number
        )

    def games(self, pool: str, number: int) -> list[tuple[str, str]]:
        """The pool round's games as (home, away) team ids, in fixture order."""
        fixtures = Fixture.objects.filter(pool_round=self.pool_round(pool, number)).order_by("id")
        return [(f.home.team.slug, f.away.team.slug) for f in fixtures]

    def send(
        self,
        team: str,
        competition: Competition,
        number: int,
        notation: str,
        *,
        channel: Pick.Channel = Pick.Channel.WEB,
        received_at: datetime | None = None,
    ) -> Pick:
        """``team``'s coach sends ``notation`` (an hour before the deadline by default)."""
        round = self.round(competition, number)
        return competitions.pick_record(
            entry=self.entries[team],
            round=round,
            notation=notation,
            normalized=notation,
            channel=channel,
            received_at=received_at or round.deadline - timedelta(hours=1),
        )

    def send_all(
        self,
        pool: str,
        number: int,
        *,
        skip: Iterable[str] = (),
        picks: Mapping[str, str] | None = None,
    ) -> None:
        """Every team of the pool round's games sends a pick: ``picks[team]`` or a plain one."""
        pool_round = self.pool_round(pool, number)
        competition = Competition(pool_round.pool.competition)
        chosen = dict(picks or {})
        for home, away in self.games(pool, number):
            for team in (home, away):
                if team in skip:
                    continue
                notation = chosen.get(team) or plain_pick(
                    competition, number, self.entries[team].code
                )
                self.send(team, competition, number, notation)

    def play(self, pool: str, number: int, **send: object) -> PoolRound:
        """Picks in (see :meth:`send_all`), then the referee arbitrates the pool round."""
        self.send_all(pool, number, **send)  # type: ignore[arg-type]
        return competitions.pool_round_arbitrate(
            pool_round=self.pool_round(pool, number), by=self.referee
        )

    def play_published(self, pool: str, number: int, **send: object) -> PoolRound:
        """:meth:`play`, then the referee publishes the pool round."""
        return competitions.pool_round_publish(
            pool_round=self.play(pool, number, **send), by=self.referee
        )


def build_league(
    *,
    season: Season,
    divisions: Mapping[str, Division],
    referee: AbstractBaseUser,
    division_slugs: Iterable[str] = ("elite",),
    stocks: Callable[[str, int], tuple[int, int]] = lambda division, code: (2, 2),
    matrix_rows: Mapping[Competition, Mapping[int, Mapping[str, int]]] | None = None,
) -> League:
    """Whole divisions (twelve teams each, ``<slug>-<code>``), the three matrices, every round of
    the calendar and each division's championship schedule."""
    made = League(season=season, referee=referee)
    for competition in Competition:
        competitions.matrix_create(
            season=season,
            competition=competition,
            values=matrix_values(competition, (matrix_rows or {}).get(competition)),
        )
    competitions.season_rounds_create(season=season)
    for slug in division_slugs:
        division = divisions[slug]
        for code in range(1, 13):
            team = league.team_create(name=f"{division.name} {code:02d}", slug=f"{slug}-{code:02d}")
            extra_goals, great_saves = stocks(slug, code)
            made.entries[team.slug] = competitions.entry_create(
                season=season,
                team=team,
                division=division,
                code=code,
                extra_goals=extra_goals,
                great_saves=great_saves,
            )
        pool = competitions.pool_create(
            season=season, competition=Competition.CHAMPIONSHIP, division=division
        )
        pool.referees.add(referee)
        competitions.championship_schedule_create(pool=pool)
        made.pools[slug] = pool
    return made


def add_kdh(made: League) -> PoolRound:
    """The KDH pool, its field and its first round drawn (R17)."""
    pool = competitions.pool_create(
        season=made.season, competition=Competition.KDH, referees=[made.referee]
    )
    made.pools["kdh"] = pool
    return competitions.kdh_start(pool=pool)


def add_wg(made: League, teams: Iterable[str]) -> list[PoolRound]:
    """The WG pool with ``teams`` (the admin's twelve, R18), groups drawn, group rounds set."""
    pool = competitions.pool_create(
        season=made.season, competition=Competition.WG, referees=[made.referee]
    )
    made.pools["wg"] = pool
    return competitions.wg_start(pool=pool, entries=[made.entries[team] for team in teams])
