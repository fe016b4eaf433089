"""Matrix Hockey's rules as a pure-Python library (standard library only).

The site, the Celery jobs, the command line (``python -m engine``) and the tests all score games
through this package, so a rule lives here and nowhere else. Rulings (R1…) refer to
``shared/RULINGS.md``.

>>> import engine
>>> engine.Pick.parse("d++(1)").notation()
'D++(1)'
"""

from engine.competitions import (
    RULES,
    Competition,
    DoubleForfeit,
    OnrRule,
    Rules,
    TieRule,
    rules_for,
)
from engine.dice import Dice, Draw, commitment
from engine.errors import EngineError, InputError, NotationError, NotationFault, PickNotAllowed
from engine.explain import Explanation, Step, StepCode, explain, explain_round
from engine.game import (
    DRAWN,
    BonusDraw,
    Decided,
    Defeat,
    LuckyLoser,
    LuckyLoserCriterion,
    MatchResult,
    Round,
    RoundResult,
    TeamEntry,
    TeamResult,
    lucky_losers,
    play_round,
    round_from_json,
)
from engine.notation import (
    ONR,
    Pick,
    PickReading,
    Refusal,
    display,
    pick_read,
    refusal,
    refusal_of,
    refusals_of,
)
from engine.standings import (
    TIE_CRITERIA,
    StandingRow,
    best_of,
    deciding_criterion,
    standings,
    standings_from_json,
    tie_key,
)
from engine.week import (
    Allotment,
    Grant,
    Replacement,
    Sanction,
    StockRequest,
    allot_stocks,
    late_placement,
    onr_sanction,
    week_onr_count,
)

__all__ = [
    "DRAWN",
    "ONR",
    "RULES",
    "TIE_CRITERIA",
    "Allotment",
    "BonusDraw",
    "Competition",
    "Decided",
    "Defeat",
    "Dice",
    "DoubleForfeit",
    "Draw",
    "EngineError",
    "Explanation",
    "Grant",
    "InputError",
    "LuckyLoser",
    "LuckyLoserCriterion",
    "MatchResult",
    "NotationError",
    "NotationFault",
    "OnrRule",
    "Pick",
    "PickNotAllowed",
    "PickReading",
    "Refusal",
    "Replacement",
    "Round",
    "RoundResult",
    "Rules",
    "Sanction",
    "StandingRow",
    "Step",
    "StepCode",
    "StockRequest",
    "TeamEntry",
    "TeamResult",
    "TieRule",
    "allot_stocks",
    "best_of",
    "commitment",
    "deciding_criterion",
    "display",
    "explain",
    "explain_round",
    "late_placement",
    "lucky_losers",
    "onr_sanction",
    "pick_read",
    "play_round",
    "refusal",
    "refusal_of",
    "refusals_of",
    "round_from_json",
    "rules_for",
    "standings",
    "standings_from_json",
    "tie_key",
    "week_onr_count",
]
