"""An audit entry as people read it: each change as a field's name (in the reader's language),
its value before and after; an entry written without changes, as its data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from league.models import AuditLog
from matrixhockey.french import date_format

NOTHING = "—"


@dataclass(frozen=True)
class ChangeLine:
    """One line of an entry: what (a field, or a row edited with the object) and its values."""

    label: str
    before: str
    after: str


def _field(model: type[models.Model] | None, name: str) -> models.Field | None:
    if model is None or not name:
        return None
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return field if isinstance(field, models.Field) else None


def _text(value: object, field: models.Field | None) -> str:
    if value is None or value == "":
        return NOTHING
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, dict) and "str" in value:
        return f"{value['str']} (#{value.get('row_id')})"
    if isinstance(value, list):
        return ", ".join(_text(item, None) for item in value) or NOTHING
    if field is not None and field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, str) and "T" in value:
        moment = _moment(value)
        if moment is not None:
            return date_format(timezone.localtime(moment), "DATETIME_FORMAT")
    return str(value)


def _moment(value: str) -> datetime | None:
    """A date and time the record keeps as ISO text, or ``None``."""
    try:
        moment = parse_datetime(value)
    except ValueError:
        return None
    return moment if moment is not None and timezone.is_aware(moment) else None


def _label(model: type[models.Model] | None, name: str, field: models.Field | None) -> str:
    if field is not None:
        return str(field.verbose_name)
    return name.replace("_", " ")


def entry_lines(entry: AuditLog) -> list[ChangeLine]:
    """``entry``'s changes, or its data as lines when it records an action without them."""
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    found = payload.get("changes")
    if not isinstance(found, list):
        return [
            ChangeLine(name.replace("_", " "), "", _text(value, None))
            for name, value in payload.items()
            if name not in ("via", "command")
        ]
    kind = entry.content_type
    model = kind.model_class() if kind is not None else None
    lines = []
    for change in found:
        name = str(change.get("field") or "")
        row_model = model
        prefix = ""
        if change.get("model"):
            try:
                row_model = apps.get_model(str(change["model"]))
            except LookupError:
                row_model = None
            kind = row_model._meta.verbose_name if row_model else change["model"]
            prefix = f"{kind} « {change.get('row')} »"
        field = _field(row_model, name)
        label = _label(row_model, name, field) if name else ""
        lines.append(
            ChangeLine(
                " · ".join(part for part in (prefix, label) if part),
                _text(change.get("before"), field),
                _text(change.get("after"), field),
            )
        )
    return lines


def entry_summary(entry: AuditLog, limit: int = 4) -> str:
    """``entry``'s changes on one line, for the league's history list."""
    lines = entry_lines(entry)
    text = "; ".join(
        f"{line.label}: {line.before} → {line.after}"
        if line.before
        else f"{line.label}: {line.after}"
        for line in lines[:limit]
    )
    return text + (" …" if len(lines) > limit else "")
