"""Small helpers for database constraints shared by the apps."""

from __future__ import annotations

from typing import TypeVar

from django.db import models

M = TypeVar("M", bound=models.Model)


def save_valid(instance: M, *, exclude: tuple[str, ...] = ()) -> M:
    """Validate ``instance`` (fields, ``clean()``, constraints) and save it; services write rows
    this way so that callers get a ``ValidationError`` with a message, not an IntegrityError."""
    instance.full_clean(exclude=exclude)
    instance.save()
    return instance


def choices_constraint(
    field: str, choices: type[models.Choices], name: str
) -> models.CheckConstraint:
    """A check that ``field`` holds one of ``choices``' values, so no writer can bypass them."""
    return models.CheckConstraint(condition=models.Q(**{f"{field}__in": choices.values}), name=name)


class AppendOnlyError(Exception):
    """A write that would change or delete a row of an append-only history."""


class AppendOnlyQuerySet(models.QuerySet):
    """Refuses bulk updates and deletes: history rows are only ever added."""

    def update(self, **kwargs: object) -> int:
        raise AppendOnlyError(f"{self.model._meta.label} is append-only: update refused")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"{self.model._meta.label} is append-only: delete refused")


class AppendOnlyModel(models.Model):
    """A history row: saved once, never changed or deleted (on PostgreSQL a trigger enforces it)."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise AppendOnlyError(f"{self._meta.label} is append-only: change refused")
        super().save(*args, **kwargs)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"{self._meta.label} is append-only: delete refused")
