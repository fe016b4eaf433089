"""Every score explained, in words (R3): ``{{ step|step_words }}`` says one step of a team's
explanation (:class:`engine.Step`) in the active language, ``{{ step.amount|signed }}`` its
amount (« +5 », « −3 », « 0 »). The results page and the results email share them."""

from __future__ import annotations

from collections.abc import Callable

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine import Step, StepCode

register = template.Library()


@register.filter
def signed(amount: int) -> str:
    """An amount with its sign: ``+5``, ``−3`` (a minus sign), ``0``."""
    if amount > 0:
        return f"+{amount}"
    if amount < 0:
        return f"−{-amount}"
    return "0"


def _value(step: Step) -> str:
    """An extra-time or shootout value as played, with the die an X rolled (R7)."""
    if step.played == "X" and step.die is not None:
        return _("X (the die rolled %(die)s)") % {"die": step.die}
    return str(step.played)


def _opponent(step: Step) -> str:
    return "?" if step.opponent is None else str(step.opponent)


def _pick(step: Step) -> str:
    return _(
        "No picks received (ONR): column %(column)s and extra-time value %(value)s drawn at "
        "random (R4)."
    ) % {
        "column": step.column,
        "value": step.played,
    }


def _dummy(step: Step) -> str:
    return _(
        "Dummy team: column %(column)s and extra-time value %(value)s drawn at random, played as "
        "a regular pick (R14)."
    ) % {
        "column": step.column,
        "value": step.played,
    }


def _redraw(step: Step) -> str:
    facts = {"asked": step.asked, "played": step.played}
    if step.part == "column":
        return (
            _(
                "Column %(asked)s asked was already used: redrawn as %(played)s, with no penalty "
                "(R11)."
            )
            % facts
        )
    if step.part == "extra_time":
        return (
            _("Extra-time value %(asked)s asked was already used up: redrawn as %(played)s (R11).")
            % facts
        )
    if step.part == "shootout":
        return (
            _("Shootout value %(asked)s asked was already used: redrawn as %(played)s (R11).")
            % facts
        )
    return _("A part of the pick sent in advance was already used and was redrawn (R11).")


def _column(step: Step) -> str:
    return _("Column %(column)s is worth %(value)s in this round's row (R1).") % {
        "column": step.column,
        "value": step.value,
    }


def _crowding(step: Step) -> str:
    others = step.others or 0
    text = ngettext(
        "%(others)d other team of the pool played %(column)s: one goal off (R1, R2).",
        "%(others)d other teams of the pool played %(column)s: one goal off for each (R1, R2).",
        others,
    ) % {"others": others, "column": step.column}
    if -step.amount < others:
        text += " " + _("Never below 0.")
    return text


def _onr_crowding(step: Step) -> str:
    facts = {"others": step.others, "column": step.column}
    if step.others == 1:
        return _("One regular team played %(column)s: it keeps its full value for it (R4).") % facts
    text = _("%(others)d regular teams played %(column)s: one goal off for each but one (R4).")
    return text % facts


def _onr_penalty(step: Step) -> str:
    if step.amount:
        return _("No picks received: the regular teams' value minus 1 (R4).")
    return _("No picks received: the regular teams' value minus 1, but never below 0 (R4).")


def _extra_goals(step: Step) -> str:
    count = step.count or 0
    text = ngettext(
        "%(count)d extra goal played (R6).", "%(count)d extra goals played (R6).", count
    ) % {"count": count}
    if step.asked is not None:
        text += " " + _("The pick asked for %(asked)s: the stock allowed no more.") % {
            "asked": step.asked
        }
    return text


def _great_saves(step: Step) -> str:
    count = step.count or 0
    text = ngettext(
        "The opponent's %(count)d great save (R3, R6).",
        "The opponent's %(count)d great saves (R3, R6).",
        count,
    ) % {"count": count}
    if -step.amount < count:
        text += " " + _("Never below 0.")
    return text


def _extra_time(step: Step) -> str:
    facts = {"value": _value(step), "opponent": _opponent(step)}
    if step.amount:
        return (
            _(
                "Tied after regular time: extra-time value %(value)s against %(opponent)s, the "
                "golden goal (R3, R7)."
            )
            % facts
        )
    if step.value is not None and step.value == step.opponent:
        return (
            _(
                "Tied after regular time: extra-time value %(value)s against %(opponent)s, "
                "equal: no goal (R3, R7, R8)."
            )
            % facts
        )
    return (
        _(
            "Tied after regular time: extra-time value %(value)s against %(opponent)s: no goal "
            "(R3, R7)."
        )
        % facts
    )


def _shootout(step: Step) -> str:
    facts = {"value": _value(step), "opponent": _opponent(step)}
    if step.value is None or step.opponent is None or step.value == step.opponent:
        return _("Still tied: shootout value %(value)s against %(opponent)s, equal (R8).") % facts
    if step.value > step.opponent:
        return (
            _(
                "Still tied: shootout value %(value)s against %(opponent)s, won; the score stays "
                "(R8)."
            )
            % facts
        )
    return (
        _("Still tied: shootout value %(value)s against %(opponent)s, lost; the score stays (R8).")
        % facts
    )


def _group_goals(step: Step) -> str:
    facts = {"value": "?" if step.value is None else step.value, "opponent": _opponent(step)}
    if step.value is None or step.opponent is None or step.value == step.opponent:
        return (
            _("Still tied: %(value)s goals in the WG group games against %(opponent)s, equal (R8).")
            % facts
        )
    if step.value > step.opponent:
        return (
            _(
                "Still tied: %(value)s goals in the WG group games against %(opponent)s, more: "
                "won (R8)."
            )
            % facts
        )
    return (
        _(
            "Still tied: %(value)s goals in the WG group games against %(opponent)s, fewer: lost "
            "(R8)."
        )
        % facts
    )


def _die(step: Step) -> str:
    if step.won:
        return _("A die decided, for this team (R8, R15).")
    return _("A die decided, for the other team (R8, R15).")


_WORDS: dict[StepCode, Callable[[Step], str]] = {
    StepCode.ONR_PICK: _pick,
    StepCode.DUMMY_PICK: _dummy,
    StepCode.REDRAW: _redraw,
    StepCode.COLUMN: _column,
    StepCode.CROWDING: _crowding,
    StepCode.ONR_CROWDING: _onr_crowding,
    StepCode.ONR_PENALTY: _onr_penalty,
    StepCode.EXTRA_GOALS: _extra_goals,
    StepCode.GREAT_SAVES: _great_saves,
    StepCode.BONUS_GOAL: lambda step: _("Bonus goal (R5)."),
    StepCode.OFFSIDE: lambda step: _(
        "The bonus goal was drawn for this team, which sent no picks: offside, denied (R5)."
    ),
    StepCode.EXTRA_TIME: _extra_time,
    StepCode.SHOOTOUT: _shootout,
    StepCode.GROUP_GOALS: _group_goals,
    StepCode.DIE: _die,
    StepCode.FORFEIT: lambda step: _("No picks received: lost by forfeit (R15)."),
    StepCode.OPPONENT_FORFEIT: lambda step: _("The opponent sent no picks: won by forfeit (R15)."),
}


@register.filter
def step_words(step: Step) -> str:
    """One step of an explanation in words, in the active language."""
    return _WORDS[step.code](step)
