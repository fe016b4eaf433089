"""The head-to-head and records pages, and the records broken on the home page (issue 25): their
figures are the memory's selectors' on a history built by hand
(``tests/competitions/memory_peers_league.py``), published results only — the running season's
Elite week 2, arbitrated and not published, would break « most goals in a game » and the
unbeaten run, and shows nowhere until it is published —, in English and French, and bad input
is never a 500."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from competitions.selectors.memory import head_to_head, record_breaks, records
from tests.competitions.memory_peers_league import Peers, peers_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def peers(monkeypatch: pytest.MonkeyPatch) -> Peers:
    return peers_history(monkeypatch)


def _text(html: str) -> str:
    """The page's words, its tags aside, each run of spaces one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def _data(html: str, name: str) -> str:
    found = re.search(rf"<[^>]* data-{name}[^>]*>([^<]*)<", html)
    assert found is not None, name
    return found.group(1)


def test_the_head_to_head_page_shows_the_selectors_balance_and_every_published_meeting(
    peers: Peers, client: Client
) -> None:
    teams = peers.history.teams
    rivalry = head_to_head(team_a=teams["aigles"], team_b=teams["boucs"])
    assert (rivalry.a_wins, rivalry.b_wins, rivalry.draws) == (2, 0, 0)
    page = client.get("/head-to-head/aigles/boucs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert _data(html, "meetings") == str(len(rivalry.meetings)) == "2"
    assert _data(html, "a-wins") == "2"
    assert _data(html, "b-wins") == "0"
    assert _data(html, "draws") == "0"
    assert _data(html, "goals") == f"{rivalry.a_goals}-{rivalry.b_goals}" == "4-1"
    # Newest first, each linked to its game on its round's results page.
    for meeting in rivalry.meetings:
        link = (
            f"/results/championship/elite/{meeting.round_number}/"
            f"?season={meeting.season_number}#game-{meeting.fixture_id}"
        )
        assert f'href="{link}"' in html
        results = client.get(link.split("#")[0])
        assert results.status_code == 200
        assert f'id="game-{meeting.fixture_id}"' in results.content.decode()
    assert html.index("Season 2, week 1") < html.index("Season 1, week 1")


def test_a_cup_meeting_names_its_stage_and_the_winner_of_a_tied_score(
    peers: Peers, client: Client
) -> None:
    html = client.get("/head-to-head/elans/boucs/").content.decode()
    # SEASON_1's KDH final: Boucs 2-2 Élans, the Élans on the shootout.
    assert (_data(html, "a-wins"), _data(html, "b-wins"), _data(html, "draws")) == ("1", "0", "0")
    assert "KDH cup · final" in _text(html)
    assert "Boucs 2-2 Élans SO (Élans)" in _text(html)


def test_an_arbitrated_unpublished_round_shows_on_no_page(peers: Peers, client: Client) -> None:
    # Its games: Aigles 2-2 Dauphins, Boucs 7-1 Hiboux.
    html = client.get("/head-to-head/boucs/hiboux/").content.decode()
    assert "7-1" not in html and _data(html, "meetings") == "0"
    html = client.get("/head-to-head/aigles/dauphins/").content.decode()
    assert _data(html, "meetings") == "1" and "2-2" not in html
    records_page = _text(client.get("/records/").content.decode())
    assert "7 goals" not in records_page and "5 games" not in records_page
    home = _text(client.get("/").content.decode())
    assert "most goals in a game" not in home.lower()
    assert "longest winning run" in home.lower()  # week 1's, published
    peers.history.publish(peers.secret)
    client.cookies.clear()
    assert "7-1" in client.get("/head-to-head/boucs/hiboux/").content.decode()
    records_page = _text(client.get("/records/").content.decode())
    assert "7 goals" in records_page and "5 games" in records_page
    home = _text(client.get("/").content.decode())
    assert "2 records broken in week 2" in home
    assert "Most goals in a game: Boucs, 7 goals (7-1 against Hiboux)" in home


def test_a_shared_record_shows_who_set_it_in_full_and_names_who_equalled_it(
    peers: Peers, client: Client
) -> None:
    """A record tied by every team of a division (seasons without an ONR, say) does not make
    the page as long as the league: the first to reach it in full, the others named."""
    html = client.get("/records/").content.decode()
    shared = [line for line in records() if len(line.holders) > 1]
    assert shared, "the history has no shared record"
    for line in shared:
        section = html[html.index(f'data-record="{line.kind}"') :]
        section = section[: section.index("</section>")]
        in_full = re.findall(r'<li data-holder="([^"]+)"', section)
        assert in_full == [line.holders[0].team.slug]
        assert f'data-others="{len(line.holders) - 1}"' in section
        assert "Equalled by: " in section


def test_the_records_page_shows_every_record_of_the_selector_with_its_holders(
    peers: Peers, client: Client
) -> None:
    html = client.get("/records/").content.decode()
    for line in records():
        section = html[html.index(f'data-record="{line.kind}"') :]
        section = section[: section.index("</section>")]
        assert f'data-value="{"" if line.value is None else line.value}"' in section
        holders = re.findall(r'data-holder="([^"]+)"', section)
        assert holders == [holder.team.slug for holder in line.holders]
        marked = "data-this-season" in section
        assert marked == any(holder.this_season for holder in line.holders)
    goals = html[html.index('data-record="game_goals"') :]
    # The Hiboux' 6-0 over the Élans, season 1, linked to its game.
    [holder] = next(line for line in records() if line.kind == "game_goals").holders
    assert f"?season=1#game-{holder.fixture_id}" in goals[: goals.index("</section>")]
    assert (
        "Longest winning run 4 games Aigles this season seasons 1 to 2 · 1-0 against Boucs"
        in _text(html)
    )
    broken = html[html.index('id="broken"') :]
    assert re.findall(r'data-broken="([^"]+)"', broken) == [
        row.kind for row in record_breaks(season=peers.history.seasons[2])
    ]


def test_the_pages_speak_french(peers: Peers) -> None:
    french = Client(headers={"accept-language": "fr"})
    html = _text(french.get("/records/").content.decode())
    assert "Records" in html and "La plus longue série de victoires 4 matchs" in html
    assert "cette saison" in html
    html = _text(french.get("/head-to-head/elans/boucs/").content.decode())
    assert "Face-à-face" in html and "Coupe KDH" in html
    assert "Saison 1, semaine 4" in html


def test_bad_input_is_a_404_or_a_form_with_why_never_a_500(peers: Peers, client: Client) -> None:
    assert client.get("/head-to-head/aigles/nobody/").status_code == 404
    assert client.get("/head-to-head/nobody/aigles/").status_code == 404
    same = client.get("/head-to-head/aigles/aigles/")
    assert same.status_code == 400
    assert "pick two different teams" in same.content.decode()
    assert client.get("/head-to-head/?team_a=aigles&team_b=aigles").status_code == 200
    assert (
        "pick two different teams"
        in client.get("/head-to-head/?team_a=aigles&team_b=aigles").content.decode()
    )
    for query in ("team_a=x&team_b=", "team_a=aigles", "team_a[]=1&team_b=%ff", "x=1"):
        assert client.get(f"/head-to-head/?{query}").status_code == 200
    assert client.get("/head-to-head/?team_a=x%00").status_code == 400  # the site's own guard
    chosen = client.get("/head-to-head/?team_a=aigles&team_b=boucs")
    assert chosen.status_code == 302 and chosen["Location"] == "/head-to-head/aigles/boucs/"
    assert client.get("/head-to-head/").status_code == 200


def test_every_game_row_links_to_its_head_to_head(peers: Peers, client: Client) -> None:
    week = client.get("/results/week/2/1/").content.decode()
    assert 'href="/head-to-head/aigles/boucs/"' in week
    team = client.get("/teams/aigles/").content.decode()
    assert 'href="/head-to-head/aigles/boucs/"' in team
    # The secret round's page shows its games to come, each with its head-to-head.
    secret = client.get("/results/championship/elite/2/").content.decode()
    assert 'href="/head-to-head/boucs/hiboux/"' in secret and "7-1" not in secret
