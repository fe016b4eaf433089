"""``manage.py season_export`` / ``season_import`` (``shared/SEASON.md``, "Past seasons"): a whole
season into a fresh database and back, identical, every imported round passing ``verify_round``.

The played state is the demo league (weeks 1–2 published), with what the demo lacks added through
the services: a late pick accepted and one rejected (R13), a team replaced by a waiting-list team
(R14), and a round arbitrated but not published.

"A fresh database": the season is exported, then every table is emptied with Django's ``flush``
(TRUNCATE … CASCADE: the append-only triggers refuse DELETE, not TRUNCATE) — keeping the id
sequences going, so every row comes back under another id —, and the file is imported. This
module commits to the test database (the round trip needs the rows committed between the
steps) and empties it again at the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from competitions import services as competitions
from competitions.demo import demo_load
from competitions.models import (
    LatePick,
    Pick,
    PoolRound,
    Round,
    StockMovement,
    StockReason,
)
from competitions.selectors import PLAYED
from competitions.services.season_transfer import season_export, season_export_json
from competitions.services.verify import pool_round_verify
from league.models import AuditLog, Entry, Season, Team, WaitingListEntry

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class RoundTrip:
    before: str
    """The export from the database where the season was played."""
    after: str
    """The export of the same season imported into the emptied database."""
    path: Path
    old_ids: dict[str, int]
    """A few rows' ids before the trip (the pick that counts for a team, its entry)."""


def _flush() -> None:
    """Empty every table (TRUNCATE … CASCADE), the id sequences left running."""
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False)


def _play_the_demos_missing_parts() -> None:
    """What the demo does not have: late picks decided (R13), a team replaced by a team from
    the waiting list (R14) and a round arbitrated but not yet published."""
    season = Season.objects.get(number=1)
    referee = User.objects.get(username="referee")
    round_3 = Round.objects.get(season=season, competition="championship", number=3)
    late = {}
    for code, division in ((9, "d2b"), (7, "d3b")):
        entry = Entry.objects.get(season=season, division__slug=division, code=code)
        late[division] = LatePick.objects.create(
            entry=entry,
            round=round_3,
            notation="a(2)",
            received_at=round_3.deadline + timedelta(hours=2),
            message_id=f"<late-{division}@example.org>",
        )
    competitions.late_pick_accept(late_pick=late["d2b"], by=referee)
    competitions.late_pick_reject(late_pick=late["d3b"], by=referee)
    # R14: D3D's 05 (ONR in week 2) gives its place to a team from the waiting list.
    newcomer = Team.objects.create(name="Les Nouveaux", slug="les-nouveaux")
    WaitingListEntry.objects.create(
        name="Les Nouveaux",
        email="nouveaux@example.org",
        status=WaitingListEntry.Status.PLACED,
        team=newcomer,
    )
    leaving = Entry.objects.get(season=season, division__slug="d3d", code=5)
    admin = User.objects.get(username="admin")
    competitions.entry_replace(entry=leaving, team=newcomer, by=admin)
    d3d_round_3 = PoolRound.objects.get(round=round_3, pool__slug="d3d")
    competitions.pool_round_arbitrate(pool_round=d3d_round_3, by=referee)
    # A season played under other rules than the v8 default keeps them.
    Season.objects.filter(pk=season.pk).update(rules_version="v7")


@pytest.fixture(scope="module")
def trip(
    django_db_setup: None,
    django_db_blocker: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RoundTrip]:
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        demo_load()
        _play_the_demos_missing_parts()
        season = Season.objects.get(number=1)
        entry = Entry.objects.get(season=season, team__slug="les-nouveaux")
        old_ids = {"entry": entry.pk, "pick": Pick.objects.order_by("pk").last().pk}  # type: ignore[union-attr]
        out = StringIO()
        call_command("season_export", "1", stdout=out)
        before = out.getvalue()
        path = tmp_path_factory.mktemp("season") / "season-1.json"
        path.write_text(before, encoding="utf-8")
        _flush()
        assert not Season.objects.exists() and not Pick.objects.exists()
        call_command("season_import", str(path), stdout=StringIO())
        after = season_export_json(season=Season.objects.get(number=1))
        yield RoundTrip(before=before, after=after, path=path, old_ids=old_ids)
        _flush()


