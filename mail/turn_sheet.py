"""The coach's turn sheet: what a team's coach (or deputy) needs to play its week from a mailbox,
the email twin of the pick page.

For each round the team plays in the week (each competition's): its opponent, once drawn and
public, with what the opponent may still play as « infos équipes » shows it (the published rounds
only, :attr:`Sight.PUBLIC`) and each remaining column's value in the round's row of the matrix
(R19, R25); what the team itself has left (:attr:`Sight.TEAM`, as its pick page), its current pick
with its receipt (R12) and the deadline in the season's time zone (R13); then the lines to fill in
to answer, one per round, in the notation the intake reads (:mod:`mail.inbound`), the team's
games published in the last seven days, its division's table (top and bottom, as published, R9)
and the news.

Everything is read through the pick page's and « infos équipes »' own selectors
(:func:`~competitions.selectors.pick_page.team_picks_page`,
:func:`~competitions.selectors.entries_choices`): no rule is written twice, and nothing of a
round arbitrated but not published shows (R23).

The answer: the intake never reads quoted lines (``>``, ``<blockquote>``,
:func:`mail.inbound.own_text`), so a reply that quotes the sheet stores nothing of it; the coach
writes their pick after the colon of the sheet's lines, in their reply's own text (the lines
copied, or with the quoting ``>`` taken away). The sheet's other lines never read as pick
lines, so a sheet sent back unquoted stores no pick either.

:func:`turn_sheet` renders it (plain text within 76 columns, and HTML) in the person's language:
the Wednesday email (``mail.weekly``) and an ``INFOS`` command's answer send it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from competitions.models import Competition, Pick, Pool, PoolRound, Round, Stage
from competitions.selectors import (
    EntryChoices,
    GameResult,
    Sight,
    TableLine,
    entries_choices,
    pool_rounds_results,
    pool_standings,
    table_lines,
)
from competitions.selectors.pick_page import RoundCard, team_picks_page
from league.links import pick_link
from league.models import Entry, Language, Season, Team
from league.selectors import NewsItem, news_between, season_current, user_language, user_team
from matrixhockey.site import site_url

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

SHEET_WIDTH = 76
"""The plain text's widest line (a link excepted: it cannot be broken)."""
RESULTS_LOOKBACK = timedelta(days=7)
"""The team's games published this long before the sheet's moment are the week's results."""
NEWS_LOOKBACK = timedelta(days=7)
"""The news published this long before the sheet's moment (the Wednesday email gives the news
since the one before)."""
TABLE_ENDS = 3
"""How many teams of the top and of the bottom of the division's table the sheet gives."""

FILL_NAMES: dict[str, dict[str, str]] = {
    Language.FRENCH: {"championship": "Championnat", "kdh": "KDH", "wg": "WG"},
    Language.ENGLISH: {"championship": "Championship", "kdh": "KDH", "wg": "WG"},
}
"""Each competition's name on the lines to fill in, in each language: names the intake reads
(:data:`mail.inbound._COMPETITION_LABELS`, checked by the tests)."""
FILL_ROUNDS: dict[str, str] = {
    Language.FRENCH: "{name} J{number} :",
    Language.ENGLISH: "{name} round {number}:",
}
"""A line to fill in, in each language, in the intake's notation (``Championnat J5 : F+(2)``)."""


def fill_line(*, competition: str, number: int, language: str) -> str:
    """The line a coach completes with their pick for round ``number`` of ``competition``, in
    ``language``: ``Championnat J5 :``, ``KDH round 3:``.

    >>> fill_line(competition="championship", number=5, language="fr")
    'Championnat J5 :'
    >>> fill_line(competition="kdh", number=3, language="en")
    'KDH round 3:'
    """
    language = language if language in FILL_ROUNDS else Language.FRENCH
    name = FILL_NAMES[language][competition]
    return FILL_ROUNDS[language].format(name=name, number=number)


@dataclass(frozen=True)
class Side:
    """What one team may still play in a round's competition: each column left with its value in
    the round's row of the matrix (``None`` while the season is prepared), the extra-time and
    shootout values with their uses left, the stocks (R6, R7, R19)."""

    columns: tuple[tuple[str, int | None], ...]
    extra_time: tuple[tuple[str, int], ...]
    shootout: tuple[tuple[str, int], ...]
    extra_goals: int
    great_saves: int

    @classmethod
    def of(cls, choices: EntryChoices, row: dict[str, int]) -> Side:
        return cls(
            columns=tuple((column, row.get(column)) for column in choices.columns),
            extra_time=tuple((value, left) for value, left in choices.extra_time.items() if left),
            shootout=tuple((value, left) for value, left in choices.shootout.items() if left),
            extra_goals=choices.extra_goals,
            great_saves=choices.great_saves,
        )

    @property
    def columns_text(self) -> str:
        """``A 4 · B 5 · F 3`` (``A · B`` without a matrix row)."""
        return " · ".join(
            column if value is None else f"{column} {value}" for column, value in self.columns
        )

    @property
    def extra_time_text(self) -> str:
        """``0 ×2 · 1 · X``: each value left, with its uses when more than one."""
        return _values_text(self.extra_time)

    @property
    def shootout_text(self) -> str:
        return _values_text(self.shootout)


