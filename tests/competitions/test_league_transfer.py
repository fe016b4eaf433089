"""``manage.py season_export --all`` / ``season_import`` (issue 22, « a league moves servers
whole »; the format: docs/LEAGUE_FORMAT.md): the whole league into an empty database, after
which every page, feed and API answer reads the same, the next season's plan is the same, a
coach signs in with their password and the next season starts.

The league is the demo played to its end (``load_demo --week 11``), closed, with what the demo
lacks added through the services: a team withdrawn at the season's end (R24), a deputy, a coach
with a password, another who reads English, email preferences, news, a ruling, a calendar key
and an API token (the demo has a waiting list of four).

"An empty database": the test database emptied with Django's ``flush`` (TRUNCATE … CASCADE),
as a new server's is after ``migrate`` — its content types and permissions made again by
``post_migrate``, under other ids —, inside the demo world's transaction, which the module
rolls back at the end.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import Q
from django.test import Client
from django.utils import timezone
from pytest_django import DjangoDbBlocker

from competitions.demo import DemoLeague
from competitions.feeds import coach_feed_token
from competitions.models import (
    FinalRow,
    Pick,
    Pool,
    PoolRound,
    Round,
    Withdrawal,
)
from competitions.services.arbitration import pool_round_arbitrate, pool_round_publish
from competitions.services.feeds import calendar_feed_key_renew
from competitions.services.league_transfer import LEAGUE_APPS, LEFT_OUT, league_models
from competitions.services.season_close import season_close
from competitions.services.season_transfer import season_export
from competitions.services.void import pool_round_void
from competitions.services.withdrawal import entry_withdraw
from league.models import News, Ruling, Season, Team, WaitingListEntry
from league.services.accounts import api_token_obtain, profile_language_set
from league.services.teams import team_deputy_set
from mail.models import EmailPreferences
from tests.demo_worlds import DemoWorlds, content_types_reread

pytestmark = pytest.mark.django_db

PASSWORD = "Zamboni-at-dawn-1977"
DEPUTY = "second-in-line"
VOID_REASON = "A late pick accepted after the arbitration"


@dataclass(frozen=True)
class Move:
    file: Path
    text: str
    """The export of the original league."""
    again: str
    """The export of the copy, right after the import."""
    pages: dict[str, str]
    """Every page, feed and API answer of the original, by what was asked."""
    copied_pages: dict[str, str]
    plan: str
    """``season_plan --json`` on the original."""
    copied_plan: str
    started: Season
    """The copy's season 2, as ``season_start`` left it."""
    coach: str
    token: str


def _league_grows(demo: DemoLeague) -> tuple[User, str]:
    """What the demo lacks, added through the services; the coach with a password and their
    API token."""
    season = demo.season
    # The Elite's last round voided and replayed (its results and team pages say so).
    last = PoolRound.objects.filter(pool__season=season, pool__slug="elite").latest("round__number")
    pool_round_void(pool_round=last, by=demo.referee, reason=VOID_REASON)
    pool_round_arbitrate(pool_round=last, by=demo.referee)
    pool_round_publish(pool_round=last, by=demo.referee, announce=False)
    archive = season_close(season=season, by=demo.admin)
    assert archive is not None
    row = (
        FinalRow.objects.filter(archive=archive, pool__slug="d3d", promotion_barred=False)
        .exclude(entry__honours__isnull=False)
        .select_related("entry")
        .order_by("rank")
        .first()
    )
    assert row is not None
    entry_withdraw(entry=row.entry, by=demo.admin)  # R24
    team = Team.objects.select_related("coach").get(slug="snowmen")
    coach = team.coach
    assert coach is not None
    coach.set_password(PASSWORD)
    coach.save()
    User.objects.create_user(DEPUTY, email="second@example.org", password="unused-here-1")
    team_deputy_set(team=team, by=coach, who=DEPUTY)
    profile_language_set(user=coach, language="en")
    EmailPreferences.objects.create(user=coach, weekly=False, news=False)
    calendar_feed_key_renew(user=coach)
    News.objects.create(
        title_fr="La saison 1 est finie",
        title_en="Season 1 is over",
        body_fr="Merci à tous.",
        body_en="Thanks to all.",
        published_at=timezone.now(),
    )
    Ruling.objects.create(
        number=12,
        kind=Ruling.Kind.CLARIFICATION,
        title_fr="Le dernier choix reçu",
        title_en="The last pick received",
        text_fr="Celui que le serveur a reçu en dernier.",
        text_en="The one the server received last.",
        season=season,
    )
    return coach, api_token_obtain(user=coach)


SAMPLED = ("elite", "d3d")
"""The divisions whose teams' pages and results pages are read one by one (every team's would
take minutes, the charts of each page drawn anew): the top one, and the one a team withdrew
from and the waiting list joins; the other pools are read through their tables, their infos and
the API's answers, and the sampled pages' templates are the others'."""


