"""Why a KDH lucky loser went through (R15), read again from a published round's stored rows.

The adapter between the stored games and the engine's :func:`engine.lucky_losers`: each game
lost on the ice becomes a :class:`engine.Defeat` (a shootout's values from the played picks,
an X from its published draw), and the die, where one decided, is the draw the round published
(R23) — never a new one. Which criterion decided is the engine's answer; this module only
feeds it and keeps the published draw beside it for the pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine import Decided, Defeat, InputError, LuckyLoser, LuckyLoserCriterion, lucky_losers
from league.models import Entry


class _Pick(Protocol):
    @property
    def shootout(self) -> str: ...


class _Game(Protocol):
    """A published game as :class:`~competitions.selectors.results.GameResult` holds it (read
    only: a frozen dataclass)."""

    @property
    def home_goals(self) -> int: ...

    @property
    def away_goals(self) -> int: ...

    @property
    def decided(self) -> str: ...

    @property
    def winner(self) -> Entry | None: ...

    @property
    def home_pick(self) -> _Pick | None: ...

    @property
    def away_pick(self) -> _Pick | None: ...

    @property
    def home(self) -> Entry: ...

    @property
    def away(self) -> Entry: ...


@dataclass(frozen=True)
class LuckyLoserShown:
    """A lucky loser of a published round, with why it went through (R15)."""

    entry: Entry
    reason: LuckyLoser
    """The engine's answer: the criterion that decided, its figure and the best loser left
    out's."""
    die: Mapping[str, Any] | None
    """The published draw (``lucky_loser_die:N``, with its seed) when a die decided (R23)."""
    die_names: tuple[str, ...] = ()
    """The names of the teams the die chose among, in the draw's order."""

    @property
    def criterion(self) -> str:
        """The deciding criterion's value (:class:`engine.LuckyLoserCriterion`)."""
        return self.reason.criterion.value

    @property
    def decided(self) -> str:
        """How the lucky loser lost its own game (a :class:`~competitions.models.Decided`)."""
        return self.reason.decided.value

    def as_dict(self) -> dict[str, Any]:
        """The API's ``qualified`` item for a lucky loser (``shared/API.md``)."""
        return {
            "team": self.entry.team.slug,
            "went_on_as": "lucky_loser",
            "criterion": self.criterion,
            "figure": self.reason.figure,
            "runner_up": self.reason.runner_up,
            "die": None if self.die is None else self.die["result"],
        }


def _played(value: str, what: str, draws: Mapping[str, str]) -> int:
    """A played shootout value; an X is the value its published draw rolled (R7, R23)."""
    return int(draws[what]) if value == "X" else int(value)


def games_lucky_losers(
    *, games: Sequence[_Game], seed: str | None, draws: Iterable[Mapping[str, Any]]
) -> tuple[LuckyLoserShown, ...]:
    """The lucky losers of a published round's ``games`` and why each went through (R15), by
    the engine's order, from the stored results, played picks and the round's draw log
    (``seed`` tells the round's own draws from the next round's). Empty when no game was lost
    by two ONR teams."""
    count = sum(game.decided == Decided.FORFEIT.value and game.winner is None for game in games)
    if not count:
        return ()
    try:
        return _lucky_losers(games, count, seed, draws)
    except (KeyError, ValueError, InputError):
        # A round stored without the draws it needs (an X's roll, the die: an imported
        # season's): its lucky losers are shown without a reason rather than a wrong one.
        return ()


def _lucky_losers(
    games: Sequence[_Game], count: int, seed: str | None, draws: Iterable[Mapping[str, Any]]
) -> tuple[LuckyLoserShown, ...]:
    own = {draw["what"]: draw for draw in draws if draw.get("seed") == seed}
    rolled = {what: str(draw["result"]) for what, draw in own.items()}
    defeats = []
    by_slug: dict[str, Entry] = {}
    for game in games:
        if game.winner is None or game.decided == Decided.FORFEIT.value:
            continue
        home_lost = game.winner.pk != game.home.pk
        loser, winner = (game.home, game.away) if home_lost else (game.away, game.home)
        lost, won = (
            (game.home_goals, game.away_goals) if home_lost else (game.away_goals, game.home_goals)
        )
        shootout = None
        decided = Decided(game.decided)
        if decided in (Decided.SHOOTOUT, Decided.DIE):
            picks = (
                (game.home_pick, game.away_pick) if home_lost else (game.away_pick, game.home_pick)
            )
            mine, theirs = (
                _played(pick.shootout if pick else "0", f"shootout_x:{entry.team.slug}", rolled)
                for pick, entry in zip(picks, (loser, winner), strict=True)
            )
            shootout = (mine, theirs)
        by_slug[loser.team.slug] = loser
        defeats.append(Defeat(loser.team.slug, decided, lost, won, shootout))

    def published(number: int, tied: list[str]) -> str:
        return str(own[f"lucky_loser_die:{number}"]["result"])

    shown = []
    for reason in lucky_losers(defeats, count, published):
        die = None
        if reason.criterion is LuckyLoserCriterion.DIE:
            die = own[f"lucky_loser_die:{reason.number}"]
        shown.append(
            LuckyLoserShown(
                entry=by_slug[reason.team],
                reason=reason,
                die=die,
                die_names=tuple(by_slug[team].team.name for team in die["options"]) if die else (),
            )
        )
    return tuple(shown)
