"""The WG cup's page (``/standings/wg/``, R18): the group winners and the best second marked
(R9's criteria, through the engine's own ``semi_finalists``), the three seconds compared, and the
semi-finals, final and third-place game as slots — from published results only.

The league is the Elite's twelve in the WG. Where a test needs a known group stage, the group
games' stored results are set after the arbitration and before the publication: in every group
the teams, in slug order, beat the teams after them 2-0 in regular time; group B's second wins
3-0 (more goals scored), group C's second wins one game in extra time (fewer regular-time wins).
The three seconds then have 8 points and 4 wins each, and the best second is B's, decided on
goals scored — R9's sixth criterion — with C's behind on regular-time wins.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from competitions import services as competitions
from competitions.models import Fixture, FixtureResult, PoolMember, PoolRound
from competitions.selectors.wg_cup import COMPLETE, NOT_STARTED, PROVISIONAL, wg_cup
from league.models import Division, Season
from tests.competitions.arbitration_league import League, add_wg, build_league
from tests.final_results import unguarded

pytestmark = pytest.mark.django_db


@pytest.fixture
def made(season: Season, divisions: dict[str, Division]) -> League:
    referee = User.objects.create_user("wg-referee", password="x")
    made = build_league(season=season, divisions=divisions, referee=referee)
    add_wg(made, list(made.entries))
    return made


def groups(made: League) -> dict[str, list[str]]:
    """Each group's teams in slug order."""
    found: dict[str, list[str]] = {}
    for slug, group in (
        PoolMember.objects.filter(pool=made.pools["wg"])
        .order_by("entry__team__slug")
        .values_list("entry__team__slug", "group")
    ):
        found.setdefault(group, []).append(slug)
    return found


def design(made: League, numbers: range, *, tweaks: bool = True) -> None:
    """The group games of rounds ``numbers`` as the module's docstring tells (without the
    seconds' differences when ``tweaks`` is false: the three seconds then level on every
    criterion)."""
    place = {
        team: (group, index)
        for group, teams in groups(made).items()
        for index, team in enumerate(teams)
    }
    extra_time_played = False
    for fixture in (
        Fixture.objects.filter(
            pool_round__pool=made.pools["wg"], pool_round__round__number__in=list(numbers)
        )
        .select_related("home__team", "away__team")
        .order_by("pool_round__round__number", "id")
    ):
        (group, home), (_, away) = place[fixture.home.team.slug], place[fixture.away.team.slug]
        winner = fixture.home if home < away else fixture.away
        goals, against, decided = 2, 0, "regulation"
        if tweaks and group == "B" and min(home, away) == 1:
            goals = 3
        if tweaks and group == "C" and {home, away} == {1, 3} and not extra_time_played:
            goals, against, decided = 2, 1, "extra_time"
            extra_time_played = True
        at_home = winner == fixture.home
        with unguarded():
            FixtureResult.objects.filter(fixture=fixture).update(
                home_goals=goals if at_home else against,
                away_goals=against if at_home else goals,
                decided=decided,
                winner=winner,
            )


def play(made: League, numbers: range, *, publish: bool = True, **send: object) -> None:
    for number in numbers:
        made.play("wg", number, **send)  # type: ignore[arg-type]
        if publish:
            competitions.pool_round_publish(
                pool_round=made.pool_round("wg", number), by=made.referee
            )


def publish(made: League, numbers: range) -> None:
    for number in numbers:
        competitions.pool_round_publish(pool_round=made.pool_round("wg", number), by=made.referee)


def main(client: Client) -> str:
    """The page's ``<main>`` (the header holds a per-request CSRF token)."""
    html = client.get("/standings/wg/").content.decode()
    return html.split('<main id="main"', 1)[1].split("</main>", 1)[0]


