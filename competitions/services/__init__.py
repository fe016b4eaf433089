"""The competitions' writes, one module per concern, all importable from here.

Views, API views, tasks, admin actions and commands call these; only these call ``engine/``.
"""

from competitions.services.arbitration import (
    pool_round_arbitrate,
    pool_round_publish,
    pool_round_published,
    pool_round_replay,
    rounds_close_due,
)
from competitions.services.deadlines import round_deadline_move
from competitions.services.entries import (
    StockBelowZero,
    entry_create,
    entry_replace,
    stock_move,
)
from competitions.services.errors import (
    MESSAGES,
    REFUSALS,
    ArbitrationAlreadyRequested,
    ArbitrationInProgress,
    ArbitrationOutOfOrder,
    ArbitrationQueueUnavailable,
    ArbitrationRefused,
    ArbitrationTooEarly,
    NotArbitrated,
    SeedCommitmentBroken,
    VoidAfterReplacement,
    VoidRefused,
    arbitration_refusal_of,
    worded,
)
from competitions.services.feeds import calendar_feed_key_renew
from competitions.services.late_picks import (
    late_pick_accept,
    late_pick_queue,
    late_pick_reject,
)
from competitions.services.picks import (
    DeadlinePassed,
    PickRejected,
    PickSubmitted,
    StalePick,
    pick_record,
    pick_send,
    pick_submit,
)
from competitions.services.queue import (
    ARBITRATION_POLL_SECONDS,
    pool_round_arbitration_refused,
    pool_round_arbitration_request,
    pool_round_arbitration_run,
    pool_round_arbitration_wait,
)
from competitions.services.replacement import (
    DUMMY_TEAM_NAME,
    entry_replace_first_week_onr,
    onr_replacement_confirm,
)
from competitions.services.round_input import (
    RoundInput,
    pool_round_input,
    pool_round_input_document,
)
from competitions.services.setup import (
    championship_schedule_create,
    fixture_create,
    kdh_start,
    matrix_create,
    pool_create,
    pool_round_create,
    round_create,
    season_rounds_create,
    wg_start,
)
from competitions.services.verify import (
    Verification,
    pool_round_verification_record,
    pool_round_verify,
    season_rounds_verify,
)
from competitions.services.void import (
    pool_round_void,
)

__all__ = [
    "ARBITRATION_POLL_SECONDS",
    "DUMMY_TEAM_NAME",
    "MESSAGES",
    "REFUSALS",
    "ArbitrationAlreadyRequested",
    "ArbitrationInProgress",
    "ArbitrationOutOfOrder",
    "ArbitrationQueueUnavailable",
    "ArbitrationRefused",
    "ArbitrationTooEarly",
    "DeadlinePassed",
    "NotArbitrated",
    "PickRejected",
    "PickSubmitted",
    "RoundInput",
    "SeedCommitmentBroken",
    "StalePick",
    "StockBelowZero",
    "Verification",
    "VoidAfterReplacement",
    "VoidRefused",
    "arbitration_refusal_of",
    "calendar_feed_key_renew",
    "championship_schedule_create",
    "entry_create",
    "entry_replace",
    "entry_replace_first_week_onr",
    "fixture_create",
    "kdh_start",
    "late_pick_accept",
    "late_pick_queue",
    "late_pick_reject",
    "matrix_create",
    "onr_replacement_confirm",
    "pick_record",
    "pick_send",
    "pick_submit",
    "pool_create",
    "pool_round_arbitrate",
    "pool_round_arbitration_refused",
    "pool_round_arbitration_request",
    "pool_round_arbitration_run",
    "pool_round_arbitration_wait",
    "pool_round_create",
    "pool_round_input",
    "pool_round_input_document",
    "pool_round_publish",
    "pool_round_published",
    "pool_round_replay",
    "pool_round_verification_record",
    "pool_round_verify",
    "pool_round_void",
    "round_create",
    "round_deadline_move",
    "rounds_close_due",
    "season_rounds_create",
    "season_rounds_verify",
    "stock_move",
    "wg_start",
    "worded",
]
