"""The week's clock: Wednesday's weekly email, Friday's last reminder, the arbitration watchdog.

The rules' typical week (§4): on Wednesday morning every coach gets the week's information and
the list of the teams that have not sent their picks yet; on Friday morning a last reminder goes
only to the coaches still missing a pick; at 17:00 the deadline closes the web form (R13). Celery
beat (``matrixhockey/beat.py``) runs the tasks of :mod:`mail.tasks` that call these services.

*This week* is the season's week that contains the moment the job runs: Monday to Sunday in the
season's time zone (Europe/Paris, daylight saving time included), week 1 starting on the
season's ``starts_on``. Only rounds whose deadline is still ahead count, so a job run late (a
worker that was down) sends nothing stale.

Every email is recorded as a :class:`~league.models.Mailing` in the transaction that queues it
(:func:`mailing_send`): the row's unique constraint refuses a second weekly email, reminder or
alert to the same person for the same week (or pool round), so a beat entry that fires twice —
two beat processes, a retried task — sends nothing twice. Each email is its own transaction: one
that fails does not hold back the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, TypeGuard, TypeVar, cast
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from competitions.models import Competition, Pick, Pool, PoolRound, Round
from competitions.selectors import (
    PLAYED,
    EntryGame,
    entry_games,
    entry_plays_rounds,
    game_stage_name,
)
from league.links import pick_link
from league.models import Entry, Season
from league.selectors import NewsItem, news_between, season_current, user_language
from mail.models import EmailKind, Mailing, OutboundEmail
from mail.outbox import Memo, Rendering, email_queue, renders
from mail.preferences import email_wanted, unsubscribe_url
from mail.turn_sheet import turn_sheet_context, turn_sheet_read
from matrixhockey.site import site_url

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

T = TypeVar("T")

NEWS_LOOKBACK = timedelta(days=7)
"""A first Wednesday email tells the news of the week before."""
WATCHDOG_AFTER = timedelta(hours=48)
"""A pool round still not arbitrated this long after its deadline alerts its referees and the
admins (once)."""

COMPETITION_ORDER = {competition.value: index for index, competition in enumerate(Competition)}


# --- Reads ---------------------------------------------------------------------------------------


def season_week(*, season: Season, at: datetime) -> int:
    """The number of ``season``'s week that contains ``at`` (:meth:`Season.week_at`)."""
    return season.week_at(at)


@dataclass(frozen=True)
class Week:
    """A week of a season and its rounds still open for picks (deadline ahead), championship
    first, then the KDH, then the WG."""

    season: Season
    number: int
    rounds: list[Round]

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.season.time_zone)


def week_find(*, now: datetime | None = None) -> Week | None:
    """The current season's week at ``now``, or ``None`` when there is no current season or no
    round of that week is still open for picks (between seasons, after the deadline)."""
    now = now or timezone.now()
    season = season_current()
    if season is None:
        return None
    number = season_week(season=season, at=now)
    rounds = sorted(
        Round.objects.filter(
            season=season, week=number, status=Round.Status.OPEN, deadline__gt=now
        ).select_related("season"),
        key=lambda r: (COMPETITION_ORDER[r.competition], r.number),
    )
    if not rounds:
        return None
    return Week(season=season, number=number, rounds=rounds)


def entry_rounds_missing(*, entry: Entry, rounds: Iterable[Round]) -> list[Round]:
    """The rounds among ``rounds`` that ``entry`` plays (the championship; a cup while it is in,
    :func:`~competitions.selectors.entry_plays_rounds`, as the published results say) and has
    sent no pick for yet, in four queries whatever their number.

    Any pick received counts, sent that week or in advance (R12: the last one received counts,
    but one is enough not to be missing).
    """
    rounds = list(rounds)
    playing = entry_plays_rounds(entry=entry, rounds=rounds)
    sent = set(
        Pick.objects.filter(entry=entry, round__in=rounds).values_list("round_id", flat=True)
    )
    return [round for round in rounds if round.pk in playing and round.pk not in sent]


def week_entries(*, week: Week) -> list[Entry]:
    """The teams playing ``week``'s season (replaced teams left out, R14), by division and name."""
    return list(
        Entry.objects.current(season=week.season)
        .select_related("team", "team__coach", "team__deputy", "division")
        .order_by("division__tier", "division__group", "team__name")
    )


def week_teams_missing(*, week: Week) -> list[Entry]:
    """The teams that have not sent all their picks for ``week``'s rounds: at least one of them
    that they play has no pick. Dummy teams play random picks (R14) and are never missing. A list
    every coach reads: it shows nothing that published results do not, as who plays a cup round
    follows them only (:func:`entry_rounds_missing`: the winners and the losers of a round
    arbitrated and not published alike, R23)."""
    return [
        entry
        for entry in week_entries(week=week)
        if not entry.team.is_dummy and entry_rounds_missing(entry=entry, rounds=week.rounds)
    ]


