"""What the calendar feeds list (``competitions.feeds``): every round of a season, and the
rounds a team plays as the published results tell it.

A cup round is a team's as long as the published results leave the team in the cup
(:func:`competitions.selectors.entry_plays_rounds`, the rule the pick page and the reminders
read too: :func:`engine.cups.plays_round`, R15, R17, R18). A round arbitrated but not published
counts as still to play and the draw made from it is not looked at (R23): its winners and its
losers keep the cup's later rounds alike until the referee publishes it, and a team put out by
a published round loses them.
"""

from __future__ import annotations

from competitions.models import Round
from competitions.selectors.picks import entry_plays_rounds
from league.models import Entry, Season, Team


def season_rounds_calendar(*, season: Season) -> list[Round]:
    """Every round of ``season`` (the three competitions), by deadline."""
    return list(
        Round.objects.filter(season=season)
        .select_related("season")
        .order_by("deadline", "competition", "number")
    )


def team_entry_current(*, team: Team, season: Season) -> Entry | None:
    """``team``'s playing entry in ``season`` (``None`` when it does not play it, or was
    replaced, R14)."""
    return Entry.objects.current_of(team, season=season).first()


def entry_rounds_calendar(*, entry: Entry) -> list[Round]:
    """The rounds of ``entry``'s season that its team plays, by deadline: every championship
    round, and the cups' rounds the published results leave it in (see the module's
    docstring). Nothing for a replaced team (R14)."""
    rounds = season_rounds_calendar(season=entry.season)
    playing = entry_plays_rounds(entry=entry, rounds=rounds)
    return [round for round in rounds if round.pk in playing]
