"""``{% email_preferences_form %}``: the person's email choices, on « My account »."""

from __future__ import annotations

from django import template

from mail.forms import EmailPreferencesForm
from mail.preferences import email_preferences_get

register = template.Library()


@register.inclusion_tag("mail/_preferences_form.html", takes_context=True)
def email_preferences_form(context: template.Context) -> dict[str, object]:
    request = context["request"]
    form = EmailPreferencesForm(instance=email_preferences_get(user=request.user))
    return {
        "form": form,
        "csrf_token": context.get("csrf_token"),
        "next": request.get_full_path(),
    }
