"""The KDH bracket (``/standings/kdh/``, :mod:`competitions.selectors.bracket`): a slot per game
of each round from the qualifying one to the final (R17), each published game with its score
and how it was decided, lucky losers and byes (R15), the rounds to come as empty slots filled as
the draws are published (R23), and a team followed along its path.

The demo league at week 6 (rounds 1–4 published, the quarter-finals drawn and waiting for their
referee) is built once for the class; the lucky loser, the bye and the final are played on a
small league of twelve teams (codes 05–12 in the qualifying round, then 8 → 1).
"""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions import services
from competitions.demo import DemoLeague
from competitions.models import Fixture, FixtureResult, Pool, PoolRound, TeamResult
from competitions.selectors.bracket import SlotKind, kdh_bracket
from competitions.selectors.results import pool_rounds_results
from league.models import Division, Entry, Season
from tests.competitions.arbitration_league import League, add_kdh, build_league
from tests.competitions.results_league import bracket_columns as columns
from tests.competitions.results_league import bracket_slots as slots
from tests.demo_worlds import demo_world
from tests.final_results import unguarded

KDH_SLOTS = {1: 20, 2: 32, 3: 16, 4: 8, 5: 4, 6: 2, 7: 1}
"""R17: 84 teams, 20 qualifying games, then 64 → 1."""


def _client() -> Client:
    return Client(headers={"Accept-Language": "en"})


