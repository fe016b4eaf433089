"""The cache of public reads (league.public_cache) on a real Redis: the version moves on
publication, voids and season moves and on nothing else; a cached page costs no query; nothing
of a signed-in visitor's reaches an anonymous page; an arbitrated round stays secret and its
publication shows at once; Redis down, pages are still served; without Redis, the version is
read from the database."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Iterator
from datetime import date

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django.fixtures import Settings

from competitions import services as competitions
from competitions.models import Competition
from competitions.services.season_start import season_prepare_calendar
from league import services as league
from league.models import Division, News, PublicVersion, Season
from league.public_cache import VERSION_KEY, public_cache_forget, public_version
from tests.competitions.desk_league import Desk, desk_build
from tests.conftest import redis_problem, redis_url, services_required

Capture = Callable[..., object]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def public_cache(settings: Settings) -> Iterator[None]:
    """The cache on, on the real Redis the suite uses, emptied first (a version copied there by
    an earlier test must not name this test's pages)."""
    problem = redis_problem()
    if problem is not None:
        if services_required():
            pytest.fail(problem, pytrace=False)
        pytest.skip(problem)
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_url(),
            "KEY_PREFIX": "public-cache-test",
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }
    settings.PUBLIC_CACHE_SECONDS = 60
    settings.PUBLIC_CACHE_SHARED = True
    settings.PUBLIC_VERSION_SECONDS = 0  # the version read on every request, unless a test says
    cache.clear()
    public_cache_forget()
    yield
    cache.clear()
    public_cache_forget()


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    return desk_build(season=season, divisions=divisions)


def version() -> tuple[int, int]:
    # The migration's row; a test that empties the tables (a live server's) takes it away, and
    # the first bump makes it again.
    row = PublicVersion.objects.filter(pk=1).first()
    return (0, 0) if row is None else (row.published, row.statuses)


def anonymous() -> Client:
    return Client(headers={"accept-language": "en"})


def queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


# --- The version -----------------------------------------------------------------------------


def test_publishing_and_voiding_move_the_version_and_its_copy_in_the_cache(
    public_cache: None, desk: Desk, django_capture_on_commit_callbacks: Capture
) -> None:
    before = version()
    with django_capture_on_commit_callbacks(execute=True):
        arbitrated = desk.league.play("elite", 1)
    assert version()[0] == before[0]  # arbitrated, not published: nothing of it is public

    with django_capture_on_commit_callbacks(execute=True):
        competitions.pool_round_publish(pool_round=arbitrated, by=desk.referee)
    published = version()
    assert published[0] == before[0] + 1
    assert cache.get(VERSION_KEY) == f"{published[0]}.{published[1]}"

    with django_capture_on_commit_callbacks(execute=True):
        competitions.pool_round_void(pool_round=arbitrated, by=desk.referee, reason="wrong value")
    assert version()[0] == published[0] + 1
    assert public_version() == "{}.{}".format(*version())


def test_a_pick_or_an_arbitration_does_not_move_the_published_version(
    public_cache: None, desk: Desk
) -> None:
    before = version()
    desk.league.send("elite-01", Competition.CHAMPIONSHIP, 1, "A(1)")
    assert version() == before
    desk.league.play("elite", 1)
    # Only the statuses move: « played, being checked » is public, the result is not.
    assert version() == (before[0], before[1] + 1)


def test_closing_rounds_past_their_deadline_moves_the_statuses_only(
    public_cache: None, desk: Desk
) -> None:
    before = version()
    assert competitions.rounds_close_due() > 0
    assert version() == (before[0], before[1] + 1)
    assert competitions.rounds_close_due() == 0
    assert version() == (before[0], before[1] + 1)


def test_a_season_created_or_made_current_moves_the_version(public_cache: None, db: None) -> None:
    before = version()
    season = league.season_create(number=7, starts_on=date(2031, 3, 3))
    league.season_make_current(season=season)
    assert version()[0] == before[0] + 2


def test_a_preparation_step_moves_the_version(public_cache: None, db: None) -> None:
    league.divisions_create_standard()
    season = league.season_create(number=3, starts_on=date(2031, 3, 3))
    before = version()
    season_prepare_calendar(season=season)
    assert version()[0] == before[0] + 1


def test_a_refused_service_leaves_the_version_alone(public_cache: None, desk: Desk) -> None:
    before = version()
    with pytest.raises(competitions.NotArbitrated):
        competitions.pool_round_publish(pool_round=desk.pool_round(1), by=desk.referee)
    assert version() == before


# --- Pages and API reads ---------------------------------------------------------------------


PUBLIC_READS = [
    "/",
    "/standings/elite/",
    "/teams/elite-01/",
    "/results/championship/elite/1/",
    "/infos/championship/elite/",
    "/seasons/",
    "/rules/",
    "/rules/rulings/",
    "/api/standings/elite/",
    "/api/results/championship/elite/1/",
    "/api/infos/championship/elite/",
    "/api/seasons/",
    "/api/seasons/current/",
    "/matrices/",
    "/api/matrices/championship/",
]


