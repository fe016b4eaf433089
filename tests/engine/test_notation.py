"""R10: pick notation, read and written; what each competition refuses (R6, R7, R19)."""

from __future__ import annotations

import dataclasses
import string
from types import MappingProxyType

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine.competitions import Competition, rules_for
from engine.errors import NotationError, NotationFault, PickNotAllowed
from engine.notation import (
    EXTRA_TIME_VALUES,
    SHOOTOUT_VALUES,
    Pick,
    display,
    refusal,
)


@pytest.mark.parametrize(
    ("text", "column", "extra_time", "shootout", "extra_goals", "great_saves"),
    [
        ("F+(2)", "F", "2", None, 1, 0),
        ("D++(1)", "D", "1", None, 2, 0),
        ("F#(3)", "F", "3", None, 0, 1),
        ("C+(1)(4)", "C", "1", "4", 1, 0),
        ("B(X)", "B", "X", None, 0, 0),
        ("A(0)(X)", "A", "0", "X", 0, 0),
        ("K+#(0)", "K", "0", None, 1, 1),
        ("Z(3)(5)", "Z", "3", "5", 0, 0),
    ],
    ids=["R10-extra-goal", "R10-two-extra-goals", "R10-great-save", "R10-kdh-shootout",
         "R10-x-extra-time", "R10-x-shootout", "R10-both-marks", "R10-any-letter"],
)  # fmt: skip
def test_rules_examples_parse_into_their_parts(
    text: str,
    column: str,
    extra_time: str,
    shootout: str | None,
    extra_goals: int,
    great_saves: int,
) -> None:
    pick = Pick.parse(text)
    assert (pick.column, pick.extra_time, pick.shootout) == (column, extra_time, shootout)
    assert (pick.extra_goals, pick.great_saves) == (extra_goals, great_saves)
    assert pick.notation() == text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (" c + ( 1 )( 4 ) ", "C+(1)(4)"),
        ("f+(2)", "F+(2)"),
        ("d#+#(x)", "D+##(X)"),
        ("#F", None),
        ("\tb\n(x)", "B(X)"),
        ("F+#+(1)", "F++#(1)"),
    ],
    ids=["R10-spaces-free", "R10-case-free", "R10-marks-mixed", "R10-marks-before-column",
         "R10-any-whitespace", "R10-plus-before-hash"],
)  # fmt: skip
def test_case_and_spaces_are_free_and_marks_mix(text: str, canonical: str | None) -> None:
    if canonical is None:
        with pytest.raises(NotationError):
            Pick.parse(text)
    else:
        assert Pick.parse(text).notation() == canonical


@pytest.mark.parametrize(
    ("text", "part", "reason", "fault"),
    [
        ("", "pick", "empty pick", NotationFault.EMPTY),
        ("   ", "pick", "empty pick", NotationFault.EMPTY),
        ("+(2)", "+", "no column", NotationFault.NO_COLUMN),
        ("1(2)", "1", "no column", NotationFault.NO_COLUMN),
        ("(2)", "(", "no column", NotationFault.NO_COLUMN),
        ("FF(2)", "FF", "column must be a single letter", NotationFault.COLUMN),
        ("ONR : F(X)", "ONR", "column must be a single letter", NotationFault.COLUMN),
        ("F", "F", "missing extra-time value", NotationFault.EXTRA_TIME_MISSING),
        ("F+#", "F+#", "missing extra-time value", NotationFault.EXTRA_TIME_MISSING),
        ("F*(2)", "*", "unknown character", NotationFault.UNKNOWN_CHARACTER),
        ("F(2)-", "-", "unknown character", NotationFault.UNKNOWN_CHARACTER),
        ("F+2(1)", "2", "unknown character", NotationFault.UNKNOWN_CHARACTER),
        ("F(7)", "(7)", "bad extra-time value", NotationFault.EXTRA_TIME_VALUE),
        ("F()", "()", "bad extra-time value", NotationFault.EXTRA_TIME_VALUE),
        ("F(12)", "(12)", "bad extra-time value", NotationFault.EXTRA_TIME_VALUE),
        ("F(1)(6)", "(6)", "bad shootout value", NotationFault.SHOOTOUT_VALUE),
        ("F(1)()", "()", "bad shootout value", NotationFault.SHOOTOUT_VALUE),
        ("F(1)(2)(3)", "(3)", "too many parentheses groups", NotationFault.TOO_MANY_VALUES),
        ("F(1)(2)(3)(4)", "(3)(4)", "too many parentheses groups", NotationFault.TOO_MANY_VALUES),
        ("F(2", "(2", "unclosed parenthesis", NotationFault.UNCLOSED),
    ],
    ids=lambda value: str(value) if value else "empty",
)
def test_refused_notation_names_the_bad_part(
    text: str, part: str, reason: str, fault: NotationFault
) -> None:
    # R10: the fault's code says which part is wrong, whatever the English reason's wording.
    with pytest.raises(NotationError) as caught:
        Pick.parse(text)
    assert caught.value.text == text
    assert caught.value.part == part
    assert caught.value.fault is fault
    assert reason in caught.value.reason
    assert repr(text) in str(caught.value)


