"""Loading the whole league's document (:mod:`competitions.services.league_transfer`, where the
format is described) into an empty database: :func:`league_import`.

Read in full first, every problem of the file gathered (as ``league_import`` does): an unknown
model or field, a value of the wrong type or out of its choices, a missing value, an id used
twice, a reference to a row the file does not hold, a content type or permission this server
does not know. Any problem, and nothing is written (:class:`SeasonFileInvalid`). A database that
already holds any of the league's rows is refused (:class:`SeasonImportRefused`): a league moves
into an empty one, after ``migrate``.

Then one transaction of INSERTs only (the append-only histories and the published results'
guard refuse UPDATE and DELETE), each row under its id; the foreign keys, deferred, are checked
at the commit. The id sequences are set after the rows, the league's memory (issue 25) is built
from them when the file did not carry it, and the cache of public reads moves on.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import DatabaseError, models, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from competitions.services.league_transfer import (
    FORMAT,
    VERSION,
    league_models,
    link_table,
    natural,
)
from competitions.services.memory import memory_missing, memory_rebuild
from competitions.services.season_transfer import SeasonFileInvalid, SeasonImportRefused
from league.public_cache import public_version_bump
from matrixhockey.db import id_sequences_reset


def _messages(error: ValidationError) -> str:
    return " ".join(str(message) for message in error.messages)


class _Reader:
    """The file's rows made into unsaved instances, with every problem found on the way."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.models = {model._meta.label_lower: model for model in league_models()}
        self.content_types = {
            (app, model): pk
            for pk, app, model in ContentType.objects.values_list("pk", "app_label", "model")
        }
        self.permissions = {
            (codename, app, model): pk
            for pk, codename, app, model in Permission.objects.values_list(
                "pk", "codename", "content_type__app_label", "content_type__model"
            )
        }
        self.instances: dict[type[models.Model], list[models.Model]] = {}
        self.links: dict[models.ManyToManyField, list[tuple[Any, Any]]] = defaultdict(list)
        self.pks: dict[type[models.Model], set[Any]] = defaultdict(set)
        self.references: list[tuple[str, type[models.Model], Any]] = []
        """(where, the model pointed at, the id) for every foreign key and link of the file."""

    def problem(self, where: str, what: str) -> None:
        self.problems.append(f"{where}: {what}")

    def named(self, where: str, target: type[models.Model], value: Any) -> Any:
        """The id of a content type or permission the file names by natural key."""
        known = self.content_types if target is ContentType else self.permissions
        if isinstance(value, list) and all(isinstance(part, str) for part in value):
            pk = known.get(tuple(value))
            if pk is not None:
                return pk
        self.problem(
            where,
            _("%(value)s is not a %(model)s this server knows.")
            % {"value": value, "model": target._meta.label_lower},
        )
        return None

    def read(self, data: Any) -> None:
        if not isinstance(data.get("models"), list):
            self.problem("models", _("a list of models is missing."))
            return
        for place, block in enumerate(data["models"]):
            where = f"models[{place}]"
            if not isinstance(block, dict) or not isinstance(block.get("rows"), list):
                self.problem(where, _("a model and its list of rows are missing."))
                continue
            model = self.models.get(str(block.get("model")))
            if model is None:
                self.problem(
                    where,
                    _("%(model)r is not a model this league carries.")
                    % {"model": block.get("model")},
                )
                continue
            if model in self.instances:
                self.problem(where, _("%(model)s appears twice.") % {"model": block["model"]})
                continue
            self.instances[model] = [
                instance
                for index, row in enumerate(block["rows"])
                if (instance := self.row(model, f"{block['model']} row {index}", row)) is not None
            ]

    def row(self, model: type[models.Model], where: str, row: Any) -> models.Model | None:
        meta = model._meta
        if not isinstance(row, dict) or "pk" not in row or not isinstance(row.get("fields"), dict):
            self.problem(where, _("a row is an object with its “pk” and its “fields”."))
            return None
        values: dict[str, Any] = {}
        try:
            pk = meta.pk.to_python(row["pk"])
        except ValidationError as error:
            self.problem(where, f"pk: {_messages(error)}")
            return None
        if pk is None or pk in self.pks[model]:
            self.problem(where, _("its pk %(pk)r is missing or used twice.") % {"pk": row["pk"]})
            return None
        self.pks[model].add(pk)
        where = f"{meta.label_lower} {row['pk']}"
        fields = row["fields"]
        known = {field.name for field in meta.concrete_fields} | {
            field.name for field in meta.local_many_to_many
        }
        for name in sorted(set(fields) - known):
            self.problem(where, _("this league has no field %(field)r here.") % {"field": name})
        for field in meta.concrete_fields:
            if field.primary_key:
                values[field.attname] = pk
            elif field.name not in fields:
                if field.has_default() or field.null:
                    values[field.attname] = field.get_default()
                else:
                    self.problem(
                        where, _("the field %(field)r is missing.") % {"field": field.name}
                    )
            else:
                values[field.attname] = self.value(
                    f"{where} {field.name}", field, fields[field.name]
                )
        for field in meta.local_many_to_many:
            self.link(f"{where} {field.name}", field, pk, fields.get(field.name, []))
        return model(**values)

    def value(self, where: str, field: models.Field, raw: Any) -> Any:
        if field.is_relation:
            target = field.related_model
            assert isinstance(target, type)
            if raw is None:
                if not field.null:
                    self.problem(where, _("a value is needed."))
                return None
            if natural(target):
                return self.named(where, target, raw)
            try:
                value = target._meta.pk.to_python(raw)
            except ValidationError as error:
                self.problem(where, _messages(error))
                return None
            self.references.append((where, target, value))
            return value
        try:
            if isinstance(raw, list | dict) and field.get_internal_type() != "JSONField":
                raise ValidationError(_("a single value is needed, not a list or an object."))
            value = field.to_python(raw)
            if value is None:
                if not field.null:
                    raise ValidationError(_("a value is needed."))
                return None
            # A blank the site's forms would not take is the league's as it was stored.
            if value not in field.empty_values:
                field.validate(value, None)
                field.run_validators(value)
        except ValidationError as error:
            self.problem(where, _messages(error))
            return None
        return value

    def link(self, where: str, field: models.ManyToManyField, pk: Any, raw: Any) -> None:
        target = field.related_model
        assert isinstance(target, type)
        if not isinstance(raw, list):
            self.problem(where, _("a list is needed."))
            return
        for item in raw:
            if natural(target):
                other = self.named(where, target, item)
            elif isinstance(item, int) and not isinstance(item, bool):
                other = item
                self.references.append((where, target, item))
            else:
                self.problem(where, _("%(value)r is not an id.") % {"value": item})
                continue
            if other is not None:
                self.links[field].append((pk, other))

    def check_references(self) -> None:
        for where, target, value in self.references:
            if value not in self.pks.get(target, set()):
                self.problem(
                    where,
                    _("names %(model)s %(pk)r, which the file does not hold.")
                    % {"model": target._meta.label_lower, "pk": value},
                )


