"""The draws the next season's plan makes for the WG's ties (R18) are published with their seed
(R23) and shown on the WG race page (``/wg/race/``) — once the season is closed, never before.

The season is played through the real services (its tables differ from run to run); once it
is closed, two teams that the named berths leave out (not a division winner, not a KDH
finalist, not the holder) are given, in the archive the plan reads, ten goals more than the
best scorer and none conceded: level on most goals and on fewest against, so R18 throws a die
for each. The plan's seed is worked out here as the public would: the season's number,
``/plan/`` and the SHA-256 of every round's seed, one a line, by competition, pool and round;
the WG's dice adds ``/wg``. Both dice offer the two teams in slug order (the engine's
:func:`engine.wg.qualifiers`), most goals first.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from html import unescape
from typing import Any

import pytest
from django.test import Client

from competitions.models import Competition, CupHonour, FinalRow, PoolRound
from competitions.services.season_close import season_close
from competitions.services.season_plan import season_plan, season_plan_wg_draws
from engine import Dice
from tests.competitions.season_league import PlayedSeason, season_played_for_module

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[PlayedSeason]:
    with season_played_for_module(django_db_blocker) as made:
        yield made


def _text(html: str) -> str:
    # A link is inline (a ruling's citation links to the rules): its tags part no words.
    inline = re.sub(r"</?a\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def _page(played: PlayedSeason) -> str:
    client = Client(headers={"Accept-Language": "en"})
    return client.get(f"/wg/race/?season={played.season.number}").content.decode()


def test_the_plans_r18_ties_are_drawn_with_their_seed_and_shown_once_closed(
    played: PlayedSeason,
) -> None:
    # Before the close: no plan, nothing of its draws or seed (R23).
    assert season_plan_wg_draws(season=played.season) is None
    before = _page(played)
    assert "data-plan-draws" not in before and "/plan/" not in before

    archive = season_close(season=played.season, by=played.admin)
    assert archive is not None
    rows = list(
        FinalRow.objects.filter(
            archive=archive, pool__competition=Competition.CHAMPIONSHIP
        ).select_related("entry__team")
    )
    honours = set(
        CupHonour.objects.filter(archive=archive)
        .filter(competition=Competition.KDH)
        .values_list("entry__team__slug", flat=True)
    ) | set(
        CupHonour.objects.filter(archive=archive, competition=Competition.WG, place=1).values_list(
            "entry__team__slug", flat=True
        )
    )
    left_out = sorted(
        row.entry.team.slug
        for row in rows
        if row.rank != 1 and row.entry.team.slug not in honours and not row.entry.team.is_dummy
    )
    first, second = left_out[:2]
    best = max(row.goals_for for row in rows)
    assert all(row.goals_against > 0 for row in rows)  # nobody else at 0 conceded
    FinalRow.objects.filter(archive=archive, entry__team__slug__in=[first, second]).filter(
        pool__competition=Competition.CHAMPIONSHIP
    ).update(goals_for=best + 10, goals_against=0)

    seeds = PoolRound.objects.filter(round__season=played.season).order_by(
        "pool__competition", "pool__slug", "round__number"
    )
    joined = "\n".join(pool_round.seed for pool_round in seeds)
    plan_seed = f"{played.season.number}/plan/{hashlib.sha256(joined.encode()).hexdigest()}"
    assert archive.plan_seed == plan_seed
    dice = Dice(f"{plan_seed}/wg")
    most = dice.choice("wg.most_goals", [first, second])
    fewest = dice.choice("wg.fewest_goals_against", [first, second])

    found = season_plan_wg_draws(season=played.season)
    assert found is not None and found.verified and found.plan_seed == plan_seed
    assert [(d.seed, d.what, d.options, d.result) for d in found.draws[:2]] == [
        (f"{plan_seed}/wg", "wg.most_goals", (first, second), most),
        (f"{plan_seed}/wg", "wg.fewest_goals_against", (first, second), fewest),
    ]
    # The plan's twelve hold the die's choices (R18).
    wg = {team.team: team.why.value for team in season_plan(season=played.season).wg}
    assert wg[most] == "most_goals"
    assert fewest in wg

    text = _text(_page(played))
    names = {row.entry.team.slug: row.entry.team.name for row in rows}
    assert (
        f"Most goals scored (R18) — level: {names[first]}, {names[second]}; "
        f"the die chose {names[most]}. Draw wg.most_goals, seed {plan_seed}/wg." in text
    )
    assert (
        f"Fewest goals conceded (R18) — level: {names[first]}, {names[second]}; "
        f"the die chose {names[fewest]}." in text
    )
    assert f"The plan's seed, {plan_seed}," in text
    assert "Checked: the seed is the one the published rounds give." in text