def _values_text(values: tuple[tuple[str, int], ...]) -> str:
    return " · ".join(value if left == 1 else f"{value} ×{left}" for value, left in values)


@dataclass(frozen=True)
class SheetRound:
    """One round the team plays in the sheet's week."""

    round: Round
    title: StrOrPromise
    stage: StrOrPromise
    deadline: datetime
    mine: Side
    opponent: Entry | None
    """The opponent, once drawn and public (R23); ``None`` before."""
    theirs: Side | None
    """What the opponent may still play, as « infos équipes » shows it (published rounds)."""
    pool: Pool | None
    """The pool the team plays the round in (its « infos équipes »)."""
    current: Pick | None
    """R12: the team's pick that counts so far."""
    fill: str
    """The line to complete with a pick (:func:`fill_line`)."""
    great_saves: bool
    """Whether the competition plays great saves (R6)."""
    shootout: bool
    """Whether the competition plays shootouts (R7: the KDH)."""


@dataclass(frozen=True)
class SheetResult:
    """A published game of the team's, as the results page writes it (R10)."""

    title: StrOrPromise
    round_number: int
    line: str


@dataclass(frozen=True)
class TurnSheetData:
    """Everything a turn sheet says, read for one person at one moment."""

    user: User
    team: Team
    entry: Entry | None
    season: Season | None
    at: datetime
    zone: ZoneInfo
    language: str
    rounds: tuple[SheetRound, ...]
    week: int | None
    """The season's week of :attr:`rounds` (``None`` when the team plays no round ahead)."""
    results: tuple[SheetResult, ...]
    table: tuple[TableLine, ...]
    """The division's table as published: its top and bottom, and the team's own line."""
    table_gap: int
    """Where the table skips teams: the index in :attr:`table` before which a gap falls (0:
    none)."""
    division: str
    news: tuple[NewsItem, ...]
    links: dict[str, str] = field(default_factory=dict)

    @property
    def deadline(self) -> datetime | None:
        return min((sheet_round.deadline for sheet_round in self.rounds), default=None)


@dataclass(frozen=True)
class TurnSheet:
    """A rendered turn sheet: its subject, its plain text and its HTML (a fragment, for an
    email's body)."""

    subject: str
    text: str
    html: str
    data: TurnSheetData


def _sheet_rounds(
    cards: list[RoundCard[None]], *, language: str, zone: ZoneInfo
) -> tuple[SheetRound, ...]:
    """Each card's round with both sides: the opponents' as « infos équipes » reads them (the
    public's sight, each competition's read once)."""
    opponents: dict[str, list[Entry]] = {}
    for card in cards:
        if card.opponent is not None:
            opponents.setdefault(card.round.competition, []).append(card.opponent)
    public = {
        competition: entries_choices(entries=entries, competition=competition, sight=Sight.PUBLIC)
        for competition, entries in opponents.items()
    }
    sheet = []
    for card in cards:
        round = card.round
        rules = Competition(round.competition).rules
        opponent = card.opponent
        theirs = (
            Side.of(public[round.competition][opponent.pk], card.row)
            if opponent is not None
            else None
        )
        sheet.append(
            SheetRound(
                round=round,
                title=card.title,
                stage=card.stage if round.stage != Stage.REGULAR else "",
                deadline=timezone.localtime(round.deadline, zone),
                mine=Side.of(card.choices, card.row),
                opponent=opponent,
                theirs=theirs,
                pool=card.pool,
                current=card.current,
                fill=fill_line(
                    competition=round.competition, number=round.number, language=language
                ),
                great_saves=rules.great_saves,
                shootout=bool(rules.shootout_quota),
            )
        )
    return tuple(sheet)


def _results(entry: Entry, *, at: datetime) -> tuple[SheetResult, ...]:
    """The team's games in the pool rounds published in :data:`RESULTS_LOOKBACK` before ``at``
    (published only: R23)."""
    pool_rounds = list(
        PoolRound.objects.filter(
            pool__season_id=entry.season_id,
            status=PoolRound.Status.PUBLISHED,
            published_at__gt=at - RESULTS_LOOKBACK,
            published_at__lte=at,
        )
        .filter(Q(fixtures__home=entry) | Q(fixtures__away=entry))
        .distinct()
        .select_related("pool__division", "round__season")
        .order_by("round__deadline", "pool__competition", "round__number")
    )
    titles = dict(Competition.choices)
    found = []
    for results in pool_rounds_results(pool_rounds=pool_rounds):
        round = results.pool_round.round
        games: list[GameResult] = [game for game in results.games if game.involves(entry.pk)]
        found += [
            SheetResult(
                title=titles.get(round.competition, round.competition),
                round_number=round.number,
                line=game.line(),
            )
            for game in games
        ]
    return tuple(found)


