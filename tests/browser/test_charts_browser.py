"""The season's charts in real Chromium: no Content-Security-Policy violation in the console,
the SVG no wider than a phone's screen, and the table behind each chart one click away."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, expect
from pytest_django.live_server_helper import LiveServer

from competitions import services
from league.models import Division, Season, Team
from tests.browser.conftest import Launch, overflowing, screenshot
from tests.competitions.desk_league import desk_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_charts_draw_without_a_csp_violation_and_fit_the_screen(
    browser: Launch,
    live_server: LiveServer,
    season: Season,
    divisions: dict[str, Division],
    phone: bool,
) -> None:
    desk = desk_build(season=season, divisions=divisions)
    for number in (1, 2):
        desk.league.send_all("elite", number)
        pool_round = services.pool_round_arbitrate(
            pool_round=desk.pool_round(number), by=desk.referee
        )
        services.pool_round_publish(pool_round=pool_round, by=desk.referee)

    page = browser(locale="en-GB", phone=phone)
    messages: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        messages.append(message.text)

    page.on("console", heard)
    page.goto(f"{live_server.url}/accounts/login/?next=/standings/elite/")
    page.locator("input[name=username]").fill("sleigh-coach")
    page.locator("input[name=password]").fill("secret-password")
    page.locator("form.stack button[type=submit]").click()
    expect(page).to_have_url(f"{live_server.url}/standings/elite/")
    size = "phone" if phone else "desktop"
    for path, keys in (
        ("/standings/elite/", ("places",)),
        ("/teams/elite-01/", ("goals", "stocks")),
    ):
        page.goto(f"{live_server.url}{path}")
        for key in keys:
            figure = page.locator(f'figure[data-chart="{key}"]')
            chart = figure.locator("svg:visible")
            expect(chart).to_be_visible()
            expect(
                page.get_by_role("img", name=figure.locator("figcaption").inner_text())
            ).to_be_visible()
            box = chart.bounding_box()
            assert box is not None and 0 < box["width"] <= page.viewport_size["width"]
            # pygal's classes are styled by charts.css: no line or bar in the default black.
            drawn = chart.locator(".series .line, .series .rect").first
            assert drawn.evaluate("e => getComputedStyle(e).fill") != "rgb(0, 0, 0)"
            figure.locator("summary").click()
            expect(figure.locator("table")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"charts-{path.strip('/').replace('/', '-')}-{size}", full_page=True)
    assert not [text for text in messages if "Content Security Policy" in text]


LONG_NAMES = [
    "Figure Skate Fugitives",
    "Les Patinoires Perdues",
    "Les Culs Gelés",
    "Zamboni Zombies",
    "Freezing Ass",
    "Les Lutins du Lac",
    "Ice Crocodiles",
    "Sleigh Dogs",
    "Teddy Bears",
    "Puck Pukers",
    "Cybérians",
    "Grizzlies",
]

LEGEND = """(svg) => [...svg.querySelectorAll(".legends .legend")].map((legend) => {
  const text = legend.querySelector("text");
  const rect = legend.querySelector("rect");
  const box = text.getBoundingClientRect();
  const style = getComputedStyle(rect);
  return {name: text.textContent, left: box.left, right: box.right, top: box.top,
          bottom: box.bottom, fill: style.fill, dashes: style.strokeDasharray};
})"""


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_places_legend_shows_every_name_whole_apart_and_the_dashed_lines_dashed(
    browser: Launch,
    live_server: LiveServer,
    season: Season,
    divisions: dict[str, Division],
    phone: bool,
) -> None:
    desk = desk_build(season=season, divisions=divisions)
    teams = Team.objects.filter(entries__season=season, entries__division__slug="elite")
    for team, name in zip(teams.order_by("slug"), LONG_NAMES, strict=True):
        Team.objects.filter(pk=team.pk).update(name=name)
    desk.league.send_all("elite", 1)
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)

    page = browser(locale="en-GB", phone=phone)
    page.goto(f"{live_server.url}/standings/elite/")
    chart = page.locator('figure[data-chart="places"] svg:visible')
    expect(chart).to_be_visible()
    svg = chart.bounding_box()
    assert svg is not None
    legend = chart.evaluate(LEGEND)
    assert sorted(entry["name"] for entry in legend) == sorted(LONG_NAMES)  # none cut
    for entry in legend:
        assert svg["x"] - 0.5 <= entry["left"] and entry["right"] <= svg["x"] + svg["width"] + 0.5
    for index, one in enumerate(legend):
        for other in legend[index + 1 :]:
            apart = (
                one["right"] <= other["left"]
                or other["right"] <= one["left"]
                or one["bottom"] <= other["top"]
                or other["bottom"] <= one["top"]
            )
            assert apart, (one, other)
    # Series 0–6 are the palette's seven colours, filled; 7 on repeat them, dashed like their
    # lines, so no two legend entries look alike.
    assert all(entry["fill"] != "none" for entry in legend[:7])
    assert all(entry["fill"] == "none" and entry["dashes"] != "none" for entry in legend[7:])
    screenshot(page, f"charts-legend-{'phone' if phone else 'desktop'}")


FILL = """(svg) => {
  const card = svg.closest(".chart-card");
  const style = getComputedStyle(card);
  const inner = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const legend = svg.querySelector(".legends .legend text");
  return {width: svg.getBoundingClientRect().width, inner,
          legendPx: parseFloat(getComputedStyle(legend).fontSize) * scale};
}"""


@pytest.mark.parametrize("width", [1920, 390])
def test_the_places_chart_fills_its_card_with_a_readable_legend_on_a_desktop_and_a_phone(
    browser: Launch,
    live_server: LiveServer,
    season: Season,
    divisions: dict[str, Division],
    width: int,
) -> None:
    desk = desk_build(season=season, divisions=divisions)
    teams = Team.objects.filter(entries__season=season, entries__division__slug="elite")
    for team, name in zip(teams.order_by("slug"), LONG_NAMES, strict=True):
        Team.objects.filter(pk=team.pk).update(name=name)
    desk.league.send_all("elite", 1)
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)

    page = browser(locale="en-GB", phone=width < 640)
    page.set_viewport_size({"width": width, "height": 1080 if width > 640 else 844})
    page.goto(f"{live_server.url}/standings/elite/")
    chart = page.locator('figure[data-chart="places"] svg:visible')
    expect(chart).to_have_count(1)
    seen = chart.evaluate(FILL)
    assert seen["width"] >= 0.9 * seen["inner"], seen
    assert 11 <= seen["legendPx"] <= 20, seen  # the legend's 14 px, scaled, stays readable
    assert overflowing(page) == []
    screenshot(page, f"charts-places-{width}", full_page=True)
