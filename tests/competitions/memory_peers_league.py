"""The head-to-head's and the records' history (issue 25), on
``tests/competitions/memory_league.py``'s league: ``closed`` seasons played and closed (the
seasons of ``memory_league`` in turn: SEASON_1, SEASON_2, SEASON_1 …), then one more running with
its week 1 published — it breaks the winning and unbeaten runs (the Aigles won every game of
seasons 1 and 2's week 1) — and its Elite week 2 arbitrated, not published, which would break
« most goals in a game » (the Boucs' 7-1 over the Hiboux in SEASON_2, 6-0 the record of
SEASON_1).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User

from competitions.models import PoolRound
from tests.competitions.memory_league import SEASON_1, SEASON_2, History, history_start

RUNNING_SEASON = {**SEASON_2}
"""The running season's divisions and games (SEASON_2's)."""


@dataclass
class Peers:
    history: History
    running: int
    """The running season's number."""
    published: list[PoolRound]
    """The running season's week 1 (its Elite's and D2A's parts)."""
    secret: PoolRound
    """The running season's Elite week 2: arbitrated, not published."""


def peers_history(
    monkeypatch: pytest.MonkeyPatch, *, closed: int = 1, coaches: dict[str, User] | None = None
) -> Peers:
    made = history_start(monkeypatch, coaches)
    for number in range(1, closed + 1):
        season = SEASON_1 if number % 2 else SEASON_2
        made.season_open(number, season["divisions"])  # type: ignore[arg-type]
        made.play_season(number, season)
        made.close(number)
    running = closed + 1
    made.season_open(running, RUNNING_SEASON["divisions"])  # type: ignore[arg-type]
    published = [
        made.play(running, pool, 1, RUNNING_SEASON[pool][0])  # type: ignore[index]
        for pool in ("elite", "d2a")
    ]
    games = RUNNING_SEASON["elite"][1]  # type: ignore[index]
    secret = made.arbitrate(
        made.schedule(running, "elite", 2, [(game[0], game[1]) for game in games]), games
    )
    return Peers(history=made, running=running, published=published, secret=secret)


def peers_more(peers: Peers) -> int:
    """Two more seasons on ``peers``' history: its running season played to the end (its secret
    round published) and closed, the next played and closed, then one more running with its
    Elite week 1 published — the Aigles' 9-0 over the Boucs breaks « most goals in a game »
    and « biggest win », whatever the seasons before. Returns that running season's number."""
    made, number = peers.history, peers.running
    made.publish(peers.secret)
    made.play(number, "elite", 3, RUNNING_SEASON["elite"][2])  # type: ignore[index]
    for round in (2, 3):
        made.play(number, "d2a", round, RUNNING_SEASON["d2a"][round - 1])  # type: ignore[index]
    made.play(number, "kdh", 7, [RUNNING_SEASON["kdh"]])  # type: ignore[list-item]
    made.play(number, "wg", 8, RUNNING_SEASON["wg"])  # type: ignore[arg-type]
    made.close(number)
    made.season_open(number + 1, SEASON_1["divisions"])  # type: ignore[arg-type]
    made.play_season(number + 1, SEASON_1)
    made.close(number + 1)
    running = number + 2
    made.season_open(running, RUNNING_SEASON["divisions"])  # type: ignore[arg-type]
    made.play(
        running,
        "elite",
        1,
        [
            ("aigles", "boucs", 9, 0, "regulation", "aigles"),
            ("dauphins", "hiboux", 0, 0, "draw", None),
        ],
    )
    return running
