"""A table ordered by a die (a full R9 tie) shows the die: the teams it placed, its draw and its
seed (R23), on a division's standings and a WG group's table — once the round is published.

Every team of the Elite plays A(1) in the championship's round 1 and in the WG's: twelve teams
on one column take eleven goals off its value (R2), down to 0, so every game is 0-0 and, extra
time level (1 against 1), a draw (R8) — but the championship's bonus goal (R5), which makes its
team win 1-0. So in the division, the bonus goal's team leads with 2 points, its opponent is
last with 0, and the ten others have one point, one draw, no goal for or against: level on
every criterion (R9), placed 2nd to 11th by one die. In the WG (no bonus goal), each group of
four is level on every criterion: one die each.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions import services
from competitions.models import PoolMember, PoolRound
from engine import Dice
from league.models import Division, Season
from tests.competitions.arbitration_league import League, add_wg, build_league

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    # A link is inline (a ruling's citation links to the rules): its tags part no words.
    inline = re.sub(r"</?a\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", inline)).split())


@pytest.fixture
def made(season: Season, divisions: dict[str, Division]) -> League:
    referee = User.objects.create_user("die-referee", password="x")
    made = build_league(season=season, divisions=divisions, referee=referee)
    add_wg(made, list(made.entries))
    return made


def _everyone_plays_a(made: League, pool: str) -> PoolRound:
    return made.play(pool, 1, picks={team: "A(1)" for team in made.entries})


def test_a_division_tied_on_every_criterion_shows_its_die(made: League) -> None:
    pool_round = _everyone_plays_a(made, "elite")
    client = Client(headers={"Accept-Language": "en"})
    before = client.get("/standings/elite/").content.decode()
    assert "data-table-dies" not in before and "standings_die" not in before  # R23

    services.pool_round_publish(pool_round=pool_round, by=made.referee)
    pool_round.refresh_from_db()
    bonus = next(draw for draw in pool_round.draw_log if draw["what"] == "bonus_goal")["result"]
    opponent = next(
        away if home == bonus else home
        for home, away in made.games("elite", 1)
        if bonus in (home, away)
    )
    level = sorted(team for team in made.entries if team not in (bonus, opponent))
    # R23: the die is thrown again from its published seed by anyone: the ten level teams,
    # in slug order, shuffled once.
    seed = f"{pool_round.seed}/standings/elite"
    order = Dice(seed).shuffle("standings_die", level)
    names = [made.entries[team].team.name for team in order]

    html = client.get("/standings/elite/").content.decode()
    ranked = re.findall(r'<a class="team-name" href="/teams/([\w-]+)/">', html)
    assert ranked == [bonus, *order, opponent]
    text = _text(html)
    assert (
        f"Level on every criterion (R9): {', '.join(names)}, in that order, placed by a die."
        in text
    )
    assert f"Draw standings_die, seed {seed}" in text
    assert html.count('class="badge badge-die"') == 10


def test_a_wg_group_tied_on_every_criterion_shows_its_die(made: League) -> None:
    pool_round = _everyone_plays_a(made, "wg")
    client = Client(headers={"Accept-Language": "en"})
    assert "data-table-dies" not in client.get("/standings/wg/").content.decode()

    services.pool_round_publish(pool_round=pool_round, by=made.referee)
    pool_round.refresh_from_db()
    groups: dict[str, list[str]] = {}
    for slug, group in (
        PoolMember.objects.filter(pool=made.pools["wg"])
        .exclude(group="")
        .order_by("entry__team__slug")
        .values_list("entry__team__slug", "group")
    ):
        groups.setdefault(group, []).append(slug)
    text = _text(client.get("/standings/wg/").content.decode())
    for group, teams in groups.items():
        seed = f"{pool_round.seed}/standings/group-{group}"
        order = Dice(seed).shuffle("standings_die", teams)
        names = ", ".join(made.entries[team].team.name for team in order)
        assert f"Level on every criterion (R9): {names}, in that order, placed by a die." in text
        assert f"Draw standings_die, seed {seed}" in text
