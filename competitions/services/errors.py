"""Why an arbitration, a publication or a void is refused: each refusal carries a code, so a
worker's refusal can be recorded and raised again where it was asked for.
"""

from __future__ import annotations


class ArbitrationRefused(Exception):
    """An arbitration or a publication that cannot happen now (the API answers 409).

    ``code`` says which refusal it is; the message says it to a referee.
    """

    code = "refused"

    def __init__(self, message: str, **facts: str | int) -> None:
        super().__init__(message)
        self.message = message
        self.facts = facts
        """The values the message says beyond its pool round (JSON): a worker's refusal is stored
        as its code and these, and worded again in its reader's language."""


class ArbitrationTooEarly(ArbitrationRefused):
    """R13: the round's deadline has not passed yet."""

    code = "too_early"


class ArbitrationInProgress(ArbitrationRefused):
    """Another worker holds the pool round (its status is ``arbitrating``)."""

    code = "in_progress"


class ArbitrationOutOfOrder(ArbitrationRefused):
    """An earlier round of the same pool is not arbitrated yet: what a team has used, and so this
    round's input, depends on it."""

    code = "out_of_order"


class NotArbitrated(ArbitrationRefused):
    """Publishing or replaying a pool round that has no result yet."""

    code = "not_arbitrated"


class SeedCommitmentBroken(ArbitrationRefused):
    """R23: the stored seed does not hash to the published commitment; nothing is played."""

    code = "seed_commitment"


class ArbitrationQueueUnavailable(ArbitrationRefused):
    """The task queue did not take the arbitration: nothing was played, ask again later."""

    code = "queue_unavailable"


class ArbitrationAlreadyRequested(ArbitrationRefused):
    """A request while the pool round's last one is still pending (queued or taken by a live
    worker): nothing more is queued; ``pending`` is the request to follow."""

    code = "already_requested"

    def __init__(self, message: str, *, pending: object) -> None:
        super().__init__(message)
        self.pending = pending


class VoidRefused(ArbitrationRefused):
    """A void that would leave the pool's later results built on a result that no longer
    exists, or a replaced team's record without its games."""

    code = "void_refused"


REFUSALS: dict[str, type[ArbitrationRefused]] = {
    refusal.code: refusal
    for refusal in (
        ArbitrationRefused,
        ArbitrationTooEarly,
        ArbitrationInProgress,
        ArbitrationOutOfOrder,
        NotArbitrated,
        SeedCommitmentBroken,
        ArbitrationQueueUnavailable,
        ArbitrationAlreadyRequested,
        VoidRefused,
    )
}
"""Each refusal by its ``code``, to raise again a refusal a worker recorded."""
