"""R23: verifiable dice — seeded, reproducible, fair, and every draw logged."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice import Dice, Draw, commitment


def test_commitment_is_the_seeds_sha256() -> None:
    # The FIPS 180-2 test vector for "abc".
    assert commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_draw_can_be_redone_from_the_published_description() -> None:
    # The dice module's docstring: draw n reads SHA-256(seed + ":" + n) as a big-endian integer,
    # keeps it below the largest multiple of the number of options, and takes it modulo that.
    seed, options = "2026/elite/round-1", ["a", "b", "c", "d", "e", "f", "g"]
    space = 1 << 256
    limit = space - space % len(options)
    expected = []
    n = 0
    while len(expected) < 5:
        value = int.from_bytes(hashlib.sha256(f"{seed}:{n}".encode()).digest(), "big")
        n += 1
        if value < limit:
            expected.append(options[value % len(options)])
    dice = Dice(seed)
    assert [dice.choice(f"d{i}", options) for i in range(5)] == expected


@given(st.text(), st.lists(st.integers(), min_size=1, max_size=20))
def test_same_seed_same_draws(seed: str, options: list[int]) -> None:
    first, second = Dice(seed), Dice(seed)
    assert [first.choice("x", options) for _ in range(3)] == [
        second.choice("x", options) for _ in range(3)
    ]
    assert first.shuffle("y", options) == second.shuffle("y", options)
    assert first.draws == second.draws


def test_choice_is_fair() -> None:
    dice = Dice("fair")
    counts = Counter(dice.choice("die", "123456") for _ in range(6000))
    assert set(counts) == set("123456")
    assert all(850 < n < 1150 for n in counts.values())


def test_every_draw_is_logged_in_order() -> None:
    dice = Dice("log")
    picked = dice.choice("bonus_goal", ["a", "b"])
    order = dice.shuffle("order", [3, 1, 2])
    assert dice.draws == [
        Draw("bonus_goal", ("a", "b"), picked),
        Draw("order", ("3", "1", "2"), " ".join(map(str, order))),
    ]
    assert sorted(order) == [1, 2, 3]
    assert dice.draws[0].as_dict() == {
        "what": "bonus_goal",
        "options": ["a", "b"],
        "result": picked,
    }
    assert repr(dice) == "Dice('log')"


def test_nothing_to_choose_from_is_an_error() -> None:
    with pytest.raises(ValueError, match="nothing to choose from"):
        Dice("s").choice("empty", [])


def test_shuffle_reaches_every_order() -> None:
    dice = Dice("orders")
    orders = {tuple(dice.shuffle("o", "abc")) for _ in range(300)}
    assert len(orders) == 6


def test_rejection_sampling_skips_values_past_the_last_full_multiple() -> None:
    # With 2**255 + 1 options, about half the hash values fall past the last full multiple and
    # must be skipped (with a handful of options that almost never happens).
    n = (1 << 255) + 1
    limit = (1 << 256) - (1 << 256) % n
    dice = Dice("rejections")
    kept = [dice._below(n) for _ in range(20)]
    values = [
        int.from_bytes(hashlib.sha256(f"rejections:{i}".encode()).digest(), "big")
        for i in range(dice._counter)
    ]
    assert kept == [value % n for value in values if value < limit]
    assert dice._counter > 20
