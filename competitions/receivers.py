"""The competitions' answers to the registry's signals (``league.signals``)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from competitions.services.season_plan import season_plan_refresh
from league.signals import plan_inputs_changed


@receiver(plan_inputs_changed, dispatch_uid="competitions.season_plan_refresh")
def season_plan_inputs_changed(**kwargs: Any) -> None:
    """The waiting list or the teams changed: the next season's plan, if one is pending, is
    stored again in the sender's transaction."""
    season_plan_refresh()
