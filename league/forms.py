"""The registry's forms: a person's own settings."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from league.models import Language, Profile


class ProfileForm(forms.ModelForm):
    """« My account »: the language of the coach's emails and pages."""

    language = forms.ChoiceField(
        label=_("Language of your emails and pages"),
        choices=Language.choices,
        widget=forms.RadioSelect,
    )

    class Meta:
        model = Profile
        fields = ["language"]
