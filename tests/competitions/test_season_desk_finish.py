"""The season desk finished for its admins (issue 24): close, start and withdraw happen only with
their « cannot be undone » box ticked; the next season's plan reads in words, in the page's
language; the next season's calendar is kept in the plan's draft, which the desk in any browser
and ``manage.py season_start`` read alike; « Still to publish » names competitions and pools;
and a new season's tables rank nobody before its first game."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from competitions.models import Competition, Round, SeasonPlanDraft, SeasonStartJob, Withdrawal
from competitions.services.season_jobs import season_start_job_run
from league.models import AuditLog, Division, Entry, Season
from tests.competitions.league_csv import csv_text, good_rows
from tests.competitions.test_season_desk import CONFIRM, desk_url, messages_of, next_monday
from tests.demo_worlds import demo_world

season_end = demo_world(11, scope="class")

NOTHING_DONE = "Nothing was done: tick the box"


@pytest.fixture
def staff(db: None) -> Client:
    client = Client(headers={"Accept-Language": "en"})
    client.force_login(User.objects.create_user("desk-admin", is_staff=True))
    return client


def admin_client(language: str = "en") -> Client:
    client = Client(headers={"Accept-Language": language})
    client.force_login(User.objects.get(username="admin"))
    return client


@pytest.mark.usefixtures("season_end")
class TestTheAdminsJuly:
    def test_close_start_and_withdraw_do_nothing_without_their_box(self, db: None) -> None:
        admin = admin_client()
        page = admin.get(desk_url())
        html = page.content.decode()
        assert re.search(r'name="confirm"[^>]*required', html)
        assert "This cannot be undone." in html

        page = admin.post(desk_url("season_desk_close"), follow=True)
        assert page.context["stage"] == "complete"
        assert NOTHING_DONE in messages_of(page)[-1]
        assert Season.objects.get(number=1).status == Season.Status.RUNNING

        page = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True)
        assert page.context["stage"] == "finished"
        html = page.content.decode()
        # Start and withdraw each say what they do and that it cannot be undone.
        assert html.count("This cannot be undone.") == 2

        page = admin.post(desk_url("season_desk_start"), follow=True)
        assert NOTHING_DONE in messages_of(page)[-1]
        assert not SeasonStartJob.objects.exists()

        entry = Entry.objects.current(season=Season.objects.get(number=1)).first()
        assert entry is not None
        page = admin.post(desk_url("season_desk_withdraw"), {"entry": entry.pk}, follow=True)
        assert NOTHING_DONE in messages_of(page)[-1]
        assert not Withdrawal.objects.exists()
        admin.post(desk_url("season_desk_withdraw"), {"entry": entry.pk, **CONFIRM})
        assert Withdrawal.objects.filter(entry=entry).exists()

    @pytest.mark.parametrize(
        ("language", "moves", "reason"),
        [
            ("en", ["promoted", "stays", "relegated"], "division winner"),
            ("fr", ["promue", "reste", "reléguée"], "vainqueur de sa division"),
        ],
    )
    def test_the_plan_reads_a_division_a_card_in_words(
        self, db: None, language: str, moves: list[str], reason: str
    ) -> None:
        admin = admin_client(language)
        page = admin.post(desk_url("season_desk_close"), CONFIRM, follow=True)
        html = page.content.decode()
        plan = page.context["plan"]
        cards = re.findall(r'<section class="card plan-division" data-division="([a-z0-9]+)"', html)
        assert cards == ["elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d"]
        # Team names, not slugs; moves and reasons in the page's language, never their codes.
        shown = [
            unescape(name) for name in re.findall(r'<span class="plan-name">([^<]+)</span>', html)
        ]
        assert len(shown) == 84
        names = dict(Entry.objects.values_list("team__slug", "team__name"))
        assert sorted(shown) == sorted(names[item["team"]] for item in plan["teams"])
        moved = set(re.findall(r'<span class="plan-move">(?:[▲▼] )?([^<*]+?)(?: \*)?</span>', html))
        assert set(moves) <= moved
        for code in ("division_winner", "kdh_winner", "most_goals", "fewest_against"):
            assert code not in html
        assert reason in html
        # Where each team comes from, its place in words: « Elite, 1re place ».
        origins = re.findall(r'<span class="plan-from muted">([^<]+)</span>', html)
        first = "1re place" if language == "fr" else "1st place"
        assert f"Elite, {first}" in origins
        assert not [origin for origin in origins if "place 1" in origin]

    def test_the_next_season_s_calendar_is_one_draft_for_desk_and_command(self, db: None) -> None:
        admin = admin_client()
        admin.post(desk_url("season_desk_close"), CONFIRM)
        monday = next_monday(3)
        page = admin.post(
            desk_url("season_desk_plan_calendar"),
            {"starts_on": monday.isoformat(), "skip": "3,4"},
            follow=True,
        )
        assert "calendar is saved" in messages_of(page)[-1]
        draft = SeasonPlanDraft.objects.get(season__number=1)
        assert (draft.starts_on, draft.skipped_weeks) == (monday, [3, 4])
        # On the record, before and after, from the desk.
        entry = AuditLog.objects.filter(action="seasonplandraft_change").latest("id")
        changed = {change["field"]: change for change in entry.payload["changes"]}
        assert changed["skipped_weeks"]["after"] == [3, 4]
        assert changed["starts_on"]["before"] is None
        assert entry.payload["via"] == "desk"

        # Another admin, another browser: the desk's preview shows the calendar as saved.
        other = Client(headers={"Accept-Language": "en"})
        other.force_login(User.objects.create_user("other-admin", is_staff=True))
        page = other.get(desk_url())
        assert (page.context["plan_starts_on"], page.context["plan_skip"]) == (monday, "3,4")
        assert [week.week for week in page.context["plan_calendar"] if week.skipped] == [3, 4]
        # A refused calendar is said and keeps the saved one.
        page = other.post(
            desk_url("season_desk_plan_calendar"),
            {"starts_on": (monday + timedelta(days=1)).isoformat(), "skip": "3"},
            follow=True,
        )
        assert "Refused" in messages_of(page)[-1]
        draft.refresh_from_db()
        assert (draft.starts_on, draft.skipped_weeks) == (monday, [3, 4])

        # The command line starts from the same draft.
        call_command("season_start", stdout=open("/dev/null", "w"))  # noqa: SIM115
        season = Season.objects.get(number=2)
        assert (season.starts_on, season.skipped_weeks) == (monday, [3, 4])
        third = Round.objects.get(season=season, competition=Competition.CHAMPIONSHIP, number=3)
        assert third.week == 5


def test_a_new_season_reads_in_words_and_ranks_nobody_before_its_first_game(
    staff: Client,
) -> None:
    upload = SimpleUploadedFile("league.csv", csv_text(good_rows()).encode())
    staff.post(desk_url("season_desk_import"), {"file": upload})
    season = Season.objects.get(number=1)
    # The first season's WG twelve (R18) is the admin's pick; the rest is prepared by default.
    twelve = list(Entry.objects.filter(season=season).order_by("division__tier", "code")[:12])
    staff.post(desk_url("season_desk_calendar"), {"starts_on": next_monday().isoformat()})
    staff.post(desk_url("season_desk_pools"))
    staff.post(desk_url("season_desk_wg"), {"wg": [entry.pk for entry in twelve]})
    staff.post(desk_url("season_desk_start"), CONFIRM)
    season_start_job_run(job_id=SeasonStartJob.objects.get().pk)
    page = staff.get(desk_url())
    assert page.context["stage"] == "running"
    still = page.content.decode().split("Still to publish")[1]
    elite, d2a = (Division.objects.get(slug=slug).name for slug in ("elite", "d2a"))
    assert f"Championship · round 1 (week 1): {elite}, {d2a}, " in still
    assert re.search(r"KDH cup · round \d+ \(week \d+\)", still)
    for code in ("championship ·", ": elite", "d2b", " kdh ", " wg "):
        assert code not in still

    # The Elite's table before any game: its teams in code order, no place, no zone.
    elite = list(
        Entry.objects.filter(season=season, division__slug="elite")
        .order_by("code")
        .values_list("team__slug", "team__name")
    )
    page = staff.get(reverse("standings", args=["elite"]))
    html = page.content.decode()
    assert [line.entry.team.slug for line in page.context["lines"]] == [s for s, _ in elite]
    assert all(line.unranked and not line.zone for line in page.context["lines"])
    assert "zone-down" not in html and "zone-up" not in html
    team = staff.get(reverse("team", args=[elite[1][0]]))
    assert re.search(r"<dd data-place>—</dd>", team.content.decode())
