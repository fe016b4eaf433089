"""Every engine module's docstring examples run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = sorted(
    ["engine", *(f"engine.{info.name}" for info in pkgutil.iter_modules(engine.__path__))]
)


def test_every_module_is_listed() -> None:
    assert {"engine.notation", "engine.game", "engine.standings", "engine.week", "engine.cli",
            "engine.dice", "engine.competitions", "engine.errors"} <= set(MODULES)  # fmt: skip


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
