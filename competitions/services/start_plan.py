"""The next season's plan as a season start reads it: the JSON of ``manage.py season_plan --json``
(``shared/SEASON.md``), perhaps edited by an admin, read back by the engine
(:meth:`~engine.season_plan.SeasonPlan.from_dict`, which refuses a document that is not a plan
of the league with every problem coded) before anything is stored; its problems are worded here
from :mod:`competitions.services.errors`' table. The checks that need the database (who played
the season before, the waiting list) are :mod:`competitions.services.season_entries`'.

A team that joins (``"move": "joined"``) is found by, in this order: ``waiting_list_entry`` (the
id of a waiting-list entry), an existing team with that slug, the waiting-list entry still
waiting whose name gives that slug, or, with ``"dummy": true``, a new dummy team (R24: places
short in a D3 group when the waiting list runs out).
"""

from __future__ import annotations

from collections.abc import Sequence

from competitions.services.errors import worded
from engine.season_plan import PlanError, SeasonPlan
from league.services.seasons import STANDARD_DIVISIONS

TIERS = {slug: tier for slug, _name, tier, _group in STANDARD_DIVISIONS}
"""The league's divisions and their tiers (1 Elite … 3 D3), top first."""


class SeasonStartRefused(Exception):
    """A season start that cannot happen: ``code`` says which refusal, ``problems`` lists every
    reason (each a sentence for the admin). Nothing was stored.

    Codes: ``season_running``, ``plan_invalid``, ``no_season``, ``season_exists``,
    ``not_preparing``, ``not_ready``, ``deadline_passed``, ``already_drawn``, ``invalid``,
    ``in_progress`` (another start is queued or running).
    """

    def __init__(self, code: str, problems: Sequence[str]) -> None:
        self.code = code
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))

    @property
    def message(self) -> str:
        return "\n".join(self.problems)


def plan_problems_worded(error: PlanError) -> list[str]:
    """Every problem of a plan document the engine refused, in the active language."""
    return [worded(problem.fault, problem.facts) for problem in error.problems]


def start_plan_read(plan: object) -> SeasonPlan:
    """``plan`` read back as the engine's plan of the league's 84 teams in 7 divisions of 12.
    Raises :class:`SeasonStartRefused` (``plan_invalid``) with every problem worded."""
    try:
        return SeasonPlan.from_dict(plan, divisions=tuple(TIERS.items()))
    except PlanError as error:
        raise SeasonStartRefused("plan_invalid", plan_problems_worded(error)) from error
