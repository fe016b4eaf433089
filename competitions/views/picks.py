"""The coach's pick pages and infos équipes.

Views stay thin: they read through selectors, write through services and render. Secrecy: no
page here shows a pick of another team (the pick page is the coach's own team's; infos équipes
reads published rounds only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from competitions import services
from competitions.forms import PickForm
from competitions.models import Competition, Pick, Pool, Round, Stage
from competitions.selectors import (
    ColumnsHeld,
    EntryChoices,
    OpenRound,
    choices_any,
    entry_choices,
    entry_choices_everywhere,
    entry_opponents,
    entry_pools,
    pick_team_and_round,
    pool_infos_grid,
    rounds_columns_held,
    rounds_rows,
    team_rounds_open,
)
from competitions.selectors.season_desk import FINISHED, season_desk
from competitions.selectors.spoken import SpokenFor, entries_spoken_for, entry_spoken_for
from competitions.services import DeadlinePassed, PickRejected
from competitions.services.season_plan import season_plan_team
from engine import Pick as EnginePick
from league.models import Entry, Team
from league.public_cache import public_page
from league.season_lookup import season_asked, season_query
from league.selectors import season_current, user_team
from matrixhockey.http import SignedInRequest

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

SENT_PICK_COOKIE = "sent_pick"
"""The pick just sent, for the page the form redirects to (its receipt on screen): a signed
cookie of a minute, read and deleted there. A cookie, not the session, so that sending a pick
writes the pick and nothing else (a session write is a second transaction on every pick)."""
SENT_PICK_MAX_AGE = 60


@dataclass
class RoundCard:
    """One open round on the pick page: its form, what the team has left, what it sent."""

    open_round: OpenRound
    form: PickForm
    choices: EntryChoices
    history: list[Pick]
    anchor: str
    spoken: SpokenFor = field(default_factory=SpokenFor)
    """What the team's picks for earlier unplayed rounds already use (R11)."""
    opponent: Entry | None = None
    """The team's opponent in this round, once the game is drawn and public."""
    pool: Pool | None = None
    """The pool the team plays this round in (its « infos équipes »)."""
    title: StrOrPromise = ""
    """The competition, in words (worded once for the page, like the labels below)."""
    stage: str = ""
    channels: dict[str, str] | None = None
    """Each channel's label, by value."""
    row: dict[str, int] = field(default_factory=dict)
    """R25: each column's value in this round's row of the competition's matrix (R19); empty
    while the season is prepared."""
    held: ColumnsHeld | None = None
    """How many other teams of the round's crowding pool (R2) still have each column, after the
    published rounds only (R25: crowding stays unknown until publication)."""

    @property
    def current_channel(self) -> str:
        return self._channel(self.current) if self.current else ""

    @property
    def history_channels(self) -> list[tuple[Pick, str]]:
        return [(pick, self._channel(pick)) for pick in self.history]

    def _channel(self, pick: Pick) -> str:
        return (self.channels or {}).get(pick.channel, pick.channel)

    @property
    def round(self) -> Round:
        return self.open_round.round

    def column_tiles(self) -> list[tuple[str, str, int | None, int | None, int | None]]:
        """Each column offered: value, label, the earlier round whose pick uses it, its value in
        the round's matrix row and how many other teams of the crowding pool still have it."""
        return [
            (
                value,
                label,
                self.spoken.columns.get(value),
                self.row.get(value),
                self.held.columns.get(value) if self.held else None,
            )
            for value, label in self.form.fields["column"].choices
        ]

    def extra_time_tiles(self) -> list[tuple[str, int, int]]:
        """Each extra-time value left: value, uses left, and uses earlier picks speak for."""
        return [
            (value, left, self.spoken.extra_time[value])
            for value, left in self.choices.extra_time.items()
        ]

    @property
    def current(self) -> Pick | None:
        return self.history[0] if self.history else None


@dataclass
class Refused:
    """A pick refused for a round that is no longer on the page (its deadline passed)."""

    round: Round
    pick: str
    message: StrOrPromise


def countdown_labels() -> dict[str, str]:
    """The words of ``static/js/countdown.js`` in the page's language (the pick page's and the
    home page's deadlines)."""
    return {
        "days": pgettext("short for days, in a countdown", "d"),
        "hours": pgettext("short for hours, in a countdown", "h"),
        "minutes": pgettext("short for minutes, in a countdown", "min"),
        "seconds": pgettext("short for seconds, in a countdown", "s"),
        "closed": _("Deadline passed: picks are closed."),
    }


