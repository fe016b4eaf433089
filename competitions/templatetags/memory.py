"""The league memory's words and links for templates (issue 25): a game's place on its results
page, a record's name and its value in words, worded when rendered (an email is rendered in its
reader's language, whatever language read the rows)."""

from __future__ import annotations

from django import template
from django.utils.translation import ngettext

from competitions.models import FixtureLabel, RecordKind, Stage
from competitions.selectors.memory_links import Placed, game_path
from competitions.selectors.results import decided_marks

register = template.Library()


@register.filter
def game_url(place: Placed | None) -> str:
    return "" if place is None else game_path(place)


@register.filter
def record_label(kind: str) -> str:
    """« most goals in a game »: the record's name in the language being rendered."""
    return str(RecordKind(kind).label) if kind in RecordKind.values else kind


def record_value_words(kind: str, value: int) -> str:
    """A record's value with its unit: « 7 goals », « 6 games », « 2 titles »."""
    if kind in (RecordKind.WIN_RUN, RecordKind.UNBEATEN_RUN):
        return ngettext("%(n)d game", "%(n)d games", value) % {"n": value}
    if kind == RecordKind.SEASON_POINTS:
        return ngettext("%(n)d point", "%(n)d points", value) % {"n": value}
    if kind == RecordKind.SEASONS_WITHOUT_ONR:
        return ngettext("%(n)d season", "%(n)d seasons", value) % {"n": value}
    if kind in (RecordKind.ELITE_TITLES, RecordKind.KDH_TITLES, RecordKind.WG_TITLES):
        return ngettext("%(n)d title", "%(n)d titles", value) % {"n": value}
    return ngettext("%(n)d goal", "%(n)d goals", value) % {"n": value}


@register.simple_tag
def record_value(kind: str, value: int | None) -> str:
    return "—" if value is None else record_value_words(kind, value)


@register.filter
def game_at(places: dict[int, Placed], fixture_id: int | None) -> Placed | None:
    """The place of game ``fixture_id`` among a view's ``places`` (``None``: no game, or a page
    that links no game, without ``places``)."""
    return places.get(fixture_id) if places and fixture_id is not None else None


@register.filter
def decided_mark(decided: str) -> str:
    """The mark after a score (« AP », « TAB »…; nothing in regulation), in the active language."""
    return next((mark for mark, _words in decided_marks(decided=[decided])), "")


@register.filter
def decided_words(decided: str) -> str:
    """How a game was decided, in words (« in extra time »…)."""
    return next((words for _mark, words in decided_marks(decided=[decided])), "")


@register.filter
def stage_words(stage: str) -> str:
    """A cup round's stage in words (« final »…); empty for a championship game."""
    return str(Stage(stage).label) if stage in Stage.values else ""


@register.filter
def fixture_label_words(label: str) -> str:
    """A game's label in words (« third-place game »), or empty."""
    return str(FixtureLabel(label).label) if label in FixtureLabel.values else ""
