"""What the calendar feeds list (``competitions.feeds``): every round of a season, and the
rounds a team plays as the published results tell it.

A cup round is a team's once the public record puts the team in it: its games drawn (by an
opening draw, or at the arbitration of a round since published) with the team in one, or, not
drawn yet, the team sent on by the round before it, published. While an earlier round of the cup
is arbitrated but not published (or being arbitrated, or voided), the cup's later rounds are left
out for everyone: who plays them follows from a result nobody may see yet.
"""

from __future__ import annotations

from django.db.models import Prefetch

from competitions.models import Competition, Fixture, PoolRound, Round
from competitions.selectors.entries import entry_lineage
from competitions.selectors.picks import entry_pool
from league.models import Entry, Season, Team

SETTLED = (PoolRound.Status.PENDING, PoolRound.Status.PUBLISHED)
"""Pool-round statuses that hide nothing: not played yet, or played and published."""


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


def _cup_rounds_public(entry: Entry, competition: Competition, rounds: list[Round]) -> list[Round]:
    pool = entry_pool(entry=entry, competition=competition)
    if pool is None:
        return []
    mine = {e.pk for e in entry_lineage(entry=entry)}
    pool_rounds = {
        pool_round.round.number: pool_round
        for pool_round in PoolRound.objects.filter(pool=pool)
        .select_related("round")
        .prefetch_related(
            Prefetch("fixtures", queryset=Fixture.objects.only("pool_round_id", "home", "away")),
            "qualified",
            "team_results",
        )
    }
    listed = []
    for round in sorted(rounds, key=lambda r: r.number):
        earlier = [pr for number, pr in pool_rounds.items() if number < round.number]
        if any(pr.status not in SETTLED for pr in earlier):
            break  # who plays this round and the later ones is not public yet
        if _in_round(
            mine, pool_rounds.get(round.number), pool_rounds.get(round.number - 1), earlier
        ):
            listed.append(round)
    return listed


def _in_round(
    mine: set[int], drawn: PoolRound | None, before: PoolRound | None, earlier: list[PoolRound]
) -> bool:
    games = list(drawn.fixtures.all()) if drawn is not None else []
    if games:
        return any(game.home_id in mine or game.away_id in mine for game in games)
    if not earlier:
        return True  # the cup's first round to play: every member of its pool is in
    if before is None or before.status != PoolRound.Status.PUBLISHED:
        return False
    qualified = {entry.pk for entry in before.qualified.all()}
    if qualified:
        return bool(mine & qualified)
    # A round that sends nobody on (a WG group round) keeps its teams in.
    return any(result.entry_id in mine for result in before.team_results.all())


def entry_rounds_calendar(*, entry: Entry) -> list[Round]:
    """The rounds of ``entry``'s season that its team plays, by deadline: every championship
    round, and the cups' rounds the published results put it in (see the module's docstring).
    Nothing for a replaced team (R14)."""
    if not entry.is_playing:
        return []
    by_competition: dict[str, list[Round]] = {}
    for round in season_rounds_calendar(season=entry.season):
        by_competition.setdefault(round.competition, []).append(round)
    listed: list[Round] = []
    for competition in Competition:
        rounds = by_competition.get(competition, [])
        # A division's rounds are all its teams'; a cup's, those its published results show.
        listed += (
            rounds
            if competition.kind.divisional
            else _cup_rounds_public(entry, competition, rounds)
        )
    return sorted(listed, key=lambda r: (r.deadline, r.competition, r.number))