def _anchor(round: Round) -> str:
    return f"{round.competition}-{round.number}"


def _team_of(user: User) -> Team | None:
    return user_team(user=user)


def _next_season(team: Team) -> dict[str, object] | None:
    """Between a closed season and the next one's start, the team's plan (R21, R22)."""
    desk = season_desk()
    if desk.stage != FINISHED or desk.season is None:
        return None
    return season_plan_team(season=desk.season, team_slug=team.slug)


def _picks_page(
    request: HttpRequest,
    team: Team,
    *,
    bound: PickForm | None = None,
    bound_round: Round | None = None,
    refused: Refused | None = None,
    status: int = 200,
) -> HttpResponse:
    weeks = team_rounds_open(team=team)
    season = season_current()
    zone = ZoneInfo(season.time_zone) if season else ZoneInfo(settings.TIME_ZONE)
    open_rounds = [open_round for week in weeks for open_round in week.rounds]
    every_choice = (
        entry_choices_everywhere(
            entry=open_rounds[0].entry,
            competitions={open_round.competition for open_round in open_rounds},
            published_only=False,
        )
        if open_rounds
        else {}
    )
    # What earlier unplayed picks already use (R11), the opponents and the pools: read once.
    entry = open_rounds[0].entry if open_rounds else None
    rounds = [open_round.round for open_round in open_rounds]
    spoken = entries_spoken_for(entry=entry, rounds=rounds) if entry else {}
    pools = entry_pools(entry=entry) if entry else {}
    opponents = entry_opponents(entry=entry, rounds=rounds, pools=pools) if entry else {}
    # R25: the rounds' matrix rows, and how many teams of each crowding pool (R2) still have
    # each column after the published rounds (R1's crowding itself is unknown until then).
    rows = rounds_rows(season=season, rounds=rounds) if season else {}
    held = rounds_columns_held(entry=entry, rounds=rounds, pools=pools) if entry else {}
    # Labels every card repeats, worded once for the page.
    competitions = {value: capfirst(label) for value, label in Competition.choices}
    stages = {value: str(label) for value, label in Stage.choices}
    channels = {value: str(label) for value, label in Pick.Channel.choices}
    cards_by_week = []
    for week in weeks:
        cards = []
        for open_round in week.rounds:
            round = open_round.round
            choices = every_choice[round.competition]
            if bound is not None and bound_round is not None and bound_round.pk == round.pk:
                form = bound
            else:
                form = PickForm(choices=choices, prefix=_anchor(round))
            history = list(open_round.history)
            cards.append(
                RoundCard(
                    open_round=open_round,
                    form=form,
                    choices=choices,
                    history=history,
                    anchor=_anchor(round),
                    spoken=spoken.get(round.pk, SpokenFor()),
                    opponent=opponents.get(round.pk),
                    pool=pools.get(round.competition),
                    title=competitions.get(round.competition, round.competition),
                    stage=stages.get(round.stage, round.stage),
                    channels=channels,
                    row=rows.get(round.pk, {}),
                    # The counts go with the values they explain: none without a matrix row.
                    held=held.get(round.pk) if rows.get(round.pk) else None,
                )
            )
        cards_by_week.append((week, cards))
    sent = None
    sent_id = request.get_signed_cookie(
        SENT_PICK_COOKIE, default=None, salt=SENT_PICK_COOKIE, max_age=SENT_PICK_MAX_AGE
    )
    if sent_id is not None and sent_id.isdigit():
        sent = (
            Pick.objects.filter(pk=int(sent_id), entry__team=team)
            .select_related("round__season", "entry__team")
            .first()
        )
    context = {
        "team": team,
        "weeks": cards_by_week,
        "sent": sent,
        "refused": refused,
        "zone": zone,
        "now": timezone.now(),
        "next_season": _next_season(team) if not weeks else None,
        "countdown_labels": countdown_labels(),
    }
    response = render(request, "league/picks.html", context, status=status)
    if SENT_PICK_COOKIE in request.COOKIES:  # shown once
        response.delete_cookie(SENT_PICK_COOKIE, path=reverse("picks"), samesite="Lax")
    return response


