"""No 500, whoever asks and whatever they send: a small fuzzer over the site's pages and forms.

For each role (a visitor, a coach, their deputy, another coach, a referee, a staff member), the
pages the role reaches are crawled from the site's own links on the open-rounds league
(``tests/competitions/open_rounds.py``), and every form found on them is sent back with one
field at a time spoiled: a NUL byte, text far longer than any column, numbers no column holds,
a negative number, a word where a number goes, the field left out, a file of garbage. Every page
is also asked for with odd query numbers (``?season=``, ``?round=``, ``?page=``…), and every
address of the URL configuration with odd values in its parts. Each answer must be anything
but a server error. The API has its own fuzzer, schemathesis
(``tests/matrixhockey/test_api_schemathesis.py``).

Bounded and repeatable: pages in the order links are found, at most :data:`PAGES` per role.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.resolvers import RoutePattern

from league.models import Team
from tests.competitions.matrix_values import matrices_create
from tests.competitions.open_rounds import OpenLeague, coaches_open_league
from tests.conftest import ResultRecorder

pytestmark = pytest.mark.django_db

PAGES = 30
"""Pages crawled per role, at most."""
HUGE = str(2**63)
VERY_HUGE = "2729037577424753235672956928"
SPOILED: dict[str, str] = {
    "nul": "a\x00b",
    "overlong": "x" * 5000,
    "2**63": HUGE,
    "a word": "abc\u2603",
    "JSON with a NUL": '{"a": ["\\u0000"]}',
}
"""What a spoiled field gets (and the field left out)."""
QUERY_NUMBERS = ("season", "round", "page", "week", "team", "lang")
QUERY_VALUES = (HUGE, VERY_HUGE)
NOT_CRAWLED = ("/admin/", "/api/", "/static/", "/calendar/", "/i18n/", "/accounts/logout/")
"""The admin is Django's; the API is schemathesis'; static files and calendars are no pages;
the language switch and signing out would change who is crawling."""
ROLES = ("visitor", "coach", "deputy", "other_coach", "referee", "staff")


class _Forms(HTMLParser):
    """The links and forms of a page: each form's method, action and fields with the values the
    page gives them."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[Form] = []
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "a" and "href" in found:
            self.links.append(found["href"])
        elif tag == "form":
            method = found.get("method", "get").lower()
            self.forms.append(Form(method=method, action=found.get("action", ""), fields={}))
        elif not self.forms:
            return
        elif tag in ("input", "textarea", "select", "button") and found.get("name"):
            self._field(tag, found)

    def _field(self, tag: str, found: dict[str, str]) -> None:
        form, name = self.forms[-1], found["name"]
        kind = found.get("type", "text").lower()
        if tag == "select":
            self._select = name
            form.fields.setdefault(name, "")
        elif kind == "file":
            form.files.add(name)
        elif kind in ("checkbox", "radio"):
            if "checked" in found or name not in form.fields:
                form.fields[name] = found.get("value", "on")
        elif tag != "button" and kind not in ("submit", "image", "reset"):
            form.fields[name] = found.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None

    def handle_starttag_option(self, found: dict[str, str]) -> None:
        if self._select is not None and self.forms:
            form = self.forms[-1]
            if not form.fields.get(self._select) or "selected" in found:
                form.fields[self._select] = found.get("value", "")


class Form:
    def __init__(self, *, method: str, action: str, fields: dict[str, str]) -> None:
        self.method = method
        self.action = action
        self.fields = fields
        self.files: set[str] = set()

    def spoiled(self) -> Iterator[tuple[str, dict[str, object]]]:
        """The form's data with one field spoiled at a time, each way; then every file field
        given garbage."""
        for name in self.fields:
            if name == "csrfmiddlewaretoken":
                continue
            for how, value in SPOILED.items():
                yield f"{name}: {how}", {**self.fields, name: value}
            yield f"{name}: left out", {k: v for k, v in self.fields.items() if k != name}
        for name in self.files:
            for how, content in (("NUL bytes", b"\x00" * 64), ("not UTF-8", b"\xff\xfe\xc0")):
                upload = SimpleUploadedFile("league.csv", content, content_type="text/csv")
                yield f"{name}: {how}", {**self.fields, name: upload}


class _Parser(_Forms):
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "option":
            self.handle_starttag_option({name: value or "" for name, value in attrs})
        else:
            super().handle_starttag(tag, attrs)


def parse(html: str) -> _Parser:
    parser = _Parser()
    parser.feed(html)
    return parser


def crawl(browser: Client, start: list[str]) -> dict[str, _Parser]:
    """The role's pages reached from ``start`` by the site's own links, at most :data:`PAGES`."""
    seen: dict[str, _Parser] = {}
    queue = list(start)
    while queue and len(seen) < PAGES:
        address = queue.pop(0)
        path = urlsplit(address)
        if path.netloc or path.path in seen or path.path.startswith(NOT_CRAWLED):
            continue
        response = browser.get(address)
        assert response.status_code < 500, f"GET {address}: {response.status_code}"
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        page = parse(response.content.decode())
        seen[path.path] = page
        queue.extend(urljoin(path.path, link) for link in page.links if not link.startswith("#"))
    return seen


@pytest.fixture
def league(
    coach: User, other_coach: User, elite_pool: object, record_played: ResultRecorder
) -> OpenLeague:
    league = coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )
    matrices_create(season=league.elite.season)  # as every started season has them (R25)
    return league