def _table(entry: Entry) -> tuple[tuple[TableLine, ...], int, str]:
    """The top and the bottom of ``entry``'s division's published table (R9), the team's own
    line between them when it is in neither, and where the gap falls."""
    pool = (
        Pool.objects.filter(
            season_id=entry.season_id,
            competition=Competition.CHAMPIONSHIP,
            division_id=entry.division_id,
        )
        .select_related("division")
        .first()
    )
    if pool is None:
        return (), 0, ""
    rows = pool_standings(pool=pool)
    if not any(row.played for row in rows):
        return (), 0, ""  # nothing published yet: no table to tell
    lines = table_lines(pool=pool, rows=rows)
    name = pool.division.name if pool.division else ""
    if len(lines) <= 2 * TABLE_ENDS + 1:
        return tuple(lines), 0, name
    top, bottom = lines[:TABLE_ENDS], lines[-TABLE_ENDS:]
    middle = [line for line in lines[TABLE_ENDS:-TABLE_ENDS] if line.entry.team_id == entry.team_id]
    shown = top + middle + bottom
    return tuple(shown), TABLE_ENDS, name


def turn_sheet_read(
    user: User,
    *,
    at: datetime | None = None,
    competition: str | None = None,
    week: int | None = None,
    news: list[NewsItem] | None = None,
    team: Team | None = None,
) -> TurnSheetData | None:
    """``user``'s turn sheet at ``at`` (now by default): the rounds of the first week in which
    their team (coached or deputised) has a round still open, or of season's week ``week``
    only, each competition's (``competition``: that one only); the team's results published in
    the last seven days, its division's table and the news (``news``: these, else those of
    the last seven days). ``None`` for someone who coaches no team nor deputises for one, or
    not ``team`` (the team an email was queued for)."""
    at = at or timezone.now()
    found = user_team(user=user)
    if found is None or (team is not None and found.pk != team.pk):
        return None
    team = found
    language = user_language(user)
    season = season_current()
    # The labels and the results' marks (« AP ») worded in the reader's language.
    with translation.override(language):
        page = team_picks_page(team=team, forms=lambda round, choices, current: None, now=at)
        cards = [
            card
            for open_week, week_cards in page.weeks
            for card in week_cards
            if (week is None or open_week.week == week)
            and (competition is None or card.round.competition == competition)
        ]
        first_week = min((card.round.week for card in cards), default=None)
        cards = [card for card in cards if card.round.week == first_week]
        entry = cards[0].open_round.entry if cards else None
        if entry is None and season is not None:
            entry = Entry.objects.current_of(team, season=season).first()
        rounds = _sheet_rounds(cards, language=language, zone=page.zone)
        table: tuple[TableLine, ...] = ()
        gap, division = 0, ""
        results: tuple[SheetResult, ...] = ()
        if entry is not None:
            results = _results(entry, at=at)
            table, gap, division = _table(entry)
    if news is None:
        news = news_between(after=at - NEWS_LOOKBACK, until=at, language=language)
    links = {"picks": pick_link(user), "results": site_url(reverse("results_latest"))}
    if entry is not None:
        links["standings"] = site_url(reverse("standings", args=[entry.division.slug]))
    for sheet_round in rounds:
        pool = sheet_round.pool
        if pool is not None:
            links.setdefault(
                f"infos_{pool.competition}",
                site_url(reverse("infos", args=[pool.competition, pool.slug])),
            )
    return TurnSheetData(
        user=user,
        team=team,
        entry=entry,
        season=season,
        at=at,
        zone=page.zone,
        language=language,
        rounds=rounds,
        week=first_week,
        results=results,
        table=table,
        table_gap=gap,
        division=division,
        news=tuple(news),
        links=links,
    )


def turn_sheet_context(data: TurnSheetData) -> dict[str, object]:
    """What the sheet's templates (``emails/_turn_sheet.txt``, ``.html``) read."""
    return {"sheet": data, "time_zone": str(data.zone)}


def turn_sheet_render(data: TurnSheetData) -> TurnSheet:
    """``data`` as text and HTML, in its reader's language, times in the season's zone."""
    context = turn_sheet_context(data)
    with translation.override(data.language), timezone.override(data.zone):
        subject = " ".join(render_to_string("emails/_turn_sheet_subject.txt", context).split())
        text = render_to_string("emails/_turn_sheet.txt", context).strip() + "\n"
        html = render_to_string("emails/_turn_sheet.html", context)
    return TurnSheet(subject=subject, text=text, html=html, data=data)


def turn_sheet(
    user: User, *, at: datetime | None = None, competition: str | None = None
) -> TurnSheet | None:
    """``user``'s turn sheet at ``at`` (now by default), for every competition their team plays
    in its next open week or ``competition`` only (a :class:`Competition` value), rendered in
    their language (:class:`TurnSheet`: subject, plain text, HTML fragment): what an ``INFOS``
    command answers. ``None`` for someone who coaches no team nor deputises for one."""
    data = turn_sheet_read(user, at=at, competition=competition)
    return None if data is None else turn_sheet_render(data)
