"""Every refusal the league words for people, by its code, in one table (:data:`MESSAGES`).

A refusal carries a code and the facts its message needs, never its wording: the engine's
notation faults (:class:`~engine.NotationFault`, R10), the competitions' refusals of a pick that
parses (:class:`~engine.Refusal`, R6, R7, R19), the problems of a season plan's document
(:class:`~engine.season_plan.PlanFault`, R16–R18, R21, R24), the league's own refusals of a pick
or of a line of a pick by email (:class:`PickFault`), and the refusals of an arbitration, a
publication or a void (:class:`ArbitrationRefused` and its kinds). Each is worded by
:func:`worded` when it is shown, in the reader's language; nothing decides on a message's words.
A pick's refusal keeps its facts in words of no language (a competition's code, a list of values,
a deadline as an ISO time), so that :func:`pick_refusal_worded` says it in any reader's language,
when it is shown or long after (the reply to picks by email, rendered when it is sent).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from competitions.models import Competition
from engine import NotationFault, Refusal
from engine.season_plan import PlanFault
from matrixhockey.french import date_format

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


class PickFault(enum.Enum):
    """Why the league refuses a pick that reads and its competition allows (R6, R7, R13, R19),
    or a line of a pick by email; the engine's :class:`~engine.NotationFault` and
    :class:`~engine.Refusal` say the rest (R10, R6, R7, R19)."""

    REFEREE_ONLY = "referee_only"
    """A pick entered for a team by someone who is not a referee of its pool."""
    COACH_ONLY = "coach_only"
    """A pick sent by someone who is neither the team's coach nor its deputy."""
    ARBITRATED = "arbitrated"
    """The pool's round is arbitrated: nobody may enter a pick any more."""
    DEADLINE = "deadline"
    """R13: the deadline (facts: ``deadline``, an ISO time, and its ``zone``) has passed."""
    NOT_PLAYING = "not_playing"
    """The team (``team``) does not play this round of the ``competition``."""
    COLUMN_USED = "column_used"
    """R19: the ``column`` is played already; ``left``: the columns left."""
    EXTRA_TIME_USED = "extra_time_used"
    """R7: the extra-time ``value`` is used up; ``left``: the values left."""
    SHOOTOUT_USED = "shootout_used"
    """R7: the shootout ``value`` is used up; ``left``: the values left."""
    EXTRA_GOALS_LEFT = "extra_goals_left"
    """R6: more extra goals ``asked`` than the team ``have``."""
    GREAT_SAVES_LEFT = "great_saves_left"
    """R6: more great saves ``asked`` than the team ``have``."""
    NO_SEASON = "no_season"
    """A pick by email while no season runs."""
    NO_SUCH_ROUND = "no_such_round"
    """A pick by email naming round ``number`` the ``competition`` does not play."""
    NO_ROUND_LEFT = "no_round_left"
    """A pick by email for the ``competition``, which has no round left this season."""
    TWO_ROUNDS = "two_rounds"
    """R20: week ``week`` has two rounds of the ``competition``: the line must name one
    (``example_round``: the first, for the example)."""
    LINES_LIMIT = "lines_limit"
    """A message's pick lines past the first ``limit``, not read."""
    NOT_STORED = "not_stored"
    """A line the database refused to store."""
    NOT_TEXT = "not_text"
    """A line holding control characters or bytes that do not decode."""
    ROUND_ZERO = "round_zero"
    """A line naming round 0."""
    NO_PICK = "no_pick"
    """A line naming a competition and no pick (``example``: how to write one)."""


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


