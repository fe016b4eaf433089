"""The season's charts as SVG drawn on the server by pygal, inlined into the page.

Why pygal: the SVG is made on the server, so a chart reads without JavaScript and the page runs
no script it did not already run. pygal's SVG carries a ``<script>`` (its tooltips' settings,
even with ``js=[]``) and a ``<style>`` element, and its tooltips an inline ``style`` attribute;
the site's Content-Security-Policy allows no inline script and no inline style (``style-src
'self'``), so both elements and every ``style`` attribute are taken out of the tree here and the
charts are coloured by ``static/css/charts.css`` through pygal's own classes (``color-N``,
``serie-N``). Its colours are the Okabe–Ito palette, which colour-blind readers tell apart, and
lines past the palette's seven are dashed.

Each chart is a :class:`Chart`: the SVG (``role="img"``, a ``<title>`` and a ``<desc>`` it is
labelled by, a ``viewBox`` and no fixed size, so it fills its box on a phone) and the same numbers
as a table, which the page shows in a ``<details>`` for screen readers and where SVG fails.

An SVG scales as a picture: its text grows with its width. A chart meant to fill a wide card (the
places chart, under the standings) is therefore drawn twice, for a phone and for a wider screen,
each with its own legend columns, and ``charts.css`` shows the one that fits the screen.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

import pygal
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from pygal.etree import etree
from pygal.style import Style

from competitions.models import Competition
from competitions.selectors.charts import PoolPlaces, RoundGoals, StocksPoint
from competitions.selectors.memory import TeamSeason
from league.models import DIVISION_SIZE, Division
from matrixhockey.french import to_name

_ids = itertools.count(1)

STYLE = Style(
    background="transparent",
    plot_background="transparent",
    font_family="system-ui, sans-serif",
    label_font_size=14,
    major_label_font_size=14,
    legend_font_size=14,
    title_font_size=15,
    value_font_size=12,
    tooltip_font_size=12,
)
"""The sizes pygal lays the chart out with; ``charts.css`` draws the same ones."""


@dataclass(frozen=True)
class Chart:
    """A chart ready for ``templates/charts/_chart.html``."""

    key: str
    """What the chart shows (``places``, ``goals``, ``stocks``): its ``data-chart``."""
    title: str
    description: str
    svg: SafeString
    columns: tuple[str, ...]
    """The table's column headings; the first labels its rows."""
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    """The table's rows: a heading and its values, the numbers drawn."""
    highlighted: str = ""
    """The row of the reader's own team, if any (its heading)."""
    wide_svg: SafeString = field(default_factory=lambda: mark_safe(""))
    """The same chart drawn for a wide screen (class ``chart-wide``), empty when it has one
    drawing only; ``charts.css`` shows it from a tablet's width on, ``svg`` below."""


WIDTH = 400
"""A chart's width as drawn for a phone (its viewBox's, scaled to the screen)."""
WIDE_WIDTH = 860
"""The places chart's width as drawn for a wider screen: on a card from a tablet's (about 700
px) to a desktop's (about 1090 px, the page's 72rem less its margins), its 14 px type shows at
11 to 18 px."""
AXIS_WIDTH = 80
"""What a chart's y axis and its title take of its width: the plot, and the legend under it,
have the rest."""


