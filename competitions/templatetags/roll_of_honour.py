"""``{% roll_of_honour_row line seasons_url current %}``: a line of the roll of honour
(``/seasons/``, :class:`~competitions.selectors.seasons.SeasonWinners`) as its table row.

Written here rather than in the template: the page lists every season, and a row built in Python
costs a fraction of the template engine's, so the page costs about the same after twenty
seasons as after one (``bench/bench_memory.py``). ``seasons_url`` is ``{% url 'seasons' %}``,
reversed once for every row (a season's page is ``/seasons/<n>/``, a team's honours
``/seasons/teams/<slug>/``); ``current`` is the badge's word, translated once.
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from competitions.selectors.seasons import SeasonWinners
from league.models import Team

register = template.Library()

NOBODY = mark_safe('<span class="muted">—</span>')


def _winner(team: Team | None, seasons_url: str) -> SafeString:
    if team is None:
        return NOBODY
    return format_html('<a href="{}teams/{}/">{}</a>', seasons_url, team.slug, team.name)


@register.simple_tag
def roll_of_honour_row(line: SeasonWinners, seasons_url: str, current: str) -> SafeString:
    season = line.season
    badge = (
        format_html(' <span class="badge badge-now">{}</span>', current)
        if season.is_current
        else ""
    )
    return format_html(
        '<tr>\n      <th scope="row"><a href="{}{}/">{}</a>{}</th>\n      <td>{}</td>\n'
        "      <td>{}</td>\n      <td>{}</td>\n      <td>{}</td>\n    </tr>",
        seasons_url,
        season.number,
        season,
        badge,
        line.status,
        _winner(line.elite_champion, seasons_url),
        _winner(line.kdh_winner, seasons_url),
        _winner(line.wg_winner, seasons_url),
    )