@pytest.mark.parametrize(
    ("fields", "part", "fault"),
    [
        ({"column": "FF", "extra_time": "1"}, "FF", NotationFault.COLUMN),
        ({"column": "f", "extra_time": "1"}, "f", NotationFault.COLUMN),
        ({"column": "F", "extra_time": "4"}, "(4)", NotationFault.EXTRA_TIME_VALUE),
        ({"column": "F", "extra_time": "1", "shootout": "6"}, "(6)", NotationFault.SHOOTOUT_VALUE),
        ({"column": "F", "extra_time": "1", "extra_goals": -1}, "+", NotationFault.EXTRA_GOALS),
        ({"column": "F", "extra_time": "1", "extra_goals": True}, "+", NotationFault.EXTRA_GOALS),
        ({"column": "F", "extra_time": "1", "great_saves": 1.0}, "#", NotationFault.GREAT_SAVES),
    ],
    ids=["two-letters", "lower-case", "extra-time-4", "shootout-6", "negative-extra-goals",
         "bool-extra-goals", "float-great-saves"],
)  # fmt: skip
def test_a_pick_is_always_well_formed(
    fields: dict[str, object], part: str, fault: NotationFault
) -> None:
    with pytest.raises(NotationError) as caught:
        Pick(**fields)  # type: ignore[arg-type]
    assert caught.value.part == part
    assert caught.value.fault is fault


def test_pick_is_immutable_and_its_repr_rebuilds_it() -> None:
    pick = Pick.parse("d++#(x)")
    assert eval(repr(pick)) == pick
    assert str(pick) == "D++#(X)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        pick.column = "A"  # type: ignore[misc]


picks = st.builds(
    Pick,
    column=st.sampled_from(string.ascii_uppercase),
    extra_time=st.sampled_from(EXTRA_TIME_VALUES),
    shootout=st.none() | st.sampled_from(SHOOTOUT_VALUES),
    extra_goals=st.integers(0, 12),
    great_saves=st.integers(0, 12),
)


@given(picks)
def test_parse_of_notation_gives_the_pick_back(pick: Pick) -> None:
    assert Pick.parse(pick.notation()) == pick


@given(picks)
def test_notation_of_a_canonical_text_is_that_text(pick: Pick) -> None:
    canonical = pick.notation()
    assert Pick.parse(canonical).notation() == canonical


@given(picks, st.data())
def test_any_spacing_and_case_reads_the_same(pick: Pick, data: st.DataObject) -> None:
    noisy = ""
    for char in pick.notation():
        noisy += data.draw(st.sampled_from(["", " ", "\t"])) + data.draw(
            st.sampled_from([char, char.lower()])
        )
    assert Pick.parse(noisy) == pick


@given(st.text(alphabet="ABCfx+#()0123456789 *-", max_size=14))
def test_any_text_parses_or_says_which_part_is_wrong(text: str) -> None:
    try:
        pick = Pick.parse(text)
    except NotationError as error:
        assert error.text == text
        assert error.part
    else:
        assert isinstance(pick, Pick)


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("\u0131(1)", "\u0131"),  # dotless i: str.upper() makes it I
        ("\u017f+(2)", "\u017f"),  # long s: str.upper() makes it S
        ("\u212a(1)", "\u212a"),  # the Kelvin sign: casefold() makes it k
        ("f\u0131(1)", "\u0131"),  # after a column, "ı" is no mark
        ("\u0130(1)", "\u0130"),  # dotted capital I
        ("ﬀ(1)", "ﬀ"),  # a ligature: str.upper() makes it FF
        ("F+(\uff12)", "(\uff12)"),  # a fullwidth 2 is no extra-time value
    ],
)
def test_letters_that_only_look_like_the_notations_are_refused(text: str, part: str) -> None:
    # R10: case is free for A–Z only; anything else is rejected, naming the part at fault.
    with pytest.raises(NotationError) as caught:
        Pick.parse(text)
    assert caught.value.text == text
    assert caught.value.part == part


LOOKALIKES = "\u0131\u017f\u212a\u0130ﬀ\uff21\uff12ß"
"""Characters that Unicode case mapping or compatibility turns into the notation's own."""


shaped_like_picks = st.builds(
    "{}{}{}({}){}".format,
    st.sampled_from([" ", "", "\t"]),
    st.sampled_from(string.ascii_letters + LOOKALIKES),
    st.text(alphabet="+#\u01c2", max_size=3),
    st.sampled_from("0123Xx\uff12"),
    st.sampled_from(["", "(4)", "(\uff14)"]),
)


@given(
    shaped_like_picks
    | st.text(alphabet=string.ascii_letters + "+#()0123456789X x" + LOOKALIKES, max_size=12)
)
@example("\u0131(1)")
@example("\u017f(1)")
def test_a_pick_is_read_only_from_ascii_and_reads_back_the_same(text: str) -> None:
    try:
        pick = Pick.parse(text)
    except NotationError as error:
        assert error.text == text and error.part
    else:
        assert "".join(text.split()).isascii()
        assert Pick.parse(pick.notation()) == pick


