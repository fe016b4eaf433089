"""A league's first season imported from a CSV file (``shared/SEASON.md``): one team a row,
``team,coach,email,language,division,code,extra_goals,great_saves``.

The whole file is checked before anything is written, and every problem is reported with its
line: an unknown division, a code used twice in a division (R16), a division without its twelve
teams, a team, coach or address twice, a bad number, language or address, a missing column, a
file that is not UTF-8 or empty. Then season 1 is created in preparation with its divisions,
teams, coaches (new accounts have no usable password: each is invited by email to set one,
``league.signals.coach_invited``) and entries with their codes and starting stocks (R21's
``season_start`` ledger lines). Importing the same file again changes nothing.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Field, Q, Sum
from django.db.models.functions import Lower
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from competitions.models import StockMovement, StockReason
from competitions.services.entries import EntryPlace, entries_create
from competitions.services.season_entries import next_monday
from league.models import DIVISION_SIZE, Entry, Language, Profile, Season, Team
from league.public_cache import public_version_bump
from league.services.audit import audit_record
from league.services.seasons import (
    STANDARD_DIVISIONS,
    divisions_create_standard,
    season_create,
    season_make_current,
)
from league.services.teams import team_create
from league.signals import coach_invited

COLUMNS = ("team", "coach", "email", "language", "division", "code", "extra_goals", "great_saves")
"""The file's header row, in this order (``shared/SEASON.md``)."""
DIVISION_SLUGS = tuple(slug for slug, *_rest in STANDARD_DIVISIONS)
FIRST_SEASON = 1


def _max_length(field: Field[Any, Any]) -> int:
    assert field.max_length is not None  # a text field's, as its model declares it
    return field.max_length


_TEAM_NAME_MAX = _max_length(Team._meta.get_field("name"))
_TEAM_SLUG_MAX = _max_length(Team._meta.get_field("slug"))


@dataclass(frozen=True)
class ImportProblem:
    """One problem of the file: its line (``None`` for the whole file) and what is wrong."""

    line: int | None
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return _("line %(line)d: %(problem)s") % {"line": self.line, "problem": self.message}


class LeagueImportRefused(Exception):
    """The file has problems (all of them, in line order, the whole file's first): nothing was
    stored."""

    def __init__(self, problems: Sequence[ImportProblem]) -> None:
        self.problems = sorted(problems, key=lambda p: p.line or 0)
        super().__init__("\n".join(map(str, self.problems)))


@dataclass(frozen=True)
class ImportRow:
    """A checked row of the file."""

    line: int
    team: str
    slug: str
    coach: str
    email: str
    language: str
    division: str
    code: int
    extra_goals: int
    great_saves: int


@dataclass(frozen=True)
class LeagueImportResult:
    """What an import did: ``created`` is false when season 1 already held exactly this file
    (nothing changed)."""

    season: Season
    created: bool
    teams: int
    coaches_created: int


def league_import(
    *,
    text: str | bytes | None = None,
    rows: Sequence[Sequence[str]] | None = None,
    by: User | None = None,
    starts_on: date | None = None,
) -> LeagueImportResult:
    """Import a first season from ``text`` (the CSV file, bytes are read as UTF-8) or ``rows``
    (its records as ``csv.reader`` gives them, the header first, one a line).

    Raises :class:`LeagueImportRefused` with every problem when the file is not right, or when
    the league already has seasons other than exactly this import. Season 1 starts on
    ``starts_on`` (default: next Monday; the season desk can move it while preparing).
    """
    problems: list[ImportProblem] = []
    if rows is not None:
        records = [(number, list(fields)) for number, fields in enumerate(rows, start=1)]
    else:
        records = _read(text if text is not None else "", problems)
    checked = _check(records, problems)
    if problems:
        raise LeagueImportRefused(problems)
    with transaction.atomic():
        # Locked, so that two imports at once do not both create season 1.
        seasons = list(Season.objects.select_for_update().order_by("number"))
        if seasons:
            return _unchanged(seasons, checked)
        _check_registry(checked, problems)
        if problems:
            raise LeagueImportRefused(problems)
        public_version_bump()  # the league's first season, its divisions and teams
        try:
            return _create(checked, by=by, starts_on=starts_on or next_monday())
        except ValidationError as error:  # a first Monday that is not a Monday
            raise LeagueImportRefused([ImportProblem(None, m) for m in error.messages]) from error


# --- Reading and checking the file -------------------------------------------------------------


