"""The rules on the site: the guide (/rules/) in French and English with every ruling R1–R25
under its anchor, its live examples against figures worked out by hand from the rulebook's
matrix, and the rulings page (/rules/rulings/) with what the league added, newest first."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from league.models import RULES_VERSION, PublicVersion, Ruling, Season
from league.rules import rules_examples

SECTIONS = (
    "matrix",
    "stocks",
    "bonus",
    "extra-time",
    "picks",
    "onr",
    "championship",
    "kdh",
    "wg",
    "season-end",
    "fairness",
    "worked-example",
)
HEADINGS = {
    "en": (
        "The matrix and crowding",
        "Extra goals and great saves",
        "The bonus goal",
        "Extra time and the shootout",
        "No picks received (ONR) and its sanctions",
        "The championship",
        "The KDH cup",
        "The WG cup",
        "The season's end",
        "A whole championship week",
    ),
    "fr": (
        "La matrice et l’encombrement",
        "Extra-buts et super-arrêts",
        "Le but bonus",
        "La prolongation et les tirs au but",
        "Ordres non reçus (ONR) et sanctions",
        "Le championnat",
        "La coupe KDH",
        "La coupe WG",
        "La fin de saison",
        "Une semaine complète de championnat",
    ),
}


def ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def guide(client: Client, language: str) -> str:
    client.cookies["django_language"] = language
    response = client.get(reverse("rules"))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_guide_has_every_section_and_every_ruling_anchor(client: Client, language: str) -> None:
    html = guide(client, language)
    anchors = ids(html)
    assert {f"r{n}" for n in range(1, 26)} <= anchors
    assert set(SECTIONS) <= anchors
    for heading in HEADINGS[language]:
        assert heading.replace("'", "&#x27;") in html or heading in html, heading
    # The table of contents leads to each section and each ruling.
    for target in (*SECTIONS, *(f"r{n}" for n in range(1, 26))):
        assert f'href="#{target}"' in html, target
    assert f'lang="{language}"' in html


@pytest.mark.django_db
def test_the_french_guide_writes_the_typographic_apostrophe(client: Client) -> None:
    """« l’équipe », not « l'équipe » (Django escapes a straight one as &#x27;)."""
    text = re.sub(r"<[^>]*>", "", guide(client, "fr"))
    assert "’" in text
    assert re.findall(r"\w(?:'|&#x27;)\w", text) == []


@pytest.mark.django_db
def test_the_guide_is_two_texts_not_one_translated_twice(client: Client) -> None:
    english, french = guide(client, "en"), guide(client, "fr")
    assert "less one goal for every other team of your crowding pool" in english
    assert "moins un but pour chaque autre équipe de votre groupe d" in french
    assert "crowding pool" not in french


# --- The live examples, against figures worked out by hand ------------------------------------
# The rulebook's matrix (section 2.1.1): week 1 A3 B3 C1 D4 E3 F5 G1 H1 I4 J3 K2; week 5 A6 B6
# C6 D5 E2 F5 G6 H4 I5 J6 K6.


def score(example: str, game: int = 0) -> tuple[int, int, str]:
    played = rules_examples()[example].games[game]
    return played.home_goals, played.away_goals, played.decided


def test_crowding_three_others_on_c() -> None:
    # Week 5: C = 6, three other teams on C: 6 - 3 = 3. D = 5, nobody else on D.
    assert score("crowding") == (3, 5, "regulation")


def test_extra_goal_counts_after_the_floor_at_zero() -> None:
    # Week 5: E = 2, four teams on E: 2 - 3 = -1, so 0; one extra goal: 0 + 1 = 1.
    assert score("clamp") == (0, 1, "regulation")


def test_great_save_cancels_the_extra_goal() -> None:
    # 0 + 1 - 1 = 0 against 0; extra time 1 against 1: still level, a draw (R8).
    assert score("save") == (0, 0, "draw")


