"""The demo league: the real thing at week 3, built through the services that run the real one.

84 teams in 7 divisions, the season's three matrices and full calendar (R17–R20); championship
rounds 1–2 and the KDH's qualifying round played — arbitrated by
:func:`competitions.services.pool_round_arbitrate` and published by
:func:`~competitions.services.pool_round_publish` from picks stored as coaches send them (web,
R12); week 3's deadline passed with picks in for all but a few ONR teams, not yet arbitrated;
week 4 open, some teams' picks already in (R12: picks in advance).

The season is placed in time from *now*: week 3's deadline (Friday 17:00 Europe/Paris, R13) is
the most recent deadline passed, week 4's the next one.

Our choices where nothing says: the starting stocks are those of an imagined previous season
that the engine plays with the same teams (R21); the WG's twelve (an admin's pick the first
season, R18) are every division's code-01 team and five code-02/03 teams, a spread across the
league; coaches' picks are the engine's random legal picks (:func:`engine.season.random_picks`),
sent at random times in the days before each deadline.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from competitions import selectors as competition_selectors
from competitions import services as competitions
from competitions.models import Competition, Fixture, Matrix, PoolRound, Round
from competitions.models import Pick as PickRow
from engine import Dice, Pick
from engine.calendar import SeasonCompetition
from engine.codes import draw_codes
from engine.matrices import draw_matrix
from engine.season import DivisionSetup, PickRequest, SeasonSetup, play_season, random_picks
from league import services as league
from league.models import Division, Entry, Season, Team

SEED = "matrix-hockey-demo"
"""Every draw of the demo's set-up (codes, matrices, stocks, picks) derives from it; the pool
rounds' seeds are fresh secrets, as in the real league (R23)."""

PASSWORD = "demo"
"""Every coach's password (username = the team's slug)."""

TEAM_NAMES: tuple[tuple[str, ...], ...] = (
    # Elite: the rules' own teams (§3.1.4).
    (
        "Sleigh Dogs",
        "Snowmen",
        "Cybérians",
        "Ice Crocodiles",
        "Teddy Bears",
        "Grizzlies",
        "Freezing Ass",
        "Groggs",
        "Igloos",
        "Icebergs",
        "Puck Pukers",
        "Ice Breakers",
    ),
    # D2A
    (
        "Les Culs Gelés",
        "Les Castors Rieurs",
        "Les Orignaux Fous",
        "Les Pingouins Pressés",
        "Les Harfangs",
        "Les Morses Moustachus",
        "Zamboni Drivers",
        "Slapshot Seals",
        "Penalty Box Poets",
        "Blue Line Badgers",
        "Hat Trick Hamsters",
        "Power Play Pandas",
    ),
    # D2B
    (
        "Les Caribous Câlins",
        "Les Patins Rouillés",
        "Les Crosses Tordues",
        "Les Rondelles Volantes",
        "Les Bûcherons",
        "Les Flocons Furieux",
        "Five Hole Foxes",
        "Goal Crease Geese",
        "Icing Otters",
        "Offside Owls",
        "Face-Off Ferrets",
        "Frostbite Falcons",
    ),
    # D3A
    (
        "Les Glaçons Bouillants",
        "Les Moufles Magiques",
        "Les Tuques Bleues",
        "Les Poutines Royales",
        "Les Sirops d'Érable",
        "Les Écureuils Volants",
        "Cold Feet",
        "Chilly Willies",
        "Northern Lights",
        "Polar Vortex",
        "Snow Angels",
        "Slush Puppies",
    ),
    # D3B
    (
        "Les Loups Blancs",
        "Les Ours Polaires",
        "Les Marmottes Endormies",
        "Les Chamois Agiles",
        "Les Yétis",
        "Les Bouquetins",
        "Black Ice",
        "Hoarfrost Hounds",
        "Rink Rats",
        "Mitten Mafia",
        "Toque Troopers",
        "Moose Knuckles",
    ),
    # D3C
    (
        "Les Renards Argentés",
        "Les Lynx Lunatiques",
        "Les Hiboux Hockeyeurs",
        "Les Phoques Farceurs",
        "Les Mammouths Laineux",
        "Les Avalanches",
        "Fallen Maple Leaves",
        "Snowplow Kings",
        "Hot Chocolate Heroes",
        "Sled Heads",
        "Frozen Pond Pirates",
        "Icicle Ninjas",
    ),
    # D3D
    (
        "Les Blizzards",
        "Les Tempêtes de Neige",
        "Les Grêlons",
        "Les Stalactites",
        "Les Engelures",
        "Les Doigts Gelés",
        "Les Nez Rouges",
        "Les Fondues Savoyardes",
        "Les Raclettes",
        "Les Tartiflettes",
        "Les Bonhommes de Neige",
        "Les Chasse-Neige",
    ),
)
"""Twelve teams per division, in the order of ``league.services.STANDARD_DIVISIONS``."""

