"""The answers to commands by email (:mod:`mail.commands`), worded when the reply is rendered
(:mod:`mail.emails_replies`), in the reader's language, from what the site's own pages read:
the standings page's table (:func:`~competitions.selectors.standings.pool_standings_table`,
published rounds only), the results page's games and explanations (R3, published rounds only),
the public matrices (R25), the pick page's open rounds and their current picks (R12, the
team's own), the team page's deputy form (R12: the coach confirms there, signed in), the
turn sheet (:mod:`mail.turn_sheet`, the Wednesday email's). Plain text of 76 columns at most:
a mail client shows it as it is, and the HTML alternative shows it in a ``<pre>`` (the turn
sheet has its own HTML).

Nothing here tells what the site would not tell the same reader: no unpublished round's
result, table or draw, no other team's picks.
"""

from __future__ import annotations

import logging
import re
import textwrap
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from competitions.models import Competition, Pool, PoolRound
from competitions.selectors.matrices import season_matrix
from competitions.selectors.picks import entry_pools
from competitions.selectors.results import GameResult, pool_round_results
from competitions.selectors.rounds import team_rounds_open
from competitions.selectors.standings import (
    TableLine,
    pool_standings_table,
    table_lines,
    wg_group_standings_tables,
)
from competitions.templatetags.explanations import signed, step_words
from league.models import Entry, Season, Team
from league.selectors import season_current
from league.templatetags.rulings import rules_url
from mail.commands import COMMANDS_MAX
from mail.turn_sheet import turn_sheet
from matrixhockey.french import date_format
from matrixhockey.site import site_url

logger = logging.getLogger(__name__)

WIDTH = 76
"""The plain text's columns."""


@dataclass(frozen=True)
class Answer:
    """One command's answer: the line it answers, a title, its plain text, and an HTML version
    when it has its own (else the text is shown as it is)."""

    line: str
    title: str
    text: str
    html: str = ""


def _when(moment: datetime, season: Season | None) -> str:
    """``moment`` in the season's time zone (Paris), in the active language's format."""
    zone = ZoneInfo(season.time_zone if season is not None else "Europe/Paris")
    local = timezone.localtime(moment, zone)
    return f"{date_format(local, 'DATETIME_FORMAT')} ({zone.key})"


def _competition_label(competition: str) -> str:
    return capfirst(str(Competition(competition).label))