def text(html: str) -> str:
    # A link is inline (a ruling's citation links to the rules): its tags part no words.
    inline = re.sub(r"</?a\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def marked_rows(html: str) -> dict[str, str]:
    """The group tables' marked rows: team name → its badge's words."""
    rows = re.findall(r'<tr class="q-(\w+)[^"]*">(.*?)</tr>', html, flags=re.DOTALL)
    found = {}
    for _kind, row in rows:
        name = text(re.search(r'class="team-name"[^>]*>(.*?)</a>', row).group(1))  # type: ignore[union-attr]
        found[name] = text(re.search(r'class="badge badge-q[^"]*">(.*?)</span>', row).group(1))  # type: ignore[union-attr]
    return found


def slots(html: str) -> list[str]:
    """The knockout's four slots as text, in order."""
    return [
        text(item)
        for item in re.findall(
            r'<li class="card wg-slot.*?</li>\s*(?=<li class="card wg-slot|</ol>)',
            html,
            flags=re.DOTALL,
        )
    ]


def name(made: League, team: str) -> str:
    return made.entries[team].team.name


# --- The groups and the best second ---------------------------------------------------------------


def test_the_group_winners_and_a_best_second_decided_on_goals_scored_are_marked(
    client: Client, made: League
) -> None:
    play(made, range(1, 7), publish=False)
    design(made, range(1, 7))
    publish(made, range(1, 7))
    teams = groups(made)

    cup = wg_cup(pool=made.pools["wg"])
    assert cup.state == COMPLETE and cup.published_group_rounds == 6
    assert [(second.group, second.best, second.behind_on) for second in cup.seconds] == [
        ("B", True, ""),
        ("A", False, "goals_for"),
        ("C", False, "regulation_wins"),
    ]
    assert cup.best_decided_on == "goals_for"
    assert [second.row.goals_for for second in cup.seconds] == [12, 8, 8]

    html = main(client)
    assert marked_rows(html) == {
        name(made, teams["A"][0]): "✓ qualified",
        name(made, teams["B"][0]): "✓ qualified",
        name(made, teams["C"][0]): "✓ qualified",
        name(made, teams["B"][1]): "✓ best second, qualified",
    }
    assert "The group stage is over" in html and "Provisional" not in html


def test_the_seconds_are_compared_criterion_by_criterion(client: Client, made: League) -> None:
    play(made, range(1, 7), publish=False)
    design(made, range(1, 7))
    publish(made, range(1, 7))
    teams = groups(made)
    table = main(client).split('class="standings wg-compare"', 1)[1].split("</table>", 1)[0]
    head = [text(cell) for cell in re.findall(r'<th scope="col"[^>]*>(.*?)</th>', table, re.DOTALL)]
    assert head == [
        "Criterion (R9)",
        f"{name(made, teams['B'][1])} Group B",
        f"{name(made, teams['A'][1])} Group A",
        f"{name(made, teams['C'][1])} Group C",
    ]
    rows = [
        [text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.DOTALL)]
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1], re.DOTALL)
    ]
    assert rows == [
        ["Points", "8", "8", "8"],
        ["Wins", "4", "4", "4"],
        ["Wins in regular time", "4", "4", "3 ▼ decides: behind"],
        ["Losses (fewest first)", "2", "2", "2"],
        ["Losses in extra time (most first)", "0", "0", "0"],
        ["Goals scored", "12 ▲ decides: ahead", "8 ▼ decides: behind", "8"],
        ["Goal difference", "+8", "+4", "+3"],
        ["Verdict", "✓ best second", "behind on goals scored", "behind on wins in regular time"],
    ]


def test_the_marks_are_the_semi_finalists_the_arbitration_drew(
    client: Client, made: League
) -> None:
    """The page and the draw of the semi-finals use the same engine function and dice."""
    play(made, range(1, 7))
    sixth = made.pool_round("wg", 6)
    qualified = {entry.team.name for entry in sixth.qualified.all()}
    assert set(marked_rows(main(client))) == qualified
    drawn = {name(made, team) for game in made.games("wg", 7) for team in game}
    assert drawn == qualified