def _can_be_emailed(user: User | None) -> TypeGuard[User]:
    return user is not None and user.is_active and bool(user.email)


def pool_rounds_overdue(*, now: datetime | None = None) -> list[PoolRound]:
    """The current season's pool rounds still not arbitrated (pending, being arbitrated, or
    voided) :data:`WATCHDOG_AFTER` or more after their round's deadline."""
    now = now or timezone.now()
    season = season_current()
    if season is None:
        return []
    return list(
        PoolRound.objects.filter(pool__season=season, round__deadline__lte=now - WATCHDOG_AFTER)
        .exclude(status__in=PLAYED)
        .select_related("pool", "pool__division", "round", "round__season")
        .order_by("round__deadline", "pool__competition", "pool__slug")
    )


def pool_round_watchers(*, pool_round: PoolRound) -> list[User]:
    """Who the watchdog alerts about ``pool_round``: the pool's referees and the admins (staff),
    each once, those with an address and an active account."""
    users = (
        get_user_model()
        .objects.filter(Q(refereed_pools=pool_round.pool) | Q(is_staff=True))
        .filter(is_active=True)
        .exclude(email="")
        .distinct()
        .order_by("pk")
    )
    return list(users)


# --- Writes --------------------------------------------------------------------------------------


@transaction.atomic
def mailing_send(
    *,
    season: Season,
    week: int,
    kind: Mailing.Kind | str,
    user: User,
    template: str,
    context: dict[str, object],
    pool_round: PoolRound | None = None,
) -> Mailing | None:
    """Queue ``user``'s email of ``kind`` for ``season``'s ``week`` (or ``pool_round``) unless it
    went already: the :class:`Mailing` row and the outbox row (``template``, with the ids of its
    ``context``) are written together, and the row's unique constraint lets only one of two
    concurrent callers through (the other waits for the first to commit, then finds the row).
    ``None`` when it went already. The worker renders it when it sends it, in ``user``'s
    language then and times in the season's time zone (``@renders`` below).
    """
    try:
        with transaction.atomic():
            mailing = Mailing.objects.create(
                season=season, week=week, kind=kind, user=user, pool_round=pool_round
            )
    except IntegrityError:
        return None
    mailing.email = email_queue(template=template, user=user, context=context)
    mailing.save(update_fields=["email"])
    return mailing


def _pools(season: Season) -> dict[tuple[str, int | None], Pool]:
    return {(p.competition, p.division_id): p for p in Pool.objects.filter(season=season)}


def _infos_url(pool: Pool | None) -> str:
    if pool is None:
        return site_url(reverse("infos_index"))
    return site_url(reverse("infos", args=[pool.competition, pool.slug]))


@dataclass(frozen=True)
class ReminderRound:
    """A round of a reminder, with the stage the team plays it in, in words: its game's label
    where the week holds two kinds of game (the WG's third-place game is not « the final »)."""

    round: Round
    stage: StrOrPromise


@dataclass(frozen=True)
class CompetitionWeek:
    """One competition's rounds in a reminder, with the infos équipes page to prepare them."""

    competition: str
    label: StrOrPromise
    rounds: list[ReminderRound]
    infos_url: str


def _by_competition(
    rounds: Sequence[Round],
    entry: Entry,
    pools: dict[tuple[str, int | None], Pool],
    games: dict[int, EntryGame],
) -> list[CompetitionWeek]:
    """The week's ``rounds`` by competition, each with the infos équipes of ``entry``'s pool and
    the stage of its public game in each (:func:`~competitions.selectors.game_stage_name`)."""
    grouped: dict[str, list[ReminderRound]] = {}
    for round in rounds:
        stage = game_stage_name(round, games.get(round.pk))
        grouped.setdefault(round.competition, []).append(ReminderRound(round, stage))
    weeks = []
    for competition, its_rounds in grouped.items():
        if Competition(competition).kind.divisional:
            pool = pools.get((competition, entry.division_id))
        else:
            pool = pools.get((competition, None))
        weeks.append(
            CompetitionWeek(
                competition=competition,
                label=Competition(competition).label,
                rounds=its_rounds,
                infos_url=_infos_url(pool),
            )
        )
    return weeks


@dataclass(frozen=True)
class MissingDivision:
    """A division's teams still missing picks, by name (never a pick: picks are secret)."""

    division: str
    teams: list[str]

    @property
    def teams_text(self) -> str:
        return ", ".join(self.teams)


