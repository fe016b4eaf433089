"""The WG cup's page (``/standings/wg/``, R18): its groups with the semi-finalists marked, the
comparison of the three seconds (R9), and the semi-finals, final and third-place game as slots.
Published results only (:mod:`competitions.selectors.wg_cup`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from competitions.models import Pool
from competitions.selectors.wg_cup import COMPLETE, CRITERIA, WgCup, wg_cup


def _criteria() -> list[tuple[str, str]]:
    """R9's criteria in their order, each worded once for the page."""
    words = {
        "points": _("points"),
        "wins": _("wins"),
        "regulation_wins": _("wins in regular time"),
        "losses": _("losses (fewest first)"),
        "extra_time_losses": _("losses in extra time (most first)"),
        "goals_for": _("goals scored"),
        "goal_difference": _("goal difference"),
    }
    return [(name, words[name]) for name in CRITERIA]


@dataclass(frozen=True)
class Cell:
    """One second's figure on one criterion, and whether the comparison is decided there:
    ``ahead`` (the best second), ``behind`` (a second it beat there) or ``level`` (a die to
    come, as it stands)."""

    value: int | None
    note: str = ""


@dataclass(frozen=True)
class CriterionRow:
    name: str
    label: str
    cells: list[Cell]


def _comparison(cup: WgCup, criteria: list[tuple[str, str]]) -> list[CriterionRow]:
    """The seconds side by side, one row per criterion in R9's order, then the die's when it
    decides (or would)."""
    rows = []
    for name, label in criteria:
        cells = [
            Cell(
                getattr(second.row, name),
                "ahead"
                if second.best and cup.best_decided_on == name
                else "behind"
                if second.behind_on == name
                else "",
            )
            for second in cup.seconds
        ]
        rows.append(CriterionRow(name, label, cells))
    if any(second.behind_on == "die" for second in cup.seconds):
        complete = cup.state == COMPLETE
        cells = [
            Cell(
                None,
                "ahead"
                if second.best and cup.best_decided_on == "die"
                else ("behind" if complete else "level")
                if second.behind_on == "die"
                else "",
            )
            for second in cup.seconds
        ]
        rows.append(CriterionRow("die", _("a die (R9)"), cells))
    return rows


def _verdicts(cup: WgCup, words: dict[str, str]) -> list[str]:
    """Each second's verdict in words, in the comparison's order."""
    complete = cup.state == COMPLETE
    verdicts = []
    for second in cup.seconds:
        if second.best:
            verdict = _("best second") if complete else _("best second as it stands")
        elif second.behind_on == "die":
            verdict = _("beaten by the die (R9)") if complete else _("level: a die would decide")
        else:
            verdict = _("behind on %(criterion)s") % {"criterion": words[second.behind_on]}
        verdicts.append(verdict)
    return verdicts


def wg_standings(*, pool: Pool, context: dict[str, object]) -> str:
    """The WG's page: fills ``context`` (the season, the pools' chips, the reader's entry) with
    the cup, and names its template."""
    criteria = _criteria()
    cup = wg_cup(pool=pool)
    context["cup"] = cup
    context["q_provisional"] = "" if cup.state == COMPLETE else " provisional"
    context["comparison"] = _comparison(cup, criteria)
    context["seconds"] = list(zip(cup.seconds, _verdicts(cup, dict(criteria)), strict=True))
    return "standings/wg.html"