def test_a_best_second_left_to_the_die_is_the_one_the_arbitration_drew(
    client: Client, made: League
) -> None:
    """Every team plays the same column and extra-time value each round (never X, R7): every
    group game is a draw, the seconds are level on every criterion and R9's die decides — the
    arbitration's die, at round 6."""
    for number in range(1, 7):
        same = f"{'ABCDEFGH'[number - 1]}({'001122'[number - 1]})"
        play(made, range(number, number + 1), picks=dict.fromkeys(made.entries, same))
    cup = wg_cup(pool=made.pools["wg"])
    assert {second.row.draws for second in cup.seconds} == {6}
    assert cup.best_decided_on == "die"
    qualified = {entry.team.slug for entry in made.pool_round("wg", 6).qualified.all()}
    assert cup.best_second is not None and cup.best_second.line.entry.team.slug in qualified
    assert [second.behind_on for second in cup.seconds] == ["", "die", "die"]
    html = main(client)
    assert set(marked_rows(html)) == {made.entries[team].team.name for team in qualified}
    assert text(html).count("beaten by the die (R9)") == 2
    # The die shows with its draw and seed (R23): the one the arbitration of round 6 logged.
    sixth = made.pool_round("wg", 6)
    seed = f"{sixth.seed}/next-round-draw"
    logged = next(
        draw for draw in sixth.draw_log if draw["what"] == "wg.best_second" and draw["seed"] == seed
    )
    best = cup.best_second.line.entry.team
    assert f"team='{best.slug}'" in logged["result"]
    die = cup.best_second_die
    assert die is not None and (die.seed, die.what, die.order[0]) == (
        seed, "wg.best_second", best.slug)  # fmt: skip
    others = [second.line.entry.team.name for second in cup.seconds[1:]]
    assert (
        f"Level on every criterion (R9): {', '.join([best.name, *others])}; the die chose "
        f"{best.name} (R18). Draw wg.best_second, seed {seed}" in text(html)
    )


def test_while_groups_are_played_the_marks_are_provisional(client: Client, made: League) -> None:
    play(made, range(1, 4), publish=False)
    design(made, range(1, 4))
    publish(made, range(1, 4))
    cup = wg_cup(pool=made.pools["wg"])
    assert cup.state == PROVISIONAL and cup.published_group_rounds == 3
    html = main(client)
    assert "Provisional." in text(html)
    assert "after 3 published group rounds of 6" in text(html)
    marks = marked_rows(html)
    assert sorted(marks.values()) == [
        "✓ best second as it stands",
        *["✓ qualifying as it stands"] * 3,
    ]
    assert "provisional" in re.search(r'class="badge badge-q badge-best([^"]*)"', html).group(1)  # type: ignore[union-attr]


def test_seconds_level_on_every_criterion_mark_no_best_second_before_the_end(
    client: Client, made: League
) -> None:
    """R9: only a die would separate them, and no die is thrown before the group stage ends."""
    play(made, range(1, 4), publish=False)
    design(made, range(1, 4), tweaks=False)
    publish(made, range(1, 4))
    cup = wg_cup(pool=made.pools["wg"])
    assert cup.best_second is None and cup.best_decided_on == ""
    assert {second.behind_on for second in cup.seconds} == {"die"}
    html = main(client)
    assert list(marked_rows(html).values()) == ["✓ qualifying as it stands"] * 3
    assert text(html).count("level: a die would decide") == 3
    assert cup.best_second_die is None and "data-best-second-die" not in html


def test_nothing_is_marked_before_a_group_round_is_published(client: Client, made: League) -> None:
    play(made, range(1, 2), publish=False)
    cup = wg_cup(pool=made.pools["wg"])
    assert cup.state == NOT_STARTED and cup.seconds == []
    html = main(client)
    assert marked_rows(html) == {}
    assert "No group round is published yet" in html and "wg-compare" not in html
    assert html.count('<tr class="') == 12


def test_an_arbitrated_group_round_changes_nothing_until_published(
    client: Client, made: League
) -> None:
    play(made, range(1, 6))
    before = main(client)
    made.play("wg", 6)  # R18: the semi-finals are drawn here, known to the referee only
    assert PoolRound.objects.filter(pool=made.pools["wg"], round__number=7).exists()
    assert main(client) == before
    publish(made, range(6, 7))
    assert main(client) != before