def test_export_import_export_gives_the_same_bytes(trip: RoundTrip) -> None:
    assert trip.after == trip.before
    assert trip.before.endswith("}\n") and trip.before.isascii()


def test_the_file_names_rows_by_natural_keys_and_the_import_gave_them_new_ids(
    trip: RoundTrip,
) -> None:
    data = json.loads(trip.before)
    assert '"id"' not in trip.before and '"pk"' not in trip.before
    [replacement] = [entry for entry in data["entries"] if entry["replaces"] is not None]
    assert replacement["team"] == "les-nouveaux" and replacement["division"] == "d3d"
    entry = Entry.objects.get(team__slug="les-nouveaux")
    assert entry.pk > trip.old_ids["entry"]
    assert entry.replaces is not None and entry.replaces.replaced_at is not None
    assert Pick.objects.order_by("pk").first().pk > trip.old_ids["pick"]  # type: ignore[union-attr]


def test_the_whole_season_came_over(trip: RoundTrip) -> None:
    data = json.loads(trip.before)
    season = Season.objects.get(number=1)
    assert season.is_current and season.status == Season.Status.RUNNING
    assert Entry.objects.filter(season=season).count() == 85  # 84 and the replacement
    assert len(data["picks"]) == Pick.objects.count() > 84 * 2
    assert {pick["channel"] for pick in data["picks"]} == {"web", "referee"}
    assert [late["status"] for late in data["late_picks"]] == ["accepted", "rejected"]
    accepted = LatePick.objects.get(status=LatePick.Status.ACCEPTED)
    assert accepted.pick is not None and accepted.pick.channel == Pick.Channel.REFEREE
    assert accepted.pick.entered_by.username == "referee"  # type: ignore[union-attr]
    assert data["waiting_list"][0]["team"] == "les-nouveaux"
    assert StockMovement.objects.filter(reason=StockReason.REPLACEMENT).count() >= 2
    assert {row["action"] for row in data["audit_log"]} >= {
        "pool_round_arbitrate",
        "pool_round_publish",
        "late_pick_accepted",
        "late_pick_rejected",
        "entry_replace",
    }
    assert AuditLog.objects.count() == len(data["audit_log"])
    assert data["onr_sanctions"], "the demo's week-2 ONR is sanctioned (R14)"


def test_the_season_keeps_the_rules_it_was_played_under(trip: RoundTrip) -> None:
    assert json.loads(trip.before)["season"]["rules_version"] == "v7"
    assert Season.objects.get(number=1).rules_version == "v7"


def test_people_come_without_passwords(trip: RoundTrip) -> None:
    assert "password" not in trip.before
    coach = User.objects.get(username="les-culs-geles")
    assert not coach.has_usable_password()
    assert coach.email == "les-culs-geles@example.org" and coach.profile.language == "fr"
    assert Team.objects.get(slug="les-culs-geles").coach == coach


def test_every_imported_round_replays_to_its_stored_results(trip: RoundTrip) -> None:
    played = PoolRound.objects.filter(status__in=PLAYED)
    assert played.filter(status=PoolRound.Status.ARBITRATED).count() == 1
    assert played.count() > 7 * 2
    for pool_round in played:
        verification = pool_round_verify(pool_round=pool_round)
        assert verification.matches, (str(pool_round), verification.differences)


