"""Admin pieces shared by the apps."""

from __future__ import annotations

from django.contrib import admin
from django.db import models
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """History is shown, never written from the admin: no add, change or delete."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """An inline list of history rows under their parent, read-only."""

    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False


def adopt(form_instance: models.Model, saved: models.Model) -> None:
    """Make the admin's unsaved form instance stand for the row a service saved.

    The admin goes on to save inlines and log the addition with ``form_instance``.
    """
    form_instance.__dict__.update(
        {k: v for k, v in saved.__dict__.items() if k != "_state"},
    )
    form_instance._state.adding = False
    form_instance._state.db = saved._state.db