Code = NotationFault | Refusal | PickFault | PlanFault | type[ArbitrationRefused]
"""What a message is keyed on: a notation fault, a competition's refusal of a pick, the league's
refusal of a pick, a plan document's problem, or the kind of an arbitration refusal."""

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
    # R6, R7, R13, R19: a pick that the league refuses for its team, its round or its time.
    PickFault.REFEREE_ONLY: _("Only a referee of this team's pool may enter a pick for it."),
    PickFault.COACH_ONLY: _("Only the team's coach or deputy may send its picks."),
    PickFault.ARBITRATED: _(
        "This round is already arbitrated for your team's pool: no pick can be entered."
    ),
    PickFault.DEADLINE: _(
        "The deadline of this round was %(deadline)s (%(zone)s): picks are closed. A "
        "referee may still enter a pick sent by email until the round is arbitrated."
    ),
    PickFault.NOT_PLAYING: _("%(team)s does not play this round of the %(competition)s."),
    PickFault.COLUMN_USED: _(
        "Column %(column)s is already used: your team played it in an earlier round of the "
        "%(competition)s. Columns left: %(left)s."
    ),
    PickFault.EXTRA_TIME_USED: _(
        "Extra-time value %(value)s is used up for your team in the %(competition)s. "
        "Values left: %(left)s."
    ),
    PickFault.SHOOTOUT_USED: _(
        "Shootout value %(value)s is used up for your team in the %(competition)s. "
        "Values left: %(left)s."
    ),
    PickFault.EXTRA_GOALS_LEFT: ngettext_lazy(
        "You ask for %(asked)d extra goal (+) but your team has %(have)d left.",
        "You ask for %(asked)d extra goals (+) but your team has %(have)d left.",
        "asked",
    ),
    PickFault.GREAT_SAVES_LEFT: ngettext_lazy(
        "You ask for %(asked)d great save (#) but your team has %(have)d left.",
        "You ask for %(asked)d great saves (#) but your team has %(have)d left.",
        "asked",
    ),
    # A line of a pick by email that names no round to play, or that is not read.
    PickFault.NO_SEASON: _("No season is running."),
    PickFault.NO_SUCH_ROUND: _("The %(competition)s has no round %(number)d this season."),
    PickFault.NO_ROUND_LEFT: _("The %(competition)s has no round left this season."),
    PickFault.TWO_ROUNDS: _(
        "Week %(week)d has two rounds of the %(competition)s: name the one your pick is "
        "for, e.g. « %(example)s »."
    ),
    PickFault.LINES_LIMIT: _(
        "Only the first %(limit)d pick lines of a message are read: this one and those after it "
        "were not."
    ),
    PickFault.NOT_STORED: _("This line could not be stored: send it again."),
    PickFault.NOT_TEXT: _(
        "This line holds characters that are not text (a control character or a byte that "
        "does not decode): write it again."
    ),
    PickFault.ROUND_ZERO: _("Rounds are numbered from 1."),
    PickFault.NO_PICK: _("No pick after the competition: write it as, e.g., « %(example)s »."),
    # A season plan's document that is not a plan of the league (season_start, the desk).
    PlanFault.NOT_AN_OBJECT: _("The plan is not a JSON object."),
    PlanFault.FROM_SEASON: _("from_season must be a season number."),
    PlanFault.SEASON: _("season must be %(number)d, the season after from_season."),
    PlanFault.TEAMS: _("teams must be a list of the season's teams."),
    PlanFault.TEAM_NOT_AN_OBJECT: _("%(where)s is not an object."),
    PlanFault.TEAM_MISSING: _("%(where)s has no team."),
    PlanFault.DIVISION: _("%(where)s: “to” is not a division (%(known)s)."),
    PlanFault.FROM_DIVISION: _("%(where)s: “from” is neither a division (%(known)s) nor null."),
    PlanFault.RANK: _("%(where)s: rank is neither a whole number from 1 nor null."),
    PlanFault.CODE: _("%(where)s: code is not 1 to 12."),
    PlanFault.STOCK: _("%(where)s: %(stock)s is not a whole number from 0."),
    PlanFault.MOVE: _("%(where)s: move is not one of %(moves)s."),
    PlanFault.POINTS: _(
        "%(where)s: extra_goal_points gives whole numbers for R21's lines only (%(lines)s)."
    ),
    PlanFault.VACANCY: _("%(where)s: vacancy is neither true nor false."),
    PlanFault.WAITING_LIST_ENTRY: _("%(where)s: waiting_list_entry is not an id."),
    PlanFault.TEAM_COUNT: _(
        "The plan has %(count)d teams: a season has %(size)d, seven divisions of 12."
    ),
    PlanFault.TEAM_TWICE: _("%(team)s is in the plan %(count)d times."),
    PlanFault.DIVISION_SIZE: _("%(division)s has %(count)d teams in the plan, it needs 12."),
    PlanFault.CODE_TWICE: _(
        "Code %(code)02d is given %(count)d times in %(division)s (R16): %(teams)s."
    ),
    PlanFault.LEAVING: _("leaving must be a list."),
    PlanFault.LEAVING_ENTRY: _("leaving[%(index)d] needs a team and why (dummy or withdrawn)."),
    PlanFault.LEAVING_PLAYS: _("%(team)s is leaving and in the plan's teams too."),
    PlanFault.KDH: _("kdh must list qualifying_round and enter_later (team slugs)."),
    PlanFault.KDH_FIELD: _(
        "The KDH's qualifying round must be the %(count)d D3 teams with codes 03–12 "
        "(R17) and every other team must enter later."
    ),
    PlanFault.WG: _("wg must be a list of twelve teams, each with its reason (R18)."),
    PlanFault.WG_COUNT: _("The WG needs twelve different teams (R18); the plan gives %(count)d."),
    PlanFault.WG_STRANGER: _("%(team)s is in the WG but not in the plan's teams."),
    PlanFault.WG_REASON: _("%(team)s: the WG reason is not one of %(reasons)s."),
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
        return str(MESSAGES[code] % dict(facts or {}))
    except (KeyError, TypeError, ValueError):
        if isinstance(code, type):
            return str(MESSAGES[ArbitrationRefused])
        raise


