"""The arbitration refusals' messages by code: a refusal is raised worded in the language of who
asks, and one a worker stored (its code and facts) is worded again when shown, in its reader's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from django.utils.translation import gettext_lazy as _

from competitions.models import PoolRound
from competitions.services.errors import ArbitrationRefused

ARBITRATION_REFUSAL_WORDING = {
    "too_early": _("The deadline of %(round)s has not passed yet: it cannot be arbitrated before."),
    "out_of_order": _("Round %(number)d of this pool is not arbitrated yet: arbitrate it first."),
    "in_progress": _("This round is already being arbitrated."),
    "seed_commitment": _("The seed of %(pool_round)s does not match its published SHA-256."),
    "queue_unavailable": _("The arbitration could not be queued (%(error)s): try again later."),
}
"""Each refusal a worker may store, by code; its placeholders are the refusal's facts, the pool
round (``pool_round``) and its round (``round``)."""
R = TypeVar("R", bound=ArbitrationRefused)
UNWORDED = _("The arbitration was refused (%(code)s).")


def arbitration_refusal_worded(
    *, code: str, facts: Mapping[str, object], pool_round: PoolRound
) -> str:
    """The refusal ``code`` with ``facts`` about ``pool_round``, in the active language."""
    values = {"round": pool_round.round, "pool_round": pool_round, "code": code, **facts}
    try:
        return str(ARBITRATION_REFUSAL_WORDING[code]) % values
    except (KeyError, TypeError, ValueError):  # a code or facts this version does not word
        return str(UNWORDED) % {"code": code}


def arbitration_refusal(refusal: type[R], *, pool_round: PoolRound, **facts: str | int) -> R:
    """A ``refusal`` about ``pool_round``, worded from the table with ``facts``."""
    worded = arbitration_refusal_worded(code=refusal.code, facts=facts, pool_round=pool_round)
    return refusal(worded, **facts)
