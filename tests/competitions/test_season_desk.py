"""The season desk (``/desk/season/``): the league's year step by step for the admins, and
nobody else — a visitor is sent to sign in, a coach or a referee gets 403 and changes nothing.

Two leagues: a first season imported from CSV and prepared on the desk, and the demo played to
its end (built once for its class), closed, planned and started from the desk. The start's
Celery task is run by its service in-process here; ``test_season_start_worker.py`` runs it on a
real worker.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions.models import Matrix, Pool, PoolMember, PoolRound, Round, SeasonStartJob
from competitions.services.season_jobs import season_start_job_run
from league.models import AuditLog, Entry, Season
from tests.competitions.league_csv import csv_text, good_rows
from tests.demo_worlds import demo_world

POSTS = [
    "season_desk_import",
    "season_desk_matrices",
    "season_desk_calendar",
    "season_desk_pools",
    "season_desk_kdh",
    "season_desk_wg",
    "season_desk_start",
    "season_desk_close",
    "season_desk_swap",
    "season_desk_withdraw",
]


CONFIRM = {"confirm": "1"}
"""The « this cannot be undone » box of close, start and withdraw, ticked."""


def desk_url(name: str = "season_desk") -> str:
    return reverse(name)


# The desk speaks the visitor's language: these tests read its English.


def messages_of(response: object) -> list[str]:
    return [str(message) for message in response.context["messages"]]  # type: ignore[attr-defined]


def next_monday(weeks: int = 2) -> date:
    today = timezone.localdate()
    return today + timedelta(days=7 * weeks - today.weekday())


@pytest.fixture
def staff(db: None) -> Client:
    client = Client(headers={"Accept-Language": "en"})
    client.force_login(User.objects.create_user("desk-admin", is_staff=True))
    return client


# --- A first season: import, prepare, start --------------------------------------------------


def test_an_empty_league_offers_the_import_first(staff: Client) -> None:
    page = staff.get(desk_url())
    assert page.status_code == 200
    assert page.context["stage"] == "empty"
    assert reverse("season_desk_import") in page.content.decode()


def test_a_bad_file_is_refused_with_its_lines_and_nothing_is_stored(staff: Client) -> None:
    rows = good_rows()
    rows[3][4] = "d9z"  # line 5: an unknown division
    upload = SimpleUploadedFile("league.csv", csv_text(rows).encode(), content_type="text/csv")
    page = staff.post(desk_url("season_desk_import"), {"file": upload}, follow=True)
    assert page.context["stage"] == "empty"
    (message,) = messages_of(page)
    assert "Nothing imported" in message and "5" in message and "d9z" in message
    assert not Season.objects.exists()


def test_the_import_form_asks_for_a_file_of_a_league_s_size(staff: Client) -> None:
    page = staff.post(desk_url("season_desk_import"), {}, follow=True)
    assert messages_of(page) == ["Choose the league's CSV file first."]
    huge = SimpleUploadedFile("league.csv", b"x" * 1_000_001, content_type="text/csv")
    page = staff.post(desk_url("season_desk_import"), {"file": huge}, follow=True)
    assert messages_of(page) == ["This file is too large for a league of 84 teams."]
    assert not Season.objects.exists()


def test_the_first_season_is_imported_prepared_step_by_step_and_started(staff: Client) -> None:
    upload = SimpleUploadedFile("league.csv", csv_text(good_rows()).encode())
    page = staff.post(desk_url("season_desk_import"), {"file": upload}, follow=True)
    assert page.context["stage"] == "preparing"
    season = Season.objects.get(number=1)
    assert page.context["desk"].preparation.teams == 84
    history = reverse("admin:league_auditlog_changelist") + "?season_number=1"
    assert history in page.content.decode()

    # Matrices (R19): the preview is what the draw stores.
    previewed = page.context["matrices"]
    staff.post(desk_url("season_desk_matrices"))
    assert Matrix.objects.filter(season=season).count() == 3
    stored = {m.competition: m for m in Matrix.objects.filter(season=season)}
    for competition, matrix in previewed.items():
        cells = stored[competition].cells.filter(round_number=1).order_by("column")
        assert tuple(cell.value for cell in cells) == matrix.rows[0]

    # The calendar (R20) with week 3 skipped: the preview says so, the rounds follow it.
    monday = next_monday()
    preview = staff.get(desk_url(), {"starts_on": monday.isoformat(), "skip": "3"})
    weeks = {week.week: week for week in preview.context["calendar"]}
    assert weeks[3].skipped and not weeks[3].rounds
    staff.post(desk_url("season_desk_calendar"), {"starts_on": monday.isoformat(), "skip": "3"})
    round_3 = Round.objects.get(season=season, competition="championship", number=3)
    assert round_3.week == 4
    # On the record, from the desk: the season's settings before and after (issue 22).
    logged = AuditLog.objects.get(action="season_calendar")
    assert (logged.payload["via"], logged.kind, logged.season_number) == ("desk", "season", 1)
    moved = {c["field"]: (c["before"], c["after"]) for c in logged.payload["changes"]}
    assert moved["skipped_weeks"] == ([], [3])
    assert moved["starts_on"][1] == monday.isoformat()

    # The pools, with a referee named on the desk; an unknown name changes nothing.
    referee = User.objects.create_user("ref-elite")
    page = staff.post(
        desk_url("season_desk_pools"), {"referees-elite": "ref-elite, nobody"}, follow=True
    )
    assert not Pool.objects.filter(season=season).exists()
    assert "nobody" in messages_of(page)[-1]
    staff.post(desk_url("season_desk_pools"), {"referees-elite": "ref-elite"})
    assert Pool.objects.filter(season=season).count() == 9
    assert list(Pool.objects.get(season=season, slug="elite").referees.all()) == [referee]

    # The KDH's opening draw (R17): previewed, then committed the same.
    page = staff.get(desk_url())
    kdh = page.context["kdh"]
    assert len(kdh.qualifying) == 40 and len(kdh.exempt) == 44
    staff.post(desk_url("season_desk_kdh"))
    assert PoolRound.objects.filter(pool__season=season, pool__competition="kdh").exists()

    # The WG (R18): the first season's twelve picked by the admin, groups previewed then drawn.
    twelve = [
        str(pk) for pk in Entry.objects.filter(season=season, code=1).values_list("pk", flat=True)
    ]
    twelve += [
        str(pk)
        for pk in Entry.objects.filter(season=season, code=2, division__tier__lte=2).values_list(
            "pk", flat=True
        )
    ][:5]
    assert len(twelve) == 10
    page = staff.post(desk_url("season_desk_wg"), {"wg": twelve}, follow=True)
    assert "twelve" in messages_of(page)[-1]
    page = staff.post(desk_url("season_desk_wg"), {"wg": [*twelve, "x", "0"]}, follow=True)
    assert messages_of(page)[-1] == "Choose the WG's twelve teams (R18)."
    twelve += [
        str(pk)
        for pk in Entry.objects.filter(season=season, code=3, division__tier=3).values_list(
            "pk", flat=True
        )[:2]
    ]
    page = staff.get(desk_url(), {"wg": twelve})
    groups = page.context["wg"].groups
    assert sorted(len(group) for group in groups) == [4, 4, 4]
    staff.post(desk_url("season_desk_wg"), {"wg": twelve})
    assert PoolMember.objects.filter(pool__season=season, pool__competition="wg").count() == 12

    # The start, queued for a worker; its service runs it here.
    staff.post(desk_url("season_desk_start"), CONFIRM)
    job = SeasonStartJob.objects.get()
    season_start_job_run(job_id=job.pk)
    page = staff.get(desk_url())
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING and season.is_current
    assert page.context["stage"] == "running"
    assert page.context["desk"].job.status == SeasonStartJob.Status.DONE
    progress = staff.get(reverse("season_desk_job", args=[job.pk]))
    assert progress.json()["percent"] == 100


def test_the_calendar_preview_shows_the_weeks_skipped_as_set(staff: Client) -> None:
    staff.post(
        desk_url("season_desk_import"),
        {"file": SimpleUploadedFile("league.csv", csv_text(good_rows()).encode())},
    )
    staff.post(desk_url("season_desk_matrices"))
    monday = next_monday()
    staff.post(desk_url("season_desk_calendar"), {"starts_on": monday.isoformat(), "skip": "3,5"})
    assert Season.objects.get(number=1).skipped_weeks == [3, 5]

    # The desk again, with nothing in its address: the calendar as set, not the default.
    page = staff.get(desk_url())
    assert (page.context["starts_on"], page.context["skip"]) == (monday, "3,5")
    weeks = {week.week: week for week in page.context["calendar"]}
    assert weeks[3].skipped and weeks[5].skipped and not weeks[4].skipped

    # A preview asks for other weeks; an unreadable list is said, and nothing is set.
    page = staff.get(desk_url(), {"skip": "4"})
    assert [week.week for week in page.context["calendar"] if week.skipped] == [4]
    page = staff.post(desk_url("season_desk_calendar"), {"skip": "four"}, follow=True)
    assert "week numbers separated by commas" in messages_of(page)[-1]
    assert Season.objects.get(number=1).skipped_weeks == [3, 5]


def test_a_second_click_on_start_is_refused_while_the_first_is_queued(staff: Client) -> None:
    staff.post(
        desk_url("season_desk_import"),
        {"file": SimpleUploadedFile("l.csv", csv_text(good_rows()).encode())},
    )
    staff.post(desk_url("season_desk_start"), CONFIRM)
    page = staff.post(desk_url("season_desk_start"), CONFIRM, follow=True)
    assert SeasonStartJob.objects.count() == 1
    assert "already under way" in messages_of(page)[-1]


# --- The demo played to its end: close, plan, start the next ---------------------------------


season_end = demo_world(11, scope="class")


@pytest.mark.usefixtures("season_end")
class TestTheSeasonsEnd:
    @pytest.fixture
    def admin(self, db: None) -> Client:
        client = Client(headers={"Accept-Language": "en"})
        client.force_login(User.objects.get(username="admin"))
        return client

    def test_every_round_published_the_next_step_is_to_close(self, admin: Client) -> None:
        page = admin.get(desk_url())
        assert page.context["stage"] == "complete"
        assert reverse("season_desk_close") in page.content.decode()

    def test_close_plan_swap_and_start_the_next_season(self, admin: Client) -> None:
        page = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True)
        assert page.context["stage"] == "finished"
        plan = page.context["plan"]
        assert plan["season"] == 2 and len(plan["teams"]) == 84
        cards = page.context["plan_view"].divisions
        assert sorted(len(card.teams) for card in cards) == [12] * 7

        # Two teams that stay in D3 swap their groups and codes (R22: the admin's call).
        stays = [t for t in plan["teams"] if t["move"] == "stays" and t["to"] in ("d3a", "d3b")]
        first = next(t for t in stays if t["to"] == "d3a")
        second = next(t for t in stays if t["to"] == "d3b")
        admin.post(desk_url("season_desk_swap"), {"first": first["team"], "second": second["team"]})
        swapped = {t["team"]: t for t in admin.get(desk_url()).context["plan"]["teams"]}
        [logged] = AuditLog.objects.filter(action="seasonplandraft_change")
        assert logged.payload["via"] == "desk"
        assert logged.payload["changes"] == [
            {"field": "swaps", "before": [], "after": [[first["team"], second["team"]]]}
        ]
        assert (swapped[first["team"]]["to"], swapped[first["team"]]["code"]) == (
            "d3b",
            second["code"],
        )

        admin.post(desk_url("season_desk_start"), CONFIRM)
        season_start_job_run(job_id=SeasonStartJob.objects.get().pk)
        season = Season.objects.get(number=2)
        assert season.is_current and season.status == Season.Status.RUNNING
        moved = Entry.objects.get(season=season, team__slug=first["team"])
        assert (moved.division.slug, moved.code) == ("d3b", second["code"])

    def test_closing_twice_does_nothing_more(self, admin: Client) -> None:
        admin.post(desk_url("season_desk_close"), CONFIRM)
        page = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True)
        assert page.context["stage"] == "finished"
        assert "no running season" in messages_of(page)[-1]

    @pytest.mark.parametrize("who", ["referee", "sleigh-dogs"])
    def test_a_referee_or_a_coach_may_not(self, who: str) -> None:
        client = Client(headers={"Accept-Language": "en"})
        client.force_login(User.objects.get(username=who))
        assert client.get(desk_url()).status_code == 403
        for name in POSTS:
            assert client.post(desk_url(name)).status_code == 403, name
        assert client.get("/desk/season/jobs/1/").status_code == 403
        assert Season.objects.get(number=1).status == Season.Status.RUNNING
        assert not SeasonStartJob.objects.exists()

    def test_a_visitor_is_sent_to_sign_in_and_nothing_changes(self) -> None:
        visitor = Client(headers={"Accept-Language": "en"})
        page = visitor.get(desk_url())
        assert page.status_code == 302 and reverse("sign_in") in page["Location"]
        for name in POSTS:
            assert visitor.post(desk_url(name)).status_code in (302, 405), name
        assert visitor.get("/desk/season/jobs/1/").status_code == 302
        assert Season.objects.get(number=1).status == Season.Status.RUNNING


@pytest.mark.usefixtures("season_end")
class TestTheCoachBetweenTwoSeasons:
    def test_the_coach_reads_their_team_s_plan_and_points_once_the_season_is_closed(
        self, db: None
    ) -> None:
        coach = Client(headers={"Accept-Language": "en"})
        coach.force_login(User.objects.get(username="sleigh-dogs"))
        assert coach.get(reverse("picks")).context["page"].next_season is None
        admin = Client(headers={"Accept-Language": "en"})
        admin.force_login(User.objects.get(username="admin"))
        plan = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True).context["plan"]
        planned = next(item for item in plan["teams"] if item["team"] == "sleigh-dogs")

        page = coach.get(reverse("picks"))
        shown = page.context["page"].next_season
        assert (shown["to"], shown["code"], shown["extra_goals"]) == (
            planned["to"],
            planned["code"],
            planned["extra_goals"],
        )
        # R21: the points shown add up to the stock, divided by 3 and rounded down.
        assert max(0, sum(value for _, value in shown["points"]) // 3) == shown["extra_goals"]
        assert "Your extra-goal points" in page.content.decode()
