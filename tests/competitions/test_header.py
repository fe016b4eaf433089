"""Every page's header: « My picks » for the team's coach and its deputy (R12), « Referee » for
a pool's referee — read in one query a request (:mod:`competitions.selectors.people`), never
kept beyond it, so that a change of deputy or referee shows on the very next page."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from competitions.models import Pool
from league.models import Team
from league.services import team_deputy_remove, team_deputy_set

pytestmark = pytest.mark.django_db

PICKS_LINK = f'href="{reverse("picks")}"'
REFEREE_LINK = f'href="{reverse("referee")}"'


def _header(browser: Client) -> str:
    page = browser.get(reverse("rules")).content.decode()
    return page.split("</header>", 1)[0]


def test_the_coach_sees_my_picks_and_not_the_referees_desk(
    coach: User, open_as: Callable[..., Client]
) -> None:
    header = _header(open_as(coach))
    assert PICKS_LINK in header
    assert REFEREE_LINK not in header


def test_a_visitor_and_a_person_without_a_team_see_neither(
    visitor: User, open_as: Callable[..., Client]
) -> None:
    for browser in (open_as(None), open_as(visitor)):
        header = _header(browser)
        assert PICKS_LINK not in header
        assert REFEREE_LINK not in header


def test_a_deputy_sees_my_picks_from_the_page_after_being_named_until_removed(
    coach: User, visitor: User, open_as: Callable[..., Client]
) -> None:
    browser = open_as(visitor)
    assert PICKS_LINK not in _header(browser)
    team = Team.objects.get(coach=coach)
    team_deputy_set(team=team, by=coach, who=visitor.username)
    assert PICKS_LINK in _header(browser)
    team_deputy_remove(team=team, by=coach)
    assert PICKS_LINK not in _header(browser)


def test_a_referee_sees_the_desk_from_the_page_after_being_named_until_removed(
    elite_pool: Pool, visitor: User, open_as: Callable[..., Client]
) -> None:
    browser = open_as(visitor)
    assert REFEREE_LINK not in _header(browser)
    elite_pool.referees.add(visitor)
    assert REFEREE_LINK in _header(browser)
    elite_pool.referees.remove(visitor)
    assert REFEREE_LINK not in _header(browser)


def test_the_header_costs_one_query_for_a_coach_who_referees_too(
    coach: User, elite_pool: Pool, open_as: Callable[..., Client]
) -> None:
    elite_pool.referees.add(coach)
    browser = open_as(coach)
    with CaptureQueriesContext(connection) as queries:
        header = _header(browser)
    assert PICKS_LINK in header and REFEREE_LINK in header
    # The session, the user, and the header's one read (the rules page reads nothing else).
    assert len(queries) == 3, [query["sql"] for query in queries]


def test_the_pick_page_reads_the_team_once_for_the_view_the_header_and_the_calendar(
    coach: User, open_as: Callable[..., Client]
) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = open_as(coach).get(reverse("picks"))
    assert response.status_code == 200
    teams = [query for query in queries if '"league_team"' in query["sql"]]
    assert len(teams) == 1, [query["sql"] for query in teams]
