"""``manage.py load_demo``: the demo league at week 3 (issue 3), on PostgreSQL and on the embedded
SQLite default."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, date, datetime
from io import StringIO
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions import selectors
from competitions.demo import DEFAULT_WEEK, DEPUTY, DemoLeague, DemoRefused, demo_load
from competitions.models import (
    Competition,
    Fixture,
    Matrix,
    OnrSanction,
    Pick,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    StockMovement,
    StockReason,
    TeamResult,
)
from league.models import Division, Entry, Season, Team
from tests.demo_worlds import DemoWorlds

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def demo(db: None, demo_worlds: DemoWorlds) -> DemoLeague:
    return demo_worlds.load(week=DEFAULT_WEEK)


def test_the_demo_has_84_teams_in_7_divisions_with_codes_and_coaches(demo: DemoLeague) -> None:
    assert Division.objects.count() == 7
    assert Team.objects.count() == 84 and not Team.objects.filter(coach=None).exists()
    entries = Entry.objects.filter(season=demo.season)
    for division in Division.objects.all():
        codes = sorted(entries.filter(division=division).values_list("code", flat=True))
        assert codes == list(range(1, 13)), division
    coach = User.objects.get(username="les-culs-geles")
    assert coach.team.name == "Les Culs Gelés" and coach.check_password("demo")
    assert demo.admin.is_superuser and demo.admin.check_password("admin")
    assert demo.referee.check_password("referee") and not demo.referee.is_staff
    pools = Pool.objects.filter(season=demo.season)
    assert pools.count() == 9  # 7 divisions, the KDH, the WG
    assert all(demo.referee in pool.referees.all() for pool in pools)
    assert demo.season.is_current and demo.season.status == Season.Status.RUNNING


def test_the_demo_has_a_deputy_to_try_with_their_team_s_picks(demo: DemoLeague) -> None:
    """R12: one team's coach named a deputy, listed in the README's demo accounts."""
    username, password, slug = DEPUTY
    deputy = User.objects.get(username=username)
    assert deputy.check_password(password)
    assert Team.objects.get(deputy=deputy).slug == slug
    browser = Client(headers={"accept-language": "fr"})
    landed = browser.post(reverse("sign_in"), {"username": username, "password": password})
    assert landed.url == reverse("picks")
    assert "Mes ordres" in browser.get(landed.url).content.decode()
    readme = (ROOT / "README.md").read_text()
    assert f"| `{username}` | `{password}` |" in readme


def test_the_demo_has_its_matrices_and_full_calendar(demo: DemoLeague) -> None:
    assert {m.competition: m.cells.count() for m in Matrix.objects.all()} == {
        "championship": 11 * 11,
        "kdh": 7 * 7,
        "wg": 8 * 8,
    }
    rounds = Round.objects.filter(season=demo.season)
    assert Counter(rounds.values_list("competition", flat=True)) == {
        "championship": 11,
        "kdh": 7,
        "wg": 8,
    }
    championship = Fixture.objects.filter(pool_round__round__competition="championship")
    assert championship.count() == 7 * 11 * 6
    kdh_first = Fixture.objects.filter(
        pool_round__round__competition="kdh", pool_round__round__number=1
    )
    qualifying = {e.code for f in kdh_first for e in (f.home, f.away)}
    assert kdh_first.count() == 20 and qualifying == set(range(3, 13))  # R17: D3 codes 03–12
    assert {f.home.division.tier for f in kdh_first} == {3}
    groups = Counter(
        PoolMember.objects.filter(pool__competition="wg").values_list("group", flat=True)
    )
    assert groups == {"A": 4, "B": 4, "C": 4}
    assert Fixture.objects.filter(pool_round__round__competition="wg").count() == 6 * 6
    # Every deadline is the season's Friday 17:00 in Paris (R13).
    for round in rounds:
        assert round.deadline == demo.season.deadline_for_week(round.week)


def test_weeks_1_and_2_are_played_and_published_through_arbitration(demo: DemoLeague) -> None:
    published = PoolRound.objects.filter(status=PoolRound.Status.PUBLISHED)
    assert Counter(published.values_list("round__competition", "round__number")) == {
        ("championship", 1): 7,
        ("championship", 2): 7,
        ("kdh", 1): 1,
    }
    assert set(
        Round.objects.filter(status=Round.Status.PUBLISHED).values_list("competition", "number")
    ) == {("championship", 1), ("championship", 2), ("kdh", 1)}
    assert TeamResult.objects.filter(pool_round__in=published).count() == 84 * 2 + 40
    table = selectors.pool_standings(pool=Pool.objects.get(slug="elite", season=demo.season))
    assert {row.played for row in table} == {2}
    # The KDH's 20 winners (and any lucky loser) join the 44 others in 32 games (R17).
    second = Fixture.objects.filter(
        pool_round__round__competition="kdh", pool_round__round__number=2
    )
    assert second.count() == 32
    assert StockMovement.objects.filter(reason=StockReason.PLAYED).exists()
    # Week 2 had an ONR team: sanctioned (R14) and shown as ONR.
    sanction = OnrSanction.objects.get()
    assert sanction.week == 2 and sanction.entry.onr_count == 1
    assert TeamResult.objects.filter(entry=sanction.entry, onr=True).exists()


def test_week_3_waits_for_its_referee_with_a_few_onr(demo: DemoLeague) -> None:
    now = timezone.now()
    week_3 = Round.objects.filter(season=demo.season, week=3)
    assert {(r.competition, r.number) for r in week_3} == {
        ("championship", 3),
        ("kdh", 2),
        ("wg", 1),
    }
    assert all(r.deadline < now and r.status == Round.Status.CLOSED for r in week_3)
    assert not PoolRound.objects.filter(round__in=week_3).exclude(status="pending").exists()
    # Deadline passed most recently: week 3's is the latest in the past, week 4's ahead.
    past = Round.objects.filter(season=demo.season, deadline__lt=now).order_by("-deadline")
    assert past.first().week == 3
    championship_3 = week_3.get(competition=Competition.CHAMPIONSHIP)
    senders = set(
        Pick.objects.filter(round=championship_3).values_list("entry__team__slug", flat=True)
    )
    assert 3 <= len(demo.onr_week_3) <= 5 and not senders & set(demo.onr_week_3)
    assert len(senders) == 84 - len(demo.onr_week_3)
    assert all(p.received_at < championship_3.deadline for p in Pick.objects.filter(round__week=3))
    # One of them is in the WG: ONR there too (R14, sanctioned once when arbitrated).
    wg_teams = set(
        PoolMember.objects.filter(pool__competition="wg").values_list(
            "entry__team__slug", flat=True
        )
    )
    assert wg_teams & set(demo.onr_week_3)


def test_week_4_is_open_with_some_picks_in_advance(demo: DemoLeague) -> None:
    now = timezone.now()
    week_4 = Round.objects.filter(season=demo.season, week=4)
    assert all(r.deadline > now and r.status == Round.Status.OPEN for r in week_4)
    advance = Pick.objects.filter(round__in=week_4)
    assert 0 < advance.count() < 84 and all(p.received_at < now for p in advance)
    assert set(advance.values_list("channel", flat=True)) == {Pick.Channel.WEB}


def test_a_second_load_is_refused(demo: DemoLeague) -> None:
    with pytest.raises(DemoRefused):
        demo_load()
    with pytest.raises(CommandError, match="already holds a league"):
        call_command("load_demo", stdout=StringIO())
    out = StringIO()
    call_command("load_demo", "--if-empty", stdout=out)
    assert "admin/admin" in out.getvalue()
    assert Season.objects.count() == 1


def test_the_command_prints_the_accounts(db: None) -> None:
    out = StringIO()
    call_command("load_demo", stdout=out)
    text = out.getvalue()
    assert "admin / admin" in text and "referee / referee" in text
    assert "les-culs-geles" in text and "sleigh-dogs" in text
    assert "sleigh-dogs-deputy / demo" in text


def test_load_demo_runs_on_the_embedded_sqlite_default(tmp_path: Path) -> None:
    """``make run``'s path: migrate and load the demo into a fresh SQLite file."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    env.pop("REDIS_URL", None)

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert manage("migrate", "--noinput", "-v", "0").returncode == 0
    loaded = manage("load_demo")
    assert loaded.returncode == 0, loaded.stderr
    assert "admin / admin" in loaded.stdout and "Demo league loaded" in loaded.stdout
    again = manage("load_demo")
    assert again.returncode != 0 and "already holds a league" in again.stderr
    assert manage("load_demo", "--if-empty").returncode == 0

    # The pages a newcomer tries first, for a reader, a coach, the deputy and the referee: the
    # embedded database gives what PostgreSQL gives (a datetime read as SQLite's text is one).
    read = manage("shell", "-c", SQLITE_PAGES)
    assert read.returncode == 0, read.stderr
    statuses = dict(line.rsplit(" ", 1) for line in read.stdout.split("\n") if ":/" in line)
    assert len(statuses) == len(SQLITE_PAGE_PATHS) * 4
    # A reader is sent to sign in for the coach's pages; nobody meets an error.
    assert {page: status for page, status in statuses.items() if status not in ("200", "302")} == {}
    signed_in = {page: status for page, status in statuses.items() if not page.startswith("None")}
    assert set(signed_in.values()) == {"200"}, signed_in


