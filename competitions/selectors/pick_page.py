"""The coach's pick page as one value: the open rounds by week, each round's card (what the team
has left, what it sent, its opponent, the matrix row, R11's spoken-for columns), the pick just
sent and, between seasons, the team's plan.

Secrecy: everything here is the coach's own team's, or public (opponents once drawn and public,
columns held after published rounds only, R25).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Generic, TypeVar
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone
from django.utils.text import capfirst

from competitions.models import Competition, Pick, Pool, Round
from competitions.selectors.entries import Sight
from competitions.selectors.matrices import ColumnsHeld, rounds_columns_held, rounds_rows
from competitions.selectors.picks import (
    EntryChoices,
    EntryGame,
    entry_choices_everywhere,
    entry_games,
    entry_pools,
    game_stage_name,
    public_draws,
)
from competitions.selectors.rounds import OpenRound, OpenWeek, entry_rounds_open
from competitions.selectors.season_desk import FINISHED, season_desk
from competitions.selectors.spoken import SpokenFor, entries_spoken_for
from competitions.services.season_plan import season_plan_team
from league.models import Entry, Team
from league.selectors import season_current

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

FormT = TypeVar("FormT")
"""The pick form a card carries: the view's, built by the factory it gives
(:func:`team_picks_page`); selectors know no forms."""

FormFactory = Callable[[Round, EntryChoices, Pick | None], FormT]
"""Builds one round's form from the round, what the team has left in its competition and the
team's current pick for it (R12), if any."""


def round_anchor(round: Round) -> str:
    """A round's anchor on the page, and its form's prefix: ``championship-3``."""
    return f"{round.competition}-{round.number}"


@dataclass(frozen=True)
class RoundCard(Generic[FormT]):
    """One open round on the pick page: its form, what the team has left, what it sent."""

    open_round: OpenRound
    form: FormT
    choices: EntryChoices
    history: tuple[Pick, ...]
    """Every pick received for the round, latest first (R12)."""
    anchor: str
    spoken: SpokenFor = field(default_factory=SpokenFor)
    """What the team's picks for earlier unplayed rounds already use (R11)."""
    opponent: Entry | None = None
    """The team's opponent in this round, once the game is drawn and public."""
    pool: Pool | None = None
    """The pool the team plays this round in (its « infos équipes »)."""
    title: StrOrPromise = ""
    """The competition, in words (worded once for the page, like the labels below)."""
    stage: StrOrPromise = ""
    channels: dict[str, str] = field(default_factory=dict)
    """Each channel's label, by value."""
    row: dict[str, int] = field(default_factory=dict)
    """R25: each column's value in this round's row of the competition's matrix (R19); empty
    while the season is prepared."""
    held: ColumnsHeld | None = None
    """How many other teams of the round's crowding pool (R2) still have each column, after the
    published rounds only (R25: crowding stays unknown until publication)."""

    @property
    def round(self) -> Round:
        return self.open_round.round

    @property
    def current(self) -> Pick | None:
        """R12: the pick that counts, the last received."""
        return self.history[0] if self.history else None

    @property
    def current_channel(self) -> str:
        return self._channel(self.current) if self.current else ""

    @property
    def history_channels(self) -> list[tuple[Pick, str]]:
        return [(pick, self._channel(pick)) for pick in self.history]

    def _channel(self, pick: Pick) -> str:
        return self.channels.get(pick.channel, pick.channel)

    def column_tiles(self) -> list[tuple[str, str, int | None, int | None, int | None]]:
        """Each column the team has left: value, label, the earlier round whose pick uses it,
        its value in the round's matrix row and how many other teams of the crowding pool still
        have it."""
        return [
            (
                column,
                column,
                self.spoken.columns.get(column),
                self.row.get(column),
                self.held.columns.get(column) if self.held else None,
            )
            for column in self.choices.columns
        ]

    def extra_time_tiles(self) -> list[tuple[str, int, int, bool]]:
        """Each extra-time value left: value, uses left, uses earlier picks speak for, and
        whether they speak for every use left (R11: repeated here, it would be redrawn)."""
        spoken = self.spoken
        return [
            (value, left, spoken.extra_time[value], spoken.extra_time_promised(value, left))
            for value, left in self.choices.extra_time.items()
        ]

    def shootout_tiles(self) -> list[tuple[str, int, bool]]:
        """Each shootout value left (KDH): value, uses left, and whether earlier picks speak for
        every use left (R11)."""
        return [
            (value, left, self.spoken.shootout_promised(value, left))
            for value, left in self.choices.shootout.items()
        ]