def _read(text: str | bytes, problems: list[ImportProblem]) -> list[tuple[int, list[str]]]:
    """The file's records with the line each starts on; encoding and CSV problems noted."""
    if isinstance(text, bytes):
        text = _decode(text, problems)
    text = text.removeprefix("\ufeff")
    if not text.strip():
        problems.append(
            ImportProblem(
                None,
                _("The file is empty: it needs the header row %(header)s and a row per team.")
                % {"header": ",".join(COLUMNS)},
            )
        )
        return []
    reader = csv.reader(io.StringIO(text, newline=""))
    records, start = [], 1
    try:
        for fields in reader:
            records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as error:
        problems.append(
            ImportProblem(reader.line_num, _("not valid CSV (%(error)s).") % {"error": error})
        )
    return records


def _decode(data: bytes, problems: list[ImportProblem]) -> str:
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # A newline byte never occurs inside a UTF-8 sequence: each line can be checked alone.
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(
                ImportProblem(
                    number,
                    _("not UTF-8 (byte 0x%(byte)02X): save the file as UTF-8.")
                    % {"byte": line[error.start]},
                )
            )
    return data.decode("utf-8", errors="replace")


def _check(records: list[tuple[int, list[str]]], problems: list[ImportProblem]) -> list[ImportRow]:
    """Each row checked alone, then the rows together (the league's shape)."""
    records = [(n, fields) for n, fields in records if any(f.strip() for f in fields)]
    if not records:
        if not problems:
            problems.append(ImportProblem(None, _("The file has no header row and no team.")))
        return []
    header_line, header = records[0]
    names = [name.strip().lower() for name in header]
    missing = [c for c in COLUMNS if c not in names]
    unknown = [f"“{n}”" for n in names if n not in COLUMNS]
    twice = sorted({n for n in names if names.count(n) > 1})
    if missing:
        problems.append(
            ImportProblem(
                header_line,
                ngettext(
                    "missing column %(missing)s: the header row is %(header)s.",
                    "missing columns %(missing)s: the header row is %(header)s.",
                    len(missing),
                )
                % {"missing": ", ".join(missing), "header": ",".join(COLUMNS)},
            )
        )
    if unknown:
        problems.append(
            ImportProblem(
                header_line,
                ngettext(
                    "unknown column %(unknown)s.", "unknown columns %(unknown)s.", len(unknown)
                )
                % {"unknown": ", ".join(unknown)},
            )
        )
    if twice:
        problems.append(
            ImportProblem(
                header_line,
                ngettext(
                    "column given twice: %(twice)s.", "columns given twice: %(twice)s.", len(twice)
                )
                % {"twice": ", ".join(twice)},
            )
        )
    if missing or unknown or twice:
        return []
    rows, raw = [], []
    for line, fields in records[1:]:
        if len(fields) != len(names):
            problems.append(
                ImportProblem(
                    line,
                    _("%(found)d values, but the header has %(expected)d columns.")
                    % {"found": len(fields), "expected": len(names)},
                )
            )
            continue
        values = dict(zip(names, (f.strip() for f in fields), strict=True))
        raw.append((line, values))
        row = _row(line, values, problems)
        if row is not None:
            rows.append(row)
    if not raw and not problems:
        problems.append(ImportProblem(None, _("The file has a header row but no team.")))
    _check_together(raw, problems)
    return rows


def _number(
    line: int, value: str, column: str, low: int, high: int, problems: list[ImportProblem]
) -> int | None:
    if value.isascii() and value.isdigit() and low <= int(value) <= high:
        return int(value)
    problems.append(
        ImportProblem(
            line,
            _("%(column)s “%(value)s” is not a whole number from %(low)d to %(high)d.")
            % {"column": column, "value": value, "low": low, "high": high},
        )
    )
    return None


