"""Competition differences as data (R2, R5–R8, R14, R15, R19)."""

from __future__ import annotations

import pytest

from engine.competitions import (
    EXTRA_TIME_DIE,
    RULES,
    SHOOTOUT_DIE,
    Competition,
    DoubleForfeit,
    OnrRule,
    TieRule,
    rules_for,
)
from engine.errors import InputError

CHAMPIONSHIP, KDH, WG_GROUP, WG_KNOCKOUT = (
    Competition.CHAMPIONSHIP,
    Competition.KDH,
    Competition.WG_GROUP,
    Competition.WG_KNOCKOUT,
)


@pytest.mark.parametrize(
    ("competition", "quota"),
    [
        (CHAMPIONSHIP, {"X": 1, "0": 2, "3": 2, "1": 3, "2": 3}),
        (KDH, {"X": 1, "0": 2, "1": 2, "2": 2}),
        (WG_GROUP, {"0": 2, "1": 2, "2": 2, "X": 2}),
        (WG_KNOCKOUT, {"0": 2, "1": 2, "2": 2, "X": 2}),
    ],
    ids=["R7-championship", "R7-kdh-no-3", "R7-wg-group-no-3", "R7-wg-knockout-shares-wg"],
)
def test_extra_time_quotas(competition: Competition, quota: dict[str, int]) -> None:
    assert dict(rules_for(competition).extra_time_quota) == quota


def test_kdh_shootout_values_once_each() -> None:
    assert dict(RULES[KDH].shootout_quota or {}) == dict.fromkeys(
        ["0", "1", "2", "3", "4", "5", "X"], 1
    )
    assert all(RULES[c].shootout_quota is None for c in (CHAMPIONSHIP, WG_GROUP, WG_KNOCKOUT))


@pytest.mark.parametrize(
    ("competition", "columns"),
    [(CHAMPIONSHIP, "ABCDEFGHIJK"), (KDH, "ABCDEFG"), (WG_GROUP, "ABCDEFGH"),
     (WG_KNOCKOUT, "ABCDEFGH")],
    ids=["R19-championship-11", "R19-kdh-7", "R19-wg-8", "R19-wg-knockout-8"],
)  # fmt: skip
def test_columns_and_rounds(competition: Competition, columns: str) -> None:
    rules = rules_for(competition)
    assert rules.columns == tuple(columns)
    # A team plays each column once, and uses one extra-time value a round (R7, R19).
    assert rules.rounds == len(columns) == sum(rules.extra_time_quota.values())


@pytest.mark.parametrize(
    ("competition", "expected"),
    [
        (CHAMPIONSHIP, (True, True, False, OnrRule.SCORE, TieRule.DRAW, None, 0)),
        (
            KDH,
            (False, False, True, OnrRule.FORFEIT, TieRule.SHOOTOUT, DoubleForfeit.LUCKY_LOSER, 2),
        ),
        (WG_GROUP, (False, False, False, OnrRule.SCORE, TieRule.DRAW, None, 1)),
        (
            WG_KNOCKOUT,
            (False, False, False, OnrRule.FORFEIT, TieRule.GROUP_GOALS, DoubleForfeit.DIE, 1),
        ),
    ],
    ids=["championship", "kdh", "wg-group", "wg-knockout"],
)
def test_rules_registry(competition: Competition, expected: tuple[object, ...]) -> None:
    # R5 bonus, R6 great saves and priority, R7 shootout, R4/R15 ONR, R8 ties.
    rules = RULES[competition]
    assert (
        rules.great_saves,
        rules.bonus_goal,
        rules.shootout,
        rules.onr,
        rules.tie,
        rules.double_forfeit,
        rules.stock_priority,
    ) == expected
    assert rules.competition is competition
    assert rules.knockout is (competition in (KDH, WG_KNOCKOUT))
    assert rules.onr_sanctioned is (competition in (CHAMPIONSHIP, WG_GROUP))  # R14, R15


def test_season_competition_groups_the_two_wg_stages() -> None:
    assert [c.season_competition for c in Competition] == ["championship", "kdh", "wg", "wg"]


def test_dice_for_x_values() -> None:
    assert EXTRA_TIME_DIE == ("0", "1", "2", "3")
    assert SHOOTOUT_DIE == ("0", "1", "2", "3", "4", "5")


def test_rules_for_takes_a_name_or_a_member() -> None:
    assert rules_for("wg-group") is rules_for(WG_GROUP) is RULES[WG_GROUP]
    with pytest.raises(InputError) as caught:
        rules_for("wg")
    assert caught.value.field == "competition"
    assert "'wg'" in caught.value.reason
