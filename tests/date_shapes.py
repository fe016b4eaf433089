"""The dates of a page or an email as the site writes them in English (``matrixhockey/formats/``):
what finds them in a text, and what finds a date in any other shape."""

from __future__ import annotations

import re

from django.utils.html import strip_tags

WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
SHAPE = re.compile(rf"(?:{WEEKDAYS}) \d{{1,2}} (?:{MONTHS}) \d{{4}}(?:, \d\d:\d\d)?")
"""A date (or a moment, with its time) as the site writes it in English."""

WEEKDAY = re.compile(rf"\b(?:{WEEKDAYS}),? (?:\d|{MONTHS})")
OTHER_SHAPES = re.compile(
    rf"\b(?:\d\d?:\d\d:\d\d|[ap]\.m\.|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d|\d (?:{MONTHS}), "
    r"|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.? \d)"
)
"""The shapes the site wrote before it had one: seconds, a 12-hour clock, a short weekday or
month, a date without its year."""


def dates_on(html: str) -> tuple[list[str], list[str]]:
    """The dates in ``html``'s text written in the site's shape, and every other mention of a
    weekday (a weekday not opening a date in the shape) or an older shape."""
    text = re.sub(r"\s+", " ", strip_tags(html))
    shaped = SHAPE.findall(text)
    rest = SHAPE.sub("", text)
    return shaped, WEEKDAY.findall(rest) + OTHER_SHAPES.findall(rest)