def _row(line: int, values: dict[str, str], problems: list[ImportProblem]) -> ImportRow | None:
    """One row checked alone: ``None`` (and its problems noted) when something is wrong."""
    before = len(problems)

    def problem(message: str) -> None:
        problems.append(ImportProblem(line, message))

    team, coach, email = values["team"], values["coach"], values["email"]
    slug = slugify(team)
    if not team:
        problem(_("the team has no name."))
    elif not slug or len(team) > _TEAM_NAME_MAX or len(slug) > _TEAM_SLUG_MAX:
        problem(
            _("the team name “%(team)s” is not usable: at most %(max)d characters, some letters.")
            % {"team": team, "max": _TEAM_NAME_MAX}
        )
    try:
        UnicodeUsernameValidator()(coach)
        if not coach or len(coach) > 150:
            raise ValidationError("length")
    except ValidationError:
        problem(
            _("the coach “%(coach)s” is not a user name (letters, digits and @ . + - _ only).")
            % {"coach": coach}
        )
    try:
        validate_email(email)
    except ValidationError:
        problem(_("“%(email)s” is not an email address.") % {"email": email})
    language = values["language"].lower()
    if language not in Language.values:
        problem(
            _("language “%(language)s” is neither fr nor en.") % {"language": values["language"]}
        )
    division = values["division"].lower()
    if division not in DIVISION_SLUGS:
        problem(
            _("unknown division “%(division)s” (%(known)s).")
            % {"division": values["division"], "known": ", ".join(DIVISION_SLUGS)}
        )
    code = _number(line, values["code"], "code", 1, DIVISION_SIZE, problems)
    extra_goals = _number(line, values["extra_goals"], "extra_goals", 0, 999, problems)
    great_saves = _number(line, values["great_saves"], "great_saves", 0, 999, problems)
    if len(problems) > before or code is None or extra_goals is None or great_saves is None:
        return None
    return ImportRow(
        line, team, slug, coach, email, language, division, code, extra_goals, great_saves
    )


def _keys(values: dict[str, str]) -> dict[str, tuple[object, str]]:
    """What must be unique in a row (its team, coach, address, and code in its division, R16),
    as (key, shown): only the values that are there and usable."""
    keys: dict[str, tuple[object, str]] = {}
    if slugify(values["team"]):
        keys["team"] = (slugify(values["team"]), values["team"])
    if values["coach"]:
        keys["coach"] = (values["coach"].lower(), values["coach"])
    if values["email"]:
        keys["email"] = (values["email"].lower(), values["email"])
    code, division = values["code"], values["division"].lower()
    if division in DIVISION_SLUGS and code.isascii() and code.isdigit():
        keys["code"] = ((division, int(code)), f"{int(code):02d}")
    return keys


def _check_together(raw: list[tuple[int, dict[str, str]]], problems: list[ImportProblem]) -> None:
    """Across rows, even those with other problems: a team, coach or address once; a code once
    per division (R16); twelve teams in each of the seven divisions."""
    messages = {
        "team": _("the team “%(value)s” is already on line %(first)d."),
        "coach": _("coach “%(value)s” already coaches line %(first)d's team."),
        "email": _("the address “%(value)s” is already line %(first)d's."),
        "code": _("code %(value)s is already line %(first)d's in this division."),
    }
    first_line: dict[tuple[str, object], int] = {}
    lines: dict[str, list[int]] = defaultdict(list)
    for line, values in raw:
        for kind, (key, shown) in _keys(values).items():
            first = first_line.setdefault((kind, key), line)
            if first != line:
                problems.append(
                    ImportProblem(line, messages[kind] % {"value": shown, "first": first})
                )
        if values["division"].lower() in DIVISION_SLUGS:
            lines[values["division"].lower()].append(line)
    for slug in DIVISION_SLUGS:
        if len(lines[slug]) != DIVISION_SIZE:
            problems.append(
                ImportProblem(
                    lines[slug][0] if lines[slug] else None,
                    _("division %(division)s has %(count)d teams, it needs %(size)d.")
                    % {"division": slug, "count": len(lines[slug]), "size": DIVISION_SIZE},
                )
            )


def _check_registry(rows: list[ImportRow], problems: list[ImportProblem]) -> None:
    """Against what the league already holds: team names free, existing coaches free and with
    the file's address, addresses not another person's."""
    user_model = get_user_model()
    names = {row.team for row in rows}
    slugs = {row.slug for row in rows}
    taken = Team.objects.filter(Q(name__in=names) | Q(slug__in=slugs)).values_list("name", "slug")
    taken_names = {name for name, _slug in taken} | {slug for _name, slug in taken}
    users = user_model.objects.in_bulk([row.coach for row in rows], field_name="username")
    coaching = set(Team.objects.filter(coach__in=users.values()).values_list("coach_id", flat=True))
    addresses: dict[str, list[str]] = defaultdict(list)
    for username, email in (
        user_model.objects.annotate(address=Lower("email"))
        .filter(address__in=[row.email.lower() for row in rows])
        .values_list("username", "address")
    ):
        addresses[email].append(username)
    for row in rows:
        if row.team in taken_names or row.slug in taken_names:
            problems.append(
                ImportProblem(row.line, _("a team “%(team)s” already exists.") % {"team": row.team})
            )
        user = users.get(row.coach)
        if user is not None and user.pk in coaching:
            problems.append(
                ImportProblem(
                    row.line, _("user “%(coach)s” already coaches a team.") % {"coach": row.coach}
                )
            )
        if user is not None and user.email.lower() != row.email.lower():
            problems.append(
                ImportProblem(
                    row.line,
                    _("user “%(coach)s” exists with another email address.") % {"coach": row.coach},
                )
            )
        if any(name != row.coach for name in addresses[row.email.lower()]):
            problems.append(
                ImportProblem(
                    row.line,
                    _("the address “%(email)s” is another user's.") % {"email": row.email},
                )
            )