@pytest.fixture
def deputy(league: OpenLeague) -> User:
    friend = User.objects.create_user("friend", email="friend@example.org", password="x")
    Team.objects.filter(slug="sleigh-dogs").update(deputy=friend)
    return friend


@pytest.fixture(params=ROLES)
def browser(
    request: pytest.FixtureRequest,
    league: OpenLeague,
    deputy: User,
    referee: User,
    admin_user: User,
    open_as: Callable[..., Client],
) -> Client:
    people = {"deputy": deputy, "referee": referee, "staff": admin_user}
    role = request.param
    user = people.get(role) or (request.getfixturevalue(role) if role != "visitor" else None)
    browser = open_as(user)
    browser.raise_request_exception = False
    return browser


NOT_SHOWN: dict[str, dict[str, str | None]] = {
    "/desk/season/import/": {"file": None},
    "/desk/season/calendar/": {"starts_on": "2026-09-07", "skip": "4,5"},
    "/desk/season/pools/": {"referees-elite": "referee"},
    "/desk/season/wg/": {"wg": "1"},
    "/desk/season/plan/swap/": {"first": "x", "second": "y", "reset": ""},
    "/desk/season/withdraw/": {"entry": "1"},
    "/join/": {"contact_name": "Jo", "email": "jo@example.org", "team_name": "J", "language": "fr"},
}
"""Forms the open-rounds league does not show (the season desk's steps of a season being
prepared or closed; the join form to whoever is signed in): sent all the same, spoiled. A field
given ``None`` is a file."""

START = [
    "/",
    "/picks/",
    "/accounts/",
    "/accounts/password/",
    "/accounts/password_reset/",
    "/emails/preferences/",
    "/teams/sleigh-dogs/",
    "/referee/",
    "/desk/season/",
    "/join/",
    "/accounts/login/",
]


def _view(address: str) -> str:
    """The name of the view that answers ``address``: pages of one view are fuzzed once."""
    return resolve(urlsplit(address).path).view_name


def test_no_page_or_form_answers_a_server_error(browser: Client) -> None:
    failures = []
    views_asked: set[str] = set()
    forms_sent: set[tuple[str, str, tuple[str, ...]]] = set()
    for address, page in crawl(browser, START).items():
        if _view(address) not in views_asked:
            views_asked.add(_view(address))
            for name in QUERY_NUMBERS:
                for value in QUERY_VALUES:
                    status = browser.get(address, {name: value}).status_code
                    if status >= 500:
                        failures.append(f"GET {address}?{name}={value}: {status}")
        for form in page.forms:
            target = (urljoin(address, form.action) if form.action else address).split("#")[0]
            if urlsplit(target).path.startswith(("/accounts/logout/", "/i18n/")):
                continue
            sent = (form.method, _view(target), tuple(sorted(form.fields)))
            if sent in forms_sent:  # the same form on another page, or another round's
                continue
            forms_sent.add(sent)
            send = browser.post if form.method == "post" else browser.get
            for how, data in form.spoiled():
                status = send(target, data).status_code
                if status >= 500:
                    failures.append(f"{form.method.upper()} {target} ({how}): {status}")
    for target, fields in NOT_SHOWN.items():
        form = Form(
            method="post",
            action=target,
            fields={name: value for name, value in fields.items() if value is not None},
        )
        form.files = {name for name, value in fields.items() if value is None}
        for how, data in form.spoiled():
            status = browser.post(target, data).status_code
            if status >= 500:
                failures.append(f"POST {target} ({how}): {status}")
    assert not failures, "\n".join(failures)


ODD_PARTS: dict[str, tuple[str, ...]] = {
    "num": ("0", "999999999"),
    "slug": ("a" * 300, "-", "_"),
    "str": ("a" * 300, "%C3%A9", ".", "a.b"),
    "uidb64": ("a" * 300,),
    "token": ("a" * 300, "%C3%A9"),
}


def _routes(resolver: URLResolver, prefix: str = "") -> Iterator[str]:
    for entry in resolver.url_patterns:
        pattern = entry.pattern
        if not isinstance(pattern, RoutePattern):
            continue  # the admin's and Django's own regular expressions
        route = prefix + str(pattern)
        if isinstance(entry, URLResolver):
            yield from _routes(entry, route)
        elif isinstance(entry, URLPattern) and not route.startswith("admin/"):
            yield route


def _odd_addresses(route: str) -> Iterator[str]:
    """``route`` with each of its parts given each odd value its converter lets through."""
    parts = [piece.split(">")[0] for piece in route.split("<")[1:]]
    for index, part in enumerate(parts):
        converter = part.split(":")[0] if ":" in part else "str"
        for value in ODD_PARTS.get(converter, ODD_PARTS["str"]):
            address = "/" + route
            for other, piece in enumerate(parts):
                address = address.replace(f"<{piece}>", value if other == index else "1", 1)
            yield address


@pytest.mark.parametrize("browser", ["visitor", "coach", "staff"], indirect=True)
def test_no_address_answers_a_server_error_to_odd_parts(browser: Client) -> None:
    failures = []
    for route in _routes(get_resolver()):
        for address in _odd_addresses(route):
            for method in (browser.get, browser.post):
                status = method(address).status_code
                if status >= 500:
                    failures.append(f"{method.__name__.upper()} {address}: {status}")
    assert not failures, "\n".join(failures)
