"""A whole season to a JSON document and back (``shared/SEASON.md``, "Past seasons"):
``season_export`` / ``season_import``.

The document holds the season row, its divisions, the people it names (username, email,
language; never a password), teams, entries (with their R14 replacement links), the waiting-list
entries placed into it, matrices, rounds (with their deadline's last move and the feeds'
sequence), pools with their referees and members, pool rounds with their seed, seed hash, draw
log, status and times (their last void's time and reason included), fixtures and their results,
team results, every pick as received (receipt, channel, time, who entered it), late picks, the
stock ledger, ONR sanctions and the audit-log entries about the season's objects. The whole
league, to move it to another server, is :mod:`competitions.services.league_transfer`'s.

Rows refer to each other by natural keys (a team's slug, a username, a round's competition and
number), never by database id, so the file loads into a database with other ids. A pick is
referred to by its place in the file's ``picks`` list (two picks may share every field).

Stable: sorted keys; lists of rows in creation order (the source's id order), which the import
keeps by inserting in that order, because ties such as R12's "last pick received" and a round's
team order fall back on it; reference lists (referees, qualified teams) sorted. Export, import
into an empty database and export again gives the same bytes.

Import only INSERTs (picks, the stock ledger and the audit log refuse UPDATE and DELETE), in one
transaction. It refuses (:class:`SeasonImportRefused`) a season number the database already has,
or a new team whose name or coach another team already has; a file it cannot read
(:class:`SeasonFileInvalid`): bad JSON, a missing or mistyped field, an unknown reference, a pick
whose receipt does not match it. People and teams the database already has are kept as they are.
Not in the file: the mail layer's rows (outbox, mailings), which sit above the competitions.
The audit-log payloads are kept as written: ids inside them are the source database's.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q

from competitions.models import (
    Fixture,
    LatePick,
    Matrix,
    OnrSanction,
    Pick,
    Pool,
    PoolRound,
    Round,
    StockMovement,
    TeamResult,
)
from league.models import (
    AuditLog,
    Entry,
    Language,
    Profile,
    Season,
    WaitingListEntry,
)

FORMAT = "matrixhockey-season"
VERSION = 1


class SeasonImportRefused(Exception):
    """The file is readable but the database cannot take it (``season_import`` exits 1)."""


class SeasonFileInvalid(Exception):
    """The file is not a season this league can read (``season_import`` exits 2)."""


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="microseconds")


def _name(user: User | None) -> str | None:
    return None if user is None else user.get_username()


# --- Export --------------------------------------------------------------------------------------


class _Exported:
    """The season's rows, read once, with the natural key of each."""

    def __init__(self, season: Season) -> None:
        self.season = season
        self.entries = list(
            Entry.objects.filter(season=season)
            .select_related("team__coach", "division", "replaces__team")
            .order_by("pk")
        )
        self.team = {entry.pk: entry.team.slug for entry in self.entries}
        self.rounds = list(Round.objects.filter(season=season).order_by("pk"))
        self.round = {round.pk: [round.competition, round.number] for round in self.rounds}
        self.pools = list(
            Pool.objects.filter(season=season)
            .select_related("division")
            .prefetch_related("referees")
            .order_by("pk")
        )
        self.pool_rounds = list(
            PoolRound.objects.filter(pool__season=season)
            .select_related("pool", "round", "arbitrated_by", "published_by")
            .prefetch_related("qualified__team")
            .order_by("pk")
        )
        self.picks = list(
            Pick.objects.filter(round__season=season).select_related("entered_by").order_by("pk")
        )
        self.pick_index = {pick.pk: index for index, pick in enumerate(self.picks)}
        self.late_picks = list(
            LatePick.objects.filter(round__season=season)
            .select_related("decided_by")
            .order_by("pk")
        )
        self.sanctions = list(OnrSanction.objects.filter(entry__season=season).order_by("pk"))
        self.keys: dict[type[models.Model], dict[int, list[Any]]] = {
            Season: {season.pk: [season.number]},
            Entry: {pk: [slug] for pk, slug in self.team.items()},
            Round: self.round,
            Pool: {pool.pk: [pool.competition, pool.slug] for pool in self.pools},
            PoolRound: {
                pr.pk: [pr.pool.competition, pr.pool.slug, pr.round.number]
                for pr in self.pool_rounds
            },
            Pick: {pk: [index] for pk, index in self.pick_index.items()},
            LatePick: {late.pk: [index] for index, late in enumerate(self.late_picks)},
            # R14, R20: a team may have two sanctions in one week (its team and round name one).
            OnrSanction: {
                s.pk: [self.team[s.entry_id], *self.round[s.round_id]] for s in self.sanctions
            },
            Matrix: {m.pk: [m.competition] for m in Matrix.objects.filter(season=season)},
        }

    def audit_rows(self) -> list[AuditLog]:
        about = Q(pk__in=[])
        for model, keys in self.keys.items():
            about |= Q(
                content_type=ContentType.objects.get_for_model(model),
                object_id__in=[str(pk) for pk in keys],
            )
        return list(AuditLog.objects.filter(about).select_related("actor", "content_type"))


