"""Every refusal the league words for people, by its code, in one table (:data:`MESSAGES`).

A refusal carries a code and the facts its message needs, never its wording: the engine's
notation faults (:class:`~engine.NotationFault`, R10), the competitions' refusals of a pick that
parses (:class:`~engine.Refusal`, R6, R7, R19), and the refusals of an arbitration, a
publication or a void (:class:`ArbitrationRefused` and its kinds). Each is worded by
:func:`worded` when it is shown, in the reader's language; nothing decides on a message's words.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from engine import NotationFault, Refusal

if TYPE_CHECKING:
    from competitions.models import ArbitrationRequest


class ArbitrationRefused(Exception):
    """An arbitration or a publication that cannot happen now (the API answers 409).

    ``code`` says which refusal it is, ``facts`` what its message needs (JSON values: a worker
    records them, the referee's desk words them later in its reader's language);
    :attr:`message` says it in the active language.
    """

    code = "refused"

    def __init__(self, **facts: str | int) -> None:
        super().__init__(self.code, facts)
        self.facts: dict[str, str | int] = facts

    @property
    def message(self) -> str:
        return worded(type(self), self.facts)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its code's class and facts (its ``args`` are not its constructor's).
        return (functools.partial(type(self), **self.facts), ())


class ArbitrationTooEarly(ArbitrationRefused):
    """R13: the round's deadline has not passed yet (facts: the round's ``number``)."""

    code = "too_early"


class ArbitrationInProgress(ArbitrationRefused):
    """Another worker holds the pool round (its status is ``arbitrating``)."""

    code = "in_progress"


class ArbitrationOutOfOrder(ArbitrationRefused):
    """An earlier round of the same pool is not arbitrated yet: what a team has used, and so this
    round's input, depends on it (facts: that round's ``number``)."""

    code = "out_of_order"


class NotArbitrated(ArbitrationRefused):
    """Publishing, replaying or voiding a pool round that has no result yet."""

    code = "not_arbitrated"


class SeedCommitmentBroken(ArbitrationRefused):
    """R23: the stored seed does not hash to the published commitment; nothing is played."""

    code = "seed_commitment"


class ArbitrationQueueUnavailable(ArbitrationRefused):
    """The task queue did not take the arbitration: nothing was played, ask again later
    (facts: the broker's ``error``, its exception's name)."""

    code = "queue_unavailable"


class ArbitrationAlreadyRequested(ArbitrationRefused):
    """A request while the pool round's last one is still pending (queued or taken by a live
    worker): nothing more is queued; ``pending`` is the request to follow (not a fact: it is
    neither worded nor recorded)."""

    code = "already_requested"

    def __init__(self, *, pending: ArbitrationRequest | None = None, **facts: str | int) -> None:
        super().__init__(**facts)
        self.pending = pending


class VoidRefused(ArbitrationRefused):
    """A void that would leave the pool's later results built on a result that no longer
    exists (facts: the later round's ``number``)."""

    code = "void_refused"


class VoidAfterReplacement(VoidRefused):
    """R14: a void that would leave a replaced team's record without its games (facts: the
    replaced ``teams``)."""

    code = "void_replaced"


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
        VoidAfterReplacement,
    )
}
"""Each arbitration refusal by its ``code``, to raise again or word a refusal a worker
recorded."""


def arbitration_refusal_of(record: Mapping[str, Any]) -> ArbitrationRefused:
    """The refusal a worker recorded (``{"code": …, "facts": {…}}``), to raise or word again."""
    kind = REFUSALS.get(str(record.get("code", "")), ArbitrationRefused)
    return kind(**dict(record.get("facts") or {}))


Code = NotationFault | Refusal | type[ArbitrationRefused]
"""What a message is keyed on: a notation fault, a competition's refusal of a pick, or the kind
of an arbitration refusal."""

