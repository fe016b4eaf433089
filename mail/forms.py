"""The form of a person's email choices (« My account »)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from mail.models import EmailPreferences


class EmailPreferencesForm(forms.ModelForm):
    class Meta:
        model = EmailPreferences
        fields = ["weekly", "results", "news"]
        labels = {
            "weekly": _("Wednesday's information: the week's rounds and who has not picked yet"),
            "results": _("Results, when a referee publishes a round your team played"),
            "news": _("The league's news (also in Wednesday's email)"),
        }