def _missing_by_division(entries: Iterable[Entry]) -> list[MissingDivision]:
    grouped: dict[str, list[str]] = {}
    for entry in entries:
        grouped.setdefault(entry.division.name, []).append(entry.team.name)
    return [MissingDivision(division=name, teams=teams) for name, teams in grouped.items()]


def _referee_url(pool_round: PoolRound, user: User, referees: Sequence[User]) -> str:
    """The referee's page of ``pool_round``, for a referee of its pool (others get none)."""
    if not any(referee.pk == user.pk for referee in referees):
        return ""
    pool, round = pool_round.pool, pool_round.round
    return site_url(reverse("referee_round", args=[pool.competition, pool.slug, round.number]))


def weekly_emails_send(*, now: datetime | None = None) -> int:
    """Wednesday's email (rules §4) to every coach of the current season with an address, and
    to the deputy each named: their team's turn sheet for the week (``mail.turn_sheet``: its
    rounds with the deadline in the season's time zone, R13, both sides' columns, values and
    stocks, its current picks, the lines to answer with, its results, its division's table, the
    news), the teams that have not sent their picks yet (names only) and the links. How many
    emails were queued; none when this week has no open round, none twice to anyone for the
    same week."""
    now = now or timezone.now()
    week = week_find(now=now)
    if week is None:
        return 0
    sent = 0
    for entry in week_entries(week=week):
        # The coach, and the deputy they named, who plays the team's week too (R12).
        for person in (entry.team.coach, entry.team.deputy):
            if not _can_be_emailed(person) or not email_wanted(user=person, kind=EmailKind.WEEKLY):
                continue
            mailing = mailing_send(
                season=week.season,
                week=week.number,
                kind=Mailing.Kind.WEEKLY,
                user=person,
                template="weekly",
                context={
                    "entry": entry.pk,
                    "week": week.number,
                    "rounds": [round.pk for round in week.rounds],
                    "at": now.isoformat(),
                },
            )
            sent += mailing is not None
    return sent


