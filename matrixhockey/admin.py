"""Admin pieces shared by the apps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db import models
from django.forms import ModelChoiceField
from django.http import HttpRequest


class CheckedAutocompleteSelect(AutocompleteSelect):
    """Django's autocomplete widget, showing a value that names no row (``?coach=abc`` on an
    add page, a forged POST) as no choice: Django's own looks the value up as a key and answers
    a server error."""

    def optgroups(
        self, name: str, value: Sequence[str], attr: dict[str, Any] | None = None
    ) -> list[tuple[str | None, list[dict[str, Any]], int | None]]:
        remote = self.field.remote_field
        target = remote.model._meta.get_field(remote.field_name)
        return super().optgroups(name, [v for v in value if _is_value_of(target, v)], attr)


def _is_value_of(field: models.Field[Any, Any], value: object) -> bool:
    try:
        field.clean(value, None)
    except ValidationError:
        return False
    return True


class CheckedAutocomplete(admin.options.BaseModelAdmin):
    """An admin (or inline) whose ``autocomplete_fields`` use :class:`CheckedAutocompleteSelect`;
    first among the bases."""

    def formfield_for_foreignkey(
        self, db_field: models.ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = CheckedAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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
