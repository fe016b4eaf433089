"""The site's round stages are the engine's (R17, R18)."""

from __future__ import annotations

from competitions.models import KDH_STAGES, Competition, Stage
from engine import kdh


def test_the_kdh_calendar_has_the_engines_stages_for_the_league_of_84() -> None:
    # R17: every team of the league (84) enters; seven rounds in all.
    assert [stage.key for stage in kdh.stages(84)] == [str(stage) for stage in KDH_STAGES]
    assert len(KDH_STAGES) == Competition.KDH.rules.rounds


def test_every_kdh_stage_of_a_field_up_to_84_is_one_of_the_sites() -> None:
    keys = {stage.key for size in range(2, 85) for stage in kdh.stages(size)}
    assert keys <= set(Stage.values)
