"""The site's words in every template, without ``{% load %}`` (a builtin library, settings'
``TEMPLATES``): dates with « 1er janvier », names after « de » and « à », places in words
(:mod:`matrixhockey.french`).

``date`` replaces Django's own filter of the same name, so that every date the site prints —
pages, emails, the admin's templates — writes the first of the month « 1er » in French; it does
what Django's does otherwise (the value in the current time zone, a format or a format's name).
"""

from __future__ import annotations

from datetime import date as Date
from datetime import time as Time

from django import template

from matrixhockey import french

register = template.Library()


@register.filter(expects_localtime=True, is_safe=False)
def date(value: object, arg: str | None = None) -> str:
    """Django's ``date`` filter, with « 1er » for the first of the month in French: a date, a
    moment or a time in ``arg`` (a format or a format's name); anything else is empty."""
    if not isinstance(value, Date | Time):
        return ""
    try:
        return french.date_format(value, arg)
    except AttributeError:  # a day's format character asked of a time, as Django's filter
        return ""


@register.filter
def of_name(name: object) -> str:
    """An ``of_…`` placeholder's value: « des Harfangs » in French, the name in English."""
    return french.of_name(str(name))


@register.filter
def to_name(name: object) -> str:
    """A ``to_…`` placeholder's value: « aux Harfangs » in French, the name in English."""
    return french.to_name(str(name))


@register.filter
def of_division(division: french.Division) -> str:
    """An ``of_division`` placeholder's value: « de l’Élite », « de la D2A » in French, the
    division's name in English."""
    return french.of_division(division)


@register.filter
def place(number: int) -> str:
    """« 1re place », « 2e place »; « 1st place »."""
    return french.place(int(number))
