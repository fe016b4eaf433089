"""The head-to-head's form: two teams of the league, to read their meetings (issue 25)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from league.models import Team


class HeadToHeadForm(forms.Form):
    """Two different teams, by slug, chosen among ``teams`` (every team the league has known)."""

    team_a = forms.ChoiceField(label=_("A team"))
    team_b = forms.ChoiceField(label=_("Another team"))

    def __init__(self, *args: Any, teams: Iterable[Team], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "—"), *((team.slug, team.name) for team in teams)]
        for name in ("team_a", "team_b"):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)  # as declared above
            field.choices = choices

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("team_a") and cleaned.get("team_a") == cleaned.get("team_b"):
            raise ValidationError(
                _("A team does not play itself: pick two different teams."), code="same_team"
            )
        return cleaned
