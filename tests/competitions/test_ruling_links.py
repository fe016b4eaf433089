"""Every page that cites a ruling links it to the rules (the ``ruling_links`` filter): the demo
league's pages are crawled as a visitor, a coach, a referee and an admin; every citation shown
(R1…) is a link, and every link to a ruling lands on an element with that id on the rules'
guide (``/rules/#rN``) or the rulings page (``/rules/rulings/#rN``)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.db import transaction
from django.test import Client
from pytest_django import DjangoDbBlocker

from tests.demo_worlds import DemoWorlds

pytestmark = pytest.mark.django_db

WEEK = 6
RULING_LINK = re.compile(r'href="(/rules/(?:rulings/)?)#(r[0-9]+)"')
CITATION = re.compile(r"\bR[0-9]{1,2}\b")


# Not searched: links, scripts and styles; code; the charts (their « R1 » is round 1);
# a <summary> (no link may go inside one: it is the disclosure's button) and a <caption> (the
# tables' are visually hidden: a link there would be an invisible Tab stop), nor any other
# visually hidden text.
UNSEARCHED = ("a", "script", "style", "title", "code", "figure", "summary", "caption")


class Citations(HTMLParser):
    """The citations of a page's text that are not inside a link (nor what is unsearched)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.bare: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # Text only screen readers get (a badge's words, .visually-hidden) cannot hold a link
        # either: it would be an invisible Tab stop.
        hidden = "visually-hidden" in (dict(attrs).get("class") or "").split()
        if tag in UNSEARCHED or hidden:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if not self.open:
            self.bare += [f"{match} in «{data.strip()[:80]}»" for match in CITATION.findall(data)]


def bare_citations(html: str) -> list[str]:
    parser = Citations()
    parser.feed(html)
    return parser.bare


def page_ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


@pytest.fixture(scope="module")
def crawled(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker, demo_worlds: DemoWorlds
) -> dict[str, str]:
    """The pages that cite rulings, by name: their HTML, each read by who may read it."""
    pages: dict[str, str] = {}
    with django_db_blocker.unblock(), transaction.atomic():
        league = demo_worlds.load(week=WEEK)
        entry = league.season.entries.select_related("team__coach").get(
            division__slug="elite", code=1
        )
        coach = entry.team.coach
        team = entry.team.slug
        readers = {
            "": (
                "/standings/elite/",
                "/standings/d3a/",
                "/standings/kdh/",
                "/standings/wg/",
                f"/results/championship/elite/{WEEK - 1}/",
                f"/results/kdh/kdh/{WEEK - 2}/",
                "/infos/championship/elite/",
                "/seasons/1/",
                f"/seasons/teams/{team}/",
                f"/teams/{team}/",
                "/wg/race/",
                "/rules/",
                "/rules/rulings/",
                "/matrices/",
            ),
            "coach": ("/picks/", f"/teams/{team}/"),
            "referee": ("/referee/", f"/referee/championship/elite/{WEEK}/"),
            "admin": ("/desk/season/",),
        }
        people = {"coach": coach, "referee": league.referee, "admin": league.admin}
        for who, paths in readers.items():
            client = Client(headers={"Accept-Language": "en"})
            if who:
                client.force_login(people[who])
            for path in paths:
                response = client.get(path)
                assert response.status_code == 200, (who, path, response.status_code)
                pages[f"{who or 'visitor'} {path}"] = response.content.decode()
        transaction.set_rollback(True)
    return pages


def test_every_link_to_a_ruling_lands_on_its_anchor(crawled: dict[str, str]) -> None:
    targets = {
        "/rules/": page_ids(crawled["visitor /rules/"]),
        "/rules/rulings/": page_ids(crawled["visitor /rules/rulings/"]),
    }
    linked = 0
    for name, html in crawled.items():
        for page, anchor in RULING_LINK.findall(html):
            assert anchor in targets[page], f"{name}: {page}#{anchor} has no such anchor"
            linked += 1
    assert linked > 50


@pytest.mark.parametrize(
    ("page", "rulings"),
    [
        ("visitor /standings/elite/", {"r9", "r22"}),
        ("visitor /standings/d3a/", {"r9", "r22", "r14"}),
        ("visitor /standings/kdh/", {"r15", "r17"}),
        ("visitor /standings/wg/", {"r9", "r18"}),
        (f"visitor /results/championship/elite/{WEEK - 1}/", {"r23", "r5", "r1"}),
        ("visitor /matrices/", {"r1", "r3", "r19"}),
        ("visitor /infos/championship/elite/", {"r7", "r11", "r19"}),
        ("visitor /wg/race/", {"r18", "r23"}),
        ("coach /picks/", {"r11", "r14"}),
        ("referee /referee/championship/elite/6/", {"r23"}),
        ("admin /desk/season/", set()),
    ],
)
def test_the_pages_that_cite_rulings_link_them(
    crawled: dict[str, str], page: str, rulings: set[str]
) -> None:
    html = crawled[page]
    assert rulings <= {anchor for _, anchor in RULING_LINK.findall(html)}


@pytest.mark.parametrize("page", ["every page"])
def test_no_page_leaves_a_citation_without_its_link(crawled: dict[str, str], page: str) -> None:
    bare = {name: bare_citations(html) for name, html in crawled.items()}
    assert {name: found for name, found in bare.items() if found} == {}


def test_only_visible_text_must_link_its_citations() -> None:
    badge = (
        '<span class="badge" title="level (R9)">🎲'
        '<span class="visually-hidden"> level (R9)</span></span>'
    )
    assert bare_citations(badge) == []
    assert bare_citations("<p>placed by a die (R9)</p>") == ["R9 in «placed by a die (R9)»"]