# --- Writing -----------------------------------------------------------------------------------


def _create(rows: list[ImportRow], *, by: User | None, starts_on: date) -> LeagueImportResult:
    divisions = {division.slug: division for division in divisions_create_standard()}
    season = season_create(number=FIRST_SEASON, starts_on=starts_on)
    if not Season.objects.filter(is_current=True).exists():
        season_make_current(season=season)
    user_model = get_user_model()
    invited = []
    places = []
    for row in rows:
        coach = user_model.objects.filter(username=row.coach).first()
        if coach is None:
            # No password: the invitation's link sets the first one.
            coach = user_model.objects.create_user(username=row.coach, email=row.email)
            invited.append(coach)
        Profile.objects.get_or_create(user=coach, defaults={"language": row.language})
        places.append(
            EntryPlace(
                team=team_create(name=row.team, slug=row.slug, coach=coach),
                division=divisions[row.division],
                code=row.code,
                extra_goals=row.extra_goals,
                great_saves=row.great_saves,
            )
        )
    entries_create(season=season, places=places, by=by)
    audit_record(
        actor=by,
        action="league_import",
        obj=season,
        payload={"teams": len(rows), "coaches_created": len(invited)},
    )
    for coach in invited:
        coach_invited.send(sender=user_model, user=coach)
    return LeagueImportResult(
        season=season, created=True, teams=len(rows), coaches_created=len(invited)
    )


def _unchanged(seasons: list[Season], rows: list[ImportRow]) -> LeagueImportResult:
    """The league already has seasons: only season 1 holding exactly this file is accepted (the
    same import again, nothing changes); anything else is refused, with the differences."""
    first = next((s for s in seasons if s.number == FIRST_SEASON), None)
    if first is None:
        raise LeagueImportRefused(
            [ImportProblem(None, _("The league already has seasons: an import creates season 1."))]
        )
    problems = _differences(first, rows)
    if problems:
        raise LeagueImportRefused(problems)
    return LeagueImportResult(season=first, created=False, teams=len(rows), coaches_created=0)


def _differences(season: Season, rows: list[ImportRow]) -> list[ImportProblem]:
    entries = {
        entry.team.slug: entry
        for entry in Entry.objects.current(season=season).select_related("team__coach", "division")
    }
    starts = {
        (line["entry_id"], line["kind"]): line["total"]
        for line in StockMovement.objects.filter(
            entry__season=season, reason=StockReason.SEASON_START
        )
        .values("entry_id", "kind")
        .annotate(total=Sum("delta"))
    }
    problems = []
    for row in rows:
        entry = entries.pop(row.slug, None)
        if entry is None:
            problems.append(
                ImportProblem(
                    row.line,
                    _("season 1 already exists without %(team)s (imported from another file).")
                    % {"team": row.team},
                )
            )
            continue
        coach = entry.team.coach
        stored = (
            entry.team.name,
            entry.division.slug,
            entry.code,
            coach.get_username() if coach else "",
            (coach.email if coach else "").lower(),
            starts.get((entry.pk, "extra_goals"), 0),
            starts.get((entry.pk, "great_saves"), 0),
        )
        given = (
            row.team,
            row.division,
            row.code,
            row.coach,
            row.email.lower(),
            row.extra_goals,
            row.great_saves,
        )
        if stored != given:
            problems.append(
                ImportProblem(
                    row.line,
                    _("season 1 already exists with %(team)s as %(stored)s, not as in this file.")
                    % {"team": row.team, "stored": ", ".join(map(str, stored[1:]))},
                )
            )
    for entry in entries.values():
        problems.append(
            ImportProblem(
                None,
                _("season 1 already exists with %(team)s, which this file does not list.")
                % {"team": entry.team.name},
            )
        )
    return problems