def test_the_verify_round_command_passes_on_an_imported_round(
    trip: RoundTrip, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("verify_round", "championship", "elite", "2", "--season", "1")
    assert "OK" in capsys.readouterr().out


def test_pick_receipts_are_the_ones_the_coaches_got(trip: RoundTrip) -> None:
    for pick in Pick.objects.select_related("entry__team", "round__season", "entered_by")[:50]:
        assert pick.receipt == pick.compute_receipt()


def _counts() -> tuple[int, ...]:
    return (
        Season.objects.count(),
        Team.objects.count(),
        User.objects.count(),
        Pick.objects.count(),
        AuditLog.objects.count(),
    )


def test_a_season_number_that_exists_is_refused_and_nothing_is_stored(trip: RoundTrip) -> None:
    before = _counts()
    with pytest.raises(CommandError, match="Season 1 already exists") as refused:
        call_command("season_import", str(trip.path))
    assert refused.value.returncode == 1
    assert _counts() == before


def _renumbered(data: dict, number: int) -> dict:
    """The file as season ``number``: the season's number is in every pick's receipt (R12), so
    the receipts are those of the picks under that number."""
    data["season"]["number"] = number
    for entry in data["audit_log"]:
        if entry["object"]["model"] == "league.season":
            entry["object"]["key"] = [number]
    for pick in data["picks"]:
        row = Pick(
            entry=Entry(team=Team(slug=pick["team"])),
            round=Round(season=Season(number=number), competition=pick["round"][0]),
            notation=pick["notation"],
            normalized=pick["normalized"],
            channel=pick["channel"],
            received_at=datetime.fromisoformat(pick["received_at"]),
            entered_by=None if pick["entered_by"] is None else User(username=pick["entered_by"]),
        )
        row.round.number = pick["round"][1]
        pick["receipt"] = row.compute_receipt()
    return data


def _import(tmp_path: Path, data: object) -> CommandError:
    path = tmp_path / "season.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command("season_import", str(path))
    return error.value


def test_a_file_broken_at_its_very_end_stores_nothing(trip: RoundTrip, tmp_path: Path) -> None:
    data = _renumbered(json.loads(trip.before), 2)
    # The teams and people exist: they are kept, and every section is written up to the last.
    data["audit_log"][-1]["object"]["key"] = ["nobody"]
    before = _counts()
    error = _import(tmp_path, data)
    assert error.returncode == 2 and "audit_log" in str(error)
    assert _counts() == before
    assert not Season.objects.filter(number=2).exists()


def test_a_pick_that_does_not_match_its_receipt_is_refused(trip: RoundTrip, tmp_path: Path) -> None:
    data = json.loads(trip.before)
    data["season"]["number"] = 3
    error = _import(tmp_path, data)
    assert error.returncode == 2 and "receipt" in str(error)
    assert not Season.objects.filter(number=3).exists()


def test_a_new_team_whose_coach_coaches_another_is_refused(trip: RoundTrip, tmp_path: Path) -> None:
    data = json.loads(trip.before)
    data["season"]["number"] = 4
    data["teams"][0].update(slug="brand-new", name="Brand New", coach="les-culs-geles")
    error = _import(tmp_path, data)
    assert error.returncode == 1 and "already coaches les-culs-geles" in str(error)


def test_a_new_team_whose_coach_deputises_another_ends_the_deputyship(
    trip: RoundTrip, tmp_path: Path
) -> None:
    """A person is never coach of one team and deputy of another: the import makes them a coach
    the way the site does, their deputyship ending with it."""
    deputy = User.objects.create_user(username="a-deputy", email="a-deputy@example.org")
    Team.objects.filter(slug="les-culs-geles").update(deputy=deputy)
    data = _renumbered(json.loads(trip.before), 5)
    person = dict(data["people"][0], username="a-deputy", email="a-deputy@example.org")
    data["people"].append(person)
    team = dict(data["teams"][0], slug="brand-new", name="Brand New", coach="a-deputy")
    data["teams"].append(team)
    path = tmp_path / "season.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    call_command("season_import", str(path), stdout=StringIO())
    assert Team.objects.get(slug="brand-new").coach == deputy
    assert Team.objects.get(slug="les-culs-geles").deputy is None
    assert AuditLog.objects.filter(action="team_deputy_end").count() == 1


@pytest.mark.parametrize(
    "text",
    ["{not json", "[]", '{"format": "something-else"}', '{"format": "matrixhockey-season"}'],
)
def test_a_file_that_is_not_a_season_is_exit_2(text: str, tmp_path: Path, db: None) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command("season_import", str(path))
    assert error.value.returncode == 2


def test_a_missing_file_is_exit_2(tmp_path: Path, db: None) -> None:
    with pytest.raises(CommandError) as error:
        call_command("season_import", str(tmp_path / "nowhere.json"))
    assert error.value.returncode == 2


def test_exporting_an_unknown_season_is_exit_2(db: None) -> None:
    with pytest.raises(CommandError, match="no season 9") as error:
        call_command("season_export", "9")
    assert error.value.returncode == 2


def test_the_export_reads_the_same_every_time(trip: RoundTrip) -> None:
    assert season_export(season=Season.objects.get(number=1)) == json.loads(trip.after)
