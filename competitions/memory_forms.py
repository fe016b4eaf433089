"""The query strings of the memory's pages and reads (issue 25): which all-time table and in
which order, checked against what :func:`competitions.selectors.memory.all_time_table` takes,
every refusal in the reader's language."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from competitions.models import MemoryScope
from competitions.selectors.memory import ALL_TIME_ORDERS


class AllTimeForm(forms.Form):
    """``?scope=`` (every season, or the Elite's, D2's, D3's) and ``?order=`` (a column);
    either left out is the overall table by points."""

    scope = forms.ChoiceField(
        choices=MemoryScope.choices,
        required=False,
        error_messages={
            "invalid_choice": _(
                "There is no all-time table “%(value)s”: ask for all, elite, d2 or d3."
            )
        },
    )
    order = forms.ChoiceField(
        choices=[(order, order) for order in ALL_TIME_ORDERS],
        required=False,
        error_messages={
            "invalid_choice": _(
                "The table cannot be sorted by “%(value)s”: sort it by points, seasons, games, "
                "wins, draws, losses, goals_for, goals_against, goal_difference, titles or name."
            )
        },
    )

    def scope_order(self) -> tuple[str, str]:
        """The table asked for, defaults filled in (call once valid)."""
        return (
            self.cleaned_data["scope"] or MemoryScope.OVERALL.value,
            self.cleaned_data["order"] or "points",
        )

    def refusal(self) -> str:
        """Why the query string was refused, in one sentence per field (once invalid)."""
        return " ".join(str(error) for errors in self.errors.values() for error in errors)