def _refusals(models_: list[type[models.Model]]) -> list[str]:
    """The league's rows this database already holds: a league moves into an empty one."""
    return [
        ngettext(
            "This database already holds %(count)d row of %(model)s.",
            "This database already holds %(count)d rows of %(model)s.",
            count,
        )
        % {"count": count, "model": model._meta.label_lower}
        for model in models_
        if (count := model._base_manager.count())
    ]


def _write(reader: _Reader) -> None:
    for model, instances in reader.instances.items():
        # auto_now and auto_now_add columns are set anew by every save: the file's moments are
        # the rows', written back after them.
        stamped = [
            field
            for field in model._meta.concrete_fields
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        ]
        moments = [[getattr(row, field.attname) for field in stamped] for row in instances]
        model._base_manager.bulk_create(instances, batch_size=1000)
        for row, values in zip(instances, moments, strict=True) if stamped else ():
            model._base_manager.filter(pk=row.pk).update(
                **{field.attname: value for field, value in zip(stamped, values, strict=True)}
            )
    for field, pairs in reader.links.items():
        through, source, target = link_table(field)
        through._default_manager.bulk_create(
            (through(**{source: own, target: other}) for own, other in pairs),
            batch_size=1000,
        )
    id_sequences_reset(list(reader.instances))


def league_import(*, data: Any) -> int:
    """Load the whole league's document (already parsed) into this empty database, all or
    nothing; the number of rows written. Raises :class:`SeasonFileInvalid` with every problem
    of the file, :class:`SeasonImportRefused` when the database holds league rows already."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SeasonFileInvalid(
            _("This is not a league file (format %(format)s).") % {"format": FORMAT}
        )
    if data.get("version") != VERSION:
        raise SeasonFileInvalid(
            _(
                "This league file has format version %(version)s; this server reads version "
                "%(ours)d."
            )
            % {"version": data.get("version"), "ours": VERSION}
        )
    reader = _Reader()
    reader.read(data)
    reader.check_references()
    if reader.problems:
        raise SeasonFileInvalid("\n".join(reader.problems))
    refusals = _refusals(list(reader.models.values()))
    if refusals:
        raise SeasonImportRefused("\n".join(refusals))
    try:
        with transaction.atomic():
            _write(reader)
            if memory_missing():  # a file written before the memory existed (issue 25)
                memory_rebuild()
            public_version_bump()
    except DatabaseError as error:
        raise SeasonFileInvalid(
            _("The file's rows do not fit together: %(error)s") % {"error": error}
        ) from error
    return sum(len(instances) for instances in reader.instances.values())
