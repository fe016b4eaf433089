"""The registry's forms: a person's own settings, a deputy, a forgotten password, joining the
league."""

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


class ApiTokenForm(forms.Form):
    """« My account »: end one's API token, or end it and get a new one."""

    REVOKE = "revoke"
    RENEW = "renew"

    action = forms.ChoiceField(choices=[(REVOKE, REVOKE), (RENEW, RENEW)])


class DeputyForm(forms.Form):
    """The coach's choice of a deputy: a username or an email address (the service finds who).
    Django's ``CharField`` refuses a NUL and text longer than any account's address."""

    who = forms.CharField(max_length=254, required=False)


class PasswordResetRequestForm(forms.Form):
    """A forgotten password: the address the link is sent to."""

    email = forms.EmailField(
        label=_("Email"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class JoinForm(forms.Form):
    """« Join the league »: a team on the waiting list."""

    contact_name = forms.CharField(
        label=_("Your name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    email = forms.EmailField(
        label=_("Your email"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_("We send a link to it: your place counts once you open it."),
    )
    team_name = forms.CharField(
        label=_("The name you wish for your team"),
        max_length=80,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    language = forms.ChoiceField(
        label=_("Language of your emails and pages"),
        choices=Language.choices,
        widget=forms.RadioSelect,
    )

    def clean_contact_name(self) -> str:
        return self._text("contact_name")

    def clean_team_name(self) -> str:
        return self._text("team_name")

    def _text(self, field: str) -> str:
        value = " ".join(self.cleaned_data[field].split())
        if not value or any(not ch.isprintable() for ch in value):
            raise forms.ValidationError(_("Write it with letters, digits and spaces."))
        return value