SQLITE_PAGE_PATHS = [
    "/",
    "/picks/",
    "/infos/championship/elite/",
    "/standings/elite/",
    "/accounts/",
]

SQLITE_PAGES = f"""
from django.contrib.auth.models import User
from django.test import Client
for name in [None, "sleigh-dogs", "{DEPUTY[0]}", "referee"]:
    client = Client(HTTP_HOST="127.0.0.1")
    if name:
        client.force_login(User.objects.get(username=name))
    for path in {SQLITE_PAGE_PATHS!r}:
        print(f"{{name}}:{{path}}", client.get(path).status_code)
"""


def test_the_demos_calendar_skips_the_weeks_of_christmas_and_new_year(db: None) -> None:
    # Saturday 5 December 2026: week 1 just played, 25 December and 1 January ahead (Fridays,
    # the deadline's day).
    demo = demo_load(week=1, now=datetime(2026, 12, 5, 12, tzinfo=UTC))
    season = demo.season
    assert season.starts_on == date(2026, 11, 30)
    assert season.skipped_weeks == [4, 5]  # from Monday 21 and Monday 28 December
    zone = ZoneInfo(season.time_zone)
    deadlines = {round.deadline.astimezone(zone).date() for round in Round.objects.all()}
    assert not {date(2026, 12, 25), date(2027, 1, 1)} & deadlines
    assert not [day for day in deadlines if date(2026, 12, 21) <= day <= date(2027, 1, 3)]
    assert len({round.week for round in Round.objects.all()}) == 10  # still ten weeks (R20)


def test_the_demos_skipped_weeks_and_start_read_as_documented() -> None:
    from competitions.demo import load

    assert doctest.testmod(load).failed == 0