def legend_columns(names: list[str], *, width: int = WIDTH, most: int = 3) -> int:
    """As many legend columns under a chart ``width`` wide as its longest name leaves room for
    (at most ``most``): pygal cuts nothing (``truncate_legend=-1``), so a name wider than its
    column would run over the next one. A character counts as pygal counts it, 0.6 of the font
    size, more than system-ui's average: a name is given room to spare."""
    character = 0.6 * STYLE.legend_font_size
    swatch = 12 + 5 + 10  # pygal's box, its gap to the name, a gap to the next column
    longest = max((len(name) for name in names), default=0) * character + swatch
    return max(1, min(most, int((width - AXIS_WIDTH) // longest)))


def _config(**options: object) -> dict[str, object]:
    return {
        "style": STYLE,
        "disable_xml_declaration": True,
        "js": [],
        "css": [],
        "no_prefix": True,
        "explicit_size": False,
        "width": WIDTH,
        "height": 360,
        "legend_at_bottom": True,
        "legend_at_bottom_columns": 2,
        "truncate_legend": -1,
        "print_values": False,
        "dots_size": 4,
        **options,
    }


def _name(node: Element) -> str:
    """A node's tag without its namespace (pygal's trees carry it with lxml, not without);
    empty for a comment."""
    return node.tag.rpartition("}")[2] if isinstance(node.tag, str) else ""


DROPPED = frozenset({"script", "style", ""})
"""pygal's script and style elements (the CSP forbids them inline) and its comments."""


def _strip(tree: Element) -> None:
    """The CSP's part: no ``<script>``, no ``<style>``, no ``style`` attribute; no ``id`` but
    the root's (pygal's legends repeat theirs from one chart to the next); of a dot's
    descriptions, only its value and its x label (the others place pygal's tooltips)."""
    for parent in list(tree.iter()):
        for child in list(parent):
            dropped = _name(child) in DROPPED
            if _name(child) == "desc" and child.get("class") not in ("value", "x_label"):
                dropped = True
            if dropped:
                parent.remove(child)
    for node in tree.iter():
        node.attrib.pop("style", None)
        if node is not tree:
            node.attrib.pop("id", None)


def _mark(tree: Element, highlight: int) -> None:
    """The ``highlight``-th series' lines, dots and legend get the class ``highlight``."""
    serie = f"serie-{highlight}"
    for node in tree.iter():
        classes = (node.get("class") or "").split()
        if serie in classes:
            node.set("class", " ".join([*classes, "highlight"]))
        if "legends" in classes:
            legends = [child for child in node if "legend" in (child.get("class") or "").split()]
            if highlight < len(legends):
                legend = legends[highlight]
                legend.set("class", f"{legend.get('class')} highlight")
    tree.set("class", f"{tree.get('class')} has-highlight")


def _svg(
    chart: pygal.graph.graph.Graph,
    key: str,
    title: str,
    description: str,
    highlight: int | None = None,
    *,
    wide: bool = False,
) -> SafeString:
    """``chart``'s SVG for an HTML page: stripped (:func:`_strip`), labelled by its title and
    description, the ``highlight``-th series marked (:func:`_mark`); ``wide``, the drawing for
    a wide screen (class ``chart-wide``)."""
    tree = chart.render_tree()
    _strip(tree)
    for old in [child for child in tree if _name(child) in ("title", "desc")]:
        tree.remove(old)
    namespace = tree.tag[: -len(_name(tree))]
    ident = f"chart-{key}-{next(_ids)}"
    tree.set("id", ident)
    tree.set("class", f"pygal-chart chart-{key}{' chart-wide' if wide else ''}")
    tree.set("role", "img")
    tree.set("aria-labelledby", f"{ident}-title {ident}-desc")
    for index, (tag, text) in enumerate((("title", title), ("desc", description))):
        node = tree.makeelement(f"{namespace}{tag}", {"id": f"{ident}-{tag}"})
        node.text = text
        tree.insert(index, node)
    if highlight is not None:
        _mark(tree, highlight)
    # The XML library escapes every text it serialises (team names included).
    return mark_safe(etree.tostring(tree, encoding="unicode"))


def _chart(
    kind: type[pygal.graph.graph.Graph],
    *,
    key: str,
    title: str,
    description: str,
    x_labels: list[str],
    series: list[tuple[str, Sequence[object]]],
    columns: tuple[str, ...],
    rows: tuple[tuple[str, tuple[str, ...]], ...],
    highlight: int | None = None,
    wide: dict[str, object] | None = None,
    **options: object,
) -> Chart:
    """A :class:`Chart` of ``kind`` (``pygal.Line``, ``pygal.Bar``) with the house's settings
    (:func:`_config`, ``options`` on top), one line or set of bars per named series, its SVG made
    for the page (:func:`_svg`) and the same numbers as a table. The ``highlight``-th series is
    the reader's team: marked in the SVG, and the table's row of that index highlighted. With
    ``wide`` (the options that differ: its width, its height, its legend's columns), the same
    chart drawn for a wide screen too."""

    def drawn(**settings: object) -> pygal.graph.graph.Graph:
        chart = kind(**_config(**settings))
        chart.x_labels = x_labels
        for name, values in series:
            chart.add(name, values)
        return chart

    wide_svg = mark_safe("")
    if wide is not None:
        wide_chart = drawn(**{**options, **wide})
        wide_svg = _svg(wide_chart, key, title, description, highlight, wide=True)
    return Chart(
        key=key,
        title=title,
        description=description,
        svg=_svg(drawn(**options), key, title, description, highlight),
        columns=columns,
        rows=rows,
        highlighted=rows[highlight][0] if highlight is not None else "",
        wide_svg=wide_svg,
    )


def places_chart(
    *, places: PoolPlaces, division: str, of_division: str, mine: str = ""
) -> Chart | None:
    """A division's places after each published round, one line per team, ``mine`` (the
    reader's team's slug) highlighted; ``None`` before the first published round. ``of_division``:
    the division after « de » (``Pool.of_name``)."""
    if not places.rounds:
        return None
    teams = len(places.series)
    names = [series.name for series in places.series]
    columns = legend_columns(names)
    wide_columns = legend_columns(names, width=WIDE_WIDTH, most=4)
    return _chart(
        pygal.Line,
        key="places",
        title=_("Places round by round — %(division)s") % {"division": division},
        description=_(
            "One line per team of the %(of_division)s: its place in the table after each of the "
            "%(rounds)d published rounds, first at the top."
        )
        % {"of_division": of_division, "rounds": len(places.rounds)},
        x_labels=[str(number) for number in places.rounds],
        series=[(series.name, list(series.places)) for series in places.series],
        columns=(_("Team"), *(_("R%(round)d") % {"round": n} for n in places.rounds)),
        rows=tuple(
            (series.name, tuple(str(place) for place in series.places)) for series in places.series
        ),
        highlight=next(
            (index for index, series in enumerate(places.series) if series.team == mine), None
        ),
        inverse_y_axis=True,
        range=(1, max(teams, 1)),
        y_labels=list(range(1, teams + 1)),
        x_title=_("Round"),
        y_title=_("Place"),
        legend_at_bottom_columns=columns,
        # The plot keeps its height whatever the rows of the legend under it (21 px each).
        height=396 + 21 * -(-teams // columns),
        wide={
            "width": WIDE_WIDTH,
            "height": 400 + 21 * -(-teams // wide_columns),
            "legend_at_bottom_columns": wide_columns,
        },
    )


def goals_chart(*, goals: tuple[RoundGoals, ...], team: str) -> Chart | None:
    """``team``'s goals for and against in each published championship round."""
    if not goals:
        return None
    return _chart(
        pygal.Bar,
        key="goals",
        title=_("Goals for and against — %(team)s") % {"team": team},
        description=_(
            "Two bars per published championship round: the goals %(team)s scored and the goals "
            "it conceded."
        )
        % {"team": team},
        x_labels=[str(line.round) for line in goals],
        series=[
            (_("Goals for"), [line.goals_for for line in goals]),
            (_("Goals against"), [line.goals_against for line in goals]),
        ],
        columns=(_("Round"), _("Goals for"), _("Goals against")),
        rows=tuple(
            (str(line.round), (str(line.goals_for), str(line.goals_against))) for line in goals
        ),
        x_title=_("Round"),
        y_title=_("Goals"),
        min_scale=1,
    )


def _point_label(point: StocksPoint, *, short: bool) -> str:
    """The round of ``point`` in words; ``short`` for the x axis, which a phone narrows."""
    if point.round is None:
        return _("Start")
    if short:
        return Competition(point.competition).kind.chart_abbreviation % {"number": point.round}
    return f"{capfirst(Competition(point.competition).label)} {point.round}"


def stocks_chart(*, points: tuple[StocksPoint, ...], team: str) -> Chart | None:
    """The extra goals and great saves ``team`` had left after each published round (R6)."""
    if not points:
        return None
    top = max(max(point.extra_goals, point.great_saves) for point in points)
    labels = [_point_label(point, short=False) for point in points]
    return _chart(
        pygal.Line,
        key="stocks",
        title=_("Stocks left over the season — %(team)s") % {"team": team},
        description=_(
            "Two lines: the extra goals and the great saves %(to_team)s had left at the season's "
            "start and after each published round it played."
        )
        % {"to_team": to_name(team)},
        x_labels=[_point_label(point, short=True) for point in points],
        series=[
            (_("Extra goals"), [point.extra_goals for point in points]),
            (_("Great saves"), [point.great_saves for point in points]),
        ],
        columns=(_("Round"), _("Extra goals"), _("Great saves")),
        rows=tuple(
            (label, (str(point.extra_goals), str(point.great_saves)))
            for label, point in zip(labels, points, strict=True)
        ),
        x_title=_("Round"),
        y_title=_("Left"),
        range=(0, max(top, 1)),
        y_labels=list(range(0, max(top, 1) + 1)),
        x_label_rotation=0,
    )


def _tier_name(tier: int) -> str:
    """A tier as the elevator chart's axis names it: the Elite, D2, D3 (the league's names)."""
    return str(Division.Tier.ELITE.label) if tier == Division.Tier.ELITE else f"D{tier}"


def _level(season: TeamSeason) -> int | None:
    """Where a season's place stands in the whole league, 1 the Elite's first: the places of
    a tier come after every place of the tier above (R22: twelve a division)."""
    if season.rank is None:
        return None
    return (season.tier - 1) * DIVISION_SIZE + season.rank


def _place_words(season: TeamSeason) -> str:
    if season.rank is None:
        return _("%(division)s, replaced") % {"division": season.division_name}
    return _("%(division)s, place %(place)d") % {
        "division": season.division_name,
        "place": season.rank,
    }


def _words(words: str) -> Callable[[object], str]:
    """A point's own words for pygal's value formatter (its ``<desc class="value">``)."""
    return lambda _value: words


def elevator_chart(*, history: list[TeamSeason], team: str) -> Chart | None:
    """« The elevator »: ``team``'s division and place at each closed season's close, the
    Elite's first at the top; a season it was replaced in (R14) leaves a gap. ``None`` before
    its first closed season."""
    if not history:
        return None
    tiers = sorted({season.tier for season in history})
    top = (tiers[0] - 1) * DIVISION_SIZE + 1
    bottom = tiers[-1] * DIVISION_SIZE
    return _chart(
        pygal.Line,
        key="elevator",
        title=_("Division and place season by season — %(team)s") % {"team": team},
        description=_(
            "One point per closed season: the division %(team)s played in and its place at the "
            "close, the Elite's first at the top, each division below the one above."
        )
        % {"team": team},
        x_labels=[str(season.season_number) for season in history],
        series=[
            (
                team,
                [
                    {"value": level, "formatter": _words(_place_words(season))}
                    if (level := _level(season)) is not None
                    else None
                    for season in history
                ],
            )
        ],
        columns=(_("Season"), _("Division"), _("Place")),
        rows=tuple(
            (
                season.season_name,
                (season.division_name, "—" if season.rank is None else str(season.rank)),
            )
            for season in history
        ),
        inverse_y_axis=True,
        range=(top, bottom),
        y_labels=[
            {"label": _tier_name(tier), "value": (tier - 1) * DIVISION_SIZE + 1}
            for tier in range(tiers[0], tiers[-1] + 1)
        ],
        x_title=_("Season"),
        y_title=_("Division"),
        show_legend=False,
        x_label_rotation=0,
    )
