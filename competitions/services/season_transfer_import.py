"""Loading a season's transfer document (:mod:`competitions.services.season_transfer`, where the
format is described) into the database: :func:`season_import`.

One transaction; only INSERTs (picks, the stock ledger and the audit log are append-only), in
the file's order, so that ties broken by creation order (R12) stay as they were. People and teams
the database already has are kept as they are; the others are created (people with no usable
password: they set one through the password reset).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from typing import Any

from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import DatabaseError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions.models import (
    Fixture,
    FixtureResult,
    LatePick,
    Matrix,
    MatrixCell,
    OnrSanction,
    Pick,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    StockMovement,
    TeamResult,
)
from competitions.services.season_transfer import (
    FORMAT,
    VERSION,
    SeasonFileInvalid,
    SeasonImportRefused,
)
from league.models import (
    RULES_VERSION,
    AuditLog,
    Division,
    Entry,
    Language,
    Profile,
    Season,
    Team,
    WaitingListEntry,
)
from league.public_cache import public_version_bump
from league.services import coach_deputyship_end


@contextmanager
def _section(name: str) -> Iterator[None]:
    """Say which part of the file could not be read, and what was wrong with it."""
    try:
        yield
    except (SeasonFileInvalid, SeasonImportRefused, DatabaseError):
        raise
    except (KeyError, IndexError) as error:
        raise SeasonFileInvalid(
            _("Section “%(section)s”: missing field or unknown reference %(what)s.")
            % {"section": name, "what": error}
        ) from error
    except (TypeError, ValueError, AttributeError, ValidationError, ObjectDoesNotExist) as error:
        raise SeasonFileInvalid(
            _("Section “%(section)s”: %(error)s") % {"section": name, "error": error}
        ) from error


def _moment(value: str | None) -> datetime | None:
    """A time of the file: ISO 8601 with its offset (the export writes UTC), or null."""
    if value is None:
        return None
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"the time {value!r} has no offset")
    return moment


def _required(value: str) -> datetime:
    moment = _moment(value)
    if moment is None:
        raise ValueError("a time is missing")
    return moment


def _index(value: object, rows: list[Any]) -> Any:
    """The row at place ``value`` of ``rows`` (a pick or a late pick of the file)."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(rows):
        raise IndexError(value)
    return rows[value]


