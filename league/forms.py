"""The registry's forms: a person's own settings, their API token, their password asked again,
a deputy, a forgotten password, joining the league."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from league.models import Language, Profile


class ProfileForm(forms.ModelForm):
    """« My account »: the language of the coach's emails and pages, and whether their coach's
    page is public (issue 25)."""

    language = forms.ChoiceField(
        label=_("Language of your emails and pages"),
        choices=Language.choices,
        widget=forms.RadioSelect,
    )

    career_public = forms.BooleanField(
        label=_("My coach's page is public"),
        required=False,
        help_text=_(
            "Everyone may read the teams and seasons you coached, your promotions, titles and "
            "records. Unticked, only you see the page, and your name leads nowhere."
        ),
    )

    class Meta:
        model = Profile
        fields = ["language", "career_public"]


class ApiTokenForm(forms.Form):
    """« My account »: end one's API token, or end it and get a new one."""

    REVOKE = "revoke"
    RENEW = "renew"

    action = forms.ChoiceField(choices=[(REVOKE, REVOKE), (RENEW, RENEW)])


class PasswordConfirmForm(forms.Form):
    """The password of the person signed in, asked again (``league.picks_only``). Checked by
    ``authenticate``, so that django-axes counts a wrong one as a failed sign-in."""

    password = forms.CharField(
        label=_("Password"),
        strip=False,
        max_length=4096,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args: Any, request: HttpRequest, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request
        self.user = user

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        password = cleaned.get("password")
        if password is not None:
            found = authenticate(self.request, username=self.user.get_username(), password=password)
            if found is None or found.pk != self.user.pk:
                raise forms.ValidationError(_("This is not your password."), code="wrong_password")
            self.user = found
        return cleaned


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