def wrapped(text: str) -> str:
    """``text`` in :data:`WIDTH` columns: a longer line is wrapped at its spaces, its next lines
    indented under its words (an address or a long word is never cut)."""
    lines = []
    for line in text.splitlines():
        if len(line) <= WIDTH:
            lines.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        step = re.match(r"^(\s+\S{1,3}\s+)", line)
        lines.append(
            textwrap.fill(
                line,
                WIDTH,
                subsequent_indent=" " * len(step.group(1)) if step else indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(lines)


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# --- Help -----------------------------------------------------------------------------------------


def help_text() -> str:
    """The commands and the notation, with an example."""
    rules_label = _("Rules:")
    rows = [
        ("AIDE / HELP", _("this help")),
        ("INFOS / INFO [competition]", _("your turn sheet, now")),
        ("ORDRES / PICKS", _("your current picks, every open round")),
        ("CLASSEMENT / STANDINGS [pool]", _("a table (your division's)")),
        ("RÉSULTATS / RESULTS [comp.] [J3]", _("published results, explained")),
        ("MATRICE / MATRIX [competition]", _("the season's matrix")),
        ("ADJOINT / DEPUTY address", _("name your deputy (coach)")),
        ("ADJOINT AUCUN / DEPUTY NONE", _("remove your deputy (coach)")),
        ("LISTE / JOIN team name", _("join the waiting list")),
    ]
    lines = [
        _("Write one command a line, in French or English, in any case, with or without accents:"),
        "",
        *(f"  {_fit(word, 33):<33} {_fit(what, WIDTH - 36)}" for word, what in rows),
        "",
        _("Competitions: Championnat / Championship, KDH, WG. Pools: a division's slug."),
        "",
        _("Picks: one line per competition (R10, R12):"),
        # The examples between « »: sent back unquoted, they are no pick lines nor commands.
        "    « Championnat : F+(2) »          « Championship: F+(2) »",
        "    « KDH : C(1)(4) »                « KDH: C(1)(4) »",
        "    « WG : A(0) »                    « WG: A(0) »",
        "    « Championnat J5 : D++(1) »      « Championship round 5: D++(1) »",
        "",
        _("An example of a message, picks and commands together (without the « »):"),
        "    « Championnat : F+(2) »",
        "    « KDH : C(1)(4) »",
        "    « CLASSEMENT »",
        "    « RÉSULTATS KDH »",
        "",
        f"{rules_label} {rules_url()}",
    ]
    return "\n".join(lines)


# --- PICKS ----------------------------------------------------------------------------------------


def picks_text(team: Team) -> str:
    """The team's current pick for every round still open to it (the pick page's, R12), with
    its receipt — its own picks only, and no round already played."""
    no_pick, receipt_label, picks_label = _("no pick yet"), _("Receipt:"), _("Your picks:")
    season = season_current()
    weeks = team_rounds_open(team=team)
    if not weeks:
        return _("No round is open for your team's picks.")
    lines: list[str] = []
    for week in weeks:
        lines.append(
            _("Week %(week)s — deadline %(deadline)s")
            % {"week": week.week, "deadline": _when(week.deadline, season)}
        )
        for open_round in week.rounds:
            # The round first: a line of this answer sent back unquoted never reads as a pick
            # line (one starts with its competition, mail.inbound).
            name = _("Round %(number)s, %(competition)s") % {
                "competition": _competition_label(open_round.competition),
                "number": open_round.round.number,
            }
            current = open_round.current
            if current is None:
                lines.append(f"  {name}: {no_pick}")
                continue
            lines.append(f"  {name}: {current.normalized}")
            lines.append(
                "    "
                + _("received %(when)s (%(channel)s)")
                % {
                    "when": _when(current.received_at, season),
                    "channel": current.get_channel_display(),
                }
            )
            lines.append(f"    {receipt_label} {current.receipt}")
        lines.append("")
    lines.append(f"{picks_label} {site_url(reverse('picks'))}")
    return "\n".join(lines)


# --- STANDINGS ------------------------------------------------------------------------------------


def _entry(team: Team, season: Season | None) -> Entry | None:
    if season is None:
        return None
    return Entry.objects.current_of(team, season=season).select_related("division").first()


def _table_text(lines: list[TableLine], *, mine: int | None) -> str:
    # The standings page's headings (templates/standings/_table_head.html).
    team_label = _("Team")
    head = (
        f"{'#':>3}  {team_label:<24}"
        f"{pgettext('standings column: points', 'Pts'):>4}"
        f"{pgettext('standings column: games played', 'P'):>4}"
        f"{pgettext('standings column: wins', 'W'):>4}"
        f"{pgettext('standings column: regulation wins', 'RW'):>4}"
        f"{pgettext('standings column: draws', 'D'):>4}"
        f"{pgettext('standings column: extra-time losses', 'ETL'):>4}"
        f"{pgettext('standings column: losses', 'L'):>4}"
        f"{pgettext('standings column: goals for', 'GF'):>5}"
        f"{pgettext('standings column: goals against', 'GA'):>5}"
        f"{pgettext('standings column: goal difference', 'Diff'):>5}"
    )
    rows = [head]
    for line in lines:
        row = line.row
        marks = {"up": " ▲", "down": " ▼"}.get(line.zone, "")
        marks += " *" if line.entry.pk == mine else ""
        difference = f"{'+' if row.goal_difference > 0 else ''}{row.goal_difference}"
        rows.append(
            f"{row.rank:>3}  {_fit(line.entry.team.name, 23):<24}"
            f"{row.points:>4}{row.played:>4}{row.wins:>4}{row.regulation_wins:>4}{row.draws:>4}"
            f"{row.extra_time_losses:>4}{row.losses:>4}{row.goals_for:>5}{row.goals_against:>5}"
            f"{difference:>5}{marks}"
        )
    return "\n".join(rows)


def standings_text(team: Team, args: dict[str, Any]) -> tuple[str, str]:
    """A pool's table after the published rounds (the standings page's): the title and the
    text. The team's own division when no pool is named."""
    season = season_current()
    if season is None:
        return _("Standings"), _("No season is being played.")
    entry = _entry(team, season)
    pools = Pool.objects.filter(season=season).select_related("division")
    asked = str(args.get("pool", "")).lower()
    if asked:
        pool = pools.filter(slug=asked).first()
        if pool is None:
            known = ", ".join(
                pools.order_by("competition", "division__tier", "slug").values_list(
                    "slug", flat=True
                )
            )
            return _("Standings"), _("No pool « %(pool)s » this season. The pools: %(pools)s.") % {
                "pool": asked,
                "pools": known,
            }
    else:
        own = entry_pools(entry=entry).get(Competition.CHAMPIONSHIP) if entry else None
        pool = (
            own
            or pools.filter(competition=Competition.CHAMPIONSHIP)
            .order_by("division__tier", "division__group")
            .first()
        )
        if pool is None:
            return _("Standings"), _("No pool is set up this season.")
    title = _("Standings — %(pool)s") % {"pool": pool.display_name}
    url = site_url(reverse("standings", kwargs={"pool": pool.slug}))
    mine = entry.pk if entry else None
    if pool.kind.divisional:
        table = pool_standings_table(pool=pool)
        lines = table_lines(pool=pool, rows=table.rows, dies=table.dies)
        body = _table_text(lines, mine=mine) if lines else _("No team in this pool yet.")
        legend = _(
            "After the published rounds (R9). ▲ promotion place, ▼ relegation place (R22), "
            "if the season ended today."
        )
    elif pool.kind.groups:
        parts = []
        for group, group_table in wg_group_standings_tables(pool=pool).items():
            lines = table_lines(pool=pool, rows=group_table.rows, dies=group_table.dies)
            parts.append(_("Group %(group)s") % {"group": group})
            parts.append(_table_text(lines, mine=mine))
            parts.append("")
        body = "\n".join(parts).strip() or _("No group is drawn yet.")
        legend = _("After the published rounds (R9, R18).")
    else:
        body = _("The KDH is a knockout cup: its bracket is on the site.")
        legend = ""
    parts = [body, ""]
    if legend:
        parts.append(legend)
    if mine is not None and pool.kind.has_table:
        parts.append(_("* your team"))
    standings_label = _("Standings:")
    parts += ["", f"{standings_label} {url}"]
    text = "\n".join(parts)
    return title, text


# --- RESULTS --------------------------------------------------------------------------------------


def _game_text(game: GameResult) -> list[str]:
    lines = [f"  {game.line()}"]
    if not game.explained:
        return lines
    for pick in game.picks:
        assert pick is not None and pick.explanation is not None
        lines.append(f"    {pick.entry.team.name} [{pick.display}]")
        for step in pick.explanation:
            lines.append(f"      {signed(step.amount):>3}  {step_words(step)}")
        lines.append(f"      {'=':>3}  {pick.goals}")
    return lines


def results_text(team: Team, args: dict[str, Any]) -> tuple[str, str]:
    """A published pool round's games, each with how its goals were made (R3), as the results
    page shows them: the team's own pool in the competition named (the championship by
    default), the round named or the latest published. Nothing of a round not published."""
    season = season_current()
    competition = str(args.get("competition") or Competition.CHAMPIONSHIP)
    label = _competition_label(competition)
    if season is None:
        return _("Results"), _("No season is being played.")
    entry = _entry(team, season)
    pool = entry_pools(entry=entry).get(competition) if entry else None
    if pool is None:
        pool = (
            Pool.objects.filter(season=season, competition=competition)
            .select_related("division")
            .order_by("division__tier", "division__group")
            .first()
        )
    if pool is None:
        return _("Results"), _("No pool of the %(competition)s this season.") % {
            "competition": label
        }
    published = PoolRound.objects.filter(
        pool=pool, status=PoolRound.Status.PUBLISHED
    ).select_related("pool__division", "round__season")
    number = args.get("round")
    pool_round = (
        published.filter(round__number=number).first()
        if number is not None
        else published.order_by("-round__number").first()
    )
    title = _("Results — %(pool)s") % {"pool": pool.display_name}
    if pool_round is None:
        if number is not None:
            return title, _("Round %(number)s of %(of_pool)s is not published.") % {
                "number": number,
                "of_pool": pool.of_name,
            }
        return title, _("No round of %(of_pool)s is published yet.") % {"of_pool": pool.of_name}
    results = pool_round_results(pool_round=pool_round, explain=True)
    title = _("Results — %(pool)s, round %(number)s") % {
        "pool": pool.display_name,
        "number": pool_round.round.number,
    }
    games = sorted(results.games, key=lambda game: not (entry and game.involves(entry.pk)))
    lines: list[str] = []
    for game in games:
        lines += _game_text(game)
        lines.append("")
    if results.bonus_goal is not None:
        lines.append(_("Bonus goal (*): %(team)s.") % {"team": results.bonus_goal.team.name})
    url = site_url(
        reverse(
            "results_pool_round",
            kwargs={
                "competition": competition,
                "pool": pool.slug,
                "round": pool_round.round.number,
            },
        )
    )
    results_label = _("Results, seed and every draw:")
    lines.append(f"{results_label} {url}")
    return title, "\n".join(lines)


# --- MATRIX ---------------------------------------------------------------------------------------


def matrix_text(args: dict[str, Any]) -> tuple[str, str]:
    """The season's matrix of the competition named (the championship by default), as the
    public matrices page shows it: public from the season's start (R25)."""
    competition = str(args.get("competition") or Competition.CHAMPIONSHIP)
    label = _competition_label(competition)
    title = _("Matrix — %(competition)s") % {"competition": label}
    season = season_current()
    matrix = season_matrix(season=season, competition=competition) if season else None
    if matrix is None:
        return title, _("This matrix is not public (R25: from the season's start).")
    round_label, now_label, matrices_label = _("Round"), _("now"), _("Matrices:")
    lines = [f"{round_label:<8}" + "".join(f"{column:>4}" for column in matrix.columns)]
    for row in matrix.rows:
        values = dict(row.values)
        lines.append(
            f"{'J' + str(row.round.number):<8}"
            + "".join(f"{values.get(column, ''):>4}" for column in matrix.columns)
            + (f"  ← {now_label}" if row.is_current else "")
        )
    lines += ["", f"{matrices_label} {site_url(reverse('matrices'))}"]
    return title, "\n".join(lines)


# --- DEPUTY ---------------------------------------------------------------------------------------


def deputy_text(team: Team, user: User, args: dict[str, Any]) -> str:
    """``ADJOINT`` / ``DEPUTY``: the coach only (R12), confirmed on the team's page, signed in,
    through the site's own form (:func:`~league.services.team_deputy_set`)."""
    if team.coach_id != user.pk:
        return _("Only the team's coach may choose its deputy.")
    page = reverse("team", args=[team.slug])
    if args.get("remove"):
        if team.deputy is None:
            return _("Your team has no deputy.")
        return _(
            "To remove %(name)s as your deputy, confirm on your team's page (signed in): %(url)s"
        ) % {"name": team.deputy.get_username(), "url": site_url(page + "#deputy")}
    if team.deputy is not None:
        return _(
            "Your team has a deputy already, %(name)s: remove them first on your team's page "
            "(signed in): %(url)s"
        ) % {"name": team.deputy.get_username(), "url": site_url(page + "#deputy")}
    url = site_url(f"{page}?{urlencode({'deputy': args.get('who', '')})}#deputy")
    return _("To name %(who)s as your deputy, confirm on your team's page (signed in): %(url)s") % {
        "who": args.get("who", ""),
        "url": url,
    }


# --- INFOS ----------------------------------------------------------------------------------------


def info_answer(user: User, args: dict[str, Any]) -> tuple[str, str]:
    """``INFOS`` / ``INFO``: the coach's (or deputy's) turn sheet, now, for every competition
    of the team's next open week or the one named (:func:`mail.turn_sheet.turn_sheet`, the
    Wednesday email's): its text and HTML."""
    sheet = turn_sheet(user, competition=args.get("competition"))
    if sheet is None:
        return _("No round is open for your team's picks."), ""
    return sheet.text, sheet.html


# --- Every answer ---------------------------------------------------------------------------------

USAGE = {
    "info": "INFOS / INFO [Championnat | KDH | WG]",
    "picks": "ORDRES / PICKS",
    "standings": "CLASSEMENT / STANDINGS [elite | kdh | wg …]",
    "results": "RÉSULTATS / RESULTS [Championnat | KDH | WG] [J3]",
    "matrix": "MATRICE / MATRIX [Championnat | KDH | WG]",
    "deputy": "ADJOINT / DEPUTY address | AUCUN / NONE",
    "join": "LISTE / JOIN team name",
    "help": "AIDE / HELP",
}


def _title(name: str) -> str:
    return {
        "help": _("Help"),
        "info": _("Your turn sheet"),
        "picks": _("Your current picks"),
        "standings": _("Standings"),
        "results": _("Results"),
        "matrix": _("Matrix"),
        "deputy": _("Your deputy"),
        "join": _("The waiting list"),
    }[name]


def command_answer(record: dict[str, Any], *, user: User, team: Team) -> Answer:
    """The answer to one command's record (:func:`mail.commands.command_record`), in the active
    language, for ``user`` (the team's coach or deputy)."""
    name, args, line = record["command"], record.get("args", {}), record["line"]
    if record.get("error"):
        text = _("This command does not read. Write it as: %(usage)s") % {"usage": USAGE[name]}
        return Answer(line, _title(name), text)
    if name == "help":
        return Answer(line, _title(name), help_text())
    if name == "picks":
        return Answer(line, _title(name), picks_text(team))
    if name == "standings":
        return Answer(line, *standings_text(team, args))
    if name == "results":
        return Answer(line, *results_text(team, args))
    if name == "matrix":
        return Answer(line, *matrix_text(args))
    if name == "deputy":
        return Answer(line, _title(name), deputy_text(team, user, args))
    if name == "info":
        text, html = info_answer(user, args)
        return Answer(line, _title(name), text, html)
    # join, from an address that is already a coach's or a deputy's
    return Answer(
        line,
        _title("join"),
        _("This address is already a team's coach's or deputy's: it cannot join the waiting list."),
    )


def command_answers(report: list[dict[str, Any]], *, user: User, team: Team) -> list[Answer]:
    """The answers of a message's record, in its order: each command's; the lines not
    understood quoted once, with the help (unless the message asked for it); and, when the
    address was over its rate, why its commands were not answered."""
    answers: list[Answer] = []
    unknown = [record["line"] for record in report if record.get("status") == "unknown"]
    more = sum(record.get("count", 0) for record in report if record["status"] == "unknown_more")
    skipped = sum(
        record.get("count", 0) for record in report if record["status"] == "commands_more"
    )
    limited = any(record.get("status") == "limited" for record in report)
    asked_help = False
    for record in report:
        if record.get("status") != "command":
            continue
        asked_help = asked_help or record["command"] == "help"
        answers.append(command_answer(record, user=user, team=team))
    if unknown:
        quoted = [f"  « {_fit(line, WIDTH - 6)} »" for line in unknown]
        if more:
            quoted.append("  " + _("and %(count)s more") % {"count": more})
        text = "\n".join([_("These lines are neither a pick nor a command:"), *quoted])
        if not asked_help:
            text += "\n\n" + help_text()
        answers.append(Answer("", _("Lines not understood"), text))
    if skipped:
        answers.append(
            Answer(
                "",
                _("Commands not answered"),
                _(
                    "A message is answered for its first %(max)s commands: %(count)s more were "
                    "not read. Send them in another message."
                )
                % {"max": COMMANDS_MAX, "count": skipped},
            )
        )
    if limited:
        answers.append(
            Answer(
                "",
                _("Commands not answered"),
                _(
                    "Your address sent many commands this hour: these were read but not "
                    "answered. Send them again in an hour."
                ),
            )
        )
    return [replace(answer, text=wrapped(answer.text)) for answer in answers]
