"""The meetings the memory keeps (issue 25) for a round played through the real arbitration: the
rules' worked week (section 3.1.4) as the Elite's round 1, and the goals each team turned from
extra goals, as its explanation's steps tell (R3, R6)."""

from __future__ import annotations

import pytest

from competitions.models import Meeting
from competitions.services.memory_games import extra_goals_scored
from engine import Step, StepCode
from tests.competitions.results_league import RulesWeek

pytestmark = pytest.mark.django_db


def test_a_published_round_s_games_are_stored_with_the_goals_from_extra_goals(
    week: RulesWeek,
) -> None:
    week.arbitrate()
    assert not Meeting.objects.exists()  # arbitrated, not published: nothing of it is known
    week.publish()
    meetings = {
        (m.home.name, m.away.name): (m.home_goals, m.away_goals, m.home_extra_goals)
        for m in Meeting.objects.select_related("home", "away")
    }
    # The Sleigh Dogs' F+ and the Freezing Ass' D++ are scored; nobody else played one.
    assert meetings == {
        ("Sleigh Dogs", "Ice Crocodiles"): (3, 2, 1),
        ("Cybérians", "Grizzlies"): (1, 2, 0),
        ("Snowmen", "Teddy Bears"): (4, 3, 0),
        ("Freezing Ass", "Groggs"): (6, 3, 2),
        ("Igloos", "Icebergs"): (2, 2, 0),
        ("Puck Pukers", "Ice Breakers"): (3, 2, 0),
    }
    assert not Meeting.objects.exclude(away_extra_goals=0).exists()
    meeting = Meeting.objects.get(home__name="Freezing Ass")
    assert meeting.winner is not None
    assert (meeting.week, meeting.stage, meeting.decided, meeting.winner.name) == (
        1, "regular", "regulation", "Freezing Ass",
    )  # fmt: skip


def test_a_great_save_stops_an_extra_goal_first() -> None:
    played = (Step(StepCode.COLUMN, 2), Step(StepCode.EXTRA_GOALS, 2, count=2))
    assert extra_goals_scored((*played, Step(StepCode.GREAT_SAVES, -1, count=1))) == 1
    assert extra_goals_scored((*played, Step(StepCode.GREAT_SAVES, -3, count=3))) == 0
    assert extra_goals_scored(played) == 2
    assert extra_goals_scored(None) == 0
