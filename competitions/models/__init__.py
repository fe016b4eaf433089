"""The competitions' models, one module per concern, all importable from here."""

from competitions.models.arbitration_requests import (
    ArbitrationRequest,
    ArbitrationRequestStatus,
)
from competitions.models.archive import (
    CupHonour,
    FinalRow,
    SeasonArchive,
    Withdrawal,
)
from competitions.models.feeds import CalendarFeedKey
from competitions.models.picks import (
    LatePick,
    LatePickStatus,
    Pick,
    PickChannel,
)
from competitions.models.results import (
    Decided,
    FixtureResult,
    OnrReplacement,
    OnrSanction,
    TeamResult,
)
from competitions.models.season_jobs import (
    SeasonStartJob,
    SeasonStartJobStatus,
)
from competitions.models.season_plans import SeasonPlanDraft
from competitions.models.stocks import (
    StockKind,
    StockMovement,
    StockReason,
)
from competitions.models.structure import (
    CUPS,
    EXTRA_TIME_VALUES,
    KDH_STAGES,
    MATRIX_COLUMNS,
    SHOOTOUT_VALUES,
    WG_STAGES,
    Competition,
    Fixture,
    FixtureLabel,
    Matrix,
    MatrixCell,
    Pool,
    PoolMember,
    PoolRound,
    PoolRoundStatus,
    Round,
    RoundStatus,
    Stage,
    WgGroup,
)
from competitions.models.verification import VerificationFailure

__all__ = [
    "CUPS",
    "EXTRA_TIME_VALUES",
    "KDH_STAGES",
    "MATRIX_COLUMNS",
    "SHOOTOUT_VALUES",
    "WG_STAGES",
    "ArbitrationRequest",
    "ArbitrationRequestStatus",
    "CalendarFeedKey",
    "Competition",
    "CupHonour",
    "Decided",
    "FinalRow",
    "Fixture",
    "FixtureLabel",
    "FixtureResult",
    "LatePick",
    "LatePickStatus",
    "Matrix",
    "MatrixCell",
    "OnrReplacement",
    "OnrSanction",
    "Pick",
    "PickChannel",
    "Pool",
    "PoolMember",
    "PoolRound",
    "PoolRoundStatus",
    "Round",
    "RoundStatus",
    "SeasonArchive",
    "SeasonPlanDraft",
    "SeasonStartJob",
    "SeasonStartJobStatus",
    "Stage",
    "StockKind",
    "StockMovement",
    "StockReason",
    "TeamResult",
    "VerificationFailure",
    "WgGroup",
    "Withdrawal",
]
