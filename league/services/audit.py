"""The audit log: who did what to which object, from where, and each changed field's value
before and after.

An edit is recorded by :func:`audit_change` from two :func:`snapshot` of the row (before it is
saved, after); a business action by :func:`audit_record` with its own payload. Both add where
the change came from (``via``: the admin, the season desk or a management command, set by
:func:`audit_via` around the request or command), the kind of thing changed and the season it
belongs to, so the league's history can be read by season and kind.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar, cast

from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from league.kinds import AuditKind
from league.models import AuditLog, Season

VIA_ADMIN = "admin"
VIA_DESK = "desk"
VIA_COMMAND = "command"

_via: ContextVar[dict[str, str] | None] = ContextVar("audit_via", default=None)

SECRET_FIELDS = frozenset({"seed", "password", "key", "token", "secret"})
"""Fields whose value never goes to the record (a season's or a round's secret seed, R23; a
password hash, a key): the record keeps a mark that changes with the value, never the value."""

# The kind of an entry by the model it is about; an action that names its own kind (a
# replacement, a withdrawal) wins. Labels, not imports: the registry knows no other app.
_MODEL_KINDS = {
    "league.season": AuditKind.SEASON,
    "league.division": AuditKind.SEASON,
    "league.team": AuditKind.TEAM,
    "league.entry": AuditKind.ENTRY,
    "league.waitinglistentry": AuditKind.WAITING_LIST,
    "league.profile": AuditKind.ACCOUNT,
    "auth.user": AuditKind.ACCOUNT,
    "auth.group": AuditKind.ACCOUNT,
    "league.news": AuditKind.NEWS,
    "league.ruling": AuditKind.NEWS,
    "competitions.round": AuditKind.ROUND,
    "competitions.matrix": AuditKind.MATRIX,
    "competitions.matrixcell": AuditKind.MATRIX,
    "competitions.pool": AuditKind.POOL,
    "competitions.poolmember": AuditKind.POOL,
    "competitions.fixture": AuditKind.POOL,
    "competitions.poolround": AuditKind.RESULT,
    "competitions.pick": AuditKind.PICK,
    "competitions.latepick": AuditKind.PICK,
    "competitions.stockmovement": AuditKind.STOCK,
    "competitions.onrsanction": AuditKind.REPLACEMENT,
    "competitions.withdrawal": AuditKind.WITHDRAWAL,
    "competitions.calendarfeed": AuditKind.ACCOUNT,
}
_ACTION_KINDS = {
    "entry_replace": AuditKind.REPLACEMENT,
    "onr_replacement_confirm": AuditKind.REPLACEMENT,
    "onr_replacement_proposed": AuditKind.REPLACEMENT,
    "entry_withdraw": AuditKind.WITHDRAWAL,
    "stock_move": AuditKind.STOCK,
}
# The relations followed to find the season a row belongs to.
_SEASON_PATHS = ("season", "round", "pool_round", "pool", "entry", "fixture", "matrix")


@contextmanager
def audit_via(via: str, name: str = "") -> Iterator[None]:
    """Every entry recorded inside says it came ``via`` the admin, the desk or a command
    (``name``: which one)."""
    token = _via.set({"via": via, **({"command": name} if name else {})})
    try:
        yield
    finally:
        _via.reset(token)


def _readable(value: object) -> object:
    """``value`` as the JSON the record keeps (dates as ISO text, as the payload stores them)."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _secret_mark(value: object) -> str:
    return "••• " + hashlib.sha256(str(value).encode()).hexdigest()[:6]


def _related(obj: models.Model | None) -> dict[str, object] | None:
    return None if obj is None else {"row_id": obj.pk, "str": str(obj)}