@pytest.mark.parametrize("url", PUBLIC_READS)
def test_an_anonymous_read_costs_no_query_the_second_time(
    public_cache: None, desk: Desk, url: str
) -> None:
    visitor = anonymous()
    assert queries(visitor, url) > 0
    assert queries(visitor, url) == 0
    assert queries(anonymous(), url) == 0  # another visitor, the same page


def test_another_query_string_is_computed_every_time(public_cache: None, desk: Desk) -> None:
    visitor = anonymous()
    queries(visitor, "/standings/elite/?utm=x")
    assert queries(visitor, "/standings/elite/?utm=x") > 0
    queries(visitor, "/standings/elite/?season=1")
    assert queries(visitor, "/standings/elite/?season=1") == 0


def test_each_language_has_its_own_copy(public_cache: None, desk: Desk) -> None:
    english = anonymous().get("/standings/elite/").content.decode()
    french = Client(headers={"accept-language": "fr"}).get("/standings/elite/").content.decode()
    assert '<html lang="en">' in english
    assert '<html lang="fr">' in french


def test_a_signed_in_visitor_never_leaks_into_the_anonymous_page(
    public_cache: None, desk: Desk
) -> None:
    coach = Client(headers={"accept-language": "en"})
    coach.force_login(desk.coach)
    mine = coach.get("/standings/elite/").content.decode()
    assert "Sign out" in mine and "badge-now" in mine  # their name's initial, their team

    page = anonymous().get("/standings/elite/").content.decode()
    assert "Sign out" not in page and "badge-now" not in page and "Sign in" in page
    assert queries(anonymous(), "/standings/elite/") == 0

    # Once the anonymous page is kept, the coach still gets their own.
    assert "Sign out" in coach.get("/standings/elite/").content.decode()


def test_each_visitor_gets_their_own_csrf_token_from_a_kept_page(
    public_cache: None, desk: Desk
) -> None:
    tokens = []
    for _ in range(2):
        visitor = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})
        page = visitor.get("/standings/elite/")
        assert b"\x00" not in page.content
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content)
        assert token is not None
        tokens.append(token.group(1))
        # The language switch of the kept page works with this visitor's own cookie.
        switched = visitor.post(
            "/i18n/setlang/",
            {"language": "fr", "next": "/", "csrfmiddlewaretoken": token.group(1).decode()},
        )
        assert switched.status_code == 302
    assert tokens[0] != tokens[1]


def test_an_arbitrated_round_stays_secret_and_its_publication_shows_at_once(
    public_cache: None, desk: Desk, django_capture_on_commit_callbacks: Capture
) -> None:
    visitor = anonymous()
    page_url, api_url = "/results/championship/elite/1/", "/api/results/championship/elite/1/"
    standings = visitor.get("/api/standings/elite/").json()
    assert "Not published yet." in visitor.get(page_url).content.decode()
    assert visitor.get(api_url).json()["matches"] == []

    with django_capture_on_commit_callbacks(execute=True):
        arbitrated = desk.league.play("elite", 1)
    page = visitor.get(page_url).content.decode()
    assert "Not published yet." in page and "the referee is checking the results" in page
    answer = visitor.get(api_url).json()
    assert (answer["status"], answer["matches"]) == ("arbitrated", [])
    assert "seed" not in answer
    assert visitor.get("/api/standings/elite/").json() == standings

    with django_capture_on_commit_callbacks(execute=True):
        competitions.pool_round_publish(pool_round=arbitrated, by=desk.referee)
    assert "Not published yet." not in visitor.get(page_url).content.decode()
    assert len(visitor.get(api_url).json()["matches"]) == 6
    assert visitor.get("/api/standings/elite/").json() != standings


def test_pages_are_served_while_redis_is_down(
    public_cache: None,
    desk: Desk,
    settings: Settings,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }
    visitor = anonymous()
    for url in ("/standings/elite/", "/api/standings/elite/", "/results/championship/elite/1/"):
        assert visitor.get(url).status_code == 200
        # The version is read from the database, which Redis is not there to spare.
        assert queries(visitor, url) == 1
    with django_capture_on_commit_callbacks(execute=True):
        arbitrated = desk.league.play("elite", 1)
        competitions.pool_round_publish(pool_round=arbitrated, by=desk.referee)
    page = visitor.get("/results/championship/elite/1/").content.decode()
    assert "Not published yet." not in page


def test_without_redis_each_process_reads_the_version_from_the_database(
    settings: Settings, desk: Desk, django_capture_on_commit_callbacks: Capture
) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.PUBLIC_CACHE_SECONDS = 60
    settings.PUBLIC_CACHE_SHARED = False
    settings.PUBLIC_VERSION_SECONDS = 0
    public_cache_forget()
    visitor = anonymous()
    queries(visitor, "/api/standings/elite/")
    assert queries(visitor, "/api/standings/elite/") == 1  # the version's row
    with django_capture_on_commit_callbacks(execute=True):
        arbitrated = desk.league.play("elite", 1)
        competitions.pool_round_publish(pool_round=arbitrated, by=desk.referee)
    assert queries(visitor, "/api/standings/elite/") > 1  # a new version: computed again