def _audit_object(rows: _Exported, row: AuditLog) -> dict[str, Any]:
    """The object an audit row names: a model of this export (:meth:`_Exported.audit_rows`
    reads no other), by its model and natural key (``rows.keys``)."""
    content_type = row.content_type
    assert content_type is not None  # audit_rows() asks for one of the export's types
    model = content_type.model_class()
    assert model is not None  # an installed model: one of the export's
    return {
        "model": f"{content_type.app_label}.{content_type.model}",
        "key": rows.keys[model][int(row.object_id)],
    }


def _people(users: set[int]) -> list[dict[str, Any]]:
    languages = dict(Profile.objects.filter(user_id__in=users).values_list("user_id", "language"))
    return [
        {
            "username": user.get_username(),
            "email": user.email,
            "language": languages.get(user.pk, Language.FRENCH.value),
        }
        for user in User.objects.filter(pk__in=users).order_by("username")
    ]


def _pool_round_data(rows: _Exported, pool_round: PoolRound) -> dict[str, Any]:
    fixtures = Fixture.objects.filter(pool_round=pool_round).select_related("result")
    results = TeamResult.objects.filter(pool_round=pool_round)
    return {
        "competition": pool_round.pool.competition,
        "pool": pool_round.pool.slug,
        "round": pool_round.round.number,
        "status": pool_round.status,
        "seed": pool_round.seed,
        "seed_hash": pool_round.seed_hash,
        "draw_log": pool_round.draw_log,
        "arbitrated_at": _when(pool_round.arbitrated_at),
        "arbitrated_by": _name(pool_round.arbitrated_by),
        "published_at": _when(pool_round.published_at),
        "published_by": _name(pool_round.published_by),
        "voided_at": _when(pool_round.voided_at),
        "void_reason": pool_round.void_reason,
        "qualified": sorted(entry.team.slug for entry in pool_round.qualified.all()),
        "fixtures": [
            {
                "home": rows.team[fixture.home_id],
                "away": rows.team[fixture.away_id],
                "label": fixture.label,
                "result": _fixture_result(rows, fixture),
            }
            for fixture in fixtures.order_by("pk")
        ],
        "team_results": [
            {
                "team": rows.team[result.entry_id],
                "column": result.column,
                "extra_time": result.extra_time,
                "shootout": result.shootout,
                "extra_goals_used": result.extra_goals_used,
                "great_saves_used": result.great_saves_used,
                "onr": result.onr,
                "redrawn": result.redrawn,
                "bonus_goal": result.bonus_goal,
                "goals": result.goals,
                "display": result.display,
                "pick": None if result.pick_id is None else rows.pick_index[result.pick_id],
            }
            for result in results.order_by("pk")
        ],
    }


def _fixture_result(rows: _Exported, fixture: Fixture) -> dict[str, Any] | None:
    result = getattr(fixture, "result", None)
    if result is None:
        return None
    return {
        "home_goals": result.home_goals,
        "away_goals": result.away_goals,
        "decided": result.decided,
        "winner": None if result.winner_id is None else rows.team[result.winner_id],
        "created_at": _when(result.created_at),
    }