def _asked(league_season: Season) -> list[str]:
    """The league's public pages, feeds and API answers, by path."""
    number = league_season.number
    paths = [
        "/",
        "/results/",
        "/standings/",
        "/seasons/",
        f"/seasons/{number}/",
        "/matrices/",
        "/infos/",
        "/wg/race/",
        "/rules/",
        "/rules/rulings/",
        "/calendar/league.ics",
        "/api/seasons/",
        "/api/seasons/current/",
        f"/api/seasons/{number}/",
    ]
    weeks = sorted(set(Round.objects.filter(season=league_season).values_list("week", flat=True)))
    paths += [f"/results/week/{number}/{week}/" for week in weeks]
    pools = Pool.objects.filter(season=league_season).order_by("pk")
    for pool in pools:
        paths += [
            f"/infos/{pool.competition}/{pool.slug}/",
            f"/api/infos/{pool.competition}/{pool.slug}/",
        ]
        if pool.division is not None:
            paths += [f"/standings/{pool.slug}/", f"/api/standings/{pool.slug}/"]
    for competition in sorted({pool.competition for pool in pools}):
        paths.append(f"/api/matrices/{competition}/")
    for competition, slug, round_number in (
        PoolRound.objects.filter(pool__season=league_season)
        .order_by("pk")
        .values_list("pool__competition", "pool__slug", "round__number")
    ):
        paths.append(f"/api/results/{competition}/{slug}/{round_number}/")
        if slug in SAMPLED or competition != "championship":
            paths.append(f"/results/{competition}/{slug}/{round_number}/")
    teams = Team.objects.filter(
        Q(entries__division__slug__in=SAMPLED) | Q(entries__isnull=True)  # the waiting list's
    ).values_list("slug", flat=True)
    for slug in sorted(set(teams)):
        paths += [f"/teams/{slug}/", f"/seasons/teams/{slug}/"]
    return paths


CSRF = re.compile(r'(csrfmiddlewaretoken" value="|csrftoken=|"csrfToken": ")[^"&;]+')
NONCE = re.compile(r'nonce="[^"]+"')
STAMP = re.compile(r"^DTSTAMP:.*$", re.MULTILINE)
CHART = re.compile(r"(chart-[a-z]+)-[0-9]+")
"""A chart's element ids: numbered by the serving process (competitions/charts.py)."""


def _read(client: Client, path: str, **headers: str) -> str:
    """What ``path`` answers, status and body, with only what differs from one request to the
    next made the same: the CSRF token, the pages' script nonce, the feeds' DTSTAMP (now)."""
    if path.startswith("/api/"):
        cache.clear()  # the API's throttles count in the cache: each answer is asked once here
    response = client.get(path, headers=headers)
    body = response.content.decode()
    for pattern, same in (
        (CSRF, r"\1-"),
        (NONCE, 'nonce="-"'),
        (STAMP, "DTSTAMP:-"),
        (CHART, r"\1-n"),
    ):
        body = pattern.sub(same, body)
    return f"{response.status_code} {response.get('Content-Type')}\n{body}"


def _signed_in(username: str, password: str) -> Client:
    browser = Client(headers={"accept-language": "en"})
    answer = browser.post("/accounts/login/", {"username": username, "password": password})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    return browser


def _everything(coach: str, token: str) -> dict[str, str]:
    """Every page, feed and API answer: for a visitor, in French and in English, and what the
    coach reads signed in, through their calendar key and their API token."""
    season = Season.objects.get(number=1)
    visitor = Client()
    read = {}
    for path in _asked(season):
        read[f"en {path}"] = _read(visitor, path, accept_language="en")
    for path in ("/", "/standings/elite/", f"/seasons/{season.number}/"):
        read[f"fr {path}"] = _read(visitor, path, accept_language="fr")
    token_of_feed = coach_feed_token(User.objects.get(username=coach))
    read["coach feed"] = _read(visitor, f"/calendar/coach/{token_of_feed}.ics")
    for path in ("/api/me/", "/api/seasons/current/"):
        read[f"token {path}"] = _read(visitor, path, authorization=f"Token {token}")
    browser = _signed_in(coach, PASSWORD)
    for path in ("/", "/accounts/", "/picks/", "/teams/snowmen/", "/emails/preferences/"):
        read[f"coach {path}"] = _read(browser, path)
    return read