PLAYED_WEEKS = 2
"""Weeks 1–2 are arbitrated and published; week 3 waits for its referee."""

ONR_IN_WEEK: dict[int, tuple[tuple[str, int], ...]] = {
    2: (("d3d", 5),),
    3: (("d2a", 2), ("d2b", 9), ("d3b", 7), ("d3c", 4)),
}
"""The teams (division, code) that send no picks at all that week (R4, R14, R15). D2A's 02 is
one of the WG's twelve: ONR in the championship and the WG the same week, sanctioned once (R14).
"""

ADVANCE_PICKS = 0.3
"""The share of coaches whose week-4 picks are already in (R12)."""


@dataclass
class DemoLeague:
    """What :func:`demo_load` made, for the command to print and the tests to check."""

    season: Season
    admin: User
    referee: User
    coaches: dict[str, User] = field(default_factory=dict)
    onr_week_3: tuple[str, ...] = ()


class DemoRefused(Exception):
    """The database already holds a league: the demo only fills an empty one."""


def demo_starts_on(now: datetime, time_zone: str = "Europe/Paris") -> date:
    """The Monday of week 1 that puts ``now`` in week 3's weekend: week 3's deadline (Friday
    17:00 in ``time_zone``, R13) is the most recent one passed, week 4's still ahead.

    >>> from datetime import UTC
    >>> demo_starts_on(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))  # a Saturday
    datetime.date(2026, 11, 2)
    """
    local = now.astimezone(ZoneInfo(time_zone))
    friday = local.date() - timedelta(days=(local.weekday() - 4) % 7)
    deadline = datetime(friday.year, friday.month, friday.day, 17, tzinfo=ZoneInfo(time_zone))
    if deadline > now:
        friday -= timedelta(weeks=1)
    return friday - timedelta(days=4, weeks=2)


def _users(names: Iterable[str]) -> tuple[User, User, dict[str, User]]:
    """admin/admin, referee/referee and a coach per team (password hashed once for all)."""
    admin = User.objects.filter(username="admin").first() or User.objects.create_superuser(
        "admin", "admin@example.org", "admin"
    )
    referee = User.objects.filter(username="referee").first() or User.objects.create_user(
        "referee", "referee@example.org", "referee"
    )
    password = make_password(PASSWORD)
    coaches = User.objects.bulk_create(
        [User(username=name, email=f"{name}@example.org", password=password) for name in names]
    )
    return admin, referee, {coach.username: coach for coach in coaches}


def _stocks(divisions: Sequence[tuple[Division, Sequence[str]]]) -> dict[str, tuple[int, int]]:
    """Starting stocks (R21): the next-season stocks of an imagined previous season that the
    engine plays with the same divisions."""
    played = play_season(
        SeasonSetup(
            seed=f"{SEED}/previous-season",
            divisions=tuple(
                DivisionSetup(division.slug, division.tier, tuple(teams))
                for division, teams in divisions
            ),
        )
    )
    return {
        team: (stocks.extra_goals, stocks.great_saves)
        for team, stocks in played.next_stocks.items()
    }


def _entries(
    season: Season,
    divisions: Sequence[tuple[Division, Sequence[str]]],
    teams: dict[str, Team],
) -> dict[str, Entry]:
    """Every team entered in its division with its drawn code (R16) and its starting stocks."""
    stocks = _stocks(divisions)
    entries = {}
    for division, names in divisions:
        codes = draw_codes(names, Dice(f"{SEED}/codes/{division.slug}"))
        for name, code in codes.items():
            extra_goals, great_saves = stocks[name]
            entries[name] = competitions.entry_create(
                season=season,
                team=teams[name],
                division=division,
                code=code,
                extra_goals=extra_goals,
                great_saves=great_saves,
            )
    return entries