def snapshot(obj: models.Model, fields: Iterable[str] | None = None) -> dict[str, object]:
    """``obj``'s fields (``fields`` only, when given) as the record shows them: a foreign key as
    its row's id (``row_id``: an export carries no key named ``id``) and text, a many-to-many as
    the list of those, a secret as a mark."""
    wanted = None if fields is None else set(fields)
    values: dict[str, object] = {}
    for field in [*obj._meta.concrete_fields, *obj._meta.many_to_many]:
        if field.primary_key or (wanted is not None and field.name not in wanted):
            continue
        if field.many_to_many:
            rows = getattr(obj, field.name).all() if obj.pk is not None else []
            values[field.name] = sorted(
                (_related(row) for row in rows), key=lambda r: str(r and r["str"])
            )
        elif field.is_relation:
            related_id = getattr(obj, field.attname)
            values[field.name] = None if related_id is None else _related(getattr(obj, field.name))
        elif field.name in SECRET_FIELDS:
            secret = field.value_from_object(obj)
            values[field.name] = _secret_mark(secret) if secret else ""
        else:
            values[field.name] = _readable(field.value_from_object(obj))
    return values


def changes(
    before: dict[str, object] | None, after: dict[str, object] | None
) -> list[dict[str, object]]:
    """The fields whose value differs between two snapshots (a row added: every field it has;
    removed: every field it had), each as ``{"field", "before", "after"}``."""
    old, new = before or {}, after or {}
    found = []
    for name in [*old, *(n for n in new if n not in old)]:
        was, now = old.get(name), new.get(name)
        if was == now or (before is None and now in (None, "", [])):
            continue
        if after is None and was in (None, "", []):
            continue
        found.append({"field": name, "before": was, "after": now})
    return found


def season_number_of(obj: models.Model, depth: int = 3) -> int | None:
    """The number of the season ``obj`` belongs to (a round's, an entry's…), or ``None``."""
    if isinstance(obj, Season):
        return obj.number
    if depth == 0:
        return None
    names = {field.name for field in obj._meta.concrete_fields if field.is_relation}
    for name in _SEASON_PATHS:
        if name in names:
            related = getattr(obj, name)
            if related is not None:
                return season_number_of(related, depth - 1)
    return None


def audit_record(
    *,
    actor: User | None,
    action: str,
    obj: models.Model,
    payload: dict[str, object],
    kind: str = "",
    season_number: int | None = None,
) -> AuditLog:
    """Log ``action`` on ``obj`` by ``actor``, in the caller's transaction. The kind and the
    season follow from ``obj`` and ``action`` unless given; league-wide rows (a team, an
    account) belong to the current season."""
    if season_number is None:
        season_number = season_number_of(obj)
    if season_number is None:
        season_number = (
            Season.objects.filter(is_current=True).values_list("number", flat=True).first()
        )
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        content_type=ContentType.objects.get_for_model(obj),
        object_id=str(obj.pk),
        object_repr=str(obj)[:200],
        payload={**(_via.get() or {}), **payload},
        kind=kind
        or _ACTION_KINDS.get(action)
        or _MODEL_KINDS.get(obj._meta.label_lower, AuditKind.OTHER),
        season_number=season_number,
    )


def audit_change(
    *,
    actor: User | None,
    obj: models.Model,
    before: dict[str, object] | None,
    after: dict[str, object] | None,
    action: str = "",
    kind: str = "",
    rows: list[dict[str, object]] | None = None,
    **payload: Any,
) -> AuditLog | None:
    """Record an edit of ``obj`` from its :func:`snapshot` ``before`` (``None``: added) and
    ``after`` (``None``: deleted): the changed fields only, and ``rows``, the changes to rows
    edited with it (a matrix's cells, a pool's members). An edit that changed nothing is not
    recorded. ``action`` defaults to ``<model>_add``, ``_change`` or ``_delete``."""
    found = changes(before, after) + (rows or [])
    if before is not None and after is not None and not found:
        return None
    verb = "add" if before is None else "delete" if after is None else "change"
    return audit_record(
        actor=actor,
        action=action or f"{obj._meta.model_name}_{verb}",
        obj=obj,
        payload={"changes": found, **payload},
        kind=kind,
    )


H = TypeVar("H", bound=Callable[..., Any])


def via_command(handle: H) -> H:
    """A management command's ``handle``, whose audit entries say ``via: command`` and name it."""

    @wraps(handle)
    def wrapped(command: Any, *args: Any, **options: Any) -> Any:
        with audit_via(VIA_COMMAND, command.__module__.rsplit(".", 1)[-1]):
            return handle(command, *args, **options)

    return cast(H, wrapped)
