"""The season's charts (pygal's SVG, :mod:`competitions.charts`): a division's places round by
round on its standings page, a team's goals for and against on its page, its stocks over the
season in its coach's ledger — their series read back from the SVG, published rounds only, the
reader's team highlighted, labelled in both languages, and nothing the CSP would block."""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree import ElementTree

import pytest
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from competitions import charts, services
from competitions.models import Fixture, PoolRound, StockMovement
from competitions.selectors import pool_standings
from competitions.selectors.charts import pool_places
from league.models import Entry, Team
from tests.competitions.desk_league import Desk

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

STANDINGS = "/standings/elite/"
PAGE = "/teams/elite-01/"
NS = "{http://www.w3.org/2000/svg}"


def publish(desk: Desk, number: int) -> PoolRound:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(number), by=desk.referee)
    return services.pool_round_publish(pool_round=pool_round, by=desk.referee)


def svg_of(html: str, key: str) -> ElementTree.Element:
    """The page's chart ``key`` (``places``, ``goals``, ``stocks``), parsed as XML."""
    found = re.search(rf'<svg [^>]*class="pygal-chart chart-{key}[ "].*?</svg>', html, re.DOTALL)
    assert found is not None, key
    return ElementTree.fromstring(found.group(0))


def classes(node: ElementTree.Element) -> list[str]:
    return (node.get("class") or "").split()


def series(svg: ElementTree.Element) -> list[list[ElementTree.Element]]:
    """Each series' groups (``serie-N``: its line or bars in the plot, its dots in the overlay),
    in drawing order."""
    found: dict[int, list[ElementTree.Element]] = {}
    for g in svg.iter(f"{NS}g"):
        for name in classes(g):
            if name.startswith("serie-"):
                found.setdefault(int(name.removeprefix("serie-")), []).append(g)
    return [found[number] for number in sorted(found)]


def _descs(serie: list[ElementTree.Element], kind: str) -> list[str]:
    return [
        desc.text or ""
        for group in serie
        for desc in group.iter(f"{NS}desc")
        if classes(desc) == [kind]
    ]


def values(serie: list[ElementTree.Element]) -> list[int]:
    return [int(value) for value in _descs(serie, "value")]


def x_labels(serie: list[ElementTree.Element]) -> list[str]:
    return _descs(serie, "x_label")


def highlighted(svg: ElementTree.Element) -> list[int]:
    return [
        number
        for number, serie in enumerate(series(svg))
        if all("highlight" in classes(group) for group in serie)
    ]


def lines(svg: ElementTree.Element) -> list[ElementTree.Element]:
    """The drawn lines: one ``path.line`` per series of the plot."""
    plot = next(g for g in svg.iter(f"{NS}g") if classes(g) == ["plot"])
    return [
        path
        for g in plot
        if "series" in classes(g)
        for path in g.iter(f"{NS}path")
        if "line" in classes(path)
    ]


def legends(svg: ElementTree.Element) -> list[str]:
    return [
        text.text or ""
        for g in svg.iter(f"{NS}g")
        if "legend" in classes(g)
        for text in g.iter(f"{NS}text")
    ]


def places_now(desk: Desk) -> dict[str, int]:
    """The division's public table now: each team's name and place (R9)."""
    names = dict(Team.objects.values_list("slug", "name"))
    return {names[row.team]: row.rank for row in pool_standings(pool=desk.league.pools["elite"])}


def test_the_places_chart_draws_one_line_per_team_at_its_place_after_each_published_round(
    desk: Desk, open_as: Callable
) -> None:
    publish(desk, 1)
    after_one = places_now(desk)
    desk.league.send_all("elite", 2)
    publish(desk, 2)
    after_two = places_now(desk)

    svg = svg_of(open_as(None).get(STANDINGS).content.decode(), "places")
    assert len(lines(svg)) == 12 == len(series(svg))
    drawn = dict(zip(legends(svg), (values(serie) for serie in series(svg)), strict=True))
    assert drawn == {name: [after_one[name], after_two[name]] for name in after_two}
    assert x_labels(series(svg)[0]) == ["1", "2"]
    assert not any("highlight" in classes(node) for node in svg.iter())  # a visitor's page