MESSAGES: dict[Code, Promise] = {
    # R10: a pick that does not read; ``part`` quotes the part at fault.
    NotationFault.EMPTY: _("Your pick is empty: write a column and a value, e.g. F+(2)."),
    NotationFault.NO_COLUMN: _("“%(part)s”: a pick starts with its column, a letter, e.g. F+(2)."),
    NotationFault.COLUMN: _("“%(part)s”: the column is a single letter, e.g. F+(2)."),
    NotationFault.EXTRA_TIME_MISSING: _(
        "“%(part)s”: the extra-time value is missing, in brackets: %(part)s(2)."
    ),
    NotationFault.UNKNOWN_CHARACTER: _(
        "“%(part)s” is not part of a pick: extra goals are +, great saves are #, "
        "values go in brackets."
    ),
    NotationFault.UNCLOSED: _("“%(part)s”: a bracket is not closed."),
    NotationFault.TOO_MANY_VALUES: _(
        "“%(part)s”: too many values in brackets; a pick has its extra-time value and, in "
        "the KDH only, its shootout value."
    ),
    NotationFault.EXTRA_TIME_VALUE: _("“%(part)s”: the extra-time value must be 0, 1, 2, 3 or X."),
    NotationFault.SHOOTOUT_VALUE: _(
        "“%(part)s”: the shootout value must be 0, 1, 2, 3, 4, 5 or X."
    ),
    NotationFault.EXTRA_GOALS: _("“%(part)s”: extra goals are counted in whole +."),
    NotationFault.GREAT_SAVES: _("“%(part)s”: great saves are counted in whole #."),
    # R6, R7, R19: a pick that reads but that its competition refuses.
    Refusal.COLUMN: _(
        "Column %(column)s is not played in the %(competition)s: its columns are "
        "%(first)s to %(last)s."
    ),
    Refusal.GREAT_SAVES: _(
        "Great saves (#) are played only in the championship, not in the %(competition)s."
    ),
    Refusal.EXTRA_TIME: _(
        "Extra-time value %(value)s is not played in the %(competition)s: its values "
        "are %(values)s."
    ),
    Refusal.SHOOTOUT_OUTSIDE_KDH: _(
        "“(%(value)s)”: a shootout value is played only in the KDH, not in the %(competition)s."
    ),
    Refusal.SHOOTOUT_MISSING: _(
        "The %(competition)s needs a shootout value after the extra-time value, e.g. C+(1)(4)."
    ),
    Refusal.SHOOTOUT_VALUE: _(
        "Shootout value %(value)s is not played in the %(competition)s: its values are %(values)s."
    ),
    # An arbitration, a publication or a void refused.
    ArbitrationRefused: _("This round cannot be arbitrated now."),
    ArbitrationTooEarly: _(
        "The deadline of round %(number)s has not passed yet: it cannot be arbitrated before."
    ),
    ArbitrationInProgress: _("This round is already being arbitrated."),
    ArbitrationOutOfOrder: _(
        "Round %(number)s of this pool is not arbitrated yet: arbitrate it first."
    ),
    NotArbitrated: _("This round has not been arbitrated yet."),
    SeedCommitmentBroken: _("The seed of this round does not match its published SHA-256."),
    ArbitrationQueueUnavailable: _(
        "The arbitration could not be queued (%(error)s): try again later."
    ),
    ArbitrationAlreadyRequested: _(
        "This round's arbitration is already asked for: it runs once, here is where it stands."
    ),
    VoidRefused: _(
        "Round %(number)s of this pool is already arbitrated, and what its teams used and "
        "had left comes from this round: void round %(number)s first."
    ),
    VoidAfterReplacement: _(
        "%(teams)s has been replaced since (R14) and its replacement holds its record: "
        "this round can no longer be voided."
    ),
}
"""Every refusal's message, by its code; placeholders name the facts it needs."""


def worded(code: Code, facts: Mapping[str, object] | None = None) -> str:
    """``code``'s message in the active language, with its ``facts``.

    A record whose facts do not fit its message (kept from before its message changed) is said
    in general words rather than not at all.
    """
    try:
        return str(MESSAGES[code]) % dict(facts or {})
    except (KeyError, TypeError, ValueError):
        if isinstance(code, type):
            return str(MESSAGES[ArbitrationRefused])
        raise