def _command(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def move(
    django_db_setup: None,
    django_db_blocker: DjangoDbBlocker,
    demo_worlds: DemoWorlds,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Move]:
    with django_db_blocker.unblock():
        with transaction.atomic():
            demo = demo_worlds.load(week=11)
            user, token = _league_grows(demo)
            coach = user.get_username()
            pages = _everything(coach, token)
            plan = _command("season_plan", "--json")
            text = _command("season_export", "--all")
            file = tmp_path_factory.mktemp("league") / "league.json"
            file.write_text(text, encoding="utf-8")
            # The deferred foreign keys of the rows written above are checked now: TRUNCATE
            # refuses a table with checks still pending.
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            content_types_reread()
            assert not User.objects.exists() and not Pick.objects.exists()
            _command("season_import", str(file))
            content_types_reread()
            again = _command("season_export", "--all")
            copied_pages = _everything(coach, token)
            copied_plan = _command("season_plan", "--json")
            _command("season_start")
            started = Season.objects.get(number=2)
            yield Move(
                file=file,
                text=text,
                again=again,
                pages=pages,
                copied_pages=copied_pages,
                plan=plan,
                copied_plan=copied_plan,
                started=started,
                coach=coach,
                token=token,
            )
            transaction.set_rollback(True)
        content_types_reread()


def test_every_page_feed_and_api_answer_reads_the_same(move: Move) -> None:
    assert len(move.pages) > 200
    assert move.copied_pages.keys() == move.pages.keys()
    differ = [asked for asked, read in move.pages.items() if move.copied_pages[asked] != read]
    first = (
        "\n".join(
            difflib.unified_diff(
                move.pages[differ[0]].splitlines(),
                move.copied_pages[differ[0]].splitlines(),
                lineterm="",
                n=1,
            )
        )[:3000]
        if differ
        else ""
    )
    assert differ == [], first
    # A few addresses send a visitor on (the latest results, the first table): the rest read.
    assert [
        asked for asked, read in move.pages.items() if not read.startswith(("200 ", "302 "))
    ] == []


def test_the_copy_exports_the_same_bytes(move: Move) -> None:
    assert move.again == move.text
    assert move.text.isascii() and move.text.endswith("}\n")


def test_the_next_season_s_plan_is_the_same(move: Move) -> None:
    plan = json.loads(move.plan)
    assert plan["from_season"] == 1 and len(plan["teams"]) == 84
    assert any(leaving["why"] == "withdrawn" for leaving in plan["leaving"])
    assert any(team["move"] == "joined" for team in plan["teams"])
    assert move.copied_plan == move.plan


def test_the_next_season_starts_on_the_copy(move: Move) -> None:
    assert move.started.status == Season.Status.RUNNING and move.started.is_current
    assert move.started.entries.count() == 84
    assert Season.objects.get(number=1).status == Season.Status.FINISHED


def test_a_coach_signs_in_on_the_copy_with_their_password(move: Move) -> None:
    user = User.objects.get(username=move.coach)
    assert user.check_password(PASSWORD)
    assert PASSWORD not in move.text
    data = json.loads(move.text)
    users = next(block for block in data["models"] if block["model"] == "auth.user")
    row = next(row for row in users["rows"] if row["fields"]["username"] == move.coach)
    assert row["fields"]["password"] == user.password
    _signed_in(move.coach, PASSWORD)


def test_a_voided_round_keeps_its_void_in_both_files(move: Move) -> None:
    voided = PoolRound.objects.get(void_reason=VOID_REASON)
    assert voided.voided_at is not None and voided.is_published
    assert any(VOID_REASON in read for read in move.copied_pages.values())
    season_file = season_export(season=Season.objects.get(number=1))
    (row,) = [row for row in season_file["pool_rounds"] if row["void_reason"]]
    assert row["void_reason"] == VOID_REASON
    assert row["voided_at"] == voided.voided_at.astimezone(UTC).isoformat(timespec="microseconds")


def test_the_people_and_the_league_s_state_came_over(move: Move) -> None:
    team = Team.objects.get(slug="snowmen")
    assert team.deputy is not None and team.deputy.get_username() == DEPUTY
    assert Withdrawal.objects.filter(entry__season__number=1).count() == 1
    assert WaitingListEntry.objects.count() >= 3
    assert EmailPreferences.objects.get(user__username=move.coach).weekly is False
    assert News.objects.count() == 1 and Ruling.objects.count() == 1


def test_every_model_of_the_league_is_carried_or_left_out_for_a_reason() -> None:
    carried = {model._meta.label_lower for model in league_models()}
    ours = {
        model._meta.label_lower
        for app in LEAGUE_APPS
        for model in apps.get_app_config(app).get_models()
    }
    assert ours - carried == set(LEFT_OUT)


def _rows() -> dict[str, int]:
    return {model._meta.label_lower: model._base_manager.count() for model in league_models()}


def _import(path: Path) -> CommandError:
    before = _rows()
    with pytest.raises(CommandError) as error:
        call_command("season_import", str(path), stdout=StringIO())
    assert _rows() == before
    return error.value


def _block(data: dict, model: str) -> list[dict]:
    return next(block["rows"] for block in data["models"] if block["model"] == model)


def test_a_file_of_another_version_is_refused_with_both_versions_named(
    move: Move, tmp_path: Path
) -> None:
    data = json.loads(move.text)
    data["version"] = 2
    path = tmp_path / "future.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    error = _import(path)
    assert error.returncode == 2
    assert "version 2" in str(error) and "reads version 1" in str(error)


def test_a_broken_file_is_reported_with_all_its_problems_and_nothing_stored(
    move: Move, tmp_path: Path
) -> None:
    data = json.loads(move.text)
    picks = _block(data, "competitions.pick")
    picks[3]["fields"]["received_at"] = "last Tuesday"
    teams = _block(data, "league.team")
    teams[0]["fields"]["coach"] = 999_999
    seasons = _block(data, "league.season")
    del seasons[0]["fields"]["number"]
    _block(data, "league.division")[0]["fields"]["colour"] = "blue"
    rounds = _block(data, "competitions.round")
    rounds[0]["fields"]["status"] = "maybe"
    rounds[1]["fields"]["week"] = [1, 2]
    users = _block(data, "auth.user")
    users.append(dict(users[0]))
    data["models"].append({"model": "league.nothing", "rows": []})
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    error = _import(path)
    assert error.returncode == 2
    message = str(error)
    expected = [
        f"competitions.pick {picks[3]['pk']} received_at:",
        f"league.team {teams[0]['pk']} coach: names auth.user 999999, which the file does not",
        f"league.season {seasons[0]['pk']}: the field 'number' is missing.",
        "no field 'colour'",
        f"competitions.round {rounds[0]['pk']} status: Value 'maybe' is not a valid choice.",
        f"competitions.round {rounds[1]['pk']} week: a single value is needed",
        f"its pk {users[0]['pk']} is missing or used twice",
        "'league.nothing' is not a model this league carries.",
    ]
    assert [line for line in expected if line not in message] == []
    assert "Traceback" not in message


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"format": "matrixhockey-league", "version": 1, "models": [', "not valid JSON"),
        ('{"format": "matrixhockey-league", "version": 1}', "a list of models is missing"),
        ('{"format": "matrixhockey-league", "version": 1, "models": "all"}', "list of models"),
        (
            '{"format": "matrixhockey-league", "version": 1, "models": [{"model": "auth.user"}]}',
            "a model and its list of rows are missing",
        ),
        (
            '{"format": "matrixhockey-league", "version": 1, '
            '"models": [{"model": "auth.user", "rows": [{"pk": 1}]}]}',
            "a row is an object with its",
        ),
    ],
)
def test_a_file_it_cannot_read_is_exit_2_with_a_message(
    move: Move, tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    error = _import(path)
    assert error.returncode == 2 and said in str(error)


def test_the_end_cut_off_is_not_json(move: Move, tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    path.write_text(move.text[: len(move.text) // 2], encoding="utf-8")
    error = _import(path)
    assert error.returncode == 2 and "not valid JSON" in str(error)


def test_a_league_is_refused_where_one_lives_already(move: Move) -> None:
    error = _import(move.file)
    assert error.returncode == 1
    assert "already holds" in str(error) and "league.season" in str(error)


def test_a_clash_only_the_database_finds_stores_nothing(move: Move, tmp_path: Path) -> None:
    data = json.loads(move.text)
    users = _block(data, "auth.user")
    twin = json.loads(json.dumps(users[1]))
    twin["pk"] = 1_000_000
    twin["fields"]["username"] = users[0]["fields"]["username"]
    users.append(twin)
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
    content_types_reread()
    error = _import(path)
    assert error.returncode == 2 and "do not fit together" in str(error)
    assert not User.objects.exists() and not Season.objects.exists()


MEMORY = (
    "competitions.meeting",
    "competitions.seasonline",
    "competitions.alltimeline",
    "competitions.leaguerecord",
    "competitions.recordbreak",
)
"""The league's memory (issue 25): carried by the file, built by the import when missing."""


def _memory_rows() -> dict[str, list[tuple[object, ...]]]:
    kept = {}
    for label in MEMORY:
        model = apps.get_model(label)
        fields = [
            f.attname for f in model._meta.concrete_fields if f.attname not in ("id", "created_at")
        ]
        kept[label] = sorted(model.objects.values_list(*fields), key=lambda row: str(row))
    return kept


def test_a_file_from_before_the_memory_loads_with_the_memory_built(
    move: Move, tmp_path: Path
) -> None:
    carried = _memory_rows()
    assert carried["competitions.seasonline"] and carried["competitions.leaguerecord"]
    data = json.loads(move.text)
    data["models"] = [block for block in data["models"] if block["model"] not in MEMORY]
    path = tmp_path / "before-the-memory.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)
    content_types_reread()
    _command("season_import", str(path))
    content_types_reread()
    assert _memory_rows() == carried  # built anew under other ids, the same rows