def test_the_reader_s_team_is_the_highlighted_line(desk: Desk, open_as: Callable) -> None:
    publish(desk, 1)
    html = open_as(desk.coach).get(STANDINGS).content.decode()
    svg = svg_of(html, "places")
    marked = highlighted(svg)
    own = Team.objects.get(slug="elite-01").name
    assert len(marked) == 1 and legends(svg)[marked[0]] == own
    assert "has-highlight" in classes(svg)
    assert re.search(rf'<tr class="highlight"><th scope="row">{re.escape(own)}</th>', html)
    other = svg_of(open_as(desk.other_coach).get(STANDINGS).content.decode(), "places")
    assert [legends(other)[i] for i in highlighted(other)] == [
        Team.objects.get(slug="elite-02").name
    ]


def test_the_places_chart_is_drawn_for_a_phone_and_for_a_wide_screen_alike(
    desk: Desk, open_as: Callable
) -> None:
    # A wide card gets a drawing of its own (an SVG's text grows with its width), showing the
    # same lines, names and highlighted team.
    publish(desk, 1)
    html = open_as(desk.coach).get(STANDINGS).content.decode()
    phone = svg_of(html, "places")
    found = re.search(
        r'<svg [^>]*class="pygal-chart chart-places chart-wide[ "].*?</svg>', html, re.S
    )
    assert found is not None
    wide = ElementTree.fromstring(found.group(0))
    assert "chart-wide" not in classes(phone)
    assert (phone.get("viewBox") or "").split()[2] == str(charts.WIDTH)
    assert (wide.get("viewBox") or "").split()[2] == str(charts.WIDE_WIDTH)
    assert legends(wide) == legends(phone)
    assert [values(serie) for serie in series(wide)] == [values(serie) for serie in series(phone)]
    assert highlighted(wide) == highlighted(phone) != []
    assert wide.get("id") != phone.get("id")
    assert html.count('<figure class="chart has-wide" data-chart="places">') == 1


def test_the_team_page_draws_its_goals_for_and_against_per_published_round(
    desk: Desk, open_as: Callable
) -> None:
    pool_round = publish(desk, 1)
    html = open_as(None).get(PAGE).content.decode()
    svg = svg_of(html, "goals")
    entry = desk.league.entries["elite-01"]
    fixture = Fixture.objects.select_related("result").get(
        Q(home=entry) | Q(away=entry), pool_round=pool_round
    )
    goals = (fixture.result.home_goals, fixture.result.away_goals)
    scored, conceded = goals if fixture.home_id == entry.pk else goals[::-1]
    assert legends(svg) == ["Goals for", "Goals against"]
    assert [values(serie) for serie in series(svg)] == [[scored], [conceded]]
    assert x_labels(series(svg)[0]) == ["1"]
    assert 'data-chart-table="goals"' in html


def test_the_coach_s_ledger_draws_the_stocks_left_after_each_published_round(
    desk: Desk, open_as: Callable
) -> None:
    publish(desk, 1)
    html = open_as(desk.coach).get(PAGE).content.decode()
    ledger = html.split('id="ledger"', 1)[1]
    svg = svg_of(ledger, "stocks")
    now = Entry.objects.get(team__slug="elite-01")
    assert legends(svg) == ["Extra goals", "Great saves"]
    extra, saves = (values(serie) for serie in series(svg))
    assert extra == [2, now.extra_goals] == [2, 0]  # A++ spent both (R6)
    assert saves == [2, now.great_saves]
    assert x_labels(series(svg)[0]) == ["Start", "Ch. 1"]
    assert '<th scope="row">Championship 1</th>' in ledger

    desk.league.send_all("elite", 2, picks={"elite-01": "B#(2)"})
    publish(desk, 2)
    svg = svg_of(
        open_as(desk.coach).get(PAGE).content.decode().split('id="ledger"', 1)[1], "stocks"
    )
    extra, saves = (values(serie) for serie in series(svg))
    assert (extra, saves) == ([2, 0, 0], [2, 2, 1])  # a great save in round 2 (R6)
    desk.league.send_all("elite", 3)
    publish(desk, 3)
    svg = svg_of(
        open_as(desk.coach).get(PAGE).content.decode().split('id="ledger"', 1)[1], "stocks"
    )
    assert [values(serie) for serie in series(svg)] == [[2, 0, 0, 0], [2, 2, 1, 1]]  # unspent
    assert x_labels(series(svg)[0])[-1] == "Ch. 3"
    for who in (None, desk.other_coach, desk.visitor):
        assert 'data-chart="stocks"' not in open_as(who).get(PAGE).content.decode()


