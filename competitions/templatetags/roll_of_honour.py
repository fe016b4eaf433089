"""``{% roll_of_honour_row line seasons_url current %}``: a line of the roll of honour
(``/seasons/``, :class:`~competitions.selectors.seasons.SeasonWinners`) as its table row.

Written here rather than in the template: the page lists every season, and a row built in Python
costs a fraction of the template engine's, so the page costs about the same after twenty
seasons as after one (``bench/bench_memory.py``). ``seasons_url`` is ``{% url 'seasons' %}``,
reversed once for every row (a season's page is ``/seasons/<n>/``, a team's honours
``/seasons/teams/<slug>/``); ``current`` is the badge's word, translated once.
"""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe

from competitions.selectors.seasons import SeasonWinners
from league.models import Team

register = template.Library()

NOBODY = '<span class="muted">—</span>'


def _winner(team: Team | None, seasons_url: str) -> str:
    if team is None:
        return NOBODY
    return f'<a href="{seasons_url}teams/{escape(team.slug)}/">{escape(team.name)}</a>'


@register.simple_tag
def roll_of_honour_row(line: SeasonWinners, seasons_url: str, current: str) -> SafeString:
    # The standard library's escape, as Django's (which wraps it for lazy strings): every text
    # of the row is escaped here once, the row marked safe.
    season = line.season
    url = escape(seasons_url)
    badge = f' <span class="badge badge-now">{escape(current)}</span>' if season.is_current else ""
    return mark_safe(  # every value above is escaped
        f'<tr>\n      <th scope="row"><a href="{url}{season.number}/">{escape(str(season))}</a>'
        f"{badge}</th>\n      <td>{escape(line.status)}</td>\n"
        f"      <td>{_winner(line.elite_champion, url)}</td>\n"
        f"      <td>{_winner(line.kdh_winner, url)}</td>\n"
        f"      <td>{_winner(line.wg_winner, url)}</td>\n    </tr>"
    )
