"""Every add, change and delete made in the admin, on the league's record (issue 22).

:class:`AuditedAdmin` is a base of each ``ModelAdmin`` that can change a row: it snapshots the
row (and the rows edited with it in its inlines) from the database before the form is saved and
again once everything is saved, and records the fields that changed
(``league.services.audit.audit_change``) in the admin's own transaction. The admin's actions
and its other pages call services, which record their own entries; around each of its views the
record says ``via: admin``. Its « History » page lists the object's audit entries.
"""

from __future__ import annotations

from typing import Any, cast
from weakref import WeakKeyDictionary

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import ForeignKey, Model, QuerySet
from django.forms import ModelForm
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from league.audit_display import entry_lines
from league.models import AuditLog
from league.services.audit import VIA_ADMIN, audit_change, audit_via, changes, snapshot
from matrixhockey.french import of_name
from matrixhockey.http import signed_in_user

Snapshot = dict[str, Any]

HISTORY_PAGE_SIZE = 50


class AuditedAdmin(admin.ModelAdmin):
    """A ModelAdmin whose adds, changes and deletes go to the audit log with before and after.

    ``audit_exclude`` names fields a service records itself (a round's deadline is moved by
    ``round_deadline_move``, which records the move).
    """

    audit_exclude: tuple[str, ...] = ()
    object_history_template = "admin/audit_object_history.html"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._audit_before: WeakKeyDictionary[HttpRequest, Snapshot] = WeakKeyDictionary()

    # Where the record says the changes came from.

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        with audit_via(VIA_ADMIN):
            return super().changeform_view(request, object_id, form_url, extra_context)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        with audit_via(VIA_ADMIN):
            return super().changelist_view(request, extra_context)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        with audit_via(VIA_ADMIN):
            return super().delete_view(request, object_id, extra_context)

    # Before and after.

    def audit_snapshot(self, request: HttpRequest, obj: Model) -> Snapshot:
        """``obj``'s fields and those of the rows its editable inlines show, as stored."""
        fields = snapshot(obj)
        for name in self.audit_exclude:
            fields.pop(name, None)
        rows: dict[str, dict[str, Any]] = {}
        for inline in self.get_inline_instances(request, obj):
            if not (
                inline.has_change_permission(request, obj)
                or inline.has_add_permission(request, obj)
                or inline.has_delete_permission(request, obj)
            ):
                continue  # a read-only list of history rows: nothing to edit there
            fk = cast("ForeignKey[Any, Any]", inline.get_formset(request, obj).fk)
            parent = fk.name
            for row in inline.model._default_manager.filter(**{parent: obj}):
                row_fields = snapshot(row)
                row_fields.pop(parent, None)
                rows[f"{row._meta.label_lower}:{row.pk}"] = {
                    "model": row._meta.label_lower,
                    "row_id": row.pk,
                    "row": str(row),
                    "fields": row_fields,
                }
        return {"fields": fields, "rows": rows}

    def _stored(self, obj: Model) -> Model:
        return self.model._default_manager.get(pk=obj.pk)

    def save_form(self, request: HttpRequest, form: ModelForm, change: bool) -> Any:
        if change:
            self._audit_before[request] = self.audit_snapshot(request, self._stored(form.instance))
        return super().save_form(request, form, change)

    def save_related(
        self, request: HttpRequest, form: ModelForm, formsets: Any, change: bool
    ) -> None:
        super().save_related(request, form, formsets, change)
        stored = self._stored(form.instance)
        before = self._audit_before.pop(request, None) if change else None
        after = self.audit_snapshot(request, stored)
        audit_change(
            actor=signed_in_user(request),
            obj=stored,
            before=None if before is None else before["fields"],
            after=after["fields"],
            rows=_row_changes({} if before is None else before["rows"], after["rows"]),
        )

    def _audit_delete(self, request: HttpRequest, obj: Model) -> None:
        # Recorded before the row goes (it is still there to name), in the same transaction.
        before = self.audit_snapshot(request, obj)
        audit_change(
            actor=signed_in_user(request),
            obj=obj,
            before=before["fields"],
            after=None,
            rows=_row_changes(before["rows"], {}),
        )

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        self._audit_delete(request, obj)
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for obj in queryset:
            self._audit_delete(request, obj)
        super().delete_queryset(request, queryset)

    # The object's history: its audit entries, newest first.

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        model = self.model
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404(_("This object does not exist (any more)."))
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        entries = AuditLog.objects.filter(
            content_type=ContentType.objects.get_for_model(model, for_concrete_model=False),
            object_id=str(obj.pk),
        ).select_related("actor", "content_type")
        page = Paginator(entries, HISTORY_PAGE_SIZE).get_page(request.GET.get("p"))
        context = {
            **self.admin_site.each_context(request),
            "title": _("History of %(of_object)s") % {"of_object": of_name(str(obj))},
            "subtitle": None,
            "module_name": str(model._meta.verbose_name_plural).capitalize(),
            "object": obj,
            "opts": model._meta,
            "preserved_filters": self.get_preserved_filters(request),
            "page": page,
            "entries": [(entry, entry_lines(entry)) for entry in page.object_list],
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.object_history_template, context)


def _row_changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, object]]:
    """The changes to the rows an admin page edits with its object: a row added or removed as
    a whole, a row changed field by field."""
    found: list[dict[str, object]] = []
    for key in [*before, *(k for k in after if k not in before)]:
        was, now = before.get(key), after.get(key)
        row = now or was
        assert row is not None
        about = {"model": row["model"], "row_id": row["row_id"], "row": row["row"]}
        if was is None or now is None:
            found.append(
                {**about, "field": "", "before": was and was["row"], "after": now and now["row"]}
            )
            continue
        found += [{**about, **change} for change in changes(was["fields"], now["fields"])]
    return found