def weekly_news(*, user: User, now: datetime) -> list[NewsItem]:
    """The news items for ``user``'s Wednesday email, in their language: those published since
    their previous Wednesday email (a week back for a first one), none for a person who wants
    no news (``mail.preferences``)."""
    if not email_wanted(user=user, kind=EmailKind.NEWS):
        return []
    previous = (
        Mailing.objects.filter(user=user, kind=Mailing.Kind.WEEKLY, created_at__lt=now)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    after = previous or now - NEWS_LOOKBACK
    return news_between(after=after, until=now, language=user_language(user))


def reminders_send(*, now: datetime | None = None) -> int:
    """Friday's last reminder (rules §4), before the deadline (R13): one email to the coach, and
    one to the deputy they named, of each team that still has no pick for at least one of this
    week's open rounds it plays (the championship; the KDH while it is in; the WG when
    qualified), naming those rounds, in each one's language, with their one-click link. A team
    that has sent everything gets nothing. Who plays a cup round follows the published results
    only (:func:`entry_rounds_missing`): while a round of the cup is arbitrated and not
    published, its winners and its losers are reminded of the next round alike, which tells
    nobody who went on (R23). How many emails were queued; none twice to anyone for the same
    week."""
    now = now or timezone.now()
    week = week_find(now=now)
    if week is None:
        return 0
    sent = 0
    for entry in week_entries(week=week):
        # The coach, and the deputy they named, who may send the picks too.
        people = [p for p in (entry.team.coach, entry.team.deputy) if _can_be_emailed(p)]
        if not people:
            continue
        missing = entry_rounds_missing(entry=entry, rounds=week.rounds)
        if not missing:
            continue
        for person in people:
            mailing = mailing_send(
                season=week.season,
                week=week.number,
                kind=Mailing.Kind.REMINDER,
                user=person,
                template="reminder",
                context={
                    "entry": entry.pk,
                    "week": week.number,
                    "rounds": [round.pk for round in missing],
                },
            )
            sent += mailing is not None
    return sent


def watchdog_alerts_send(*, now: datetime | None = None) -> int:
    """Alert a pool's referees and the admins when one of its rounds is still not arbitrated
    :data:`WATCHDOG_AFTER` after its deadline, once per pool round and person, each in their
    language. How many emails were queued."""
    now = now or timezone.now()
    sent = 0
    for pool_round in pool_rounds_overdue(now=now):
        round = pool_round.round
        for user in pool_round_watchers(pool_round=pool_round):
            mailing = mailing_send(
                season=round.season,
                week=round.week,
                kind=Mailing.Kind.WATCHDOG,
                user=user,
                pool_round=pool_round,
                template="watchdog",
                context={"pool_round": pool_round.pk, "at": now.isoformat()},
            )
            sent += mailing is not None
    return sent


# --- The renderings, when the worker sends them ---------------------------------------------------


def _week_rounds(ids: list[int]) -> list[Round]:
    rounds = Round.objects.filter(pk__in=ids).select_related("season")
    return sorted(rounds, key=lambda r: (COMPETITION_ORDER[r.competition], r.number))


def _once(memo: Memo, key: tuple[object, ...], read: Callable[[], T]) -> T:
    """What ``read`` returns, read once per run of the worker for all its emails."""
    if key not in memo:
        memo[key] = read()
    return cast(T, memo[key])


def _recipient_entry(email: OutboundEmail) -> tuple[User, Entry] | None:
    entry = (
        Entry.objects.select_related("team", "division", "season")
        .filter(pk=email.context["entry"])
        .first()
    )
    if entry is None or not _can_be_emailed(email.user):
        return None
    return email.user, entry


@renders("weekly")
def weekly_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """Wednesday's email, when sent, in its reader's language (the coach or the deputy), times
    in the season's zone: the team's turn sheet for the week at the job's moment
    (:func:`~mail.turn_sheet.turn_sheet_read`, with the news since the reader's last one), the
    teams still missing picks (read once for all the run's emails). Nobody when the reader
    plays for another team now."""
    found = _recipient_entry(email)
    if found is None:
        return None
    person, entry = found
    ids = list(email.context["rounds"])
    rounds = _week_rounds(ids)
    if not rounds:
        return None
    season, number = entry.season, int(email.context["week"])
    at = datetime.fromisoformat(email.context["at"])
    sheet = turn_sheet_read(
        person,
        at=at,
        week=number,
        team=entry.team,
        news=weekly_news(user=person, now=at),
    )
    if sheet is None:
        return None
    key = (season.pk, number, *ids)
    week = Week(season=season, number=number, rounds=rounds)
    missing = _once(
        memo, ("weekly-missing", *key), lambda: _missing_by_division(week_teams_missing(week=week))
    )
    return Rendering(
        user=person,
        language=user_language(person),
        time_zone=season.time_zone,
        context={
            "user": person,
            "time_zone": season.time_zone,
            "team": entry.team,
            "week": number,
            "deadline": min(r.deadline for r in rounds),
            **turn_sheet_context(sheet),
            "missing": missing,
        },
        unsubscribe=unsubscribe_url(user=person, kind=EmailKind.WEEKLY),
    )


@renders("reminder")
def reminder_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """Friday's reminder, when sent, in its reader's language (the coach or the deputy), times
    in the season's zone: the rounds the team still missed a pick for when it was queued, and
    the reader's one-click link."""
    found = _recipient_entry(email)
    if found is None:
        return None
    person, entry = found
    missing = _week_rounds(list(email.context["rounds"]))
    if not missing:
        return None
    pools = _once(memo, ("pools", entry.season_id), lambda: _pools(entry.season))
    return Rendering(
        user=person,
        language=user_language(person),
        time_zone=entry.season.time_zone,
        context={
            "user": person,
            "time_zone": entry.season.time_zone,
            "team": entry.team,
            "week": int(email.context["week"]),
            "deadline": min(r.deadline for r in missing),
            "competitions": _by_competition(
                missing, entry, pools, entry_games(entry=entry, rounds=missing)
            ),
            "pick_url": pick_link(person),
        },
    )


@renders("watchdog")
def watchdog_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A watchdog alert, when sent, in its reader's language, times in the season's zone: the
    pool round, how late it is at the alert's time, its referees, and the page to act on (the
    referee's for a referee of the pool, the admin's for the others)."""
    user = email.user
    pool_round = (
        PoolRound.objects.select_related("pool", "pool__division", "round", "round__season")
        .filter(pk=email.context["pool_round"])
        .first()
    )
    if pool_round is None or not _can_be_emailed(user):
        return None
    round, pool = pool_round.round, pool_round.pool
    referees = list(pool.referees.order_by("username"))
    pool_name = pool.display_name
    late = datetime.fromisoformat(email.context["at"]) - round.deadline
    return Rendering(
        user=user,
        language=user_language(user),
        time_zone=round.season.time_zone,
        context={
            "user": user,
            "time_zone": round.season.time_zone,
            "pool_round": pool_round,
            "pool_name": pool_name,
            "round": round,
            "deadline": round.deadline,
            "hours_late": int(late.total_seconds() // 3600),
            "referees": referees,
            "referee_url": _referee_url(pool_round, user, referees),
            "admin_url": site_url(
                reverse("admin:competitions_poolround_change", args=[pool_round.pk])
            ),
        },
    )
