"""The next season's plan as the admins draft it (``SeasonPlanDraft``): one row per finished
season that every admin's browser and the commands read — a swap made by one admin is what
another sees, what ``season_plan --draft`` prints and what ``season_start`` starts —; the plan
computed by the services once per change, not by the pick page between two seasons (see
``test_season_plan_reads.py``); a stored plan that the engine refuses shown as a message, never
a 500.

The demo played to its end is built once for the module and closed in each test (rolled back
after it), as ``test_season_desk.py`` does.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from competitions.demo import DemoLeague
from competitions.models import FinalRow, SeasonPlanDraft
from competitions.services.withdrawal import entry_withdraw
from league.models import Entry, Season
from tests.competitions.test_season_desk import CONFIRM, desk_url, messages_of
from tests.demo_worlds import demo_world

season_end = demo_world(11)


def signed_in(username: str) -> Client:
    client = Client(headers={"Accept-Language": "en"})
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def admin(season_end: DemoLeague, db: None) -> Client:
    return signed_in("admin")


@pytest.fixture
def other_admin(season_end: DemoLeague, db: None) -> Client:
    User.objects.create_user("other-admin", is_staff=True)
    return signed_in("other-admin")


def staying_pair(plan: dict[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """Two teams staying in D3, one in D3A and one in D3B: they may swap (R16, R22)."""
    teams = plan["teams"]
    assert isinstance(teams, list)
    stays = [t for t in teams if t["move"] == "stays"]
    return (
        next(t for t in stays if t["to"] == "d3a"),
        next(t for t in stays if t["to"] == "d3b"),
    )


def where(plan: dict[str, object], team: object) -> tuple[str, int]:
    teams = plan["teams"]
    assert isinstance(teams, list)
    line = next(t for t in teams if t["team"] == team)
    return line["to"], line["code"]


def command(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_a_swap_is_seen_by_another_admin_and_by_the_commands(
    admin: Client, other_admin: Client
) -> None:
    plan = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True).context["plan"]
    first, second = staying_pair(plan)
    admin.post(desk_url("season_desk_swap"), {"first": first["team"], "second": second["team"]})

    # Another admin, in another browser, reads the same draft.
    seen = other_admin.get(desk_url()).context["plan"]
    assert where(seen, first["team"]) == (second["to"], second["code"])
    assert other_admin.get(desk_url()).context["swaps"] == [[first["team"], second["team"]]]
    draft = SeasonPlanDraft.objects.get(season__number=1)
    assert draft.updated_by == User.objects.get(username="admin")

    # The command line too: the draft with --draft, R22's default groups without.
    drafted = json.loads(command("season_plan", "--json", "--draft"))
    assert where(drafted, first["team"]) == (second["to"], second["code"])
    printed = command("season_plan", "--json")  # read back from the draft's row
    default = json.loads(printed)
    assert where(default, first["team"]) == (first["to"], first["code"])
    # In SEASON.md's order, as computed.
    assert list(default) == ["from_season", "season", "teams", "leaving", "kdh", "wg"]
    assert list(default["teams"][0])[:3] == ["team", "from", "rank"]
    assert first["team"] in command("season_plan", "--draft")

    # The other admin puts the default groups back: the first admin sees it.
    other_admin.post(desk_url("season_desk_swap"), {"reset": "1"})
    assert where(admin.get(desk_url()).context["plan"], first["team"]) == (
        first["to"],
        first["code"],
    )


def test_season_start_without_a_plan_file_starts_the_draft(admin: Client) -> None:
    plan = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True).context["plan"]
    first, second = staying_pair(plan)
    admin.post(desk_url("season_desk_swap"), {"first": first["team"], "second": second["team"]})
    output = command("season_start")
    assert output.splitlines()[-1] == "Season 2 started: current and running."
    moved = Entry.objects.get(season__number=2, team__slug=first["team"])
    assert (moved.division.slug, moved.code) == (second["to"], second["code"])


def test_a_swap_needs_two_different_teams_and_a_closed_season(admin: Client) -> None:
    page = admin.post(desk_url("season_desk_swap"), {"first": "a", "second": "b"}, follow=True)
    assert "no next season to plan" in messages_of(page)[-1]
    plan = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True).context["plan"]
    first, _ = staying_pair(plan)
    page = admin.post(
        desk_url("season_desk_swap"), {"first": first["team"], "second": first["team"]}, follow=True
    )
    assert messages_of(page)[-1] == "Choose two different teams to swap."
    assert SeasonPlanDraft.objects.get(season__number=1).swaps == []


def test_the_plan_is_computed_by_the_close_and_again_by_a_withdrawal(admin: Client) -> None:
    admin.post(desk_url("season_desk_close"), CONFIRM)
    coach = signed_in("sleigh-dogs")
    final_rows = FinalRow._meta.db_table

    def pick_page() -> list[str]:
        with CaptureQueriesContext(connection) as queries:
            page = coach.get(reverse("picks"))
        assert page.context["page"].next_season["team"] == "sleigh-dogs"
        return [query["sql"] for query in queries.captured_queries]

    # The close computed and stored the plan: computing it reads the closed season's final
    # tables, reading it back does not.
    read_back, again = pick_page(), pick_page()
    assert not any(final_rows in sql for sql in read_back)
    assert len(read_back) == len(again)

    # A withdrawal changes what the plan comes from (R24): the service stores it again, and the
    # next view reads the new plan back.
    entry = Entry.objects.filter(
        season__number=1, team__is_dummy=False, replaced_at__isnull=True
    ).exclude(team__slug="sleigh-dogs")[0]
    entry_withdraw(entry=entry, by=User.objects.get(username="admin"))
    assert not any(final_rows in sql for sql in pick_page())
    leaving = admin.get(desk_url()).context["plan"]["leaving"]
    assert {"team": entry.team.slug, "why": "withdrawn"} in leaving


def test_a_stored_plan_the_engine_refuses_is_a_message_not_an_error(admin: Client) -> None:
    # The desk computes the plan and keeps it.
    admin.post(desk_url("season_desk_close"), CONFIRM, follow=True)
    stored = json.loads(SeasonPlanDraft.objects.get(season__number=1).plan)
    broken = {**stored, "teams": stored["teams"][:83]}
    SeasonPlanDraft.objects.filter(season__number=1).update(plan=json.dumps(broken))
    page = admin.get(desk_url())
    assert page.status_code == 200
    assert page.context["plan"] is None
    assert "The plan has 83 teams" in page.context["plan_refused"]
    page = admin.post(desk_url("season_desk_start"), CONFIRM, follow=True)
    assert "The plan has 83 teams" in messages_of(page)[-1]
    assert not Season.objects.filter(number=2).exists()