# --- The knockout's slots ----------------------------------------------------------------------


def test_the_slots_fill_in_order_with_published_results_only(client: Client, made: League) -> None:
    play(made, range(1, 6))
    assert slots(main(client)) == [
        "Semi-final 1 round 7 · week 9 A group winner or the best second "
        "A group winner or the best second to be drawn",
        "Semi-final 2 round 7 · week 9 A group winner or the best second "
        "A group winner or the best second to be drawn",
        "Final round 8 · week 10 Winner of semi-final 1 Winner of semi-final 2 to be decided",
        "Third-place game round 8 · week 10 Loser of semi-final 1 Loser of semi-final 2 "
        "to be decided",
    ]
    play(made, range(6, 7))
    semis = [(name(made, home), name(made, away)) for home, away in made.games("wg", 7)]
    shown = slots(main(client))
    for slot, (home, away) in zip(shown[:2], semis, strict=True):
        assert f" {home} {away} to come" in slot
    assert "Winner of semi-final 1" in shown[2] and "to be decided" in shown[3]

    before = main(client)
    seventh = made.play("wg", 7)  # arbitrated: its results and the final week's pairings wait
    assert main(client) == before
    publish(made, range(7, 8))
    results = list(
        FixtureResult.objects.filter(fixture__pool_round=seventh)
        .select_related("fixture__home__team", "fixture__away__team", "winner__team")
        .order_by("fixture_id")
    )
    shown = slots(main(client))
    for slot, result in zip(shown[:2], results, strict=True):
        home, away = result.fixture.home.team.name, result.fixture.away.team.name
        assert f" {home} {result.home_goals} {away} {result.away_goals} " in slot
        assert f"Winner: {result.winner.team.name}, {result.get_decided_display()}" in slot
    winners = [result.winner.team.name for result in results]
    losers = [
        (
            result.fixture.away
            if result.winner_id == result.fixture.home_id
            else result.fixture.home
        ).team.name
        for result in results
    ]
    assert f"Final round 8 · week 10 {winners[0]} {winners[1]} to come" in shown[2]
    assert f"Third-place game round 8 · week 10 {losers[0]} {losers[1]} to come" in shown[3]

    before = main(client)
    made.play("wg", 8)
    assert main(client) == before
    publish(made, range(8, 9))
    final, third = (
        FixtureResult.objects.filter(fixture__pool_round=made.pool_round("wg", 8))
        .select_related("fixture", "winner__team")
        .order_by("fixture_id")
    )
    assert (final.fixture.label, third.fixture.label) == ("final", "third_place")
    shown = slots(main(client))
    for slot, result in ((shown[2], final), (shown[3], third)):
        assert f"{result.home_goals}" in slot and "to come" not in slot
        assert f"Winner: {result.winner.team.name}, {result.get_decided_display()}" in slot


def test_a_semi_final_lost_by_forfeit_says_so(client: Client, made: League) -> None:
    """R15: a team that sends no picks in the knockout loses by forfeit."""
    play(made, range(1, 7))
    home, away = made.games("wg", 7)[0]
    play(made, range(7, 8), skip=[home])
    slot = slots(main(client))[0]
    assert "forfeit" in slot
    assert f"Winner: {name(made, away)}, by forfeit" in slot


def test_the_page_speaks_french(client: Client, made: League) -> None:
    play(made, range(1, 7))
    html = client.get("/standings/wg/", headers={"accept-language": "fr"}).content.decode()
    assert '<html lang="fr">' in html
    assert "Groupe A" in html and "journée 7 · semaine 9" in html and "à venir" in html


# --- Queries ------------------------------------------------------------------------------------


def test_the_page_costs_the_same_queries_at_every_stage_of_the_cup(
    client: Client, made: League
) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/standings/wg/").status_code == 200
        return len(queries)

    counts = [count()]
    play(made, range(1, 4))
    counts.append(count())
    play(made, range(4, 7))
    counts.append(count())
    play(made, range(7, 9))
    counts.append(count())
    assert len(set(counts)) == 1, counts
