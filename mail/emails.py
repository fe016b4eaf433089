"""The league's emails, as healthchecks does them: one small function per kind, which picks the
recipient, the language and the context, and writes the email in the outbox (``mail.outbox``).

Each is written by ids (:func:`~mail.outbox.emails_queue`) with the function that renders it
when the worker sends it (``@renders``): here a pick's receipt, a publication's results, a
season's announcement and an invitation; the others by what they are about (``emails_accounts``,
``emails_replies``, ``weekly``, ``news``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from competitions.models import Pick, PoolRound, Round, TeamResult, VerificationFailure
from competitions.selectors import PoolRoundResults, pool_round_results, round_entries_playing
from competitions.selectors.memory import RecordBroken, record_breaks
from competitions.selectors.memory_links import game_path, game_places
from competitions.services.picks import StalePick
from league.links import password_link
from league.models import Entry, Season, Team
from league.selectors import user_language
from mail.models import EmailKind, OutboundEmail
from mail.outbox import Memo, Rendering, email_queue, emails_queue, renders
from mail.preferences import unsubscribe_url
from matrixhockey.site import site_url


def email_pick_receipt(*, pick: Pick, stale: StalePick | None = None) -> OutboundEmail:
    """The receipt of a received pick, queued in the transaction that stores the pick (one
    INSERT on every pick's path: the request renders nothing): one to the team's coach and one
    to its deputy, whoever of them sent it (R12: both act for the team) — only them: a pick is
    secret until its round is published (:func:`pick_receipt_rendering`). ``stale``: the R11
    warning the sender got, which the receipt repeats. Returns the coach's."""
    team = pick.entry.team
    context: dict[str, object] = {"pick": pick.pk}
    if stale is not None:
        context["stale"] = stale.record
    people = [team.coach_id, *([team.deputy_id] if team.deputy_id else [])]
    emails = emails_queue(
        [OutboundEmail(template="pick-receipt", user_id=who, context=context) for who in people]
    )
    return emails[0]


@renders("pick-receipt")
def pick_receipt_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A receipt, when sent: to its reader (the team's coach or its deputy, when still so; a
    row naming nobody goes to the coach) in their language, with the pick, who sent it, when it
    was received, the round's deadline in the season's time zone and the R11 warning the sender
    got. Nobody for a team without a coach."""
    pick = (
        Pick.objects.select_related(
            "entry__team__coach", "entry__team__deputy", "round__season", "entered_by"
        )
        .filter(pk=email.context["pick"])
        .first()
    )
    if pick is None:
        return None
    team = pick.entry.team
    reader = team.coach
    if email.user_id is not None:
        # R12: the coach and the deputy read the team's picks; a deputy removed since reads none.
        reader = next((p for p in (team.coach, team.deputy) if p and p.pk == email.user_id), None)
    if reader is None:
        return None
    zone = ZoneInfo(pick.round.season.time_zone)
    stale = email.context.get("stale")
    sender = pick.entered_by
    return Rendering(
        user=reader,
        language=user_language(reader),
        context={
            "coach": reader,
            "team": team,
            "round": pick.round,
            "pick": pick,
            "sender": sender,
            "sender_is_reader": sender is not None and sender.pk == reader.pk,
            "sender_is_deputy": sender is not None and sender.pk == team.deputy_id,
            "sender_is_coach": sender is not None and sender.pk == team.coach_id,
            "stale": StalePick.of_record(stale) if stale else None,
            "received_at": timezone.localtime(pick.received_at, zone),
            "deadline": timezone.localtime(pick.round.deadline, zone),
            "time_zone": pick.round.season.time_zone,
            "picks_url": site_url(reverse("picks")),
        },
    )


def email_results_published(*, pool_round: PoolRound) -> list[OutboundEmail]:
    """The results of a published pool round, queued in the publication's transaction: one row
    per coach of a team that played it — a division's twelve, a KDH round's 64; dummy teams
    have no coach — who wants results (``mail.preferences``). Three statements whatever their
    number (whether this publication's rows are written, the coaches, the rows); the worker
    renders each
    (:func:`results_rendering`). Nothing before publication.

    Once per publication: the publication is a conditional update that happens once, and a
    second call finds the rows of this publication (its ``published_at``) written. A round
    voided and published again is a new publication: its new results are sent.
    """
    published_at = pool_round.published_at
    if not pool_round.is_published or published_at is None:
        return []
    publication = {"pool_round": pool_round.pk, "published_at": published_at.isoformat()}
    written = OutboundEmail.objects.filter(
        template="results-published",
        created_at__gte=published_at,
        context__pool_round=pool_round.pk,
        context__published_at=publication["published_at"],
    )
    if written.exists():
        return []
    coach = "entry__team__coach"
    played = (
        TeamResult.objects.filter(pool_round_id=pool_round.pk, entry__team__coach__isnull=False)
        .exclude(entry__team__coach__email="")
        .filter(
            Q(entry__team__coach__email_preferences__isnull=True)
            | Q(entry__team__coach__email_preferences__results=True)
        )
        .order_by("entry__team__name", "id")
        .values_list("entry_id", f"{coach}_id", f"{coach}__email")
    )
    return emails_queue(
        [
            OutboundEmail(
                template="results-published",
                user_id=user_id,
                to=[address],
                context={**publication, "entry": entry_id},
            )
            for entry_id, user_id, address in played
        ]
    )


@renders("results-published")
def results_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A results email, when sent: to its coach in their language, their own game first with
    how its goals were made (R3), links to the results page (seed and draws, R23) and the
    standings, and the records the round broke (issue 25). The pool round's results and its
    records broken are read once for all its emails in one run. Nobody
    when the round was voided since (a new publication writes its own)."""
    pool_round_id, published_at = email.context["pool_round"], email.context["published_at"]
    key = ("results", pool_round_id, published_at)
    breaks_key = ("record_breaks", pool_round_id, published_at)
    if key not in memo:
        found = PoolRound.objects.select_related("pool", "round__season").filter(pk=pool_round_id)
        pool_round = found.first()
        current = (
            pool_round is not None
            and pool_round.is_published
            and pool_round.published_at is not None
            and pool_round.published_at.isoformat() == published_at
        )
        memo[key] = (
            pool_round_results(pool_round=pool_round, explain=True)
            if current and pool_round is not None
            else None
        )
        memo[breaks_key] = (
            _round_record_breaks(pool_round) if current and pool_round is not None else None
        )
    results = memo[key]
    broken = memo[breaks_key]
    coach = email.user
    if not isinstance(results, PoolRoundResults) or coach is None:
        return None
    entry_id = email.context["entry"]
    played = next((team for team in results.teams if team.entry.pk == entry_id), None)
    if played is None:
        return None
    pool, round = results.pool_round.pool, results.pool_round.round
    where = [pool.competition, pool.slug, round.number]
    mine = [game for game in results.games if game.involves(entry_id)]
    others = [game for game in results.games if not game.involves(entry_id)]
    return Rendering(
        user=coach,
        language=user_language(coach),
        context={
            "coach": coach,
            "team": played.entry.team,
            "round": round,
            "pool": pool,
            "results": results,
            "my_game": mine[0] if mine else None,
            "other_games": others,
            "results_url": site_url(reverse("results_pool_round", args=where)),
            "standings_url": site_url(reverse("standings", args=[pool.slug])),
            "record_breaks": broken,
            "records_url": site_url(reverse("records")),
        },
        unsubscribe=unsubscribe_url(user=coach, kind=EmailKind.RESULTS),
    )


@dataclass(frozen=True)
class RoundRecordBreak:
    """A record a published pool round broke, for its results email (issue 25), with the
    address of the game that broke it (its explanation on the results page)."""

    row: RecordBroken
    game_url: str


def _round_record_breaks(pool_round: PoolRound) -> list[RoundRecordBreak]:
    """The records ``pool_round`` broke (its publication stored them; none before it)."""
    broken = record_breaks(season=pool_round.round.season, pool_round=pool_round)
    places = game_places(fixture_ids=(row.holder.fixture_id for row in broken))
    return [
        RoundRecordBreak(
            row=row,
            game_url=site_url(game_path(places[row.holder.fixture_id]))
            if row.holder.fixture_id in places
            else "",
        )
        for row in broken
    ]


def emails_season_started(*, season: Season) -> list[OutboundEmail]:
    """A season's announcement to every coach of it, queued in the start's transaction: one row
    per current entry whose team has a coach with an address, in two statements whatever their
    number; the worker renders each (:func:`season_started_rendering`). The stocks it states
    are the start's (R21), kept in the row: the team may have played some by the time it is
    sent."""
    first = Round.objects.filter(season=season).order_by("deadline").first()
    if first is None:
        return []
    entries = (
        Entry.objects.current(season=season)
        .filter(team__coach__isnull=False)
        .exclude(team__coach__email="")
        .order_by("division__tier", "division__group", "code")
        .values_list("pk", "team__coach_id", "team__coach__email", "extra_goals", "great_saves")
    )
    deadline = first.deadline.isoformat()
    return emails_queue(
        [
            OutboundEmail(
                template="season-started",
                user_id=user_id,
                to=[address],
                context={
                    "entry": entry_id,
                    "first_deadline": deadline,
                    "extra_goals": extra_goals,
                    "great_saves": great_saves,
                },
            )
            for entry_id, user_id, address, extra_goals, great_saves in entries
        ]
    )


@renders("season-started")
def season_started_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A season's announcement, when sent, to the team's coach in their language: the division,
    the code (R16), the stocks (R21) and the first deadline (R13)."""
    entry = (
        Entry.objects.select_related("team__coach", "division", "season")
        .filter(pk=email.context["entry"])
        .first()
    )
    coach = entry.team.coach if entry is not None else None
    if entry is None or coach is None:
        return None
    zone = ZoneInfo(entry.season.time_zone)
    first_deadline = datetime.fromisoformat(email.context["first_deadline"])
    return Rendering(
        user=coach,
        language=user_language(coach),
        context={
            "user": coach,
            "entry": entry,
            "team": entry.team,
            "season": entry.season,
            "division": entry.division.name,
            "code": f"{entry.code:02d}",
            "extra_goals": email.context["extra_goals"],
            "great_saves": email.context["great_saves"],
            "first_deadline": timezone.localtime(first_deadline, zone),
            "time_zone": entry.season.time_zone,
            "picks_url": site_url(reverse("picks")),
        },
    )


def email_invitation(*, user: User) -> OutboundEmail | None:
    """A new coach's invitation, queued for the worker (:func:`invitation_rendering`). Nothing
    for a user without an address."""
    if not user.email:
        return None
    return email_queue(template="invitation", user=user, context={})


@renders("invitation")
def invitation_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """An invitation, when sent, in the coach's language: their team, their user name and a
    link that sets their first password, made now (Django's password-reset token: it works
    once, for ``PASSWORD_RESET_TIMEOUT`` from the sending)."""
    user = email.user
    if user is None:
        return None
    entry = (
        Entry.objects.playing()
        .filter(team__coach=user)
        .select_related("team", "division", "season")
        .order_by("-season__number")
        .first()
    )
    return Rendering(
        user=user,
        language=user_language(user),
        context={
            "user": user,
            "entry": entry,
            "team": entry.team if entry else None,
            "set_password_url": password_link(user),
            "valid_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
            "sign_in_url": site_url(reverse("sign_in")),
        },
    )


def _emails_to_teams(
    entries: Iterable[Entry], template: str, context: dict[str, object]
) -> list[OutboundEmail]:
    """``template``'s email to the coach and the deputy (active, with an address) of each of
    ``entries``' teams, the team's id added to ``context``; queued."""
    return emails_queue(
        [
            OutboundEmail(
                template=template,
                user=person,
                to=[person.email],
                context={**context, "team": entry.team_id},
            )
            for entry in entries
            for person in (entry.team.coach, entry.team.deputy)
            if person is not None and person.is_active and person.email
        ]
    )


def email_deadline_moved(*, round: Round, before: datetime) -> list[OutboundEmail]:
    """A round's deadline moved while its season runs (R13), queued in the move's transaction:
    one row for each coach and each deputy of a team that plays the round (a championship's:
    every team of the season; a cup's: those still in it by the published results), holding
    the deadline before and after, so that a later move sends its own. Essential: always sent
    (:func:`deadline_moved_rendering`)."""
    move = {"round": round.pk, "before": before.isoformat(), "after": round.deadline.isoformat()}
    return _emails_to_teams(round_entries_playing(round=round), "deadline-moved", move)


@renders("deadline-moved")
def deadline_moved_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A moved deadline, when sent: to its coach or deputy in their language, the old and the
    new deadline in the season's time zone (Europe/Paris by default)."""
    person = email.user
    round = Round.objects.select_related("season").filter(pk=email.context["round"]).first()
    team = Team.objects.filter(pk=email.context["team"]).first()
    if person is None or round is None or team is None:
        return None
    zone = ZoneInfo(round.season.time_zone)
    return Rendering(
        user=person,
        language=user_language(person),
        context={
            "person": person,
            "team": team,
            "round": round,
            "before": timezone.localtime(datetime.fromisoformat(email.context["before"]), zone),
            "after": timezone.localtime(datetime.fromisoformat(email.context["after"]), zone),
            "time_zone": round.season.time_zone,
            "picks_url": site_url(reverse("picks")),
        },
    )


def emails_pool_round_voided(*, pool_round: PoolRound, entries: list[int]) -> list[OutboundEmail]:
    """A pool round voided to be replayed, queued in the void's transaction: one row for each
    coach and each deputy of a team that played it (``entries``), holding the void's time, so
    that a later void sends its own. It says the round will be replayed and why, nothing of a
    new result (the round is pending again). Essential: always sent
    (:func:`pool_round_voided_rendering`)."""
    if pool_round.voided_at is None:
        return []
    void = {"pool_round": pool_round.pk, "voided_at": pool_round.voided_at.isoformat()}
    played = (
        Entry.objects.filter(pk__in=entries)
        .select_related("team__coach", "team__deputy")
        .order_by("team__name", "pk")
    )
    return _emails_to_teams(played, "pool-round-voided", void)


@renders("pool-round-voided")
def pool_round_voided_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A voided pool round, when sent: to its coach or deputy in their language, when it was
    voided (the season's time zone) and the reason the referee gave."""
    person = email.user
    pool_round = (
        PoolRound.objects.select_related("pool", "round__season")
        .filter(pk=email.context["pool_round"])
        .first()
    )
    team = Team.objects.filter(pk=email.context["team"]).first()
    if person is None or pool_round is None or team is None or pool_round.voided_at is None:
        return None
    round, pool = pool_round.round, pool_round.pool
    zone = ZoneInfo(round.season.time_zone)
    where = [pool.competition, pool.slug, round.number]
    return Rendering(
        user=person,
        language=user_language(person),
        context={
            "person": person,
            "team": team,
            "round": round,
            "voided_at": timezone.localtime(
                datetime.fromisoformat(email.context["voided_at"]), zone
            ),
            "time_zone": round.season.time_zone,
            "reason": pool_round.void_reason,
            "results_url": site_url(reverse("results_pool_round", args=where)),
        },
    )


def league_admins() -> list[User]:
    """Who is alerted when the league's record is in doubt: the admins (staff superusers) with
    an active account and an address."""
    admins = (
        get_user_model()
        .objects.filter(is_staff=True, is_superuser=True, is_active=True)
        .exclude(email="")
        .order_by("pk")
    )
    return list(admins)


def emails_verification_failed(*, failure: VerificationFailure) -> list[OutboundEmail]:
    """R23: a published pool round that no longer verifies, told to every admin, queued in the
    transaction that records the failure (once per pool round and night: the record's own
    constraint)."""
    return emails_queue(
        [
            OutboundEmail(
                template="verification-failed",
                user=admin,
                to=[admin.email],
                context={"failure": failure.pk},
            )
            for admin in league_admins()
        ]
    )


@renders("verification-failed")
def verification_failed_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A failed verification, when sent: to an admin still staff, in their language, times in
    the season's zone, with the pool round, what differed, the season desk and the admin."""
    admin = email.user
    failure = (
        VerificationFailure.objects.select_related(
            "pool_round__pool__division", "pool_round__round__season"
        )
        .filter(pk=email.context["failure"])
        .first()
    )
    if failure is None or admin is None or not (admin.is_active and admin.is_staff):
        return None
    pool_round = failure.pool_round
    round, pool = pool_round.round, pool_round.pool
    pool_name = pool.display_name
    return Rendering(
        user=admin,
        language=user_language(admin),
        time_zone=round.season.time_zone,
        context={
            "user": admin,
            "time_zone": round.season.time_zone,
            "failure": failure,
            "round": round,
            "pool_name": pool_name,
            "differences": failure.differences,
            "desk_url": site_url(reverse("season_desk") + "#verification"),
            "admin_url": site_url(
                reverse("admin:competitions_poolround_change", args=[pool_round.pk])
            ),
        },
    )
