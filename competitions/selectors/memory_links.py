"""Where the memory's games are explained: a game's results page, opened at the game (R3), and
a record's game (a fixture id in :class:`~competitions.selectors.memory.RecordHolder`) found
there. Published games only (R23): a fixture of a round not published has no place here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from django.urls import reverse

from competitions.models import Fixture, PoolRound


class Placed(Protocol):
    """A published game's place: a :class:`~competitions.selectors.memory.MeetingLine` or a
    :class:`~competitions.selectors.memory_links.GamePlace`."""

    @property
    def fixture_id(self) -> int: ...
    @property
    def season_number(self) -> int: ...
    @property
    def competition(self) -> str: ...
    @property
    def pool_slug(self) -> str: ...
    @property
    def round_number(self) -> int: ...


def game_path(place: Placed) -> str:
    """The game on its round's results page: that season's page (``?season=N``), opened at the
    game (its explanation, R3)."""
    where = [place.competition, place.pool_slug, place.round_number]
    return (
        f"{reverse('results_pool_round', args=where)}"
        f"?season={place.season_number}#game-{place.fixture_id}"
    )


@dataclass(frozen=True)
class GamePlace:
    """A published game's results page (its pool's round) and its anchor there; the same
    names as :class:`~competitions.selectors.memory.MeetingLine`'s, so one link serves both."""

    fixture_id: int
    season_number: int
    competition: str
    pool_slug: str
    round_number: int


def game_places(*, fixture_ids: Iterable[int | None]) -> dict[int, GamePlace]:
    """The results pages of the published games among ``fixture_ids``, by fixture id. One
    query (none for no id)."""
    wanted = {fixture_id for fixture_id in fixture_ids if fixture_id is not None}
    if not wanted:
        return {}
    found = Fixture.objects.filter(
        pk__in=wanted, pool_round__status=PoolRound.Status.PUBLISHED
    ).values_list(
        "pk",
        "pool_round__round__season__number",
        "pool_round__pool__competition",
        "pool_round__pool__slug",
        "pool_round__round__number",
    )
    return {row[0]: GamePlace(*row) for row in found}