def _matrices(season: Season) -> None:
    """The season's three matrices, a die per cell (R19)."""
    for competition in SeasonCompetition:
        matrix = draw_matrix(competition, Dice(f"{SEED}/matrix/{competition.value}"))
        competitions.matrix_create(
            season=season,
            competition=competition.value,
            values={n: row for n, row in enumerate(matrix.as_rows(), start=1)},
        )


def _wg_twelve(entries: dict[str, Entry]) -> list[Entry]:
    """R18, first season: the admin's twelve — every division's 01, and the Elite's 02 and 03,
    the D2s' 02 and D3A's 02."""
    wanted = {(slug, 1) for slug in ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")}
    wanted |= {("elite", 2), ("elite", 3), ("d2a", 2), ("d2b", 2), ("d3a", 2)}
    return [e for e in entries.values() if (e.division.slug, e.code) in wanted]


def _teams_at(entries: dict[str, Entry], places: Iterable[tuple[str, int]]) -> tuple[str, ...]:
    """The slugs of the teams at ``places`` (division slug, code)."""
    wanted = set(places)
    return tuple(sorted(s for s, e in entries.items() if (e.division.slug, e.code) in wanted))


def _left(quota: dict[str, int], used: Sequence[str]) -> tuple[str, ...]:
    return tuple(value for value, count in quota.items() if used.count(value) < count)


class _Coaches:
    """The league's coaches sending picks: random legal ones (the engine's), at random times
    before the deadline, stored as received on the web (R12)."""

    def __init__(self, coaches: dict[str, User]) -> None:
        self.coaches = coaches
        self.choose = random_picks(f"{SEED}/picks")
        self.times = random.Random(f"{SEED}/times")
        # Picks sent for rounds not arbitrated yet, per (entry, competition) and round number.
        self.pending: dict[tuple[int, str], dict[int, Pick]] = {}

    def send(
        self,
        round: Round,
        *,
        skip: Iterable[str] = (),
        share: float = 1.0,
        sent_between: tuple[datetime, datetime],
    ) -> list[PickRow]:
        """Picks for ``round`` from the teams of its games (all but ``skip``; a ``share`` of
        them), each received at a random time in ``sent_between``."""
        skip = set(skip)
        competition = Competition(round.competition)
        rules = competition.rules
        matrix = Matrix.objects.get(season=round.season, competition=competition)
        row = competition_selectors.matrix_row(matrix=matrix, round_number=round.number)
        fixtures = list(
            Fixture.objects.filter(pool_round__round=round).select_related(
                "home__team", "away__team", "home__season"
            )
        )
        playing = [(f.home, f.away) for f in fixtures] + [(f.away, f.home) for f in fixtures]
        used = competition_selectors.entries_used(
            entries=[entry for entry, _ in playing], competition=competition, published_only=False
        )
        rows = []
        start, end = sent_between
        for entry, opponent in sorted(playing, key=lambda pair: pair[0].team.slug):
            slug = entry.team.slug
            if slug in skip or self.times.random() >= share:
                continue
            # A coach playing ahead counts the picks already sent for the weeks before.
            ahead = list(self.pending.get((entry.pk, competition.value), {}).values())
            columns = [*used[entry.pk].columns, *(p.column for p in ahead)]
            extra_time = [*used[entry.pk].extra_time, *(p.extra_time for p in ahead)]
            shootout = [*used[entry.pk].shootout, *(p.shootout for p in ahead if p.shootout)]
            pick = self.choose(
                PickRequest(
                    team=slug,
                    competition=round.engine_competition,
                    round_number=round.number,
                    week=round.week,
                    opponent=opponent.team.slug,
                    matrix_row=row,
                    columns_left=tuple(c for c in rules.columns if c not in columns),
                    extra_time_left=_left(dict(rules.extra_time_quota), extra_time),
                    shootout_left=_left(dict(rules.shootout_quota or {}), shootout),
                    extra_goals=entry.extra_goals,
                    great_saves=entry.great_saves,
                )
            )
            self.pending.setdefault((entry.pk, competition.value), {})[round.number] = pick
            received_at = start + (end - start) * self.times.random()
            record = PickRow(
                entry=entry,
                round=round,
                notation=pick.notation(),
                normalized=pick.notation(),
                channel=PickRow.Channel.WEB,
                received_at=received_at,
                entered_by=self.coaches[slug],
            )
            record.receipt = record.compute_receipt()
            rows.append(record)
        return PickRow.objects.bulk_create(rows)

    def played(self, round: Round) -> None:
        """``round`` is arbitrated: its picks are now in the teams' used values."""
        for (_, competition), picks in self.pending.items():
            if competition == round.competition:
                picks.pop(round.number, None)


def _week_rounds(season: Season, week: int) -> list[Round]:
    return list(
        Round.objects.filter(season=season, week=week)
        .select_related("season")
        .order_by("competition", "number")
    )


def _send_week(
    coaches: _Coaches, season: Season, week: int, skip: Iterable[str], now: datetime
) -> None:
    """Every coach (but ``skip``) sends the week's picks in the four days before its deadline."""
    for round in _week_rounds(season, week):
        sent_by = min(round.deadline, now) - timedelta(minutes=10)
        coaches.send(round, skip=skip, sent_between=(sent_by - timedelta(days=4), sent_by))


def _play_week(coaches: _Coaches, season: Season, week: int, referee: User) -> None:
    """The referee arbitrates and publishes every pool of the week (R13, R23)."""
    for round in _week_rounds(season, week):
        for pool_round in PoolRound.objects.filter(round=round).order_by("pool__slug"):
            competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
            competitions.pool_round_publish(pool_round=pool_round, by=referee)
        coaches.played(round)


@transaction.atomic
def demo_load(
    *, now: datetime | None = None, progress: Callable[[str], None] = lambda _: None
) -> DemoLeague:
    """Build the demo league at week 3 of a season placed around ``now`` (default: now).

    Refused (:class:`DemoRefused`) when the database already has a season or a team.
    """
    now = now or timezone.now()
    if Season.objects.exists() or Team.objects.exists():
        raise DemoRefused("The database already holds a league: the demo fills an empty one.")
    divisions = league.divisions_create_standard()
    names = {
        division.slug: [slugify(name) for name in teams]
        for division, teams in zip(divisions, TEAM_NAMES, strict=True)
    }
    progress("Users and teams")
    admin, referee, coaches = _users(slug for teams in names.values() for slug in teams)
    team_rows = Team.objects.bulk_create(
        [
            Team(name=name, slug=slugify(name), coach=coaches[slugify(name)])
            for teams in TEAM_NAMES
            for name in teams
        ]
    )
    teams = {team.slug: team for team in team_rows}
    season = league.season_create(
        number=1, name="Saison de démonstration", starts_on=demo_starts_on(now)
    )
    entries = _entries(season, [(d, names[d.slug]) for d in divisions], teams)

    progress("Matrices, calendar, pools and cup draws")
    _matrices(season)
    competitions.season_rounds_create(season=season)
    for division in divisions:
        pool = competitions.pool_create(
            season=season,
            competition=Competition.CHAMPIONSHIP,
            division=division,
            referees=[referee],
        )
        competitions.championship_schedule_create(pool=pool)
    kdh = competitions.pool_create(season=season, competition=Competition.KDH, referees=[referee])
    competitions.kdh_start(pool=kdh)
    wg = competitions.pool_create(season=season, competition=Competition.WG, referees=[referee])
    competitions.wg_start(pool=wg, entries=_wg_twelve(entries))
    season.status = Season.Status.RUNNING
    season.save(update_fields=["status"])
    league.season_make_current(season=season)

    picks = _Coaches(coaches)
    for week in range(1, PLAYED_WEEKS + 1):
        progress(f"Week {week}: picks, arbitration, publication")
        _send_week(picks, season, week, _teams_at(entries, ONR_IN_WEEK.get(week, ())), now)
        _play_week(picks, season, week, referee)

    progress("Week 3: picks in, deadline passed; week 4: picks in advance")
    onr = _teams_at(entries, ONR_IN_WEEK[3])
    _send_week(picks, season, 3, onr, now)
    for round in _week_rounds(season, 4):
        picks.send(
            round,
            share=ADVANCE_PICKS,
            sent_between=(now - timedelta(days=3), now - timedelta(minutes=5)),
        )
    competitions.rounds_close_due(now=now)
    return DemoLeague(season=season, admin=admin, referee=referee, coaches=coaches, onr_week_3=onr)


__all__ = ["PASSWORD", "SEED", "TEAM_NAMES", "DemoLeague", "DemoRefused", "demo_load"]
