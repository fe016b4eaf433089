"""The site's stored choices that name one of the engine's values hold exactly the engine's
values, so that a row always turns into the engine's value and back (the engine is the one home
of the rules; the models only give those values labels in two languages)."""

from __future__ import annotations

import enum

import pytest
from django.db import models

import engine
from competitions.models import Competition, Decided, OnrReplacement, WgGroup
from engine import wg
from engine.calendar import SeasonCompetition


def _stored(choices: type[models.TextChoices]) -> set[str]:
    """The choices' values, without the empty one that stands for « none »."""
    return {value for value in choices.values if value != ""}


def _engine(values: type[enum.Enum]) -> set[str]:
    return {member.value for member in values}


@pytest.mark.parametrize(
    ("site", "engine_values"),
    [
        (Competition, _engine(SeasonCompetition)),
        (Decided, _engine(engine.Decided)),
        (OnrReplacement, _engine(engine.Replacement)),
        (WgGroup, set(wg.GROUP_NAMES)),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_site_choices_are_the_engines_values(
    site: type[models.TextChoices], engine_values: set[str]
) -> None:
    assert _stored(site) == engine_values


def test_each_competition_gives_the_engines_own_rules() -> None:
    """A site competition reads its matrix shape and quotas from the engine (R7, R19)."""
    for competition in Competition:
        assert competition.rules == SeasonCompetition(competition.value).rules
