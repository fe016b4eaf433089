"""Between two seasons the next season's plan is read, never written, by the pages: every
service that changes what it is computed from stores it again in its own transaction (the
close, a withdrawal, the waiting list, the teams through the admin), and a GET of a page
reading it (the pick page, the season desk, the WG race, the WG's page) performs no INSERT,
UPDATE or DELETE — not even when the stored plan is missing or stale, when it is computed for
the page and not stored.

The demo played to its end is built once for the module and closed in each test (rolled back
after it), as ``test_season_plan_draft.py`` does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from competitions.demo import DemoLeague
from competitions.models import SeasonArchive, SeasonPlanDraft
from competitions.services.season_plan import season_plan_state, season_plan_swap
from competitions.services.withdrawal import entry_withdraw
from league.models import Entry, Season, Team, WaitingListEntry
from league.services import waiting_list_confirm, waiting_list_leave, waiting_list_register
from tests.competitions.test_season_desk import CONFIRM, desk_url
from tests.demo_worlds import demo_world

pytestmark = pytest.mark.django_db

season_end = demo_world(11)

WRITES = ("INSERT", "UPDATE", "DELETE")


def signed_in(username: str) -> Client:
    client = Client(headers={"Accept-Language": "en"})
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def admin(season_end: DemoLeague, db: None) -> Client:
    return signed_in("admin")


@pytest.fixture
def closed(admin: Client) -> Iterator[Season]:
    """Season 1 closed on the desk: its plan computed and stored by the close."""
    admin.post(desk_url("season_desk_close"), CONFIRM)
    season = Season.objects.get(number=1)
    assert season.status == Season.Status.FINISHED
    yield season


def stored(season: Season) -> dict[str, object]:
    """The stored plan, after checking that it is the plan of what it comes from now."""
    draft = SeasonPlanDraft.objects.get(season=season)
    archive = SeasonArchive.objects.get(season=season)
    assert draft.plan_state == season_plan_state(archive=archive), "the stored plan is stale"
    document = json.loads(draft.plan)
    assert isinstance(document, dict)
    return document


def writes_of(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, path
    return [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().startswith(WRITES)]


def pages(admin: Client) -> list[tuple[Client, str]]:
    return [
        (signed_in("sleigh-dogs"), reverse("picks")),
        (admin, desk_url()),
        (Client(), reverse("wg_race")),
        (Client(), reverse("standings", kwargs={"pool": "wg"})),
    ]


def test_the_close_stores_the_plan(closed: Season) -> None:
    plan = stored(closed)
    assert len(plan["teams"]) == 84  # type: ignore[arg-type]


def test_a_get_of_a_page_reading_the_plan_writes_nothing(admin: Client, closed: Season) -> None:
    for client, path in pages(admin):
        assert writes_of(client, path) == [], path
    page = signed_in("sleigh-dogs").get(reverse("picks"))
    assert page.context["page"].next_season["team"] == "sleigh-dogs"


@pytest.mark.parametrize("damage", ["missing", "stale"])
def test_a_missing_or_stale_plan_is_computed_for_the_page_and_not_stored(
    admin: Client, closed: Season, damage: str
) -> None:
    if damage == "missing":
        SeasonPlanDraft.objects.filter(season=closed).delete()
    else:
        SeasonPlanDraft.objects.filter(season=closed).update(plan_state="stale")
    for client, path in pages(admin):
        assert writes_of(client, path) == [], path
    page = signed_in("sleigh-dogs").get(reverse("picks"))
    assert page.context["page"].next_season["team"] == "sleigh-dogs"
    assert admin.get(desk_url()).context["plan"] is not None
    if damage == "missing":
        assert not SeasonPlanDraft.objects.filter(season=closed).exists()
    else:
        assert SeasonPlanDraft.objects.get(season=closed).plan_state == "stale"


def test_a_withdrawal_stores_the_plan_again(closed: Season) -> None:
    entry = Entry.objects.filter(
        season=closed, team__is_dummy=False, replaced_at__isnull=True
    ).exclude(team__slug="sleigh-dogs")[0]
    entry_withdraw(entry=entry, by=User.objects.get(username="admin"))
    assert {"team": entry.team.slug, "why": "withdrawn"} in stored(closed)["leaving"]  # type: ignore[operator]


def state_of(season: Season) -> str:
    return SeasonPlanDraft.objects.get(season=season).plan_state


def test_a_team_confirmed_on_the_waiting_list_and_leaving_it_stores_the_plan_again(
    closed: Season,
) -> None:
    before = stored(closed), state_of(closed)
    registered = waiting_list_register(
        team_name="Late Comets", contact_name="Ann", email="comets@example.org", language="en"
    ).entry
    assert (stored(closed), state_of(closed)) == before  # not on the list until confirmed
    assert waiting_list_confirm(entry=registered)
    stored(closed)
    assert state_of(closed) != before[1]
    assert waiting_list_leave(entry=registered)
    assert (stored(closed), state_of(closed)) == before


def test_a_team_renamed_in_the_admin_stores_the_plan_again(admin: Client, closed: Season) -> None:
    team = Team.objects.get(slug="sleigh-dogs")
    response = admin.post(
        reverse("admin:league_team_change", args=[team.pk]),
        {
            "name": "Sleigh Wolves",
            "slug": "sleigh-wolves",
            "coach": team.coach_id or "",
            "deputy": team.deputy_id or "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    teams = [line["team"] for line in stored(closed)["teams"]]  # type: ignore[attr-defined]
    assert "sleigh-wolves" in teams and "sleigh-dogs" not in teams


def test_a_waiting_team_removed_in_the_admin_stores_the_plan_again(
    admin: Client, closed: Season
) -> None:
    registered = waiting_list_register(
        team_name="Late Comets", contact_name="Ann", email="comets@example.org", language="en"
    ).entry
    waiting_list_confirm(entry=registered)
    response = admin.post(
        reverse("admin:league_waitinglistentry_delete", args=[registered.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not WaitingListEntry.objects.filter(pk=registered.pk).exists()
    stored(closed)
    assert "late-comets" not in json.dumps(stored(closed))


def test_a_swap_on_the_desk_leaves_the_stored_plan_fresh_and_shows_on_the_desk(
    admin: Client, closed: Season
) -> None:
    teams = stored(closed)["teams"]
    stays = [t for t in teams if t["move"] == "stays"]  # type: ignore[attr-defined]
    first = next(t for t in stays if t["to"] == "d3a")
    second = next(t for t in stays if t["to"] == "d3b")
    season_plan_swap(season=closed, first=first["team"], second=second["team"])
    stored(closed)  # the swaps are applied when the plan is read, R22
    plan = admin.get(desk_url()).context["plan"]
    line = next(t for t in plan["teams"] if t["team"] == first["team"])
    assert line["to"] == "d3b"
