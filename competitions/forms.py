"""The pick form: one competition's round, with only the choices the team has left; and the
pick page's forms (:class:`PickForms`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _

from competitions.models import Competition, Pick, Round
from competitions.selectors import EntryChoices
from competitions.selectors.pick_page import round_anchor
from engine import NotationError
from engine import Pick as EnginePick


class PickForm(forms.Form):
    """One round's pick: chosen on tiles (only what the team still has) or typed (``F+(2)``).

    Either/or: a typed notation wins over the tiles. The form only gathers the pick into R10's
    notation; whether the team may play it is ``competitions.services.pick_submit``'s decision.
    """

    column = forms.ChoiceField(label=_("Column"), required=False, widget=forms.RadioSelect)
    extra_time = forms.ChoiceField(label=_("Extra time"), required=False, widget=forms.RadioSelect)
    shootout = forms.ChoiceField(label=_("Shootout"), required=False, widget=forms.RadioSelect)
    extra_goals = forms.IntegerField(label=_("Extra goals (+)"), min_value=0, initial=0)
    great_saves = forms.IntegerField(label=_("Great saves (#)"), min_value=0, initial=0)
    notation = forms.CharField(
        label=_("Or type your pick"),
        required=False,
        max_length=100,
        help_text=_("For example F+(2), D++(1), F#(3), C+(1)(4) in the KDH."),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
    )

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        choices: EntryChoices,
        prefix: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, prefix=prefix, **kwargs)
        self.choices = choices
        competition = Competition(choices.competition)
        self.has_shootout = bool(competition.rules.shootout_quota)
        self.has_great_saves = competition.rules.great_saves
        for name, values in (
            ("column", choices.columns),
            ("extra_time", choices.extra_time),
            ("shootout", choices.shootout),
        ):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)  # as declared above
            field.choices = [(v, v) for v in values]
        if not self.has_great_saves:
            del self.fields["great_saves"]
        if not self.has_shootout:
            del self.fields["shootout"]
        for name, left in (
            ("extra_goals", choices.extra_goals),
            ("great_saves", choices.great_saves),
        ):
            if name in self.fields:
                field = self.fields[name]
                field.required = False
                field.widget.attrs.update(min=0, max=left, inputmode="numeric")
                field.validators.append(
                    MaxValueValidator(
                        left,
                        message=_("Your team has %(limit_value)s left."),
                    )
                )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        typed = (data.get("notation") or "").strip()
        if typed:
            data["pick"] = typed
            return data
        missing = [
            name
            for name in ("column", "extra_time", *(("shootout",) if self.has_shootout else ()))
            if not data.get(name)
        ]
        if missing:
            if self.has_shootout:
                message = _(
                    "Choose a column, an extra-time value and a shootout value, or type your pick."
                )
            else:
                message = _("Choose a column and an extra-time value, or type your pick.")
            raise forms.ValidationError(message, code="incomplete")
        # R10: COLUMN, + per extra goal, # per great save, (extra time), then (shootout) in the KDH.
        data["pick"] = (
            data["column"]
            + "+" * (data.get("extra_goals") or 0)
            + "#" * (data.get("great_saves") or 0)
            + f"({data['extra_time']})"
            + (f"({data['shootout']})" if self.has_shootout else "")
        )
        return data


def pick_initial(current: Pick | None) -> dict[str, object]:
    """The form's choices as ``current`` made them (R12: the pick that counts), so that the
    form shows the team's pick, to send again or change; nothing without one.

    >>> pick_initial(None)
    {}
    """
    if current is None:
        return {}
    try:
        pick = EnginePick.parse(current.normalized)
    except NotationError:  # stored picks were checked when sent
        return {}
    return {
        "column": pick.column,
        "extra_time": pick.extra_time,
        "shootout": pick.shootout,
        "extra_goals": pick.extra_goals,
        "great_saves": pick.great_saves,
    }


@dataclass(frozen=True)
class PickForms:
    """The pick page's forms, one a round (the factory ``team_picks_page`` calls): each filled
    with the round's current pick (blank without one), but the round a pick was just sent for
    and not stored, whose form comes back as sent — checked against what the team has left,
    with the service's ``refusal``, if any, above it."""

    data: Mapping[str, Any] | None = None
    round_id: int | None = None
    refusal: ValidationError | None = None

    def __call__(self, round: Round, choices: EntryChoices, current: Pick | None) -> PickForm:
        prefix = round_anchor(round)
        if self.data is None or round.pk != self.round_id:
            return PickForm(choices=choices, prefix=prefix, initial=pick_initial(current))
        form = PickForm(self.data, choices=choices, prefix=prefix)
        if form.is_valid() and self.refusal is not None:
            # Every wrong part of the pick at once (R10), each its own line.
            for refusal in getattr(self.refusal, "every", (self.refusal,)):
                form.add_error(None, refusal)
        return form
