"""Every score explained (R3) through the site: a published round's page opens each game on how
each team's goals were made, the results API gives each team's ``explanation``, the results
email says it for the coach's own game — from the stored rows alone. The expected steps are
worked out by hand from the matrix rows and the picks. Nothing before publication."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from html import unescape
from itertools import product

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from competitions import services as competitions
from competitions.models import (
    Competition,
    FixtureResult,
    MatrixCell,
    PoolRound,
    TeamResult,
)
from engine import Dice, commitment, explain, play_round
from league.models import Division, Profile, Season
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.arbitration_league import add_kdh, add_wg, build_league, default_value
from tests.competitions.results_league import RulesWeek, game_explanations

pytestmark = pytest.mark.django_db

URL = "/results/championship/elite/1/"
API = "/api/results/championship/elite/1/"
PEOPLE = [None, "visitor", "coach", "other_coach", "referee", "admin_user"]
Capture = Callable[..., object]
SignIn = Callable[[User | None], APIClient]

COLUMN_F = ("+5", "Column F is worth 5 in this round's row (R1).")
F_CROWDED = ("−3", "3 other teams of the pool played F: one goal off for each (R1, R2).")
D_OR_I = "1 other team of the pool played {}: one goal off (R1, R2)."

# Rules section 3.1.4, week 1 (row A3 B3 C1 D4 E3 F5 G1 H1 I4 J3 K2), worked by hand: four
# regular teams on F (−3 each), the ONR Cybérians at the regulars' 2 minus 1, two teams on D
# and on I (−1 each), the Freezing Ass' bonus goal, the Igloos' great save, the Snowmen's golden
# goal (3 against 1) and the Igloos–Icebergs draw (3 against 3). The rules' last line « 6-7 AP »
# is a misprint: J = 3 and K = 2, so 3-2.
WORKED = [
    {
        "Sleigh Dogs [F+(2)]": [
            COLUMN_F,
            F_CROWDED,
            ("+1", "1 extra goal played (R6)."),
            ("=", "3 goals"),
        ],
        "Ice Crocodiles [F(0)]": [COLUMN_F, F_CROWDED, ("=", "2 goals")],
    },
    {
        "Cybérians [ONR : F(X)]": [
            (
                "0",
                "No picks received (ONR): column F and extra-time value X drawn at random (R4).",
            ),
            COLUMN_F,
            ("−3", "4 regular teams played F: one goal off for each but one (R4)."),
            ("−1", "No picks received: the regular teams' value minus 1 (R4)."),
            ("=", "1 goal"),
        ],
        "Grizzlies [F(2)]": [COLUMN_F, F_CROWDED, ("=", "2 goals")],
    },
    {
        "Snowmen [I(3)]": [
            ("+4", "Column I is worth 4 in this round's row (R1)."),
            ("−1", D_OR_I.format("I")),
            (
                "+1",
                "Tied after regular time: extra-time value 3 against 1, the golden goal (R3, R7).",
            ),
            ("=", "4 goals"),
        ],
        "Teddy Bears [D(1)]": [
            ("+4", "Column D is worth 4 in this round's row (R1)."),
            ("−1", D_OR_I.format("D")),
            ("0", "Tied after regular time: extra-time value 1 against 3: no goal (R3, R7)."),
            ("=", "3 goals"),
        ],
    },
    {
        "Freezing Ass [D++*(1)]": [
            ("+4", "Column D is worth 4 in this round's row (R1)."),
            ("−1", D_OR_I.format("D")),
            ("+2", "2 extra goals played (R6)."),
            ("+1", "Bonus goal (R5)."),
            ("=", "6 goals"),
        ],
        "Groggs [B(X)]": [
            ("+3", "Column B is worth 3 in this round's row (R1)."),
            ("=", "3 goals"),
        ],
    },
    {
        "Igloos [F#(3)]": [
            COLUMN_F,
            F_CROWDED,
            (
                "0",
                "Tied after regular time: extra-time value 3 against 3, equal: no goal"
                " (R3, R7, R8).",
            ),
            ("=", "2 goals"),
        ],
        "Icebergs [I(3)]": [
            ("+4", "Column I is worth 4 in this round's row (R1)."),
            ("−1", D_OR_I.format("I")),
            ("−1", "The opponent's 1 great save (R3, R6)."),
            (
                "0",
                "Tied after regular time: extra-time value 3 against 3, equal: no goal"
                " (R3, R7, R8).",
            ),
            ("=", "2 goals"),
        ],
    },
    {
        "Puck Pukers [J(1)]": [
            ("+3", "Column J is worth 3 in this round's row (R1)."),
            ("=", "3 goals"),
        ],
        "Ice Breakers [K(3)]": [
            ("+2", "Column K is worth 2 in this round's row (R1)."),
            ("=", "2 goals"),
        ],
    },
]


@pytest.fixture
def week(week: RulesWeek, coach: User) -> RulesWeek:
    # The Sleigh Dogs' coach reads English; the Freezing Ass' coach keeps the league's French.
    Profile.objects.update_or_create(user=coach, defaults={"language": "en"})
    return week


def page(client: Client, url: str = URL, language: str = "en", user: User | None = None) -> str:
    if user is not None:
        client.force_login(user)
    response = client.get(url, headers={"accept-language": language})
    assert response.status_code == 200
    return response.content.decode()


def publish(week: RulesWeek, capture: Capture) -> None:
    week.arbitrate()
    with capture(execute=True):  # the results emails' rows commit with the publication
        week.publish()
    emails_send_due()  # what the worker woken by the commit does: render and send them


# --- The rules' worked example ----------------------------------------------------------------


def test_each_game_opens_on_how_its_goals_were_made(
    client: Client, week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    publish(week, django_capture_on_commit_callbacks)
    html = page(client)
    assert html.count('<details class="explain">') == 6
    assert "<script" not in html.split("<main", 1)[1].split("</main>", 1)[0]
    assert game_explanations(html) == [
        {team: list(steps) for team, steps in game.items()} for game in WORKED
    ]


def test_the_explanation_is_in_french_too(
    client: Client, week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    publish(week, django_capture_on_commit_callbacks)
    games = game_explanations(page(client, language="fr"))
    assert "Comment les buts ont été marqués" in page(client, language="fr")
    assert games[0]["Sleigh Dogs [F+(2)]"] == [
        ("+5", "La colonne F vaut 5 dans la ligne de cette journée (R1)."),
        ("−3", "3 autres équipes de la poule ont joué F : un but de moins pour chacune (R1, R2)."),
        ("+1", "1 extra-but joué (R6)."),
        ("=", "3 buts"),
    ]
    assert games[1]["Cybérians [ONR : F(X)]"][2:4] == [
        ("−3", "4 équipes régulières ont joué F : un but de moins pour chacune sauf une (R4)."),
        ("−1", "Ordres non reçus : la valeur des équipes régulières moins 1 (R4)."),
    ]
    assert games[2]["Snowmen [I(3)]"][2] == (
        "+1",
        "À égalité après le temps réglementaire : valeur de prolongation 3 contre 1, le but en or"
        " (R3, R7).",
    )


def test_the_api_gives_each_teams_steps(
    api_as: SignIn, week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    publish(week, django_capture_on_commit_callbacks)
    teams = api_as(None).get(API).json()["teams"]
    column_f = {"code": "column", "amount": 5, "column": "F", "value": 5}
    crowded_f = {"code": "crowding", "amount": -3, "column": "F", "others": 3}
    assert teams["sleigh-dogs"]["explanation"] == [
        column_f,
        crowded_f,
        {"code": "extra_goals", "amount": 1, "count": 1},
    ]
    assert teams["cyberians"]["explanation"] == [
        {"code": "onr_pick", "amount": 0, "column": "F", "played": "X"},
        column_f,
        {"code": "onr_crowding", "amount": -3, "column": "F", "others": 4},
        {"code": "onr_penalty", "amount": -1},
    ]
    assert teams["snowmen"]["explanation"][-1] == {
        "code": "extra_time",
        "amount": 1,
        "played": "3",
        "value": 3,
        "opponent": 1,
    }
    assert teams["icebergs"]["explanation"][2] == {"code": "great_saves", "amount": -1, "count": 1}
    assert teams["freezing-ass"]["explanation"][-1] == {"code": "bonus_goal", "amount": 1}
    assert teams["puck-pukers"]["explanation"] == [
        {"code": "column", "amount": 3, "column": "J", "value": 3}
    ]
    for slug, team in teams.items():
        assert sum(step["amount"] for step in team["explanation"]) == team["goals"], slug


def test_the_stored_rows_explain_what_the_engine_explains_of_its_own_round(
    api_as: SignIn, week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    publish(week, django_capture_on_commit_callbacks)
    given = competitions.pool_round_input(
        pool_round=week.pool_round, as_of=week.pool_round.arbitrated_at
    ).round
    from_engine = explain(given, play_round(given))
    teams = api_as(None).get(API).json()["teams"]
    assert {team: fields["explanation"] for team, fields in teams.items()} == {
        team: [step.as_dict() for step in steps] for team, steps in from_engine.items()
    }


def test_the_results_email_explains_the_coachs_own_game(
    week: RulesWeek,
    coach: User,
    other_coach: User,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    publish(week, django_capture_on_commit_callbacks)
    emails = {
        email.to[0]: email for email in OutboundEmail.objects.filter(template="results-published")
    }
    english, french = emails[coach.email], emails[other_coach.email]
    assert (
        "How the goals were made:\n\n"
        "    Sleigh Dogs [F+(2)]\n"
        "      +5  Column F is worth 5 in this round's row (R1).\n"
        "      −3  3 other teams of the pool played F: one goal off for each (R1, R2).\n"
        "      +1  1 extra goal played (R6).\n"
        "      = 3 goals\n\n"
        "    Ice Crocodiles [F(0)]\n"
        "      +5  Column F is worth 5 in this round's row (R1).\n"
        "      −3  3 other teams of the pool played F: one goal off for each (R1, R2).\n"
        "      = 2 goals\n"
    ) in english.body_text
    # Only the coach's own game is explained.
    assert "Bonus goal (R5)." not in english.body_text
    # The HTML email links each ruling it cites to the rules' guide.
    assert (
        "Column F is worth 5 in this round's row "
        '(<a href="http://127.0.0.1:8000/rules/#r1">R1</a>).'
    ) in unescape(english.body_html)
    assert "Rules: http://127.0.0.1:8000/rules/\n" in english.body_text
    assert "= 3" in english.body_html
    assert (
        "Comment les buts ont été marqués :\n\n"
        "    Freezing Ass [D++*(1)]\n"
        "      +4  La colonne D vaut 4 dans la ligne de cette journée (R1).\n"
        "      −1  1 autre équipe de la poule a joué D : un but de moins (R1, R2).\n"
        "      +2  2 extra-buts joués (R6).\n"
        "      +1  But bonus (R5).\n"
        "      = 6 buts\n\n"
        "    Groggs [B(X)]\n"
        "      +3  La colonne B vaut 3 dans la ligne de cette journée (R1).\n"
        "      = 3 buts\n"
    ) in french.body_text
    assert 'But bonus (<a href="http://127.0.0.1:8000/rules/#r5">R5</a>).' in french.body_html


# --- Secrecy: nothing before publication --------------------------------------------------------


@pytest.mark.parametrize("who", PEOPLE)
def test_an_arbitrated_round_explains_nothing_before_publication(
    client: Client,
    api_as: SignIn,
    week: RulesWeek,
    who: str | None,
    request: pytest.FixtureRequest,
) -> None:
    week.arbitrate()
    user = request.getfixturevalue(who) if who else None
    html = page(client, user=user)
    assert 'class="explain"' not in html and "How the goals were made" not in html
    assert "Column F is worth" not in html
    body = api_as(user).get(API).content.decode()
    assert "explanation" not in body and "crowding" not in body
    referee_view = api_as(user).get("/api/arbitrations/championship/elite/1/")
    assert "explanation" not in referee_view.content.decode()
    assert not OutboundEmail.objects.filter(template="results-published").exists()


# --- A second round: great saves against an extra goal, an R11 redraw, an offside bonus ----------

# Round 2's row of the test matrix (arbitration_league.default_value): A3 B4 C5 D6 E1 F2 G3 H4
# I5 J6 K1.
ROW_2 = {column: default_value(2, index) for index, column in enumerate("ABCDEFGHIJK")}
PICKS_2 = {
    "Sleigh Dogs": "H(1)",
    "Ice Crocodiles": "H(2)",  # H = 4, two teams on it: K is left free for the redraw
    "Cybérians": None,  # ONR again
    "Grizzlies": "E(1)",
    "Snowmen": "C+(1)",  # C = 5, one extra goal...
    "Teddy Bears": "A#(2)",  # ...cancelled by one great save: 5-3
    "Freezing Ass": "B(3)",
    "Groggs": "D(3)",
    "Igloos": "I(2)",
    "Icebergs": "F(2)",
    "Puck Pukers": "J(2)",  # J was played in round 1: redrawn (R11)
    "Ice Breakers": "G(0)",
}


def second_round_seed(week: RulesWeek) -> str:
    """A seed whose draws (R23's dice, in the engine's order: the bonus goal among the twelve
    teams by id, the ONR Cybérians' column and extra-time value, the Puck Pukers' redraw) give
    the bonus goal to the ONR Cybérians and redraw the Puck Pukers onto a column nobody else
    plays, so that the hand-worked figures below hold."""
    teams = sorted(week.entries)
    taken = {notation[0] for notation in PICKS_2.values() if notation}
    for number in range(2000):
        dice = Dice(f"explain-round-2/{number}")
        bonus = dice.choice("bonus_goal", teams)
        dice.choice("onr_column", [c for c in "ABCDEFGHIJK" if c != "F"])
        dice.choice("onr_extra_time", ["0", "1", "2", "3"])
        redrawn = dice.choice("redraw_column", [c for c in "ABCDEFGHIJK" if c != "J"])
        if bonus == "cyberians" and redrawn not in taken:
            return dice.seed
    raise AssertionError("no seed found")


@pytest.fixture
def second_round(
    week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> tuple[PoolRound, str]:
    publish(week, django_capture_on_commit_callbacks)
    round = competitions.round_create(
        season=week.season, competition=Competition.CHAMPIONSHIP, number=2, week=2
    )
    pool_round = competitions.pool_round_create(pool=week.pool, round=round)
    seed = second_round_seed(week)
    PoolRound.objects.filter(pk=pool_round.pk).update(seed=seed, seed_hash=commitment(seed))
    entries = {entry.team.name: entry for entry in week.entries.values()}
    for home, away in [
        ("Sleigh Dogs", "Ice Crocodiles"),
        ("Cybérians", "Grizzlies"),
        ("Snowmen", "Teddy Bears"),
        ("Freezing Ass", "Groggs"),
        ("Igloos", "Icebergs"),
        ("Puck Pukers", "Ice Breakers"),
    ]:
        competitions.fixture_create(pool_round=pool_round, home=entries[home], away=entries[away])
    for name, notation in PICKS_2.items():
        if notation is not None:
            competitions.pick_record(
                entry=entries[name],
                round=round,
                notation=notation,
                normalized=notation,
                channel="web",
                received_at=round.deadline - timedelta(days=5),
            )
    pool_round = PoolRound.objects.select_related("pool", "round").get(pk=pool_round.pk)
    competitions.pool_round_arbitrate(pool_round=pool_round, by=week.referee)
    competitions.pool_round_publish(pool_round=pool_round, by=week.referee, announce=False)
    played = TeamResult.objects.get(pool_round=pool_round, entry__team__slug="puck-pukers")
    return pool_round, played.column


def test_great_saves_cancel_an_extra_goal_an_r11_redraw_and_an_offside_bonus(
    client: Client, api_as: SignIn, second_round: tuple[PoolRound, str]
) -> None:
    _, redrawn = second_round
    teams = api_as(None).get("/api/results/championship/elite/2/").json()["teams"]
    # C = 5 alone, +1 extra goal, −1 for the Teddy Bears' great save: 5. A = 3 alone: 3.
    assert teams["snowmen"]["explanation"] == [
        {"code": "column", "amount": 5, "column": "C", "value": 5},
        {"code": "extra_goals", "amount": 1, "count": 1},
        {"code": "great_saves", "amount": -1, "count": 1},
    ]
    assert teams["snowmen"]["goals"] == 5 and teams["teddy-bears"]["goals"] == 3
    # R11: J asked, already played in round 1: redrawn onto a column nobody else plays.
    assert teams["puck-pukers"]["explanation"] == [
        {"code": "redraw", "amount": 0, "part": "column", "asked": "J", "played": redrawn},
        {"code": "column", "amount": ROW_2[redrawn], "column": redrawn, "value": ROW_2[redrawn]},
    ]
    # R5: the bonus goal drawn for the ONR Cybérians is offside: nobody gets it.
    assert teams["cyberians"]["explanation"][-1] == {"code": "offside", "amount": 0}
    assert not any(team["bonus_goal"] for team in teams.values())
    games = game_explanations(page(client, "/results/championship/elite/2/"))
    assert games[1][f"Cybérians [{teams['cyberians']['display']}]"][-2] == (
        "0",
        "The bonus goal was drawn for this team, which sent no picks: offside, denied (R5).",
    )
    assert games[2]["Snowmen [C+(1)]"] == [
        ("+5", "Column C is worth 5 in this round's row (R1)."),
        ("+1", "1 extra goal played (R6)."),
        ("−1", "The opponent's 1 great save (R3, R6)."),
        ("=", "5 goals"),
    ]
    assert games[5][f"Puck Pukers [{redrawn}(2)]"][0] == (
        "0",
        f"Column J asked was already used: redrawn as {redrawn}, with no penalty (R11).",
    )


# --- The KDH: a shootout -------------------------------------------------------------------------


def test_a_kdh_shootout_and_a_forfeit_are_explained(
    client: Client, api_as: SignIn, season: Season, divisions: dict[str, Division]
) -> None:
    referee = User.objects.create_user("cup-referee", password="x")
    made = build_league(season=season, divisions=divisions, referee=referee)
    add_kdh(made)
    games = made.games("kdh", 1)
    (home, away), (winner, forfeiting), others = games[0], games[1], games[2:]
    # KDH round 1's row: A2 B3 C4 D5 E6 F1 G2. A and G are worth 2, nobody else plays them:
    # 2-2, extra time 1 against 1, then the shootout 4 against 2 (R8): the score stays 2-2.
    picks = {home: "A(1)(4)", away: "G(1)(2)", winner: "E(2)(5)"}
    picks |= {team: "C(0)(0)" for game in others for team in game}
    # R15: the second game's away team sends nothing and forfeits; E = 6, nobody else on it.
    made.send_all("kdh", 1, picks=picks, skip=[forfeiting])
    pool_round = made.pool_round("kdh", 1)
    competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
    competitions.pool_round_publish(pool_round=pool_round, by=referee, announce=False)
    teams = api_as(None).get("/api/results/kdh/kdh/1/").json()["teams"]
    assert teams[home]["explanation"] == [
        {"code": "column", "amount": 2, "column": "A", "value": 2},
        {"code": "extra_time", "amount": 0, "played": "1", "value": 1, "opponent": 1},
        {"code": "shootout", "amount": 0, "played": "4", "value": 4, "opponent": 2},
    ]
    assert teams[away]["explanation"][-1] == {
        "code": "shootout",
        "amount": 0,
        "played": "2",
        "value": 2,
        "opponent": 4,
    }
    assert teams[winner]["explanation"] == [
        {"code": "column", "amount": 6, "column": "E", "value": 6},
        {"code": "opponent_forfeit", "amount": 0},
    ]
    assert teams[forfeiting]["explanation"] == [{"code": "forfeit", "amount": 0}]
    explained = game_explanations(page(client, "/results/kdh/kdh/1/"))
    name = made.entries[home].team.name
    assert explained[0][f"{name} [A(1)(4)]"][2] == (
        "0",
        "Still tied: shootout value 4 against 2, won; the score stays (R8).",
    )
    assert explained[1][f"{made.entries[forfeiting].team.name} [ONR]"] == [
        ("0", "No picks received: lost by forfeit (R15)."),
        ("=", "0 goals"),
    ]


# --- The WG knockout: a tie decided on the group games' goals -------------------------------------


def test_a_wg_semi_final_tied_after_extra_time_goes_to_the_group_goals(
    api_as: SignIn, season: Season, divisions: dict[str, Division]
) -> None:
    referee = User.objects.create_user("wg-referee", password="x")
    made = build_league(season=season, divisions=divisions, referee=referee)
    add_wg(made, list(made.entries))
    wg = made.pools["wg"]
    for number in range(1, 7):
        made.play("wg", number)
        competitions.pool_round_publish(pool_round=made.pool_round("wg", number), by=referee)
    semis = made.games("wg", 7)
    # Every column of round 7's row worth 3, so that a semi-final whose two teams are crowded
    # alike is tied; both play extra-time value 2 (R8: then the group goals decide).
    MatrixCell.objects.filter(
        matrix__season=season, matrix__competition=Competition.WG, round_number=7
    ).update(value=3)
    used: dict[str, set[str]] = {}
    for team, column in TeamResult.objects.filter(pool_round__pool=wg).values_list(
        "entry__team__slug", "column"
    ):
        used.setdefault(team, set()).add(column)
    teams = [team for game in semis for team in game]
    for combo in product(*(sorted(set("ABCDEFGH") - used[team]) for team in teams)):
        chosen = dict(zip(teams, combo, strict=True))
        crowd = Counter(combo)
        goals = {team: max(0, 3 - (crowd[column] - 1)) for team, column in chosen.items()}
        tied = [(home, away) for home, away in semis if goals[home] == goals[away]]
        if tied:
            break
    made.play("wg", 7, picks={team: f"{column}(2)" for team, column in chosen.items()})
    competitions.pool_round_publish(pool_round=made.pool_round("wg", 7), by=referee)
    # Each team's goals in the six group rounds, counted from the stored games.
    group_goals = Counter[str]()
    for home, away, home_goals, away_goals in FixtureResult.objects.filter(
        fixture__pool_round__pool=wg, fixture__pool_round__round__number__lte=6
    ).values_list(
        "fixture__home__team__slug", "fixture__away__team__slug", "home_goals", "away_goals"
    ):
        group_goals[home] += home_goals
        group_goals[away] += away_goals
    body = api_as(None).get("/api/results/wg/wg/7/").json()
    home, away = tied[0]
    column, others = chosen[home], crowd[chosen[home]] - 1
    expected = [{"code": "column", "amount": 3, "column": column, "value": 3}]
    if others:
        expected.append({"code": "crowding", "amount": -others, "column": column, "others": others})
    expected += [
        {"code": "extra_time", "amount": 0, "played": "2", "value": 2, "opponent": 2},
        {
            "code": "group_goals",
            "amount": 0,
            "value": group_goals[home],
            "opponent": group_goals[away],
        },
    ]
    if group_goals[home] == group_goals[away]:
        winner = next(m["winner"] for m in body["matches"] if m["home"] == home)
        expected.append({"code": "die", "amount": 0, "won": winner == home})
    assert body["teams"][home]["explanation"] == expected