def season_export(*, season: Season) -> dict[str, Any]:
    """``season`` as the transfer document (see the module's docstring). Reads only."""
    rows = _Exported(season)
    teams = [entry.team for entry in rows.entries]
    waiting = WaitingListEntry.objects.filter(team__in=teams).select_related("user", "team")
    movements = (
        StockMovement.objects.filter(entry__season=season)
        .select_related("created_by")
        .order_by("pk")
    )
    audit = rows.audit_rows()
    named: set[int | None] = {team.coach_id for team in teams} | {w.user_id for w in waiting}
    named |= {u.pk for pool in rows.pools for u in pool.referees.all()}
    named |= {pr.arbitrated_by_id for pr in rows.pool_rounds}
    named |= {pr.published_by_id for pr in rows.pool_rounds}
    named |= {pick.entered_by_id for pick in rows.picks}
    named |= {late.decided_by_id for late in rows.late_picks}
    named |= {movement.created_by_id for movement in movements}
    named |= {row.actor_id for row in audit}
    users = {pk for pk in named if pk is not None}
    divisions = {entry.division for entry in rows.entries} | {
        pool.division for pool in rows.pools if pool.division
    }
    return {
        "format": FORMAT,
        "version": VERSION,
        "season": {
            "number": season.number,
            "name": season.name,
            "time_zone": season.time_zone,
            "deadline_weekday": season.deadline_weekday,
            "deadline_time": season.deadline_time.isoformat(),
            "starts_on": season.starts_on.isoformat(),
            "status": season.status,
            "current": season.is_current,
            "rules_version": season.rules_version,
        },
        "divisions": [
            {"slug": d.slug, "name": d.name, "tier": d.tier, "group": d.group}
            for d in sorted(divisions, key=lambda d: d.slug)
        ],
        "people": _people(users),
        "teams": [
            {
                "slug": team.slug,
                "name": team.name,
                "coach": _name(team.coach),
                "dummy": team.is_dummy,
                "created_at": _when(team.created_at),
            }
            for team in sorted(teams, key=lambda team: team.slug)
        ],
        "waiting_list": [
            {
                "name": w.name,
                "email": w.email,
                "user": _name(w.user),
                "registered_at": _when(w.registered_at),
                "status": w.status,
                "team": w.team.slug if w.team else None,
            }
            for w in waiting.order_by("registered_at", "pk")
        ],
        "entries": [
            {
                "team": entry.team.slug,
                "division": entry.division.slug,
                "code": entry.code,
                "extra_goals": entry.extra_goals,
                "great_saves": entry.great_saves,
                "onr_count": entry.onr_count,
                "promotion_barred": entry.promotion_barred,
                "replaces": entry.replaces.team.slug if entry.replaces else None,
                "replaced_at": _when(entry.replaced_at),
            }
            for entry in rows.entries
        ],
        "matrices": [
            {
                "competition": matrix.competition,
                "cells": [
                    [cell.round_number, cell.column, cell.value]
                    for cell in matrix.cells.order_by("round_number", "column")
                ],
            }
            for matrix in Matrix.objects.filter(season=season).order_by("competition")
        ],
        "rounds": [
            {
                "competition": round.competition,
                "number": round.number,
                "week": round.week,
                "stage": round.stage,
                "deadline": _when(round.deadline),
                "status": round.status,
                "calendar_sequence": round.calendar_sequence,
                "calendar_changed_at": _when(round.calendar_changed_at),
                "deadline_moved_from": _when(round.deadline_moved_from),
                "deadline_moved_at": _when(round.deadline_moved_at),
            }
            for round in rows.rounds
        ],
        "pools": [
            {
                "competition": pool.competition,
                "slug": pool.slug,
                "division": pool.division.slug if pool.division else None,
                "referees": sorted(user.get_username() for user in pool.referees.all()),
                "members": [
                    {"team": rows.team[member.entry_id], "group": member.group}
                    for member in pool.members.order_by("pk")
                ],
            }
            for pool in rows.pools
        ],
        "pool_rounds": [_pool_round_data(rows, pool_round) for pool_round in rows.pool_rounds],
        "picks": [
            {
                "team": rows.team[pick.entry_id],
                "round": rows.round[pick.round_id],
                "notation": pick.notation,
                "normalized": pick.normalized,
                "channel": pick.channel,
                "received_at": _when(pick.received_at),
                "entered_by": _name(pick.entered_by),
                "receipt": pick.receipt,
            }
            for pick in rows.picks
        ],
        "late_picks": [
            {
                "team": rows.team[late.entry_id],
                "round": rows.round[late.round_id],
                "notation": late.notation,
                "received_at": _when(late.received_at),
                "message_id": late.message_id,
                "status": late.status,
                "decided_by": _name(late.decided_by),
                "decided_at": _when(late.decided_at),
                "pick": None if late.pick_id is None else rows.pick_index[late.pick_id],
            }
            for late in rows.late_picks
        ],
        "stock_movements": [
            {
                "team": rows.team[movement.entry_id],
                "kind": movement.kind,
                "delta": movement.delta,
                "balance_after": movement.balance_after,
                "reason": movement.reason,
                "round": None if movement.round_id is None else rows.round[movement.round_id],
                "note": movement.note,
                "created_at": _when(movement.created_at),
                "created_by": _name(movement.created_by),
            }
            for movement in movements
        ],
        "onr_sanctions": [
            {
                "team": rows.team[sanction.entry_id],
                "week": sanction.week,
                "round": rows.round[sanction.round_id],
                "onr_count": sanction.onr_count,
                "week_onr": sanction.week_onr,
                "extra_goals_removed": sanction.extra_goals_removed,
                "great_saves_removed": sanction.great_saves_removed,
                "barred_from_promotion": sanction.barred_from_promotion,
                "replacement": sanction.replacement,
                "created_at": _when(sanction.created_at),
            }
            for sanction in rows.sanctions
        ],
        "audit_log": [
            {
                "at": _when(row.at),
                "actor": _name(row.actor),
                "action": row.action,
                "object": _audit_object(rows, row),
                "object_repr": row.object_repr,
                "payload": row.payload,
            }
            for row in sorted(audit, key=lambda row: row.pk)
        ],
    }


def season_export_json(*, season: Season) -> str:
    """:func:`season_export` as text: sorted keys, ASCII only (any terminal can hold it), one
    newline at the end — the same bytes every time for the same season."""
    return (
        json.dumps(season_export(season=season), sort_keys=True, indent=1, ensure_ascii=True) + "\n"
    )