def test_onr_scores_the_column_less_one_and_its_bonus_goal_is_offside() -> None:
    # Week 5: the ONR team is drawn D = 5, no regular team on D: 5 - 1 = 4. E = 2 alone: 2.
    assert score("onr") == (4, 2, "regulation")
    assert rules_examples()["onr"].games[0].home_pick.startswith("ONR : D")
    # R5: drawn for the ONR team, the bonus goal is denied: nobody scores it.
    assert rules_examples()["onr"].bonus_goal is None


def test_golden_goal_in_extra_time() -> None:
    # Week 5: A = 6, B = 6: 6-6; extra time 3 > 1: the golden goal, 7-6.
    assert score("extra_time") == (7, 6, "extra_time")


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        # Four regular teams on F (5): 5 - 3 = 2. Sleigh Dogs 2 + 1 extra goal = 3.
        (0, (3, 2, "regulation")),
        # The ONR Cybérians: F worth 2 to the regular teams, 2 - 1 = 1; Grizzlies 2.
        (1, (1, 2, "regulation")),
        # Snowmen I: 4 - 1 (Icebergs on I) = 3; Teddy Bears D: 4 - 1 (Freezing Ass) = 3;
        # extra time 3 > 1: 4-3.
        (2, (4, 3, "extra_time")),
        # Freezing Ass D: 3 + 2 extra goals + bonus = 6; Groggs B: 3.
        (3, (6, 3, "regulation")),
        # Igloos F: 2; Icebergs I: 3 - 1 great save = 2; extra time 3 = 3: a draw.
        (4, (2, 2, "draw")),
        # Puck Pukers J = 3, Ice Breakers K = 2, nobody else on either: 3-2 (the printed
        # « 6-7 AP » is the rulebook's misprint).
        (5, (3, 2, "regulation")),
    ],
)
def test_the_rulebooks_worked_example(game: int, expected: tuple[int, int, str]) -> None:
    assert score("worked", game) == expected