class _Loader:
    """The file's rows written in order, each section once, with the natural keys of what it
    wrote so that later sections find their references."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.users: dict[str, User] = {}
        self.divisions: dict[str, Division] = {}
        self.teams: dict[str, Team] = {}
        self.entries: dict[str, Entry] = {}
        self.matrices: dict[str, Matrix] = {}
        self.rounds: dict[tuple[str, int], Round] = {}
        self.pools: dict[tuple[str, str], Pool] = {}
        self.pool_rounds: dict[tuple[str, str, int], PoolRound] = {}
        self.picks: list[Pick] = []
        self.late_picks: list[LatePick] = []
        self.sanctions: dict[tuple[str, str, int], OnrSanction] = {}

    def user(self, username: str | None) -> User | None:
        return None if username is None else self.users[username]

    def round(self, key: list[Any] | None) -> Round | None:
        return None if key is None else self.rounds[tuple(key)]

    def load(self) -> Season:
        steps = [
            ("season", self._season),
            ("divisions", self._divisions),
            ("people", self._people),
            ("teams", self._teams),
            ("waiting_list", self._waiting_list),
            ("entries", self._entries),
            ("matrices", self._matrices),
            ("rounds", self._rounds),
            ("pools", self._pools),
            ("pool_rounds", self._pool_rounds),
            ("picks", self._picks),
            ("pool_rounds", self._team_results),
            ("late_picks", self._late_picks),
            ("stock_movements", self._stock_movements),
            ("onr_sanctions", self._onr_sanctions),
            ("audit_log", self._audit_log),
        ]
        for name, step in steps:
            with _section(name):
                step()
        return self.season

    def _season(self) -> None:
        row = self.data["season"]
        season = Season(
            number=row["number"],
            name=row["name"],
            time_zone=row["time_zone"],
            deadline_weekday=row["deadline_weekday"],
            deadline_time=time.fromisoformat(row["deadline_time"]),
            starts_on=date.fromisoformat(row["starts_on"]),
            status=row["status"],
            # An export made before seasons recorded their rules was played under the v8 ones.
            rules_version=row.get("rules_version", RULES_VERSION),
            # Another season may already be the current one: then this one is not.
            is_current=row["current"] is True
            and not Season.objects.filter(is_current=True).exists(),
        )
        season.full_clean()
        season.save()
        self.season = season

    def _divisions(self) -> None:
        for row in self.data["divisions"]:
            division = Division.objects.filter(slug=row["slug"]).first()
            if division is None:
                division = Division(
                    slug=row["slug"], name=row["name"], tier=row["tier"], group=row["group"]
                )
                division.full_clean()
                division.save()
            self.divisions[division.slug] = division

    def _people(self) -> None:
        for row in self.data["people"]:
            if row["language"] not in Language.values:
                raise ValueError(f"unknown language {row['language']!r}")
            user = User.objects.filter(username=row["username"]).first()
            if user is None:
                user = User.objects.create_user(username=row["username"], email=row["email"])
                Profile.objects.create(user=user, language=row["language"])
            self.users[user.get_username()] = user

    def _teams(self) -> None:
        for row in self.data["teams"]:
            team = Team.objects.filter(slug=row["slug"]).first()
            if team is None:
                team = Team.objects.create(
                    slug=row["slug"],
                    name=row["name"],
                    coach=self.user(row["coach"]),
                    is_dummy=row["dummy"],
                    created_at=_required(row["created_at"]),
                )
                if team.coach is not None:
                    coach_deputyship_end(coach=team.coach, team=team, by=None)
            self.teams[team.slug] = team

    def _waiting_list(self) -> None:
        for row in self.data["waiting_list"]:
            team = None if row["team"] is None else self.teams[row["team"]]
            if team is not None and WaitingListEntry.objects.filter(team=team).exists():
                continue
            WaitingListEntry.objects.create(
                name=row["name"],
                email=row["email"],
                user=self.user(row["user"]),
                registered_at=_required(row["registered_at"]),
                status=row["status"],
                team=team,
            )

    def _entries(self) -> None:
        rows = self.data["entries"]
        entries = Entry.objects.bulk_create(
            Entry(
                season=self.season,
                team=self.teams[row["team"]],
                division=self.divisions[row["division"]],
                code=row["code"],
                extra_goals=row["extra_goals"],
                great_saves=row["great_saves"],
                onr_count=row["onr_count"],
                promotion_barred=row["promotion_barred"],
                replaced_at=_moment(row["replaced_at"]),
            )
            for row in rows
        )
        self.entries = {entry.team.slug: entry for entry in entries}
        for row, entry in zip(rows, entries, strict=True):
            if row["replaces"] is not None:
                entry.replaces = self.entries[row["replaces"]]
                entry.save(update_fields=["replaces"])

    def _matrices(self) -> None:
        for row in self.data["matrices"]:
            matrix = Matrix.objects.create(season=self.season, competition=row["competition"])
            MatrixCell.objects.bulk_create(
                MatrixCell(matrix=matrix, round_number=number, column=column, value=value)
                for number, column, value in row["cells"]
            )
            self.matrices[matrix.competition] = matrix

    def _rounds(self) -> None:
        rounds = Round.objects.bulk_create(
            Round(
                season=self.season,
                competition=row["competition"],
                number=row["number"],
                week=row["week"],
                stage=row["stage"],
                deadline=_required(row["deadline"]),
                status=row["status"],
                # A file written before deadlines could move has the feeds' first sequence.
                calendar_sequence=row.get("calendar_sequence", 0),
                calendar_changed_at=_moment(row.get("calendar_changed_at")) or timezone.now(),
                deadline_moved_from=_moment(row.get("deadline_moved_from")),
                deadline_moved_at=_moment(row.get("deadline_moved_at")),
            )
            for row in self.data["rounds"]
        )
        self.rounds = {(round.competition, round.number): round for round in rounds}

    def _pools(self) -> None:
        for row in self.data["pools"]:
            pool = Pool.objects.create(
                season=self.season,
                competition=row["competition"],
                slug=row["slug"],
                division=None if row["division"] is None else self.divisions[row["division"]],
            )
            pool.referees.set([self.users[name] for name in row["referees"]])
            PoolMember.objects.bulk_create(
                PoolMember(pool=pool, entry=self.entries[member["team"]], group=member["group"])
                for member in row["members"]
            )
            self.pools[pool.competition, pool.slug] = pool

    def _pool_rounds(self) -> None:
        rows = self.data["pool_rounds"]
        pool_rounds = PoolRound.objects.bulk_create(
            PoolRound(
                pool=self.pools[row["competition"], row["pool"]],
                round=self.rounds[row["competition"], row["round"]],
                status=row["status"],
                seed=row["seed"],
                seed_hash=row["seed_hash"],
                draw_log=row["draw_log"],
                arbitrated_at=_moment(row["arbitrated_at"]),
                arbitrated_by=self.user(row["arbitrated_by"]),
                published_at=_moment(row["published_at"]),
                published_by=self.user(row["published_by"]),
                # A file written before rounds kept their void has none.
                voided_at=_moment(row.get("voided_at")),
                void_reason=row.get("void_reason", ""),
            )
            for row in rows
        )
        qualified = PoolRound.qualified.through
        qualified.objects.bulk_create(
            qualified(poolround=pool_round, entry=self.entries[team])
            for row, pool_round in zip(rows, pool_rounds, strict=True)
            for team in row["qualified"]
        )
        games = [
            (pool_round, game)
            for row, pool_round in zip(rows, pool_rounds, strict=True)
            for game in row["fixtures"]
        ]
        fixtures = Fixture.objects.bulk_create(
            Fixture(
                pool_round=pool_round,
                home=self.entries[game["home"]],
                away=self.entries[game["away"]],
                label=game["label"],
            )
            for pool_round, game in games
        )
        FixtureResult.objects.bulk_create(
            FixtureResult(
                fixture=fixture,
                home_goals=game["result"]["home_goals"],
                away_goals=game["result"]["away_goals"],
                decided=game["result"]["decided"],
                winner=None
                if game["result"]["winner"] is None
                else self.entries[game["result"]["winner"]],
                created_at=_required(game["result"]["created_at"]),
            )
            for fixture, (_, game) in zip(fixtures, games, strict=True)
            if game["result"] is not None
        )
        self.pool_rounds = {
            (row["competition"], row["pool"], row["round"]): pool_round
            for row, pool_round in zip(rows, pool_rounds, strict=True)
        }

    def _picks(self) -> None:
        picks = []
        for index, row in enumerate(self.data["picks"]):
            pick = Pick(
                entry=self.entries[row["team"]],
                round=self.round(row["round"]),
                notation=row["notation"],
                normalized=row["normalized"],
                channel=row["channel"],
                received_at=_required(row["received_at"]),
                entered_by=self.user(row["entered_by"]),
                receipt=row["receipt"],
            )
            # R12: the receipt is the SHA-256 of the pick as stored; a pick that does not match
            # its receipt is not the pick the coach was given a receipt for.
            if pick.compute_receipt() != pick.receipt:
                raise SeasonFileInvalid(
                    _("Pick %(index)d (%(team)s) does not match its receipt.")
                    % {"index": index, "team": row["team"]}
                )
            picks.append(pick)
        self.picks = Pick.objects.bulk_create(picks)

    def _team_results(self) -> None:
        TeamResult.objects.bulk_create(
            TeamResult(
                pool_round=self.pool_rounds[row["competition"], row["pool"], row["round"]],
                entry=self.entries[result["team"]],
                column=result["column"],
                extra_time=result["extra_time"],
                shootout=result["shootout"],
                extra_goals_used=result["extra_goals_used"],
                great_saves_used=result["great_saves_used"],
                onr=result["onr"],
                redrawn=result["redrawn"],
                bonus_goal=result["bonus_goal"],
                goals=result["goals"],
                display=result["display"],
                pick=None if result["pick"] is None else _index(result["pick"], self.picks),
            )
            for row in self.data["pool_rounds"]
            for result in row["team_results"]
        )

    def _late_picks(self) -> None:
        self.late_picks = LatePick.objects.bulk_create(
            LatePick(
                entry=self.entries[row["team"]],
                round=self.round(row["round"]),
                notation=row["notation"],
                received_at=_required(row["received_at"]),
                message_id=row["message_id"],
                status=row["status"],
                decided_by=self.user(row["decided_by"]),
                decided_at=_moment(row["decided_at"]),
                pick=None if row["pick"] is None else _index(row["pick"], self.picks),
            )
            for row in self.data["late_picks"]
        )

    def _stock_movements(self) -> None:
        StockMovement.objects.bulk_create(
            StockMovement(
                entry=self.entries[row["team"]],
                kind=row["kind"],
                delta=row["delta"],
                balance_after=row["balance_after"],
                reason=row["reason"],
                round=self.round(row["round"]),
                note=row["note"],
                created_at=_required(row["created_at"]),
                created_by=self.user(row["created_by"]),
            )
            for row in self.data["stock_movements"]
        )

    def _onr_sanctions(self) -> None:
        sanctions = OnrSanction.objects.bulk_create(
            OnrSanction(
                entry=self.entries[row["team"]],
                week=row["week"],
                round=self.round(row["round"]),
                onr_count=row["onr_count"],
                week_onr=row.get("week_onr", 1),
                extra_goals_removed=row["extra_goals_removed"],
                great_saves_removed=row["great_saves_removed"],
                barred_from_promotion=row["barred_from_promotion"],
                replacement=row["replacement"],
                created_at=_required(row["created_at"]),
            )
            for row in self.data["onr_sanctions"]
        )
        self.sanctions = {
            (s.entry.team.slug, s.round.competition, s.round.number): s for s in sanctions
        }

    def _sanction(self, key: list[Any]) -> OnrSanction | None:
        """The sanction a file names by team and round (R20: a week may hold two), or by team
        and week, as a file that keys one sanction a week names it."""
        if len(key) == 2:
            return next(
                (s for (team, *_), s in self.sanctions.items() if (team, s.week) == tuple(key)),
                None,
            )
        return self.sanctions.get((key[0], key[1], key[2]))

    def _object(self, model: type[models.Model] | None, key: list[Any]) -> models.Model:
        """The row an audit-log entry is about, from its natural key in the file."""
        found: dict[type[models.Model], Any] = {
            Season: lambda: self.season if key == [self.season.number] else None,
            Entry: lambda: self.entries[key[0]],
            Round: lambda: self.rounds[key[0], key[1]],
            Pool: lambda: self.pools[key[0], key[1]],
            PoolRound: lambda: self.pool_rounds[key[0], key[1], key[2]],
            Pick: lambda: _index(key[0], self.picks),
            LatePick: lambda: _index(key[0], self.late_picks),
            OnrSanction: lambda: self._sanction(key),
            Matrix: lambda: self.matrices[key[0]],
        }
        row = found[model]() if model in found else None
        if row is None:
            raise KeyError(key)
        return row

    def _audit_log(self) -> None:
        rows = []
        for row in self.data["audit_log"]:
            app_label, model = row["object"]["model"].split(".")
            content_type = ContentType.objects.get_by_natural_key(app_label, model)
            about = self._object(content_type.model_class(), row["object"]["key"])
            rows.append(
                AuditLog(
                    at=_required(row["at"]),
                    actor=self.user(row["actor"]),
                    action=row["action"],
                    content_type=content_type,
                    object_id=str(about.pk),
                    object_repr=row["object_repr"],
                    payload=row["payload"],
                )
            )
        AuditLog.objects.bulk_create(rows)


def _refusals(data: dict[str, Any]) -> list[str]:
    """What in the database stops the file from loading: its season number taken, a new team's
    name or coach already another team's."""
    with _section("season"):
        number = data["season"]["number"]
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ValueError(f"the season number {number!r} is not a number from 1")
    if Season.objects.filter(number=number).exists():
        return [
            _(
                "Season %(number)d already exists in this database: a season is imported into "
                "a database that does not have it yet."
            )
            % {"number": number}
        ]
    problems = []
    with _section("teams"):
        for row in data["teams"]:
            if Team.objects.filter(slug=row["slug"]).exists():
                continue
            other = Team.objects.filter(name=row["name"]).first()
            if other is not None:
                problems.append(
                    _("Team “%(name)s” (%(slug)s): another team (%(other)s) has its name.")
                    % {"name": row["name"], "slug": row["slug"], "other": other.slug}
                )
            coached = Team.objects.filter(coach__username=row["coach"]).first()
            if row["coach"] is not None and coached is not None:
                problems.append(
                    _("Team “%(name)s”: its coach %(coach)s already coaches %(other)s.")
                    % {"name": row["name"], "coach": row["coach"], "other": coached.slug}
                )
    return problems


def season_import(*, data: Any) -> Season:
    """Load a season's transfer document (already parsed) into the database, in one
    transaction: everything or nothing.

    Raises :class:`SeasonImportRefused` when the database cannot take it (its season number
    exists, a new team's name or coach is taken) and :class:`SeasonFileInvalid` when the
    document cannot be read.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SeasonFileInvalid(
            _("This is not a season file (format %(format)s).") % {"format": FORMAT}
        )
    if data.get("version") != VERSION:
        raise SeasonFileInvalid(
            _("This season file has version %(version)s; this league reads version %(ours)d.")
            % {"version": data.get("version"), "ours": VERSION}
        )
    problems = _refusals(data)
    if problems:
        raise SeasonImportRefused("\n".join(problems))
    try:
        with transaction.atomic():
            season = _Loader(data).load()
            public_version_bump()  # a whole season, its results published as they were
            return season
    except DatabaseError as error:
        raise SeasonFileInvalid(
            _("The file's rows do not fit together: %(error)s") % {"error": error}
        ) from error