def test_an_arbitrated_unpublished_round_changes_no_chart(desk: Desk, open_as: Callable) -> None:
    publish(desk, 1)

    def drawn() -> list[object]:
        standings = open_as(desk.coach).get(STANDINGS).content.decode()
        page = open_as(desk.coach).get(PAGE).content.decode()
        return [
            (legends(svg), [values(s) for s in series(svg)], [x_labels(s) for s in series(svg)])
            for svg in (
                svg_of(standings, "places"),
                svg_of(page, "goals"),
                svg_of(page, "stocks"),
            )
        ]

    before = drawn()
    desk.league.send_all("elite", 2, picks={"elite-01": "B#(2)"})
    services.pool_round_arbitrate(pool_round=desk.pool_round(2), by=desk.referee)
    assert StockMovement.objects.filter(entry__team__slug="elite-01", round__number=2).exists()
    assert drawn() == before


def test_no_chart_before_the_first_published_round(desk: Desk, open_as: Callable) -> None:
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    assert 'data-chart="places"' not in open_as(desk.coach).get(STANDINGS).content.decode()
    page = open_as(desk.coach).get(PAGE).content.decode()
    assert 'data-chart="goals"' not in page
    svg = svg_of(page, "stocks")  # the season's start only
    assert [values(serie) for serie in series(svg)] == [[2], [2]]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_chart_has_a_title_and_a_description_in_the_reader_s_language(
    desk: Desk, open_as: Callable, language: str
) -> None:
    publish(desk, 1)
    pages = (
        open_as(desk.coach, language).get(STANDINGS).content.decode(),
        open_as(desk.coach, language).get(PAGE).content.decode(),
    )
    with translation.override(language):
        titles = {
            "places": translation.gettext("Places round by round — %(division)s"),
            "goals": translation.gettext("Goals for and against — %(team)s"),
            "stocks": translation.gettext("Stocks left over the season — %(team)s"),
        }
    for key, html in (("places", pages[0]), ("goals", pages[1]), ("stocks", pages[1])):
        svg = svg_of(html, key)
        title, desc = svg.find(f"{NS}title"), svg.find(f"{NS}desc")
        assert title is not None and desc is not None
        assert svg.get("role") == "img"
        assert svg.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
        assert (title.text or "").startswith(titles[key].split(" — ")[0])
        assert (desc.text or "").strip()
        assert svg.get("viewBox") and svg.get("width") is None  # it fills its box on a phone


def test_the_charts_carry_nothing_the_csp_blocks(desk: Desk, open_as: Callable) -> None:
    publish(desk, 1)
    for url in (STANDINGS, PAGE):
        response = open_as(desk.coach).get(url)
        assert "style-src 'self'" in response["Content-Security-Policy"]
        html = response.content.decode()
        for key in ("places",) if url == STANDINGS else ("goals", "stocks"):
            svg = svg_of(html, key)
            names = {node.tag.rpartition("}")[2] for node in svg.iter()}
            assert not names & {"script", "style"}
            assert not any("style" in node.attrib for node in svg.iter())
        ids = re.findall(r' id="([^"]+)"', html)
        assert len(ids) == len(set(ids))


def test_the_places_cost_the_same_queries_whatever_the_rounds_published(desk: Desk) -> None:
    pool = desk.league.pools["elite"]
    publish(desk, 1)
    with CaptureQueriesContext(connection) as one:
        pool_places(pool=pool)
    desk.league.send_all("elite", 2)
    publish(desk, 2)
    with CaptureQueriesContext(connection) as two:
        places = pool_places(pool=pool)
    assert len(one) == len(two) <= 4
    assert places.rounds == (1, 2)