PickFaultCode = NotationFault | Refusal | PickFault
"""What a pick's refusal is keyed on: its notation (R10), its competition's rules, the league."""

PICK_FAULTS: dict[str, type[NotationFault] | type[Refusal]] = {
    "notation": NotationFault,
    "not_allowed": Refusal,
}
"""The enum of a pick refusal's fault by the refusal's code; the others are :class:`PickFault`s
(their values overlap: a notation's ``column`` is not a competition's)."""


def pick_fault_of(*, code: str, fault: str) -> PickFaultCode:
    """The fault a stored pick refusal names (its ``code`` and its fault's value)."""
    return PICK_FAULTS.get(code, PickFault)(fault)


def _listed(values: object) -> object:
    if isinstance(values, list | tuple):
        return ", ".join(str(value) for value in values) or gettext("none")
    return values


def pick_refusal_worded(fault: PickFaultCode, facts: Mapping[str, object] | None = None) -> str:
    """A pick's refusal in the active language, from facts in words of no language: a
    ``competition`` by its code, ``values`` and ``left`` as lists (« none » when empty), a
    ``deadline`` as an ISO time in its season's ``zone``, ``example_round`` the round a
    championship example names."""
    said = dict(facts or {})
    competition = said.get("competition")
    if isinstance(competition, str):
        said["competition"] = Competition(competition).label
    for key in ("values", "left"):
        if key in said:
            said[key] = _listed(said[key])
    deadline = said.get("deadline")
    if isinstance(deadline, str):
        zone = ZoneInfo(str(said.get("zone") or "Europe/Paris"))
        at = timezone.localtime(datetime.fromisoformat(deadline), zone)
        said["deadline"] = date_format(at, "DATETIME_FORMAT")
    if "example_round" in said:
        said["example"] = gettext("Championship round %(number)d: F+(2)") % {
            "number": said.pop("example_round")
        }
    return worded(fault, said)
