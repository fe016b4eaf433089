"""``season_start``: the next season from a hand-written plan, in one transaction — entries with
the plan's codes and stocks, matrices (R19), the calendar with a skipped week (R20, R13), pools
with last season's referees, the KDH's first round (R17), the WG's groups (R18), every seed
committed (R23), the season current and running, every coach told in their language — and its
refusals, after which nothing is stored.

Season 1 is built once for the module (``league``) and every refused start leaves it as it
was; the successful start is made once too (``started``), in a savepoint rolled back at the
module's end, and the tests read it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from io import StringIO
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from competitions.models import (
    Competition,
    Fixture,
    Matrix,
    MatrixCell,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    StockMovement,
    StockReason,
)
from competitions.services.season_start import (
    StartPreview,
    season_calendar_preview,
    season_start,
    season_start_preview,
)
from competitions.services.start_plan import SeasonStartRefused
from engine import commitment
from league.models import RULES_VERSION, Entry, PublicVersion, Season, WaitingListEntry
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.season_start_league import (
    DIVISION_SLUGS,
    WG_TWELVE,
    Finished,
    finished_season_build,
    hand_plan,
    plan_code,
    plan_with_joiner,
)

PARIS = ZoneInfo("Europe/Paris")
CHRISTMAS_START = date(2027, 12, 6)
"""A Monday: week 1 from 6 December 2027, week 4 (27 December) skipped for the holidays."""
SEED = "desk-seed"


@pytest.fixture(scope="module")
def league(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> Iterator[Finished]:
    with django_db_blocker.unblock(), transaction.atomic():  # type: ignore[attr-defined]
        yield finished_season_build()
        transaction.set_rollback(True)


def paris(day: date, hour: int = 17) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=PARIS)


def nothing_stored() -> None:
    """No season, entry, stock line, round, pool, matrix or email left by a refused start."""
    assert list(Season.objects.values_list("number", "status", "is_current")) == [
        (1, "finished", True)
    ]
    assert not Entry.objects.filter(season__number__gt=1).exists()
    assert not StockMovement.objects.exists()
    assert not Round.objects.exists()
    assert not Pool.objects.filter(season__number__gt=1).exists()
    assert not Matrix.objects.exists()
    assert not OutboundEmail.objects.exists()


# --- Refusals: nothing stored ------------------------------------------------------------------


def refused(plan: dict[str, object], **options: object) -> SeasonStartRefused:
    with pytest.raises(SeasonStartRefused) as refusal:
        season_start(plan=plan, by=None, starts_on=CHRISTMAS_START, **options)  # type: ignore[arg-type]
    nothing_stored_unless_running()
    return refusal.value


def nothing_stored_unless_running() -> None:
    if not Season.objects.filter(status=Season.Status.RUNNING).exists():
        nothing_stored()


def test_a_start_is_refused_while_a_season_runs(league: Finished, db: None) -> None:
    Season.objects.filter(number=1).update(status=Season.Status.RUNNING)
    refusal = refused(hand_plan())
    assert refusal.code == "season_running"
    assert refusal.problems == ["Season 1 is running: close it before starting another."]
    assert Season.objects.count() == 1 and not Entry.objects.filter(season__number=2).exists()


def test_a_plan_of_83_teams_is_refused(league: Finished, db: None) -> None:
    plan = hand_plan()
    teams = plan["teams"]
    assert isinstance(teams, list)
    teams.pop()  # d3d-12
    refusal = refused(plan)
    assert refusal.code == "plan_invalid"
    assert "The plan has 83 teams: a season has 84, seven divisions of 12." in refusal.problems
    assert "d3d has 11 teams in the plan, it needs 12." in refusal.problems


def test_a_code_given_twice_in_a_division_is_refused(league: Finished, db: None) -> None:
    plan = hand_plan()
    teams = plan["teams"]
    assert isinstance(teams, list)
    teams[1]["code"] = teams[0]["code"]  # elite-02 gets elite-01's new code, 12
    refusal = refused(plan)
    assert refusal.code == "plan_invalid"
    assert refusal.problems == ["Code 12 is given 2 times in elite (R16): elite-01, elite-02."]


def test_a_plan_that_is_not_a_plan_is_refused_with_every_problem(
    league: Finished, db: None
) -> None:
    plan = hand_plan()
    teams = plan["teams"]
    assert isinstance(teams, list)
    teams[0]["extra_goals"] = -1
    teams[1]["to"] = "d4"
    teams[2]["great_saves"] = True
    plan["season"] = 3
    plan["wg"] = plan["wg"][:11]  # type: ignore[index]
    refusal = refused(plan)
    assert refusal.code == "plan_invalid"
    for problem in (
        "season must be 2, the season after from_season.",
        "teams[0] (elite-01): extra_goals is not a whole number from 0.",
        "teams[1] (elite-02): “to” is not a division (elite, d2a, d2b, d3a, d3b, d3c, d3d).",
        "teams[2] (elite-03): great_saves is not a whole number from 0.",
        "The WG needs twelve different teams (R18); the plan gives 11.",
    ):
        assert problem in refusal.problems


def test_a_plan_naming_a_stranger_is_refused(league: Finished, db: None) -> None:
    plan = hand_plan()
    teams = plan["teams"]
    assert isinstance(teams, list)
    teams[0]["team"] = "nobody"
    kdh = plan["kdh"]
    assert isinstance(kdh, dict)
    kdh["enter_later"] = ["nobody" if t == "elite-01" else t for t in kdh["enter_later"]]
    plan["wg"] = [w if w["team"] != "elite-01" else {**w, "team": "nobody"} for w in plan["wg"]]  # type: ignore[attr-defined]
    refusal = refused(plan)
    assert refusal.problems == [
        "nobody did not play season 1: a new team's move is “joined”.",
        "elite-01 played season 1 but is neither in the plan nor leaving.",
    ]


def test_a_kdh_field_that_is_not_r17s_is_refused(league: Finished, db: None) -> None:
    plan = hand_plan()
    kdh = plan["kdh"]
    assert isinstance(kdh, dict)
    # d3a-11 has the new code 02: it enters later (R17: D3 codes 03–12 qualify).
    kdh["qualifying_round"] = [*kdh["qualifying_round"][1:], "d3a-11"]
    refusal = refused(plan)
    assert refusal.problems == [
        "The KDH's qualifying round must be the 40 D3 teams with codes 03–12 (R17) and every "
        "other team must enter later."
    ]


# --- The command: refused, then started ----------------------------------------


def run(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("season_start", *args, stdout=out)
    except CommandError as error:
        return error.returncode, str(error)
    return 0, out.getvalue()


def test_a_start_moves_the_public_version_and_a_refused_one_does_not(
    league: Finished, db: None
) -> None:
    """The public pages and API reads are cached behind this version (league.public_cache)."""
    before = PublicVersion.objects.get(pk=1).published
    short = hand_plan()
    short["teams"] = short["teams"][:83]  # type: ignore[index]
    refused(short)
    assert PublicVersion.objects.get(pk=1).published == before
    season_start(plan=hand_plan(), by=None, starts_on=CHRISTMAS_START, seed=SEED)
    assert PublicVersion.objects.get(pk=1).published > before


def test_the_command_refuses_then_starts_printing_its_progress(
    league: Finished, db: None, tmp_path: Path
) -> None:
    path = tmp_path / "plan.json"
    plan = hand_plan()
    plan["teams"] = plan["teams"][:83]  # type: ignore[index]
    path.write_text(json.dumps(plan), encoding="utf-8")
    code, message = run("--plan", str(path))
    assert code == 1 and "The plan has 83 teams" in message
    nothing_stored()

    path.write_text(json.dumps(hand_plan()), encoding="utf-8")
    code, output = run("--plan", str(path), "--starts-on", "2027-12-06", "--skip-weeks", "4")
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == "[1/21] Plan checked"
    assert [line.split("]")[0] for line in lines[:-1]] == [f"[{n}/21" for n in range(1, 22)]
    assert lines[-1] == "Season 2 started: current and running."
    assert Season.objects.get(number=2).status == Season.Status.RUNNING

    again, message = run("--plan", str(path))
    assert again == 1 and "Season 2 is running" in message
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    assert run("--plan", str(tmp_path / "bad.json"))[0] == 2
    assert run("--plan", str(tmp_path / "missing.json"))[0] == 2


def test_the_calendar_preview_follows_paris_summer_time() -> None:
    season = Season(number=9, starts_on=date(2027, 3, 15))
    weeks = season_calendar_preview(season=season, skipped_weeks=[3])
    # Week 2's Friday (26 March) is winter time, week 4's (9 April) summer time: 17:00 in Paris.
    assert weeks[1].deadline.astimezone(UTC) == datetime(2027, 3, 26, 16, 0, tzinfo=UTC)
    assert weeks[2].skipped and weeks[2].rounds == {}
    assert weeks[3].deadline.astimezone(UTC) == datetime(2027, 4, 9, 15, 0, tzinfo=UTC)
    assert weeks[3].rounds == {"championship": (3,), "kdh": (2,), "wg": (1,)}
    assert len(weeks) == 11


# --- A start from the plan ---------------------------------------------------------------------


@dataclass
class Started:
    season: Season
    steps: list[tuple[int, int, str]]
    preview: StartPreview
    waiting: WaitingListEntry


@pytest.fixture(scope="module")
def started(league: Finished, django_db_blocker: pytest.FixtureRequest) -> Iterator[Started]:
    """Season 2 from the hand-written plan — d3d-12 withdrawn, a waiting-list team in its
    place — with week 4 skipped and the seed a preview showed."""
    with django_db_blocker.unblock(), transaction.atomic():  # type: ignore[attr-defined]
        waiting = WaitingListEntry.objects.create(name="Les Yétis", email="yetis@example.org")
        plan = plan_with_joiner(hand_plan(), leaving="d3d-12", joiner="les-yetis")
        preview = season_start_preview(plan=plan, seed=SEED)
        steps: list[tuple[int, int, str]] = []
        season = season_start(
            plan=plan,
            by=None,
            progress=lambda done, total, message: steps.append((done, total, message)),
            starts_on=CHRISTMAS_START,
            skipped_weeks=[4],
            seed=SEED,
        )
        waiting.refresh_from_db()
        yield Started(season=season, steps=steps, preview=preview, waiting=waiting)
        transaction.set_rollback(True)


def test_the_new_season_is_current_and_running(started: Started, db: None) -> None:
    assert (started.season.number, started.season.status) == (2, "running")
    assert list(Season.objects.filter(is_current=True)) == [started.season]
    assert Season.objects.get(number=1).status == Season.Status.FINISHED
    assert [done for done, _total, _message in started.steps] == list(range(1, 22))
    assert {total for _done, total, _message in started.steps} == {21}


def test_the_season_records_the_rules_in_force_when_it_starts(started: Started, db: None) -> None:
    assert Season.objects.get(number=2).rules_version == RULES_VERSION == "v8"


def test_every_team_has_the_plans_division_code_and_stocks(
    started: Started, league: Finished, db: None
) -> None:
    entries = Entry.objects.filter(season=started.season).select_related("team", "division")
    assert entries.count() == 84
    for entry in entries:
        slug = entry.team.slug if entry.team != started.waiting.team else "d3d-12"
        old = league.entries[slug]
        assert entry.division == old.division
        assert entry.code == plan_code(old.code)
        assert (entry.extra_goals, entry.great_saves) == (entry.code % 5, 2 + entry.code % 3)
    # R21's stocks are season_start lines of the ledger, adding up to the balances.
    lines = StockMovement.objects.filter(entry__season=started.season)
    assert set(lines.values_list("reason", flat=True)) == {StockReason.SEASON_START}
    assert sum(lines.values_list("delta", flat=True)) == sum(
        e.extra_goals + e.great_saves for e in entries
    )


def test_a_waiting_list_team_took_the_leaving_teams_place(started: Started, db: None) -> None:
    assert started.waiting.status == WaitingListEntry.Status.PLACED
    entry = Entry.objects.get(season=started.season, team=started.waiting.team)
    assert (entry.division.slug, entry.code) == ("d3d", 1)  # d3d-12's new code: 13 − 12
    assert not Entry.objects.filter(season=started.season, team__slug="d3d-12").exists()
    coach = started.waiting.team.coach
    assert coach is not None and not coach.has_usable_password()
    assert OutboundEmail.objects.filter(template="invitation", to=["yetis@example.org"]).exists()


def test_three_matrices_drawn_with_dice(started: Started, db: None) -> None:
    cells = MatrixCell.objects.filter(matrix__season=started.season)
    assert Counter(cells.values_list("matrix__competition", flat=True)) == {
        "championship": 11 * 11,
        "kdh": 7 * 7,
        "wg": 8 * 8,
    }
    assert set(cells.values_list("value", flat=True)) <= {1, 2, 3, 4, 5, 6}


def test_the_calendar_skips_christmas_and_moves_the_later_rounds(
    started: Started, db: None
) -> None:
    rounds = {(r.competition, r.number): r for r in Round.objects.filter(season=started.season)}
    assert len(rounds) == 11 + 7 + 8
    championship = [rounds[("championship", n)] for n in range(1, 12)]
    # Weeks 1–3 as always (R20), the season's week 4 in calendar week 5, and its last week
    # (rounds 10 and 11 together) in week 11.
    assert [r.week for r in championship] == [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 11]
    # R13: Friday 17:00 in Paris, winter time (16:00 UTC): 24 December, nothing on
    # 31 December, then 7 January; the last on 18 February.
    assert championship[2].deadline == paris(date(2027, 12, 24))
    assert championship[3].deadline == paris(date(2028, 1, 7))
    assert championship[3].deadline.astimezone(UTC).hour == 16
    assert championship[10].deadline == paris(date(2028, 2, 18))
    # The cups move with it: the KDH's qualifying round stays in week 2, its final (season
    # week 8) goes to week 9; the WG's final week is the championship's last.
    assert rounds[("kdh", 1)].deadline == paris(date(2027, 12, 17))
    assert rounds[("kdh", 7)].week == 9
    assert rounds[("wg", 8)].deadline == championship[10].deadline
    assert started.season.skipped_weeks == [4]


def test_pools_keep_last_seasons_referees(started: Started, league: Finished, db: None) -> None:
    pools = {p.slug: p for p in Pool.objects.filter(season=started.season)}
    assert set(pools) == {*DIVISION_SLUGS, "kdh", "wg"}
    assert list(pools["elite"].referees.all()) == [league.referees["elite"]]
    assert list(pools["kdh"].referees.all()) == [league.referees["kdh"]]
    assert not pools["d2a"].referees.exists() and not pools["wg"].referees.exists()


def test_the_kdhs_first_round_is_the_qualifying_round_of_40_drawn(
    started: Started, db: None
) -> None:
    pool = Pool.objects.get(season=started.season, slug="kdh")
    assert PoolMember.objects.filter(pool=pool).count() == 84
    first = PoolRound.objects.get(pool=pool)
    assert first.round.number == 1
    games = list(Fixture.objects.filter(pool_round=first).select_related("home__division"))
    assert len(games) == 20
    playing = [entry for game in games for entry in (game.home, game.away)]
    assert len({entry.pk for entry in playing}) == 40
    # R17: the D3 teams with codes 03–12.
    assert all(e.division.tier == 3 and 3 <= e.code <= 12 for e in playing)
    # The draw is the one the preview showed with the same seed, and its log does not give the
    # season's seed away (R23).
    assert [(g.home.team.slug, g.away.team.slug) for g in games] == list(started.preview.kdh.games)
    assert first.draw_log and all(SEED not in line["seed"] for line in first.draw_log)


def test_the_wg_groups_are_drawn_from_the_plans_twelve(started: Started, db: None) -> None:
    pool = Pool.objects.get(season=started.season, slug="wg")
    members = PoolMember.objects.filter(pool=pool).select_related("entry__team")
    assert {m.entry.team.slug for m in members} == {team for team, _why in WG_TWELVE}
    groups = {name: sorted(m.entry.team.slug for m in members if m.group == name) for name in "ABC"}
    assert [groups[name] for name in "ABC"] == [sorted(g) for g in started.preview.wg.groups]
    rounds = PoolRound.objects.filter(pool=pool).order_by("round__number")
    assert [pr.round.number for pr in rounds] == [1, 2, 3, 4, 5, 6]
    assert all(pr.fixtures.count() == 6 for pr in rounds)


def test_every_pool_rounds_seed_is_committed(started: Started, db: None) -> None:
    for slug in DIVISION_SLUGS:
        assert PoolRound.objects.filter(pool__season=started.season, pool__slug=slug).count() == 11
        assert (
            Fixture.objects.filter(
                pool_round__pool__season=started.season, pool_round__pool__slug=slug
            ).count()
            == 66
        )
    every = PoolRound.objects.filter(pool__season=started.season)
    assert every.count() == 7 * 11 + 1 + 6
    # R23: a secret seed each, its SHA-256 public, the seed itself not before publication.
    assert all(pr.seed_hash == commitment(pr.seed) for pr in every)
    assert len({pr.seed for pr in every}) == every.count()
    assert all(pr.public_seed is None for pr in every)
    assert not every.filter(round__competition=Competition.KDH, round__number__gt=1).exists()


def test_every_coach_hears_of_the_start_in_their_language(started: Started, db: None) -> None:
    emails = OutboundEmail.objects.filter(template="season-started")
    assert emails.count() == 84
    # Written by ids in the start's transaction; rendered by the worker its commit wakes.
    assert set(emails.values_list("status", "body_text")) == {("queued", "")}
    assert emails_send_due().sent == OutboundEmail.objects.count() == 85  # and an invitation
    french = emails.get(to=["coach-elite-01@example.org"])  # odd code: French
    english = emails.get(to=["coach-elite-02@example.org"])
    assert (french.language, english.language) == ("fr", "en")
    assert 'lang="fr"' in french.body_html and 'lang="en"' in english.body_html
    # Elite, code 12 (13 − 1), stocks 2 and 2 (12 % 5, 2 + 12 % 3), and the first deadline:
    # Friday 10 December 2027 — « vendredi » in French.
    assert "Elite" in french.body_text and "code 12" in french.body_text
    assert "(+) : 2" in french.body_text and "(#) : 2" in french.body_text
    assert "vendredi" in french.body_text and "10 décembre 2027" in french.body_text
    assert "Friday" in english.body_text and "Friday 10 December 2027, 17:00" in english.body_text
