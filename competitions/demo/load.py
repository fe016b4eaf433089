"""Building the demo league at any point of its season, through the services that run the real
one (the package's docstring tells what each week shows)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from competitions import services as competitions
from competitions.demo.coaches import DEPUTY, SEED, Coaches, users_create
from competitions.demo.names import TEAM_NAMES, WAITING_LIST
from competitions.models import Competition, PoolRound, Round
from engine import Dice
from engine.calendar import SEASON_WEEKS, SeasonCompetition, calendar_week
from engine.codes import draw_codes
from engine.matrices import draw_matrix
from engine.season import DivisionSetup, SeasonSetup, play_season
from league import services as league
from league.models import Division, Entry, Season, Team, WaitingListEntry

DEFAULT_WEEK = 3
"""Without ``--week``: weeks 1–2 published, week 3 waiting for its referee."""

LAST_WEEK = SEASON_WEEKS + 1
"""The week after the last (R20: ten weeks): the season played to its end, not yet closed."""

ONR_IN_WEEK: dict[int, tuple[tuple[str, int], ...]] = {
    2: (("d3d", 5),),
    3: (("d2a", 2), ("d2b", 9), ("d3b", 7), ("d3c", 4)),
    5: (("elite", 8), ("d3a", 10)),
    6: (("d2b", 9), ("d3b", 11)),
    9: (("d3d", 5), ("d3c", 8)),
    10: (("elite", 12),),
}
"""The teams (division, code) that send no picks at all that week (R4, R14, R15). D2A's 02 is
one of the WG's twelve: ONR in the championship and the WG the same week, sanctioned once (R14).
D2B's 09 and D3D's 05 are ONR twice: all their extra goals and great saves lost, and barred
from promotion (R14). Nobody is ONR a third time: the replacement R14 then asks for is only
proposed, for an admin to confirm (issue 5), which a demo should not leave hanging. An ONR
team still in the KDH loses its game there by forfeit (R15); weeks 7–8 (the KDH's semi-finals
and final) have no ONR team, and weeks 9–10 only teams outside the WG, so that both cups'
last games are played. Week 10's ONR team misses both championship rounds of that week: two
ONRs, every stock lost and barred from promotion (R14, R20), in the Elite, which it would not
leave upwards anyway."""

ADVANCE_PICKS = 0.3
"""The share of coaches whose picks for the week after the waiting one are already in (R12)."""


@dataclass
class DemoLeague:
    """What :func:`demo_load` made, for the command to print and the tests to check."""

    season: Season
    admin: User
    referee: User
    coaches: dict[str, User] = field(default_factory=dict)
    week: int = DEFAULT_WEEK
    """The week waiting for its referee (weeks before it published); :data:`LAST_WEEK`: the
    season played to its end."""
    onr: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """The teams ONR each week, up to the waiting one (slugs)."""
    waiting_list: list[WaitingListEntry] = field(default_factory=list)

    @property
    def onr_week_3(self) -> tuple[str, ...]:
        """The teams ONR in week 3 (none when the demo stands before it)."""
        return self.onr.get(3, ())


class DemoRefused(Exception):
    """The database already holds a league: the demo only fills an empty one."""


class DemoWeekInvalid(ValueError):
    """The demo stands at weeks 1 to :data:`LAST_WEEK` only."""

    def __init__(self, week: object) -> None:
        super().__init__(
            f"The demo stands at a week from 1 to {LAST_WEEK} ({LAST_WEEK}: the season played "
            f"to its end), not {week!r}."
        )
        self.week = week


HOLIDAYS = ((12, 25), (1, 1))
"""Christmas Day and New Year's Day (month, day): like a real league, the demo plays no round in
the calendar weeks that hold them (its season's skipped weeks)."""


def _holds_holiday(monday: date) -> bool:
    return any(
        ((day := monday + timedelta(days=offset)).month, day.day) in HOLIDAYS for offset in range(7)
    )


def demo_skipped_weeks(starts_on: date) -> tuple[int, ...]:
    """The calendar weeks of a season starting on ``starts_on`` that hold 25 December or 1 January
    (:data:`HOLIDAYS`), up to its last round's week: the weeks it skips (R20, the engine's
    calendar). Week 1 opens the season and is never skipped.

    >>> demo_skipped_weeks(date(2026, 11, 9)), demo_skipped_weeks(date(2027, 1, 4))
    ((7, 8), ())
    """
    skipped: list[int] = []
    played = week = 0
    while played < SEASON_WEEKS:
        week += 1
        if week > 1 and _holds_holiday(starts_on + timedelta(weeks=week - 1)):
            skipped.append(week)
        else:
            played += 1
    return tuple(skipped)


def demo_starts_on(
    now: datetime, week: int = DEFAULT_WEEK, time_zone: str = "Europe/Paris"
) -> date:
    """The Monday of week 1 that makes week ``week``'s deadline (Friday 17:00 in ``time_zone``,
    R13) the most recent one passed at ``now``, the next week's still ahead; for
    :data:`LAST_WEEK`, the season's last deadline (week 10's) is the most recent one passed.
    Weeks count as played: the weeks holding 25 December or 1 January
    (:func:`demo_skipped_weeks`) hold no deadline and move the later ones a week on each.

    >>> from datetime import UTC
    >>> saturday = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    >>> demo_starts_on(saturday)
    datetime.date(2026, 11, 2)
    >>> demo_starts_on(saturday, week=1), demo_starts_on(saturday, week=11)
    (datetime.date(2026, 11, 16), datetime.date(2026, 9, 14))
    >>> demo_starts_on(datetime(2027, 1, 9, 12, 0, tzinfo=UTC), week=8)
    datetime.date(2026, 11, 2)
    """
    local = now.astimezone(ZoneInfo(time_zone))
    friday = local.date() - timedelta(days=(local.weekday() - 4) % 7)
    deadline = datetime(friday.year, friday.month, friday.day, 17, tzinfo=ZoneInfo(time_zone))
    if deadline > now:
        friday -= timedelta(weeks=1)
    monday = friday - timedelta(days=4)
    while _holds_holiday(monday):
        monday -= timedelta(weeks=1)  # that week holds no deadline: the one before is the last
    played = min(week, SEASON_WEEKS)
    # The skipped weeks depend on the start and move it: a few rounds settle both.
    skipped: tuple[int, ...] = ()
    while True:
        starts_on = monday - timedelta(weeks=calendar_week(played, skipped) - 1)
        found = demo_skipped_weeks(starts_on)
        if found == skipped:
            return starts_on
        skipped = found


def _users_and_teams() -> tuple[User, User, dict[str, User], dict[str, Team]]:
    """The admin, the referee, the 84 teams with their coaches, and one team's deputy
    (:data:`~competitions.demo.coaches.DEPUTY`)."""
    slugs = [slugify(name) for teams in TEAM_NAMES for name in teams]
    admin, referee, coaches = users_create(slugs)
    team_rows = Team.objects.bulk_create(
        [
            Team(name=name, slug=slugify(name), coach=coaches[slugify(name)])
            for teams in TEAM_NAMES
            for name in teams
        ]
    )
    teams = {team.slug: team for team in team_rows}
    # R12: one team's coach has named a deputy, for the demo's visitors to try one.
    username, password, slug = DEPUTY
    User.objects.create_user(username, f"{username}@example.org", password)
    league.team_deputy_set(team=teams[slug], by=coaches[slug], who=username)
    return admin, referee, coaches, teams


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


def _season_create(
    now: datetime, week: int, referee: User, teams: dict[str, Team]
) -> tuple[Season, dict[str, Entry]]:
    """Season 1 placed in time for ``week``, its entries, matrices and calendar (R16, R19, R20),
    its pools refereed by ``referee``, the KDH's first round and the WG's groups drawn (R17,
    R18); running and current."""
    divisions = league.divisions_create_standard()
    names = {
        division.slug: [slugify(name) for name in names]
        for division, names in zip(divisions, TEAM_NAMES, strict=True)
    }
    starts_on = demo_starts_on(now, week)
    season = league.season_create(number=1, name="Saison de démonstration", starts_on=starts_on)
    season.skipped_weeks = list(demo_skipped_weeks(starts_on))
    season.save(update_fields=["skipped_weeks"])
    entries = _entries(season, [(d, names[d.slug]) for d in divisions], teams)
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
    return league.season_make_current(season=season), entries


def _week_rounds(season: Season, week: int) -> list[Round]:
    """The rounds of the ``week``-th week played (its calendar week, past the skipped ones)."""
    return list(
        Round.objects.filter(season=season, week=season.calendar_week(week))
        .select_related("season")
        .order_by("competition", "number")
    )


def _send_week(
    coaches: Coaches, season: Season, week: int, skip: Iterable[str], now: datetime
) -> None:
    """Every coach (but ``skip``) sends the week's picks in the four days before its deadline."""
    for round in _week_rounds(season, week):
        sent_by = min(round.deadline, now) - timedelta(minutes=10)
        coaches.send(round, skip=skip, sent_between=(sent_by - timedelta(days=4), sent_by))


def _play_week(coaches: Coaches, season: Season, week: int, referee: User) -> None:
    """The referee arbitrates and publishes every pool of the week, in round order (R13, R23):
    the last week's two championship rounds one after the other (R20). No results email goes
    out."""
    for round in _week_rounds(season, week):
        for pool_round in PoolRound.objects.filter(round=round).order_by("pool__slug"):
            competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
            # Results nobody needs mailed: these weeks are the demo's past (and its coaches
            # are example.org addresses); a thousand emails by week 11 would only slow it down.
            competitions.pool_round_publish(pool_round=pool_round, by=referee, announce=False)
        coaches.played(round)


def _waiting_list(season: Season, now: datetime) -> list[WaitingListEntry]:
    """The teams that signed up for a place by ``now`` (:data:`WAITING_LIST`), each on its
    week's Wednesday evening, in the league's time zone."""
    zone = ZoneInfo(season.time_zone)
    signed_up = [
        (
            name,
            datetime.combine(
                season.week_monday(season.calendar_week(week)) + timedelta(days=2), time(20), zone
            ),
        )
        for name, week in WAITING_LIST
    ]
    return WaitingListEntry.objects.bulk_create(
        [
            WaitingListEntry(name=name, email=f"{slugify(name)}@example.org", registered_at=at)
            for name, at in signed_up
            if at <= now
        ]
    )


@transaction.atomic
def demo_load(
    *,
    week: int = DEFAULT_WEEK,
    now: datetime | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> DemoLeague:
    """Build the demo league at ``week`` of a season placed around ``now`` (default: now): the
    weeks before it arbitrated and published, ``week`` waiting for its referee (its deadline
    the most recent one passed, every coach's picks in but the ONR teams'), some picks for the
    week after already in (R12). At :data:`LAST_WEEK`, every round of every competition
    published and the season still running, with its waiting list.

    Refused (:class:`DemoRefused`) when the database already has a season or a team;
    :class:`DemoWeekInvalid` for a week outside 1 to :data:`LAST_WEEK`.
    """
    if not (isinstance(week, int) and 1 <= week <= LAST_WEEK):
        raise DemoWeekInvalid(week)
    now = now or timezone.now()
    if Season.objects.exists() or Team.objects.exists():
        raise DemoRefused("The database already holds a league: the demo fills an empty one.")
    progress("Users and teams")
    admin, referee, coaches, teams = _users_and_teams()
    progress("Matrices, calendar, pools and cup draws")
    season, entries = _season_create(now, week, referee, teams)

    picks = Coaches(coaches)
    onr = {w: _teams_at(entries, ONR_IN_WEEK.get(w, ())) for w in range(1, week + 1)}
    for played in range(1, min(week, LAST_WEEK)):
        progress(f"Week {played}: picks, arbitration, publication")
        _send_week(picks, season, played, onr[played], now)
        _play_week(picks, season, played, referee)
    if week <= SEASON_WEEKS:
        progress(
            f"Week {week}: picks in, deadline passed"
            + (f"; week {week + 1}: picks in advance" if week < SEASON_WEEKS else "")
        )
        _send_week(picks, season, week, onr[week], now)
        for round in _week_rounds(season, week + 1):
            picks.send(
                round,
                share=ADVANCE_PICKS,
                sent_between=(now - timedelta(days=3), now - timedelta(minutes=5)),
            )
    waiting_list = _waiting_list(season, now)
    competitions.rounds_close_due(now=now)
    return DemoLeague(
        season=season,
        admin=admin,
        referee=referee,
        coaches=coaches,
        week=week,
        onr={w: teams for w, teams in onr.items() if teams and w <= SEASON_WEEKS},
        waiting_list=waiting_list,
    )