def test_the_worked_example_shows_the_picks_as_results_do() -> None:
    games = rules_examples()["worked"].games
    assert [(g.home_pick, g.away_pick) for g in games] == [
        ("F+(2)", "F(0)"),
        ("ONR : F(X)", "F(2)"),
        ("I(3)", "D(1)"),
        ("D++*(1)", "B(X)"),
        ("F#(3)", "I(3)"),
        ("J(1)", "K(3)"),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_page_shows_the_engines_figures_and_names_the_misprint(
    client: Client, language: str
) -> None:
    html = guide(client, language)
    text = re.sub(r"<[^>]+>", "", html)
    assert "Puck Pukers [J(1)] – Ice Breakers [K(3)] : 3-2" in text
    assert "Snowmen [I(3)] – Teddy Bears [D(1)] : 4-3" in text
    assert "Snowmen [C(1)] – Sleigh Dogs [D(1)] : 3-5" in text
    assert "Cybérians [ONR : D" in text
    assert "6-7 AP" in text  # quoted as the misprint
    assert ("misprint" if language == "en" else "coquille") in text


@pytest.mark.django_db
def test_the_guide_reads_no_round_and_costs_no_query(client: Client, season: Season) -> None:
    # Nothing of the league's rounds: the examples are made-up rounds, played in memory.
    with CaptureQueriesContext(connection) as queries:
        guide(client, "en")
    tables = " ".join(q["sql"] for q in queries.captured_queries)
    assert "competitions_" not in tables
    assert len(queries.captured_queries) == 0


# --- The rulings page --------------------------------------------------------------------------


@pytest.fixture
def later_season(db: None) -> Season:
    return Season.objects.create(number=2, starts_on=timezone.localdate() + timedelta(days=300))


def test_the_admin_adds_a_ruling_and_it_shows_newest_first(
    admin_client: Client, season: Season, later_season: Season
) -> None:
    add = reverse("admin:league_ruling_add")
    first = {
        "number": 26,
        "kind": "ruling",
        "season": season.pk,
        "title_fr": "Remplaçants en fin de semaine",
        "title_en": "Late replacements",
        "text_fr": "Texte français (voir R14).",
        "text_en": "English text (see R14).",
        "_save": "Save",
    }
    assert admin_client.post(add, first).status_code == 302
    second = {
        **first,
        "number": 14,
        "kind": "clarification",
        "season": later_season.pk,
        "title_fr": "Double ONR",
        "title_en": "Double ONR",
    }
    assert admin_client.post(add, second).status_code == 302
    assert Ruling.objects.count() == 2
    page = admin_client.get(reverse("rulings")).content.decode()
    html = page[page.index('class="rulings-list"') :]  # past the admin's flash messages
    assert (
        html.index("Double ONR")
        < html.index("Late replacements")
        < html.index('href="/rules/#r25"')
    )
    assert 'id="r26"' in html
    assert "In force from Season 2" in html
    assert "In force from Saison 2026" in html
    # The text's citation links to the guide.
    assert 'see <a href="/rules/#r14">R14</a>' in html
    # In force in season 1: only R26.
    only_first = admin_client.get(reverse("rulings") + "?season=1").content.decode()
    assert "Late replacements" in only_first and "Double ONR" not in only_first


def test_a_ruling_saved_in_the_admin_moves_the_public_version(
    admin_client: Client, season: Season
) -> None:
    before = PublicVersion.objects.get().published
    data = {"number": 26, "kind": "ruling", "season": season.pk, "title_fr": "T", "title_en": "T"}
    response = admin_client.post(
        reverse("admin:league_ruling_add"), {**data, "text_fr": "T", "text_en": "T"}
    )
    assert response.status_code == 302
    assert PublicVersion.objects.get().published == before + 1


def test_a_new_ruling_needs_a_free_number_after_r25_and_a_clarification_a_real_one(
    admin_client: Client, season: Season
) -> None:
    add = reverse("admin:league_ruling_add")
    base = {
        "kind": "ruling",
        "season": season.pk,
        "title_fr": "T",
        "title_en": "T",
        "text_fr": "T",
        "text_en": "T",
        "_save": "Save",
    }
    assert admin_client.post(add, {**base, "number": 14}).status_code == 200
    assert (
        admin_client.post(add, {**base, "number": 30, "kind": "clarification"}).status_code == 200
    )
    assert admin_client.post(add, {**base, "number": 26}).status_code == 302
    assert admin_client.post(add, {**base, "number": 26}).status_code == 200
    assert Ruling.objects.count() == 1


@pytest.mark.parametrize("who", ["coach", "referee", "visitor"])
def test_only_staff_add_rulings(client: Client, request: pytest.FixtureRequest, who: str) -> None:
    user: User = request.getfixturevalue(who)
    client.force_login(user)
    response = client.get(reverse("admin:league_ruling_add"))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


@pytest.mark.django_db
@pytest.mark.parametrize("who", [None, "coach", "referee", "admin_user"])
def test_everyone_reads_the_rules(client: Client, request: pytest.FixtureRequest, who: str) -> None:
    if who is not None:
        client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("rules")).status_code == 200
    assert client.get(reverse("rulings")).status_code == 200


@pytest.mark.django_db
def test_an_unknown_season_on_the_rulings_page_is_a_404(client: Client) -> None:
    assert client.get(reverse("rulings") + "?season=9").status_code == 404
    assert client.get(reverse("rulings") + "?season=x").status_code == 404


def test_every_built_in_ruling_is_in_force_from_the_first_season(client: Client, db: None) -> None:
    html = client.get(reverse("rulings")).content.decode()
    for n in range(1, 26):
        assert f'href="/rules/#r{n}"' in html
    assert f"With the rulebook {RULES_VERSION}, from the first season" in html


# --- A season's rules version -------------------------------------------------------------------


def test_a_season_is_under_the_rulebook_v8_unless_it_says_otherwise(season: Season) -> None:
    assert RULES_VERSION == "v8"
    assert Season.objects.get(pk=season.pk).rules_version == "v8"


def test_an_archived_season_links_its_rules_and_the_rulings_in_force(
    client: Client, season: Season
) -> None:
    Season.objects.filter(pk=season.pk).update(rules_version="v7", status="finished")
    html = client.get(reverse("season", args=[season.number])).content.decode()
    assert 'data-rules-version="v7"' in html
    assert 'Played under the <a href="/rules/">rules v7</a>' in html
    assert 'href="/rules/rulings/?season=1"' in html