def test_a_process_trusts_the_version_it_read_for_a_second_and_its_own_bump_at_once(
    public_cache: None,
    desk: Desk,
    settings: Settings,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    settings.PUBLIC_VERSION_SECONDS = 1
    visitor = anonymous()
    queries(visitor, "/api/standings/elite/")
    assert queries(visitor, "/api/standings/elite/") == 0

    # Another process bumps: the row and the cache's copy move, not this process's memory.
    PublicVersion.objects.filter(pk=1).update(published=F("published") + 1)
    cache.set(VERSION_KEY, "{}.{}".format(*version()))
    assert queries(visitor, "/api/standings/elite/") == 0  # the page as it was, for a second
    time.sleep(1.1)
    assert queries(visitor, "/api/standings/elite/") > 0  # then the new version's

    # This process's own bump: at once.
    assert queries(visitor, "/api/standings/elite/") == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert competitions.rounds_close_due() > 0
    assert queries(visitor, "/api/standings/elite/") > 0


def test_news_saved_or_deleted_in_the_admin_shows_on_the_kept_home_page_at_once(
    public_cache: None,
    desk: Desk,
    admin_client: Client,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    visitor = anonymous()
    assert "Rink closed" not in visitor.get("/").content.decode()
    fields = {
        "title_fr": "Patinoire fermée",
        "title_en": "Rink closed",
        "body_fr": "Pour travaux.",
        "body_en": "For works.",
        "published_at_0": "2026-01-01",
        "published_at_1": "12:00:00",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post("/admin/league/news/add/", fields)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert "Rink closed" in visitor.get("/").content.decode()

    news = News.objects.get(title_en="Rink closed")
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(f"/admin/league/news/{news.pk}/delete/", {"post": "yes"})
    assert not News.objects.exists()
    assert "Rink closed" not in visitor.get("/").content.decode()


# --- A signed-in person: the public part kept, their own added -----------------------------------


def signed_in(user: object, language: str) -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def page_of(client: Client, url: str) -> str:
    """The page at ``url``, its CSRF tokens (new at every answer) left out."""
    html = client.get(url).content.decode()
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def mine(html: str) -> list[str]:
    """The team names of the rows highlighted as the reader's in a table."""
    rows = re.findall(r'<tr class="[^"]*\bmine\b[^"]*">(.*?)</tr>', html, re.S)
    return [re.search(r'class="team-name"[^>]*>([^<]+)<', row).group(1) for row in rows]


def test_two_coaches_in_a_row_each_get_their_own_part_around_the_kept_one(
    public_cache: None, desk: Desk
) -> None:
    first, second = (desk.league.entries[slug].team.name for slug in ("elite-01", "elite-02"))
    coach = signed_in(desk.coach, "en")
    other_in_french = signed_in(desk.other_coach, "fr")
    other = signed_in(desk.other_coach, "en")
    for _ in range(2):  # computed, then from the kept public part
        for client, team, language, initial in [
            (coach, first, "en", "S"),
            (other_in_french, second, "fr", "F"),
            (other, second, "en", "F"),
        ]:
            someone_else = second if team == first else first
            avatar = f'<span class="avatar" aria-hidden="true">{initial}</span>'
            home = page_of(client, "/")
            assert f'<html lang="{language}">' in home and avatar in home
            games = "your games" if language == "en" else "vos matchs"
            card = home.split('id="glance-coach"')[1].split("</article>")[0]
            assert re.search(rf"{team}\s*:\s*{games}", card), card
            assert someone_else not in card

            standings = page_of(client, "/standings/elite/")
            assert mine(standings) == [team] and avatar in standings

            team_page = page_of(client, "/teams/elite-01/")
            assert ('id="ledger"' in team_page) == (team == first)
            assert ('id="deputy"' in team_page) == (team == first)

    # The kept parts hold nobody's own: an anonymous visitor gets the public page.
    for url in ("/", "/standings/elite/", "/teams/elite-01/"):
        html = page_of(anonymous(), url)
        assert "Sign out" not in html and 'id="ledger"' not in html and mine(html) == []
        assert "glance-coach" not in html


def test_a_kept_public_part_shows_a_result_on_its_publication_and_not_before(
    public_cache: None, desk: Desk, django_capture_on_commit_callbacks: Capture
) -> None:
    coach = signed_in(desk.other_coach, "en")  # elite-02's: their row, no ledger on elite-01's
    urls = ("/standings/elite/", "/teams/elite-01/")
    shown = {url: page_of(coach, url) for url in urls}
    with django_capture_on_commit_callbacks(execute=True):
        arbitrated = desk.league.play("elite", 1)
    for url in urls:
        assert page_of(coach, url) == shown[url], url  # nothing of it before publication

    with django_capture_on_commit_callbacks(execute=True):
        competitions.pool_round_publish(pool_round=arbitrated, by=desk.referee)
    for url in urls:
        assert page_of(coach, url) != shown[url], url
    second = desk.league.entries["elite-02"].team.name
    assert mine(page_of(coach, "/standings/elite/")) == [second]
