"""``league_import``: a first season from CSV (``shared/SEASON.md``). Every problem of the file
is reported at once with its line and nothing is stored; a good file creates season 1 in
preparation with its teams, coaches (invited to choose a password: the link really sets it) and
entries with their codes and stocks; the same file again changes nothing.

The good file is ``tests.competitions.league_csv``'s: the seven divisions in order, twelve teams
each, codes 01–12, so division ``d`` (0 for the Elite … 6 for D3D) and code ``c`` are on line
``2 + 12·d + c − 1``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.test import Client
from django.utils import translation

from competitions.models import StockMovement, StockReason
from competitions.services.league_import import (
    COLUMNS,
    LeagueImportRefused,
    LeagueImportResult,
    league_import,
)
from league import services as league
from league.models import Division, Entry, Profile, Season, Team
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.league_csv import DIVISIONS, HEADER, csv_text, good_rows, line_of


def problems_of(text: str | bytes) -> list[str]:
    with pytest.raises(LeagueImportRefused) as refusal:
        league_import(text=text)
    return [str(problem) for problem in refusal.value.problems]


def edited(change: Callable[[list[list[str]]], None]) -> str:
    rows = good_rows()
    change(rows)
    return csv_text(rows)


# --- Every refusal, with its line --------------------------------------------------------------


def _set(index: int, column: str, value: str) -> Callable[[list[list[str]]], None]:
    def change(rows: list[list[str]]) -> None:
        rows[index][COLUMNS.index(column)] = value

    return change


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(
            _set(3, "division", "d4"),  # line 5
            [
                "line 2: division elite has 11 teams, it needs 12.",
                "line 5: unknown division “d4” (elite, d2a, d2b, d3a, d3b, d3c, d3d).",
            ],
            id="unknown-division",
        ),
        pytest.param(
            _set(16, "code", "02"),  # d2a's code 05 (line 18) becomes 02, line 15's
            [
                "line 18: code 02 is already line 15's in this division.",
            ],
            id="code-twice-in-a-division",
        ),
        pytest.param(
            _set(83, "division", "d3c"),  # d3d's 12th team (line 85) moves to d3c
            [
                "line 62: division d3c has 13 teams, it needs 12.",
                "line 74: division d3d has 11 teams, it needs 12.",
                "line 85: code 12 is already line 73's in this division.",
            ],
            id="divisions-without-12-teams",
        ),
        pytest.param(
            _set(40, "coach", "elite-01"),  # line 42 names line 2's coach
            ["line 42: coach “elite-01” already coaches line 2's team."],
            id="coach-twice",
        ),
        pytest.param(
            _set(41, "team", "Élans ELITE 01"),
            ["line 43: the team “Élans ELITE 01” is already on line 2."],
            id="team-twice",
        ),
        pytest.param(
            _set(5, "email", "elite-01@example.org"),
            ["line 7: the address “elite-01@example.org” is already line 2's."],
            id="address-twice",
        ),
        pytest.param(
            _set(6, "extra_goals", "-1"),
            ["line 8: extra_goals “-1” is not a whole number from 0 to 999."],
            id="negative-extra-goals",
        ),
        pytest.param(
            _set(7, "great_saves", "two"),
            ["line 9: great_saves “two” is not a whole number from 0 to 999."],
            id="great-saves-not-a-number",
        ),
        pytest.param(
            _set(8, "code", "13"),
            ["line 10: code “13” is not a whole number from 1 to 12."],
            id="code-13",
        ),
        pytest.param(
            _set(9, "language", "de"),
            ["line 11: language “de” is neither fr nor en."],
            id="bad-language",
        ),
        pytest.param(
            _set(10, "email", "not-an-address"),
            ["line 12: “not-an-address” is not an email address."],
            id="bad-email",
        ),
        pytest.param(
            _set(11, "coach", "two words"),
            [
                "line 13: the coach “two words” is not a user name (letters, digits and "
                "@ . + - _ only)."
            ],
            id="bad-user-name",
        ),
        pytest.param(
            _set(12, "team", "!!!"),
            ["line 14: the team name “!!!” is not usable: at most 80 characters, some letters."],
            id="unusable-team-name",
        ),
        pytest.param(
            lambda rows: rows[20].pop(),
            [
                "line 14: division d2a has 11 teams, it needs 12.",
                "line 22: 7 values, but the header has 8 columns.",
            ],
            id="a-value-missing",
        ),
    ],
)
def test_a_problem_is_reported_with_its_line(
    change: Callable[[list[list[str]]], None], expected: list[str]
) -> None:
    assert problems_of(edited(change)) == expected


def test_a_missing_column_is_reported_on_the_header_line() -> None:
    rows = [row[:7] for row in good_rows()]
    assert problems_of(csv_text(rows, header=HEADER.removesuffix(",great_saves"))) == [
        "line 1: missing column great_saves: the header row is " + HEADER + "."
    ]


def test_the_header_s_problems_agree_in_number_in_french() -> None:
    rows = [[*row[:6], "x", "y"] for row in good_rows()]
    header = "team,coach,email,language,division,code,bonus,bonus"
    with translation.override("fr"):
        assert problems_of(csv_text(rows, header=header)) == [
            "ligne 1 : colonnes manquantes extra_goals, great_saves : la ligne d’en-tête est "
            + HEADER
            + ".",
            "ligne 1 : colonnes inconnues “bonus”, “bonus”.",
            "ligne 1 : colonne en double : bonus.",
        ]


def test_a_file_that_is_not_utf8_is_reported_on_its_lines() -> None:
    text = csv_text(good_rows())
    data = text.encode("utf-8").replace(
        b"\xc3\x89lans ELITE 04", "Élans ELITE 04".encode("latin-1")
    )
    assert problems_of(data) == ["line 5: not UTF-8 (byte 0xC9): save the file as UTF-8."]


def test_an_empty_file_is_refused() -> None:
    assert problems_of(b"") == [
        "The file is empty: it needs the header row " + HEADER + " and a row per team."
    ]
    assert problems_of(HEADER + "\n") == [
        "The file has a header row but no team.",
        *(f"division {d} has 0 teams, it needs 12." for d in DIVISIONS),
    ]


def test_every_problem_of_the_file_is_reported_at_once(db: None) -> None:
    def change(rows: list[list[str]]) -> None:
        rows[0][COLUMNS.index("language")] = "es"  # line 2
        rows[30][COLUMNS.index("great_saves")] = "-3"  # line 32
        rows[80][COLUMNS.index("division")] = "d3e"  # line 82

    assert problems_of(edited(change)) == [
        "line 2: language “es” is neither fr nor en.",
        "line 32: great_saves “-3” is not a whole number from 0 to 999.",
        "line 74: division d3d has 11 teams, it needs 12.",
        "line 82: unknown division “d3e” (elite, d2a, d2b, d3a, d3b, d3c, d3d).",
    ]
    assert not Season.objects.exists() and not User.objects.exists()


def test_a_byte_order_mark_and_capitalised_header_are_fine(db: None) -> None:
    rows = good_rows()
    text = "\ufeff" + csv_text(rows, header=HEADER.upper())
    # Checked as far as the registry (nothing else holds a team called so): then refused only
    # for the team that already exists.
    league.team_create(name="Élans D3D 12")
    assert problems_of(text.encode("utf-8")) == ["line 85: a team “Élans D3D 12” already exists."]


def test_a_coach_already_coaching_or_with_another_address_is_refused(db: None) -> None:
    coach = User.objects.create_user(username="d2b-03", email="someone@example.org")
    league.team_create(name="Another Team", coach=coach)
    User.objects.create_user(username="stranger", email="d3a-07@example.org")
    assert problems_of(csv_text(good_rows())) == [
        f"line {line_of('d2b', 3)}: user “d2b-03” already coaches a team.",
        f"line {line_of('d2b', 3)}: user “d2b-03” exists with another email address.",
        f"line {line_of('d3a', 7)}: the address “d3a-07@example.org” is another user's.",
    ]
    assert not Season.objects.exists()


def test_a_first_week_that_does_not_start_on_a_monday_is_refused(db: None) -> None:
    with pytest.raises(LeagueImportRefused) as refusal:
        league_import(text=csv_text(good_rows()), starts_on=date(2030, 9, 3))  # a Tuesday
    assert [str(p) for p in refusal.value.problems] == ["A season's first week starts on a Monday."]
    assert not Season.objects.exists() and not Team.objects.exists() and not User.objects.exists()


def test_a_file_that_is_not_csv_is_reported_on_its_line() -> None:
    text = csv_text(good_rows()).replace("Élans ELITE 02", "Élans " + "x" * 200_000)
    assert "line 3: not valid CSV (field larger than field limit (131072))." in problems_of(text)


# --- The command's exit codes ------------------------------------------------------------------


def run(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("league_import", *args, stdout=out)
    except CommandError as error:
        return error.returncode, str(error)
    return 0, out.getvalue()


def test_the_command_refuses_a_bad_file_listing_every_problem(db: None, tmp_path: Path) -> None:
    path = tmp_path / "league.csv"
    path.write_text(edited(_set(3, "division", "d4")), encoding="utf-8")
    code, message = run(str(path))
    assert code == 1
    assert "refused, nothing was stored (2 problems)" in message
    assert "  line 2: division elite has 11 teams, it needs 12." in message
    assert "  line 5: unknown division “d4”" in message
    assert not Season.objects.exists() and not Team.objects.exists()


def test_an_unreadable_file_or_bad_usage_exits_2(tmp_path: Path) -> None:
    assert run(str(tmp_path / "missing.csv"))[0] == 2
    usage = subprocess.run(
        [sys.executable, "manage.py", "league_import"],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert usage.returncode == 2 and "the following arguments are required" in usage.stderr


# --- A good file, imported once for the module -------------------------------------------------


@dataclass
class Imported:
    result: LeagueImportResult
    path: Path


@pytest.fixture(scope="module")
def imported(
    django_db_setup: None,
    django_db_blocker: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Imported]:
    path = tmp_path_factory.mktemp("import") / "league.csv"
    path.write_text(csv_text(good_rows()), encoding="utf-8")
    with django_db_blocker.unblock(), transaction.atomic():  # type: ignore[attr-defined]
        yield Imported(result=league_import(text=path.read_bytes()), path=path)
        transaction.set_rollback(True)


def test_a_good_file_creates_season_1_in_preparation(imported: Imported, db: None) -> None:
    season = imported.result.season
    assert (season.number, season.status, season.is_current) == (1, "preparing", True)
    assert imported.result.created and imported.result.coaches_created == 84
    assert list(Division.objects.values_list("slug", flat=True)) == list(DIVISIONS)
    entries = Entry.objects.filter(season=season).select_related("team__coach", "division")
    assert entries.count() == 84
    for entry in entries:
        code = entry.code
        division = entry.division.slug
        assert entry.team.name == f"Élans {division.upper()} {code:02d}"
        assert (entry.extra_goals, entry.great_saves) == (code % 4, 2 + code % 2)
        coach = entry.team.coach
        assert coach.username == f"{division}-{code:02d}"
        assert coach.email == f"{division}-{code:02d}@example.org"
        assert not coach.has_usable_password()
        assert Profile.objects.get(user=coach).language == ("fr" if code % 2 else "en")
    # R21's stocks as season_start lines of the ledger.
    lines = StockMovement.objects.filter(entry__season=season)
    assert set(lines.values_list("reason", flat=True)) == {StockReason.SEASON_START}
    assert (
        sum(lines.filter(kind="extra_goals").values_list("delta", flat=True))
        == 7 * (0 + 1 + 2 + 3) * 3
    )
    # Every new coach is invited, in their language.
    emails_send_due()  # the invitations, rendered as the worker woken by the commit does it
    invitations = OutboundEmail.objects.filter(template="invitation")
    assert invitations.count() == 84
    assert invitations.get(to=["elite-01@example.org"]).language == "fr"
    assert invitations.get(to=["elite-02@example.org"]).language == "en"
    assert 'lang="fr"' in invitations.get(to=["elite-01@example.org"]).body_html


def test_importing_the_same_file_again_changes_nothing(imported: Imported, db: None) -> None:
    counts = [m.objects.count() for m in (Season, Team, User, Entry, StockMovement, OutboundEmail)]
    code, output = run(str(imported.path))
    assert code == 0
    assert output == "Season 1 already holds exactly this file (84 teams): nothing changed.\n"
    assert [
        m.objects.count() for m in (Season, Team, User, Entry, StockMovement, OutboundEmail)
    ] == counts


def test_another_file_once_imported_is_refused(
    imported: Imported, db: None, tmp_path: Path
) -> None:
    path = tmp_path / "other.csv"
    path.write_text(edited(_set(3, "extra_goals", "9")), encoding="utf-8")  # line 5
    code, message = run(str(path))
    assert code == 1
    assert (
        "line 5: season 1 already exists with Élans ELITE 04 as elite, 4, elite-04, "
        "elite-04@example.org, 0, 2, not as in this file." in message
    )
    assert Entry.objects.get(team__name="Élans ELITE 04").extra_goals == 0


def invitation_path(username: str) -> str:
    emails_send_due()
    email = OutboundEmail.objects.get(template="invitation", to=[f"{username}@example.org"])
    [link] = re.findall(r"http\S+/accounts/reset/\S+/", email.body_text)
    return link.removeprefix(settings.SITE_URL.rstrip("/"))


def test_the_invitations_link_sets_the_first_password(imported: Imported, db: None) -> None:
    client = Client(headers={"accept-language": "en"})
    path = invitation_path("d3c-05")
    landing = client.get(path, follow=True)
    assert landing.status_code == 200
    assert "Choose your password" in landing.text and "d3c-05" in landing.text
    form_path = landing.redirect_chain[-1][0]
    saved = client.post(
        form_path,
        {"new_password1": "Puck-Pukers-2027!", "new_password2": "Puck-Pukers-2027!"},
        follow=True,
    )
    assert saved.redirect_chain[-1][0] == "/accounts/reset/done/"
    assert "Password saved" in saved.text
    assert User.objects.get(username="d3c-05").check_password("Puck-Pukers-2027!")
    signed_in = Client().post(
        "/accounts/login/", {"username": "d3c-05", "password": "Puck-Pukers-2027!"}
    )
    assert signed_in.status_code == 302 and signed_in["Location"] == "/picks/"
    # The link worked once.
    again = client.get(path, follow=True)
    assert "This link is not valid any more" in again.text


def test_an_invitation_link_serves_only_its_own_coach(imported: Imported, db: None) -> None:
    client = Client(headers={"accept-language": "en"})
    own = invitation_path("d2a-01")
    other_uid = invitation_path("d2a-02").split("/")[3]
    forged = own.replace(own.split("/")[3], other_uid)
    for path in (forged, own[:-4] + "xyz/"):
        page = client.get(path, follow=True)
        assert "This link is not valid any more" in page.text
        assert (
            client.post(
                page.redirect_chain[-1][0] if page.redirect_chain else path,
                {"new_password1": "Puck-Pukers-2027!", "new_password2": "Puck-Pukers-2027!"},
            ).status_code
            == 200
        )
    assert not User.objects.get(username="d2a-02").has_usable_password()
    assert not User.objects.get(username="d2a-01").has_usable_password()
