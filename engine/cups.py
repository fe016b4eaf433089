"""Who is still in a cup, as its public history tells it (R15, R17, R18, R23).

A cup's rounds are drawn one after the other: the KDH's every round at random (R17), the WG's
semi-finals once its group stage is over (R18). Whether a team plays a cup round is read from
the cup's rounds as the public knows them: nothing of a round is public before its publication
(R23), neither its results nor the draw made from it, so a round played but not yet published
counts as still to play and a game drawn from it is not looked at. Until the referee publishes,
its losers may still send picks for the next round: kept, and simply not played if they turn
out eliminated.

Once a round's games are drawn (publicly), only their teams play it. Before that, the cup's
latest drawn round decides:

* published, it sends on the teams it names (winners, lucky losers and byes, R15, R17); one
  that names nobody (a WG group round, R18) keeps the teams that played it;
* still to play, its teams are in, and while it is the KDH's qualifying round, the teams it
  exempts too (R17: they may send their picks for the round of 64 and after in advance, R12);
* with no round drawn yet, every team of the cup is in.

>>> history = [CupRound(1, RoundState.PUBLISHED, drawn=True, plays=True, sends_on=True)]
>>> plays_round(history, 2)  # lost round 1 and was not sent on
False
>>> plays_round([], 1)  # nothing drawn yet
True
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)


class RoundState(enum.Enum):
    """Where a cup's round stands, as far as the public may know it (R23)."""

    TO_PLAY = "to_play"
    """Not played yet (or voided, to be played again)."""
    ARBITRATED = "arbitrated"
    """Played, not published: nothing of it is public, nor the draw made from it."""
    PUBLISHED = "published"
    """Played and published: its results and the draw made from it are public."""


@dataclass(frozen=True)
class CupRound:
    """One round of a cup, as one team sees it."""

    number: int
    state: RoundState
    qualifying: bool = False
    """The KDH's qualifying round (R17)."""
    drawn: bool = False
    """Its games are drawn."""
    plays: bool = False
    """The team is in one of its games."""
    sends_on: bool = False
    """It names the teams it sends on (winners, lucky losers and byes, R15, R17, R18)."""
    sends_team_on: bool = False
    """The team is one of them."""
    played: bool = False
    """The team has a result in it."""


def plays_round(history: Iterable[CupRound], number: int) -> bool:
    """Whether the team whose view of a cup's rounds is ``history`` plays round ``number``
    (see the module's docstring).

    >>> qualifying = CupRound(1, RoundState.TO_PLAY, qualifying=True, drawn=True)
    >>> plays_round([qualifying], 2)  # exempt from the qualifying round (R17)
    True
    """
    rounds = list(history)
    # R23: the first round played but not published hides every draw made after it.
    secret = min((r.number for r in rounds if r.state is RoundState.ARBITRATED), default=None)
    horizon = number if secret is None else min(number, secret)
    this = next((r for r in rounds if r.number == number), None)
    if this is not None and this.drawn and number <= horizon:
        return this.plays
    latest = max(
        (
            r
            for r in rounds
            if r.number < number
            and r.number <= horizon
            and (r.drawn or r.state is RoundState.PUBLISHED)
        ),
        key=lambda r: r.number,
        default=None,
    )
    if latest is None:
        return True
    if latest.state is not RoundState.PUBLISHED:
        # R17: the teams exempt from the KDH's qualifying round are in the round of 64.
        return latest.plays or latest.qualifying
    if latest.sends_on:
        return latest.sends_team_on
    return latest.played


@dataclass(frozen=True)
class KnockoutGame(Generic[T]):
    """A published knockout game of a cup: its round (its number, or any id of it), its teams
    and its winner (``None``: both teams forfeited, R15)."""

    round: int
    home: T
    away: T
    winner: T | None


def knocked_out(games: Iterable[KnockoutGame[T]], sent_on: Iterable[tuple[int, T]]) -> set[T]:
    """The teams a cup's published knockout ``games`` put out: their losers that their round
    did not send on all the same (``sent_on``: ``(round, team)``, R15's lucky losers, R17).

    >>> games = [KnockoutGame(1, "a", "b", "a"), KnockoutGame(1, "c", "d", None)]
    >>> sorted(knocked_out(games, [(1, "a"), (1, "b")]))  # b, the lucky loser, goes on
    ['c', 'd']
    """
    went_on = set(sent_on)
    return {
        team
        for game in games
        for team in (game.home, game.away)
        if team != game.winner and (game.round, team) not in went_on
    }


__all__ = ["CupRound", "KnockoutGame", "RoundState", "knocked_out", "plays_round"]
