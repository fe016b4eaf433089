"""The audit log: who did what to which object."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import models

from league.models import AuditLog


def audit_record(
    *,
    actor: User | None,
    action: str,
    obj: models.Model,
    payload: dict[str, object],
) -> AuditLog:
    """Log ``action`` on ``obj`` by ``actor``, in the caller's transaction."""
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        content_type=ContentType.objects.get_for_model(obj),
        object_id=str(obj.pk),
        object_repr=str(obj)[:200],
        payload=payload,
    )