@dataclass(frozen=True)
class PicksPage(Generic[FormT]):
    """The coach's pick page: the rounds ``team`` may still send picks for, by week, each as a
    :class:`RoundCard`; the pick just sent (its receipt on screen); between a closed season and
    the next one's start, when no round is open, the team's plan (R21, R22)."""

    team: Team
    weeks: tuple[tuple[OpenWeek, tuple[RoundCard[FormT], ...]], ...]
    zone: ZoneInfo
    """The season's time zone (R13), the pages' times."""
    now: datetime
    sent: Pick | None = None
    next_season: dict[str, object] | None = None


@dataclass(frozen=True)
class _Reads:
    """What the page reads once for every card: the team's choices in each competition, what
    earlier unplayed picks use (R11), the pools, the games (opponents, labels), the matrix rows
    and the columns held (R25)."""

    choices: dict[str, EntryChoices]
    spoken: dict[int, SpokenFor]
    pools: dict[str, Pool]
    games: dict[int, EntryGame]
    rows: dict[int, dict[str, int]]
    held: dict[int, ColumnsHeld]


def _reads(open_rounds: list[OpenRound], pools: dict[str, Pool]) -> _Reads:
    if not open_rounds:
        return _Reads(choices={}, spoken={}, pools={}, games={}, rows={}, held={})
    entry = open_rounds[0].entry
    rounds = [open_round.round for open_round in open_rounds]
    # R23: the draws an arbitration made stay secret until it is published, for the opponents
    # and the crowding pools alike: read once for both.
    draws = public_draws(pools=pools.values())
    return _Reads(
        choices=entry_choices_everywhere(
            entry=entry,
            competitions={round.competition for round in rounds},
            # R23: what the team knows, from the published rounds and its own picks.
            sight=Sight.TEAM,
        ),
        spoken=entries_spoken_for(entry=entry, rounds=rounds),
        pools=pools,
        games=entry_games(entry=entry, rounds=rounds, pools=pools, draws=draws),
        # R25: the rounds' matrix rows, and how many teams of each crowding pool (R2) still have
        # each column after the published rounds (R1's crowding itself is unknown until then).
        rows=rounds_rows(season=rounds[0].season, rounds=rounds),
        held=rounds_columns_held(entry=entry, rounds=rounds, pools=pools, draws=draws),
    )


def _next_season(team: Team) -> dict[str, object] | None:
    """Between a closed season and the next one's start, the team's plan (R21, R22)."""
    desk = season_desk()
    if desk.stage != FINISHED or desk.season is None:
        return None
    return season_plan_team(season=desk.season, team_slug=team.slug)


def team_picks_page(
    *,
    team: Team,
    forms: FormFactory[FormT],
    sent_id: int | None = None,
    now: datetime | None = None,
) -> PicksPage[FormT]:
    """``team``'s pick page (:class:`PicksPage`), each round's form from ``forms``; ``sent_id``:
    the pick just sent, shown with its receipt when it is the team's; ``now``: the moment it is
    read at (the rounds whose deadline is still ahead then; the coach's turn sheet,
    ``mail.turn_sheet``, reads it at the moment it is about). A constant number of queries
    whatever the number of open rounds."""
    now = now or timezone.now()
    season = season_current()
    entry = Entry.objects.current_of(team, season=season).first() if season else None
    # The pools the team plays in: which cup rounds it plays, its opponents, its crowding pools.
    pools = entry_pools(entry=entry) if entry else {}
    weeks = entry_rounds_open(entry=entry, now=now, pools=pools) if entry else []
    reads = _reads([open_round for week in weeks for open_round in week.rounds], pools)
    # Labels every card repeats, worded once for the page.
    titles = {value: capfirst(label) for value, label in Competition.choices}
    channels = {value: str(label) for value, label in Pick.Channel.choices}

    def card(open_round: OpenRound) -> RoundCard[FormT]:
        round = open_round.round
        choices = reads.choices[round.competition]
        row = reads.rows.get(round.pk, {})
        game = reads.games.get(round.pk)
        return RoundCard(
            open_round=open_round,
            form=forms(round, choices, open_round.history[0] if open_round.history else None),
            choices=choices,
            history=tuple(open_round.history),
            anchor=round_anchor(round),
            spoken=reads.spoken.get(round.pk, SpokenFor()),
            opponent=game.opponent if game else None,
            pool=reads.pools.get(round.competition),
            title=titles.get(round.competition, round.competition),
            stage=game_stage_name(round, game),
            channels=channels,
            row=row,
            # The counts go with the values they explain: none without a matrix row.
            held=reads.held.get(round.pk) if row else None,
        )

    sent = None
    if sent_id is not None:
        sent = (
            Pick.objects.filter(pk=sent_id, entry__team=team)
            .select_related("round__season", "entry__team", "entered_by")
            .first()
        )
    return PicksPage(
        team=team,
        weeks=tuple((week, tuple(map(card, week.rounds))) for week in weeks),
        zone=ZoneInfo(season.time_zone if season else settings.TIME_ZONE),
        now=now,
        sent=sent,
        next_season=None if weeks else _next_season(team),
    )