@login_required
def picks(request: SignedInRequest) -> HttpResponse:
    """The coach's open rounds, by week, each with its pick form, current pick and history."""
    team = _team_of(request.user)
    if team is None:
        return render(request, "league/picks_no_team.html")
    return _picks_page(request, team)


@login_required
@require_POST
def pick_send(request: SignedInRequest, competition: str, number: int) -> HttpResponse:
    """Send one round's pick (post/redirect/get): the receipt on the page and by email.

    The form only gathers the pick (tiles or typed, R10) against everything the competition
    offers (``choices_any``, no query); whether the team still has it is the service's check,
    made under the team's lock. Only a refused pick reads what the team has left, to show the
    form again as the page shows it.
    """
    team, round = pick_team_and_round(user=request.user, competition=competition, number=number)
    if team is None:
        return render(request, "league/picks_no_team.html", status=403)
    if round is None:
        raise Http404(_("There is no such round this season."))
    prefix = _anchor(round)
    form = PickForm(request.POST, choices=choices_any(competition=round.competition), prefix=prefix)
    refusal = None
    if form.is_valid():
        try:
            pick = services.pick_send(
                team=team,
                round=round,
                notation=form.cleaned_data["pick"],
                entered_by=request.user,
            )
        except DeadlinePassed as error:
            refused = Refused(round=round, pick=form.cleaned_data["pick"], message=error.message)
            return _picks_page(request, team, refused=refused, status=409)
        except PickRejected as error:
            refusal = error
        else:
            _warn_repeats(request, round=round, pick=pick)
            response = redirect(reverse("picks") + "#receipt")
            response.set_signed_cookie(
                SENT_PICK_COOKIE,
                str(pick.pk),
                salt=SENT_PICK_COOKIE,
                max_age=SENT_PICK_MAX_AGE,
                path=reverse("picks"),
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
            return response
    entry = get_object_or_404(Entry, season=round.season, team=team, replaced_at__isnull=True)
    choices = entry_choices(entry=entry, competition=round.competition, published_only=False)
    form = PickForm(request.POST, choices=choices, prefix=prefix)
    if form.is_valid() and refusal is not None:
        form.add_error(None, refusal)
    return _picks_page(request, team, bound=form, bound_round=round, status=400)


def _warn_repeats(request: HttpRequest, *, round: Round, pick: Pick) -> None:
    """R11: an advance pick whose column a pick for an earlier, unplayed round already uses is
    kept, but the coach is warned (the tiles say so before sending too)."""
    spoken = entry_spoken_for(entry=pick.entry, round=round)
    column = EnginePick.parse(pick.normalized).column
    if column in spoken.columns:
        messages.warning(
            request,
            _(
                "Your pick for round %(number)s already uses column %(column)s: if that round is "
                "played first, this pick's column will be redrawn among those left (R11)."
            )
            % {"number": spoken.columns[column], "column": column},
        )


@public_page
def infos_index(request: HttpRequest) -> HttpResponse:
    """Infos équipes: the coach's own division, or the Elite (of ``?season=N``, else the
    current season)."""
    season = season_asked(request)
    entry = None
    if request.user.is_authenticated:
        entry = Entry.objects.filter(
            season=season, team__coach=request.user, replaced_at__isnull=True
        ).first()
    pools = Pool.objects.filter(season=season, competition=Competition.CHAMPIONSHIP)
    pool = (pools.filter(division=entry.division).first() if entry else None) or pools.order_by(
        "division__tier", "division__group"
    ).first()
    if pool is None:
        raise Http404(_("No pool is set up this season."))
    url = reverse("infos", kwargs={"competition": pool.competition, "pool": pool.slug})
    return redirect(url + season_query(season))


@public_page
def infos(request: HttpRequest, competition: str, pool: str) -> HttpResponse:
    """« Infos équipes » (public): a pool's teams × the columns, extra-time (and shootout) values
    and stocks, each cell saying whether the team can still play it after the *published*
    rounds — nothing of unpublished ones. A signed-in coach of the pool sees their team's
    opponents in the open rounds first and their own row marked. Any season: ``?season=N``,
    else the current one."""
    season = season_asked(request)
    grid = pool_infos_grid(
        season=season, competition=competition, pool_slug=pool, user=request.user
    )
    if grid is None:
        raise Http404(_("No such pool this season."))
    context = {"grid": grid, "season": season, "season_query": season_query(season)}
    return render(request, "league/infos.html", context)
