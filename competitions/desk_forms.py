"""The season desk's forms (``/desk/season/``): what each button sends, checked and turned into
the values its service takes, every refusal in the reader's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from league.models import Entry, Season

IMPORT_MAX_BYTES = 1_000_000
"""A league's CSV is a few kilobytes: anything larger is not one."""
WG_TEAMS = 12


class LeagueImportForm(forms.Form):
    """The first season's CSV file."""

    file = forms.FileField(
        label=_("League file (CSV)"),
        error_messages={"required": _("Choose the league's CSV file first.")},
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > IMPORT_MAX_BYTES:
            raise forms.ValidationError(
                _("This file is too large for a league of 84 teams."), code="too_large"
            )
        return upload


class CalendarForm(forms.Form):
    """R20: the first week's Monday and the calendar weeks to skip. Left out, each is the
    season's own (what was set last), so a preview shows the saved calendar."""

    starts_on = forms.DateField(label=_("First week's Monday"), required=False)
    skip = forms.CharField(label=_("Weeks to skip (e.g. 4,5)"), required=False, max_length=200)

    def clean_skip(self) -> list[int] | None:
        text = self.cleaned_data["skip"].replace(" ", "")
        if "skip" not in self.data:
            return None
        parts = [part for part in text.split(",") if part]
        if not all(part.isdigit() for part in parts):
            raise forms.ValidationError(
                _("Weeks to skip are week numbers separated by commas, e.g. 4,5."), code="weeks"
            )
        return sorted({int(part) for part in parts})

    def calendar(self, season: Season) -> tuple[Any, list[int]]:
        """The Monday and the weeks the form says, the season's where it says nothing."""
        starts_on = self.cleaned_data.get("starts_on") or season.starts_on
        skipped = self.cleaned_data.get("skip")
        return starts_on, list(season.skipped_weeks if skipped is None else skipped)


class ConfirmForm(forms.Form):
    """A step that cannot be undone (close, start, withdraw) happens only with its box ticked:
    the box says what the step does, and the server checks it, so nothing happens on a stray
    click, with or without JavaScript."""

    confirm = forms.BooleanField(
        required=True,
        error_messages={
            "required": _(
                "Nothing was done: tick the box that says what this does and that it cannot "
                "be undone, then press the button again."
            )
        },
    )


class RefereesForm(forms.Form):
    """Each pool's referees, user names comma-separated (``referees-<pool slug>``); a pool left
    out keeps its referees."""

    def __init__(self, *args: Any, slugs: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slugs = list(slugs)
        for slug in self.slugs:
            self.fields[f"referees-{slug}"] = forms.CharField(required=False, max_length=1000)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        names = {
            slug: [name.strip() for name in cleaned.get(f"referees-{slug}", "").split(",")]
            for slug in self.slugs
            if f"referees-{slug}" in self.data
        }
        wanted = {name for given in names.values() for name in given if name}
        found = {
            user.get_username(): user
            for user in get_user_model().objects.filter(username__in=wanted)
        }
        unknown = sorted(wanted - set(found))
        if unknown:
            raise forms.ValidationError(
                _("Unknown users, nothing changed: %(names)s"),
                code="unknown_users",
                params={"names": " · ".join(unknown)},
            )
        self.referees: dict[str, list[User]] = {
            slug: [found[name] for name in given if name] for slug, given in names.items()
        }
        return cleaned


class WgTwelveForm(forms.Form):
    """R18: the first season's WG twelve, picked by the admin among the season's teams."""

    wg = forms.ModelMultipleChoiceField(
        queryset=Entry.objects.none(),
        error_messages={
            "required": _("Choose the WG's twelve teams (R18)."),
            "invalid_choice": _("Choose the WG's twelve teams (R18)."),
            "invalid_pk_value": _("Choose the WG's twelve teams (R18)."),
        },
    )

    def __init__(self, *args: Any, season: Season, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        entries: QuerySet[Entry] = Entry.objects.current(season=season)
        field = self.fields["wg"]
        assert isinstance(field, forms.ModelMultipleChoiceField)  # as declared above
        field.queryset = entries

    def clean_wg(self) -> list[Entry]:
        entries = list(self.cleaned_data["wg"])
        if len(entries) != WG_TEAMS:
            raise forms.ValidationError(_("Choose the WG's twelve teams (R18)."), code="count")
        return entries


class PlanSwapForm(forms.Form):
    """R22: two teams of the next season's plan that exchange their groups, or ``reset`` for
    the default groups."""

    first = forms.CharField(required=False, max_length=100)
    second = forms.CharField(required=False, max_length=100)
    reset = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first, second = cleaned.get("first", ""), cleaned.get("second", "")
        if not cleaned.get("reset") and (not first or not second or first == second):
            raise forms.ValidationError(_("Choose two different teams to swap."), code="same_team")
        return cleaned


class WithdrawForm(ConfirmForm):
    """R24: a team of the finished season that will not play the next."""

    entry = forms.ModelChoiceField(
        queryset=Entry.objects.none(),
        error_messages={
            "required": _("Choose the team that withdraws."),
            "invalid_choice": _("Choose the team that withdraws."),
        },
    )

    def __init__(self, *args: Any, season: Season | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        entries: QuerySet[Entry] = (
            Entry.objects.current(season=season).select_related("team")
            if season is not None
            else Entry.objects.none()
        )
        field = self.fields["entry"]
        assert isinstance(field, forms.ModelChoiceField)  # as declared above
        field.queryset = entries
