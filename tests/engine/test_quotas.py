"""What a team has left under its season's quotas (R7, R19)."""

from __future__ import annotations

from engine.competitions import rules_for
from engine.quotas import VALUE_ORDER, columns_left, is_left, notation_order, values_left


def test_a_fresh_team_has_every_value_of_its_quota() -> None:
    quota = rules_for("championship").extra_time_quota
    assert values_left(quota, ()) == dict(quota)


def test_a_value_used_up_is_no_longer_left() -> None:
    # R7: the championship plays X once, 0 and 3 twice, 1 and 2 three times.
    quota = rules_for("championship").extra_time_quota
    left = values_left(quota, ("X", "0", "1", "0"))
    assert left == {"3": 2, "1": 2, "2": 3}


def test_every_value_used_up_leaves_nothing() -> None:
    quota = rules_for("kdh").shootout_quota or {}
    assert values_left(quota, VALUE_ORDER) == {}


def test_values_left_keep_the_quotas_order() -> None:
    # The order R7 lists the championship's values in: the seeded random picks draw from it.
    quota = rules_for("championship").extra_time_quota
    assert list(values_left(quota, ())) == ["X", "0", "3", "1", "2"]
    assert list(values_left(notation_order(quota), ())) == ["0", "1", "2", "3", "X"]


def test_notation_order_puts_the_digits_before_x_and_keeps_the_counts() -> None:
    quota = {"X": 1, "5": 1, "0": 2}
    assert list(notation_order(quota).items()) == [("0", 2), ("5", 1), ("X", 1)]


def test_a_column_is_played_once_a_season() -> None:
    # R19: the KDH's seven columns, each once.
    columns = rules_for("kdh").columns
    assert columns_left(columns, ()) == columns
    assert columns_left(columns, ("G", "A")) == ("B", "C", "D", "E", "F")
    assert columns_left(columns, columns) == ()


def test_a_value_is_left_until_its_quota_is_used_up() -> None:
    # R7: the WG plays each of 0, 1, 2 and X twice.
    quota = rules_for("wg-group").extra_time_quota
    assert is_left(quota, ("1",), "1")
    assert not is_left(quota, ("1", "0", "1"), "1")
    assert is_left(quota, ("1", "0", "1"), "X")