@given(st.text(max_size=20))
def test_any_unicode_text_parses_or_is_a_notation_error(text: str) -> None:
    try:
        pick = Pick.parse(text)
    except NotationError as error:
        assert error.text == text
    else:
        assert "".join(text.split()).isascii() and pick.column in string.ascii_uppercase


CHAMPIONSHIP = rules_for(Competition.CHAMPIONSHIP)
KDH = rules_for(Competition.KDH)
WG_GROUP = rules_for(Competition.WG_GROUP)
WG_KNOCKOUT = rules_for(Competition.WG_KNOCKOUT)


@pytest.mark.parametrize(
    ("text", "rules", "reason"),
    [
        ("K(3)", CHAMPIONSHIP, None),
        ("L(3)", CHAMPIONSHIP, "column L is not played in the championship (A–K)"),
        ("H(1)(1)", KDH, "column H is not played in the kdh (A–G)"),
        ("H(1)", WG_GROUP, None),
        ("I(1)", WG_KNOCKOUT, "column I is not played"),
        ("F##(3)", CHAMPIONSHIP, None),
        ("F#(1)(1)", KDH, "great saves (#) are played only in the championship"),
        ("F#(1)", WG_GROUP, "great saves (#) are played only in the championship"),
        ("F#(1)", WG_KNOCKOUT, "great saves (#) are played only in the championship"),
        ("F+++(1)", WG_KNOCKOUT, None),
        ("F(3)(1)", KDH, "extra-time value 3 is not played in the kdh"),
        ("F(3)", WG_GROUP, "extra-time value 3 is not played in the wg-group"),
        ("F(1)(1)", CHAMPIONSHIP, "a shootout value is played only in the KDH"),
        ("F(1)(1)", WG_GROUP, "a shootout value is played only in the KDH"),
        ("F(1)", KDH, "needs a shootout value"),
        ("F(X)(X)", KDH, None),
    ],
    ids=["R19-column-k-championship", "R19-column-l-championship", "R19-column-h-kdh",
         "R19-column-h-wg", "R19-column-i-wg-knockout", "R6-great-saves-championship",
         "R6-no-great-saves-kdh", "R6-no-great-saves-wg-group", "R6-no-great-saves-wg-knockout",
         "R6-extra-goals-in-cups", "R7-no-extra-time-3-kdh", "R7-no-extra-time-3-wg",
         "R7-no-shootout-championship", "R7-no-shootout-wg", "R7-kdh-needs-shootout",
         "R7-x-everywhere"],
)  # fmt: skip
def test_each_competition_refuses_what_it_does_not_play(
    text: str, rules: object, reason: str | None
) -> None:
    pick = Pick.parse(text)
    if reason is None:
        pick.validate_for(rules)  # type: ignore[arg-type]
        assert refusal(pick, rules) is None  # type: ignore[arg-type]
        return
    with pytest.raises(PickNotAllowed) as caught:
        pick.validate_for(rules)  # type: ignore[arg-type]
    assert reason in caught.value.reason
    assert caught.value.pick == pick.notation()


def test_a_shootout_value_outside_the_quota_is_refused() -> None:
    # No competition restricts shootout values today; the check reads the quota, not a list.
    rules = dataclasses.replace(KDH, shootout_quota=MappingProxyType({"0": 1, "1": 1}))
    with pytest.raises(PickNotAllowed, match="shootout value 5 is not played in the kdh"):
        Pick.parse("A(1)(5)").validate_for(rules)


@pytest.mark.parametrize(
    ("args", "kwargs", "shown"),
    [
        (("D", "1", None, 2, 0), {"bonus_goal": True}, "D++*(1)"),
        (("F", "X"), {"onr": True}, "ONR : F(X)"),
        (("F", "3", None, 0, 1), {}, "F#(3)"),
        (("D", "1", None, 1, 1), {"bonus_goal": True}, "D+#*(1)"),
        (("C", "1", "4", 1, 0), {}, "C+(1)(4)"),
        (("A", "2"), {}, "A(2)"),
    ],
    ids=["R10-bonus-after-plus", "R10-onr-random-pick", "R10-great-save",
         "R10-bonus-after-hash", "R10-shootout", "R10-plain"],
)  # fmt: skip
def test_results_show_the_bonus_goal_and_onr(
    args: tuple[object, ...], kwargs: dict[str, bool], shown: str
) -> None:
    assert display(*args, **kwargs) == shown  # type: ignore[arg-type]


def test_a_parse_error_carries_every_wrong_part_of_the_pick_first_one_first() -> None:
    with pytest.raises(NotationError) as caught:
        Pick.parse("FF-(9)(8)")
    assert [error.part for error in caught.value.errors] == ["FF", "-", "(9)", "(8)"]
    assert caught.value.errors[0] is caught.value