def _text(html: str) -> str:
    # A link is inline (a ruling's citation links to the rules): its tags part no words.
    inline = re.sub(r"</?a\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def bracket_part(html: str) -> str:
    """The page from the bracket's heading to the end of its legend (the header's forms carry
    a CSRF token that changes at every request)."""
    return html.split('id="bracket-title"', 1)[1].split("</main>", 1)[0]


# --- The demo league at week 6 -------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test reads the database; each runs in its own savepoint."""


week_6 = demo_world(6, scope="class")


def kdh_fixtures(number: int) -> list[Fixture]:
    return list(
        Fixture.objects.filter(
            pool_round__round__competition="kdh", pool_round__round__number=number
        )
        .select_related("home__team", "away__team", "result__winner__team")
        .order_by("id")
    )


class TestTheDemoAtWeek6:
    def test_every_round_has_a_slot_per_game_from_the_qualifying_round_to_the_final(
        self, week_6: DemoLeague
    ) -> None:
        html = _client().get("/standings/kdh/").content.decode()
        found = columns(html)
        assert list(found) == [1, 2, 3, 4, 5, 6, 7]
        assert {number: len(slots(column)) for number, column in found.items()} == KDH_SLOTS
        # The qualifying round beside the bracket, its own column, with the teams it exempted.
        assert 'class="bracket-round bracket-qualifying' in html.split('id="round-1"')[0][-200:]
        assert "44 teams exempt from it (R17)" in found[1]
        assert found[1].count('<li><a class="slot-team"') == 44
        labels = [
            _text(re.search(r"<h3[^>]*>(.*?)</h3>", column).group(1))  # type: ignore[union-attr]
            for column in found.values()
        ]
        assert labels == [
            "Qualifying round",
            "Round of 64",
            "Round of 32",
            "Round of 16",
            "Quarter-finals",
            "Semi-finals",
            "Final",
        ]

    def test_a_game_whose_side_has_no_result_row_still_shows_both_teams_and_its_winner(
        self, week_6: DemoLeague
    ) -> None:
        """The games' sides are the entries read with the round's result rows; one without a
        row (the arbitration always stores one) is read on its own."""
        fixture = kdh_fixtures(2)[0]
        with unguarded():
            TeamResult.objects.filter(pool_round=fixture.pool_round, entry=fixture.home).delete()
        [shown] = pool_rounds_results(pool_rounds=[fixture.pool_round])
        game = next(game for game in shown.games if game.fixture.pk == fixture.pk)
        assert (game.home.team.slug, game.away.team.slug) == (
            fixture.home.team.slug,
            fixture.away.team.slug,
        )
        assert game.winner is not None and fixture.result.winner is not None
        assert game.winner.team.slug == fixture.result.winner.team.slug
        assert game.home.division == fixture.home.division

    def test_published_games_show_their_winner_score_and_how_they_were_decided(
        self, week_6: DemoLeague
    ) -> None:
        found = columns(_client().get("/standings/kdh/").content.decode())
        marks = {"extra_time": "AP", "shootout": "SO", "die": "die", "forfeit": "forfeit"}
        for number in (1, 2, 3, 4):
            shown = slots(found[number])
            fixtures = kdh_fixtures(number)
            assert all(kind.split()[0] == "slot-game" for kind, _ in shown)
            for (_, text), fixture in zip(shown, fixtures, strict=True):
                result = fixture.result
                home, away = fixture.home.team.name, fixture.away.team.name
                assert text.startswith(home) and away in text
                assert (
                    f"{home} " + ("(goes on) " if result.winner_id == fixture.home_id else "")
                    in text + " "
                )
                assert str(result.home_goals) in text and str(result.away_goals) in text
                mark = marks.get(result.decided)
                for name in (home, away):  # R15: a lucky loser's reason follows the game's mark
                    said = f" {name} goes on: "
                    if said in text:
                        text, why = text.split(said)
                        assert "(R15)" in why, why
                if result.winner_id is None:  # R15: a double forfeit, both out
                    mark = f"{mark} · both out, a lucky loser goes on (R15)"
                assert (mark is not None and text.endswith(mark)) or (
                    mark is None and text.split()[-1].isdigit()
                ), text
            decided = Counter(fixture.result.decided for fixture in fixtures)
            assert found[number].count('class="slot-how"') == sum(
                n for value, n in decided.items() if value != "regulation"
            )
            # R15: a lucky loser takes the place of each double forfeit's two teams.
            assert f"{len(fixtures)} teams go on." in found[number]

    def test_lucky_losers_are_marked_where_the_demo_has_one(self, week_6: DemoLeague) -> None:
        html = _client().get("/standings/kdh/").content.decode()
        lucky = 0
        for pool_round in PoolRound.objects.filter(pool__competition="kdh", status="published"):
            fixtures = Fixture.objects.filter(pool_round=pool_round).select_related("result")
            losers = {f.away_id if f.result.winner_id == f.home_id else f.home_id for f in fixtures}
            lucky += len(losers & {entry.pk for entry in pool_round.qualified.all()})
        # Each lucky loser, and the legend's mark.
        assert html.count('<span class="slot-note">lucky loser</span>') == lucky + 1
        double = FixtureResult.objects.filter(
            fixture__pool_round__pool__competition="kdh", winner__isnull=True
        ).count()
        both_out = 'both out, a lucky loser goes on (<a href="/rules/#r15">R15</a>)'
        assert html.count(both_out) == double

    def test_the_drawn_round_is_current_and_the_rounds_after_it_wait_for_their_draw(
        self, week_6: DemoLeague
    ) -> None:
        html = _client().get("/standings/kdh/").content.decode()
        found = columns(html)
        current = re.findall(
            r'<section class="bracket-round[^"]*is-current[^"]*" id="([^"]+)"', html
        )
        assert current == ["round-5"]
        assert "current round" in found[5]
        quarter = slots(found[5])
        assert [kind for kind, _ in quarter] == ["slot-drawn"] * 4
        for (_, text), fixture in zip(quarter, kdh_fixtures(5), strict=True):
            assert text == f"{fixture.home.team.name} {fixture.away.team.name} to come"
        for number in (6, 7):
            assert "Drawn when the previous round is published." in found[number]
            assert {kind for kind, _ in slots(found[number])} == {"slot-empty"}
        assert '<a class="chip" href="#round-5" aria-current="step">' in html

    def test_a_team_is_followed_along_its_path(self, week_6: DemoLeague) -> None:
        # A team still in the cup: its games so far, round by round (R17).
        team = kdh_fixtures(5)[0].home
        played = {
            number: sum(team.pk in (f.home_id, f.away_id) for f in kdh_fixtures(number))
            for number in range(1, 8)
        }
        html = _client().get(f"/standings/kdh/?team={team.team.slug}").content.decode()
        found = columns(html)
        followed = {
            number: [text for kind, text in slots(column) if "is-followed" in kind]
            for number, column in found.items()
        }
        assert {number: len(games) for number, games in followed.items()} == played
        if not played[1]:  # exempt from the qualifying round (R17): marked among the exempt
            assert '<li class="followed"><a class="slot-team"' in found[1]
        assert all(team.team.name in games[0] for games in followed.values() if games)
        assert f'<option value="{team.team.slug}" selected>' in html
        assert f"Following {team.team.name}: its games are outlined." in _text(html)
        # Nobody is followed by default, nor with an unknown team.
        for path in ("/standings/kdh/", "/standings/kdh/?team=nobody"):
            assert "is-followed" not in _client().get(path).content.decode()

    def test_the_coachs_own_team_is_followed_unless_they_ask_for_none(
        self, week_6: DemoLeague
    ) -> None:
        fixture = kdh_fixtures(5)[0]
        coach = fixture.home.team.coach
        assert coach is not None
        client = _client()
        client.force_login(coach)
        html = client.get("/standings/kdh/").content.decode()
        assert len(re.findall(r'class="slot slot-\w+ is-followed"', html)) >= 1
        assert f'<option value="{fixture.home.team.slug}" selected>' in html
        assert "is-followed" not in client.get("/standings/kdh/?team=").content.decode()

    def test_an_arbitrated_round_changes_nothing_until_it_is_published(
        self, week_6: DemoLeague
    ) -> None:
        team = kdh_fixtures(5)[0].home.team.slug
        paths = ("/standings/kdh/", f"/standings/kdh/?team={team}")
        before = [bracket_part(_client().get(path).content.decode()) for path in paths]
        quarter = PoolRound.objects.get(pool__competition="kdh", round__number=5)
        services.pool_round_arbitrate(pool_round=quarter, by=week_6.referee)
        # The semi-finals are drawn now (R17), in the referee's hands only.
        assert Fixture.objects.filter(pool_round__round__number=6, pool_round__pool=quarter.pool)
        after = [bracket_part(_client().get(path).content.decode()) for path in paths]
        assert after == before

        services.pool_round_publish(pool_round=quarter, by=week_6.referee)
        found = columns(_client().get("/standings/kdh/").content.decode())
        assert {kind for kind, _ in slots(found[5])} == {"slot-game"}
        assert [kind for kind, _ in slots(found[6])] == ["slot-drawn"] * 2
        assert 'is-current" id="round-6"' in _client().get("/standings/kdh/").content.decode()

    def test_the_bracket_speaks_french(self, week_6: DemoLeague) -> None:
        html = _client().get("/standings/kdh/", headers={"accept-language": "fr"}).content.decode()
        assert '<html lang="fr">' in html
        assert "Tour préliminaire" in html and "32es de finale" in html


# --- A small league: a lucky loser, a bye, the final ---------------------------------------------


@pytest.fixture
def made(season: Season, divisions: dict[str, Division]) -> League:
    referee = User.objects.create_user("cup-referee", password="x")
    league = build_league(season=season, divisions=divisions, referee=referee)
    add_kdh(league)  # R17: twelve teams, codes 05–12 play the qualifying round
    return league


def publish(made: League, number: int, **send: object) -> None:
    pool_round = made.play("kdh", number, **send)  # type: ignore[arg-type]
    services.pool_round_publish(pool_round=pool_round, by=made.referee)


def test_a_twelve_team_field_has_four_rounds(made: League) -> None:
    bracket = kdh_bracket(pool=made.pools["kdh"])
    assert [(column.label, len(column.slots)) for column in bracket.columns] == [
        ("qualifying round", 4),
        ("quarter-finals", 4),
        ("semi-finals", 2),
        ("final", 1),
    ]
    assert bracket.qualifying is not None and bracket.qualifying.current
    assert len(bracket.exempt) == 4 and len(bracket.teams) == 12
    assert [slot.kind for slot in bracket.rounds[0].slots] == [SlotKind.EMPTY] * 4


def test_a_double_forfeit_sends_a_lucky_loser_on(made: League) -> None:
    (first_home, first_away), *_ = made.games("kdh", 1)
    publish(made, 1, skip=[first_home, first_away])  # R15: both ONR, both out
    bracket = kdh_bracket(pool=made.pools["kdh"])
    games = bracket.qualifying.slots  # type: ignore[union-attr]
    assert games[0].both_out and games[0].game.mark == "forfeit"  # type: ignore[union-attr]
    lucky = [side for slot in games for side in slot.sides if side.lucky_loser]
    assert len(lucky) == 1 and lucky[0].goes_on and lucky[0].goals is not None
    html = _client().get("/standings/kdh/").content.decode()
    assert html.count('<span class="slot-note">lucky loser</span>') == 2  # and the legend's
    assert 'both out, a lucky loser goes on (<a href="/rules/#r15">R15</a>)' in html
    assert "4 teams go on." in html


def test_an_odd_number_left_gives_a_bye(made: League) -> None:
    games = made.games("kdh", 1)
    # R15: one game lost by two ONR teams, three by one: three winners, no loser to go on
    # in the first game's place, the four exempt teams: seven, so one bye.
    skip = [*games[0], games[1][0], games[2][0], games[3][0]]
    publish(made, 1, skip=skip)
    bracket = kdh_bracket(pool=made.pools["kdh"])
    quarter = bracket.rounds[0]
    assert quarter.drawn and quarter.current
    assert Counter(slot.kind for slot in quarter.slots) == {SlotKind.DRAWN: 3, SlotKind.BYE: 1}
    html = _client().get("/standings/kdh/").content.decode()
    assert "bye: no game this round" in columns(html)[2]


def test_the_final_names_the_winner(made: League) -> None:
    for number in (1, 2, 3, 4):
        publish(made, number)
    bracket = kdh_bracket(pool=made.pools["kdh"])
    final = bracket.rounds[-1]
    assert final.published and final.current
    (game,) = final.slots
    assert game.game is not None and bracket.winner == game.game.winner
    html = _client().get("/standings/kdh/").content.decode()
    assert f"{bracket.winner.team.name} won the cup." in _text(html)  # type: ignore[union-attr]
    assert "current round" not in html


def test_a_pool_without_its_field_shows_the_rounds_played(
    season: Season, divisions: dict[str, Division]
) -> None:
    """A season imported without its KDH's members: the rounds as the calendar names them."""
    referee = User.objects.create_user("cup-referee", password="x")
    league = build_league(season=season, divisions=divisions, referee=referee)
    add_kdh(league)
    Pool.objects.get(pk=league.pools["kdh"].pk).members.all().delete()
    bracket = kdh_bracket(pool=league.pools["kdh"])
    assert [(column.label, column.drawn) for column in bracket.columns] == [
        ("qualifying round", True)
    ]
    assert bracket.exempt == () and Entry.objects.filter(season=season).count() == 12
