"""Fill an admin page's form the way a browser would: from the page's own fields."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpResponse


def _put(data: dict[str, Any], form: forms.BaseForm) -> None:
    for name, field in form.fields.items():
        key = form.add_prefix(name)
        value = form[name].value()
        widget = field.widget
        if isinstance(widget, forms.MultiWidget):
            parts = widget.decompress(value)
            for i, part in enumerate(parts):
                data[f"{key}_{i}"] = "" if part is None else str(part)
        elif isinstance(field, forms.BooleanField):
            if value:
                data[key] = "on"
        elif isinstance(value, list | tuple):
            data[key] = [str(v) for v in value]
        else:
            data[key] = "" if value is None else str(value)


def form_data(response: HttpResponse, **changes: Any) -> dict[str, Any]:
    """The POST data of an admin add or change page as it stands, with ``changes`` applied.

    Inline fields are named as in the page: ``cells-0-value``.
    """
    data: dict[str, Any] = {}
    _put(data, response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        _put(data, formset.management_form)
        for form in formset.forms:
            _put(data, form)
    data.update({k: str(v) for k, v in changes.items()})
    return data


def errors(response: HttpResponse) -> list[str]:
    """Every error message of the page's form and inlines, for assertions."""
    found: list[str] = []
    form = response.context["adminform"].form
    for messages in form.errors.values():
        found.extend(messages)
    for inline in response.context.get("inline_admin_formsets", []):
        found.extend(inline.formset.non_form_errors())
        for form_errors in inline.formset.errors:
            for messages in form_errors.values():
                found.extend(messages)
    return found
