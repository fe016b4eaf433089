"""The whole league to a JSON document, to move it to another server: ``season_export --all``
(the format: ``docs/LEAGUE_FORMAT.md``; loading it:
:mod:`competitions.services.league_transfer_import`).

Where a season's file (:mod:`competitions.services.season_transfer`) carries one season by
natural keys into a database that may hold others, this one carries every row the league lives
on — every season in order, the people with their password hashes, groups and roles, the teams'
coaches and deputies, the waiting list, withdrawals, news, rulings, calendar keys, API tokens,
email preferences and the mail layer's history, the plan drafts, the verification failures, the
audit log — into an empty database, each row under its own id: the pages, feeds and API answers
name rows by id (a news item, a ruling, the audit log's objects), and they read the same on the
new server.

Which rows: every model of the league's apps (:data:`LEAGUE_APPS`) but :data:`LEFT_OUT`, and the
accounts' models of :data:`PEOPLE_MODELS`. Content types and permissions are not carried: the new
server's migrations make them, under other ids; a row names one by its natural key
(``["league", "team"]``, ``["change_team", "league", "team"]``). Every other foreign key holds the
id it points to, which the file holds too.

The models are named by label, not imported: the registry knows every app (``mail`` sits above
this one and is never imported from it). A column a migration adds is carried as soon as it
exists: the fields are read from each model's ``_meta``.

Stable: models in a fixed order, rows by id, many-to-many lists sorted, times in UTC with their
microseconds; export, import into an empty database and export again gives the same bytes.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import models

from league.models import Season

FORMAT = "matrixhockey-league"
VERSION = 1

LEAGUE_APPS = ("league", "competitions", "mail")
"""The league's own apps: every model of theirs is carried, but :data:`LEFT_OUT`."""

PEOPLE_MODELS = ("auth.group", "auth.user", "authtoken.token", "admin.logentry")
"""The accounts (password hashes, never a password in clear), their groups (staff and referee
roles), their API tokens, and Django's admin log; carried before the league's models."""

LEFT_OUT = {
    "league.publicversion": "the cache's version on this server; the import moves the new "
    "server's own, so nothing cached before the import is served after it",
    **dict.fromkeys(
        (
            "competitions.meeting",
            "competitions.seasonline",
            "competitions.alltimeline",
            "competitions.leaguerecord",
            "competitions.recordbreak",
        ),
        "the league's memory, worked out from the archives and the published results: the "
        "import rebuilds it (memory_rebuild), so a file from before the memory loads the same",
    ),
}
"""Models of :data:`LEAGUE_APPS` a move does not carry, with the reason. Django's sessions, the
sign-in lockouts (axes), content types and permissions are per server too."""


def league_models() -> list[type[models.Model]]:
    """The models the document carries, in the order it carries them."""
    people = [apps.get_model(label) for label in PEOPLE_MODELS]
    league = [
        model
        for app in LEAGUE_APPS
        for model in apps.get_app_config(app).get_models()
        if model._meta.label_lower not in LEFT_OUT and not model._meta.proxy
    ]
    return people + league


def natural(model: type[models.Model]) -> bool:
    """A model the file names by natural key: the new server's migrations make its rows."""
    return model in (ContentType, Permission)


def link_table(field: models.ManyToManyField[Any, Any]) -> tuple[type[models.Model], str, str]:
    """A many-to-many field's table: its model, the column of this side's id, the other's."""
    through = getattr(field.remote_field, "through", None)
    assert isinstance(through, type) and issubclass(through, models.Model)
    return through, f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"


def value_out(value: Any) -> Any:
    """A column's value as JSON: times in UTC with their microseconds, decimals and UUIDs as
    text, the rest as it is (JSON columns hold JSON already)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat(timespec="microseconds")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, Decimal | UUID):
        return str(value)
    return value


class _Names:
    """Content types and permissions by id, as the file names them (natural keys)."""

    def __init__(self) -> None:
        self.content_types = {
            pk: [app, model]
            for pk, app, model in ContentType.objects.values_list("pk", "app_label", "model")
        }
        self.permissions = {
            pk: [codename, *self.content_types[content_type]]
            for pk, codename, content_type in Permission.objects.values_list(
                "pk", "codename", "content_type_id"
            )
        }

    def of(self, model: type[models.Model], pk: Any) -> Any:
        if pk is None:
            return None
        return self.content_types[pk] if model is ContentType else self.permissions[pk]


def _rows(model: type[models.Model], names: _Names) -> list[dict[str, Any]]:
    meta = model._meta
    columns = [field for field in meta.concrete_fields if not field.primary_key]
    rows: dict[Any, dict[str, Any]] = {}
    for values in (
        model._base_manager.order_by("pk")
        .values_list("pk", *(field.attname for field in columns))
        .iterator(chunk_size=2000)
    ):
        fields = {}
        for field, value in zip(columns, values[1:], strict=True):
            target = field.related_model if field.is_relation else None
            if isinstance(target, type) and natural(target):
                fields[field.name] = names.of(target, value)
            else:
                fields[field.name] = value_out(value)
        rows[values[0]] = {"pk": value_out(values[0]), "fields": fields}
    for field in meta.local_many_to_many:
        through, source, other_side = link_table(field)
        related = field.related_model
        assert isinstance(related, type)  # a model class, never "self" once loaded
        linked: dict[Any, list[Any]] = {pk: [] for pk in rows}
        for own, other in through._default_manager.values_list(source, other_side):
            linked[own].append(names.of(related, other) if natural(related) else other)
        for pk, row in rows.items():
            row["fields"][field.name] = sorted(linked[pk])
    return list(rows.values())


def league_export() -> dict[str, Any]:
    """The whole league as the transfer document (see the module's docstring). Reads only."""
    names = _Names()
    return {
        "format": FORMAT,
        "version": VERSION,
        "seasons": [
            {"number": number, "status": status, "current": current}
            for number, status, current in Season.objects.order_by("number").values_list(
                "number", "status", "is_current"
            )
        ],
        "models": [
            {"model": model._meta.label_lower, "rows": _rows(model, names)}
            for model in league_models()
        ],
    }


def league_export_json() -> str:
    """:func:`league_export` as text: sorted keys, ASCII only, one newline at the end — the same
    bytes every time for the same league."""
    return json.dumps(league_export(), sort_keys=True, indent=1, ensure_ascii=True) + "\n"
