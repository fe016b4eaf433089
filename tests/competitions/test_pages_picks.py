"""The coach's pick page (``/picks/``): who may see it, what it offers, sending picks through it
(R6, R7, R10, R12, R13), the receipt on screen and by email, and secrecy."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse

from competitions import services as competitions
from competitions.models import Competition, Pick, Round
from competitions.services import pick_submit
from league.models import Profile, Team
from mail.models import OutboundEmail
from tests.competitions.open_rounds import PARIS, OpenLeague, paris_17h, picks_sent

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

PICKS = "/picks/"


@pytest.fixture
def coach_client(client: Client, coach: User) -> Client:
    client.force_login(coach)
    return client


def french_client(user: User) -> Client:
    browser = Client(headers={"accept-language": "fr"})
    browser.force_login(user)
    return browser


def send(client: Client, round: Round, **fields: object) -> object:
    prefix = f"{round.competition}-{round.number}"
    data = {f"{prefix}-{name}": value for name, value in fields.items()}
    data.setdefault(f"{prefix}-extra_goals", 0)
    return client.post(
        reverse("pick_send", args=[round.competition, round.number]), data, follow=False
    )


def tiles(html: str, anchor: str, part: str) -> list[str]:
    """The values offered as tiles for ``part`` in round card ``anchor``."""
    card = html.split(f'id="round-{anchor}"', 1)[1].split("</article>", 1)[0]
    return re.findall(rf'name="{anchor}-{part}" value="([^"]+)"', card)


# --- Who may see it ------------------------------------------------------------------------------


def test_a_visitor_who_is_not_signed_in_is_sent_to_sign_in(client: Client, league) -> None:
    response = client.get(PICKS)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={PICKS}"


@pytest.mark.parametrize("person", ["visitor", "referee", "admin_user"])
def test_someone_who_coaches_no_team_is_told_so_and_sees_no_form(
    client: Client, league, person: str, request: pytest.FixtureRequest
) -> None:
    client.force_login(request.getfixturevalue(person))
    response = client.get(PICKS)
    assert response.status_code == 200
    html = response.content.decode()
    assert "You do not coach a team." in html
    assert "data-pick-form" not in html


def test_someone_who_coaches_no_team_cannot_send_a_pick(
    client: Client, league: OpenLeague, referee: User
) -> None:
    client.force_login(referee)
    response = send(client, league.this_week, column="C", extra_time="1")
    assert response.status_code == 403
    assert not picks_sent().exists()


def test_a_visitor_who_is_not_signed_in_cannot_send_a_pick(
    client: Client, league: OpenLeague
) -> None:
    response = send(client, league.this_week, column="C", extra_time="1")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")
    assert not picks_sent().exists()


@pytest.mark.parametrize("person", ["visitor", "admin_user"])
def test_people_without_a_team_cannot_send_a_pick(
    request: pytest.FixtureRequest, client: Client, league: OpenLeague, person: str
) -> None:
    client.force_login(request.getfixturevalue(person))
    response = send(client, league.this_week, column="C", extra_time="1")
    assert response.status_code == 403
    assert not picks_sent().exists()


def test_the_menu_offers_my_picks_to_a_coach_only_and_the_admin_to_staff_only(
    client: Client, league, coach: User, admin_user: User
) -> None:
    anonymous = client.get("/").content.decode()
    assert 'href="/picks/"' not in anonymous
    assert 'href="/admin/"' not in anonymous
    client.force_login(coach)
    coached = client.get("/").content.decode()
    assert 'href="/picks/"' in coached
    assert 'href="/admin/"' not in coached
    client.force_login(admin_user)
    staff = client.get("/").content.decode()
    assert 'href="/admin/"' in staff
    assert 'href="/picks/"' not in staff


# --- What it shows -------------------------------------------------------------------------------


def test_open_rounds_are_grouped_by_week_this_week_first_then_picks_in_advance(
    coach_client: Client, league: OpenLeague
) -> None:
    html = coach_client.get(PICKS).content.decode()
    assert html.index('id="week-3"') < html.index('id="week-4"')
    assert html.index('id="round-championship-3"') < html.index('id="round-kdh-1"')
    assert html.index('id="round-kdh-1"') < html.index('id="week-4"')
    assert 'id="round-championship-4"' in html
    assert "Picks in advance" in html
    # Played rounds are no longer offered.
    assert 'id="round-championship-1"' not in html
    assert 'id="round-championship-2"' not in html


def test_only_what_the_team_still_has_is_offered(coach_client: Client, league) -> None:
    html = coach_client.get(PICKS).content.decode()
    # A (published round) and D (arbitrated round) are played (R19); X once, 3 once (R7).
    assert tiles(html, "championship-3", "column") == list("BCEFGHIJK")
    assert tiles(html, "championship-3", "extra_time") == ["0", "1", "2", "3"]
    assert 'aria-label="1 left">×1</small>' in html  # the 3 left once
    # The KDH has its own matrix and quotas: 7 columns, no 3, shootout values, no great saves.
    assert tiles(html, "kdh-1", "column") == list("ABCDEFG")
    assert tiles(html, "kdh-1", "extra_time") == ["0", "1", "2", "X"]
    assert tiles(html, "kdh-1", "shootout") == ["0", "1", "2", "3", "4", "5", "X"]
    assert tiles(html, "championship-3", "shootout") == []
    assert 'name="championship-3-great_saves"' in html
    assert 'name="kdh-1-great_saves"' not in html
    # Stocks bound the steppers: 3 extra goals less the one spent in round 2; 2 great saves.
    assert re.search(r'name="championship-3-extra_goals"[^>]*max="2"', html)
    assert re.search(r'name="championship-3-great_saves"[^>]*max="2"', html)


def card(html: str, anchor: str) -> str:
    return html.split(f'id="round-{anchor}"', 1)[1].split("</article>", 1)[0]


def test_each_card_says_its_own_competition_s_rule_for_a_missing_pick(
    coach_client: Client, league: OpenLeague
) -> None:
    html = coach_client.get(PICKS, headers={"accept-language": "en"}).content.decode()
    championship, kdh = card(html, "championship-3"), card(html, "kdh-1")
    assert 'championship sanction applies (<a href="/rules/#r14">R14</a>)' in championship
    assert "forfeit" not in championship
    # R15: in the KDH a team without a pick loses by forfeit; no stock sanction.
    assert 'loses this cup game by forfeit (<a href="/rules/#r15">R15</a>)' in kdh
    assert "sanction" not in kdh


def test_the_deadline_carries_its_countdown_data_and_paris_time(
    coach_client: Client, league: OpenLeague
) -> None:
    html = coach_client.get(PICKS).content.decode()
    deadline = league.this_week.deadline
    utc = deadline.astimezone(UTC).isoformat()
    assert f'data-countdown data-deadline="{utc}" data-zone="Europe/Paris"' in html
    paris = deadline.astimezone(PARIS)
    assert f'<time datetime="{paris.isoformat()}">' in html
    assert ", 17:00</time>" in html
    assert "(Europe/Paris)" in html
    assert "data-local hidden" in html  # the visitor's own time, filled in by the script
    assert 'id="countdown-labels"' in html


# --- Sending a pick ------------------------------------------------------------------------------


def test_a_pick_chosen_on_the_tiles_is_stored_and_its_receipt_shown_after_a_redirect(
    coach_client: Client, league: OpenLeague, coach: User
) -> None:
    response = send(
        coach_client, league.this_week, column="C", extra_time="1", extra_goals=2, great_saves=1
    )
    assert response.status_code == 302
    assert response["Location"] == "/picks/#receipt"
    pick = picks_sent().get()
    assert (pick.normalized, pick.channel, pick.entered_by) == ("C++#(1)", "web", coach)
    assert pick.entry == league.coach_entry
    page = coach_client.get(PICKS).content.decode()
    assert "Pick received" in page
    assert pick.receipt in page
    # The confirmation is shown once; a reload shows the current pick, not the confirmation.
    again = coach_client.get(PICKS).content.decode()
    assert "Pick received" not in again
    assert "C++#(1)" in again


def test_a_typed_pick_is_stored_as_typed_and_wins_over_the_tiles(
    coach_client: Client, league: OpenLeague
) -> None:
    send(coach_client, league.this_week, column="C", extra_time="1", notation="f+ (2)")
    pick = picks_sent().get()
    assert (pick.notation, pick.normalized) == ("f+ (2)", "F+(2)")


def test_a_kdh_pick_needs_its_shootout_value(coach_client: Client, league: OpenLeague) -> None:
    response = send(coach_client, league.kdh_this_week, column="C", extra_time="1")
    assert response.status_code == 400
    assert "a shootout value" in response.content.decode()
    send(coach_client, league.kdh_this_week, column="C", extra_time="1", shootout="4")
    assert picks_sent().get().normalized == "C(1)(4)"


def test_a_pick_in_advance_is_accepted(coach_client: Client, league: OpenLeague) -> None:
    send(coach_client, league.next_week, notation="K(2)")
    assert picks_sent().get().round == league.next_week


def test_the_receipt_email_goes_to_the_coach_in_their_language_whatever_the_page_s(
    league: OpenLeague, coach: User, django_capture_on_commit_callbacks: Callable
) -> None:
    Profile.objects.create(user=coach, language="en")
    with django_capture_on_commit_callbacks(execute=True):
        send(french_client(coach), league.this_week, notation="F+(2)")
    pick = picks_sent().get()
    email = OutboundEmail.objects.get()
    assert (email.to, email.language, email.status) == (["sleigh-coach@example.org"], "en", "sent")
    [sent] = mail.outbox
    assert sent.subject == "Pick received — championship, round 3: F+(2)"
    assert pick.receipt in sent.body


def test_the_receipt_email_is_in_french_by_default(
    coach_client: Client, league: OpenLeague, django_capture_on_commit_callbacks: Callable
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        send(coach_client, league.this_week, notation="F+(2)")
    [sent] = mail.outbox
    assert sent.subject == "Ordre reçu — championnat, journée 3 : F+(2)"


def test_a_second_click_stores_both_picks_and_shows_the_latest_as_the_one_that_counts(
    coach_client: Client, league: OpenLeague
) -> None:
    send(coach_client, league.this_week, notation="B(0)")
    send(coach_client, league.this_week, notation="C(1)")
    assert picks_sent().count() == 2
    html = coach_client.get(PICKS).content.decode()
    card = html.split('id="round-championship-3"', 1)[1].split("</article>", 1)[0]
    current = re.search(r'Current pick <strong class="notation">([^<]+)</strong>', card)
    assert current is not None and current.group(1) == "C(1)"
    assert "2 picks received" in card
    rows = re.findall(r"<tr( class=\"counts\")?>\s*<td><time", card)
    assert rows == [' class="counts"', ""]
    assert card.index('C(1)</strong> <span class="badge badge-now">counts') < card.index(
        "B(0)</strong>"
    )


def test_every_pick_received_is_listed_with_its_time_and_channel(
    coach_client: Client, league: OpenLeague, referee: User, admin_user: User
) -> None:
    pick_submit(
        team=league.coach_entry.team,
        round=league.this_week,
        notation="E(2)",
        channel="referee",
        entered_by=admin_user,
    )
    send(coach_client, league.this_week, notation="c (1)")
    card = coach_client.get(PICKS).content.decode().split('id="round-championship-3"', 1)[1]
    card = card.split("</article>", 1)[0]
    assert "entered by a referee" in card
    assert "<td>web</td>" in card
    assert "<code>c (1)</code>" in card


# --- Refused picks -------------------------------------------------------------------------------


def test_an_invalid_pick_is_refused_next_to_its_form_keeping_what_was_typed(
    coach_client: Client, league: OpenLeague
) -> None:
    response = send(coach_client, league.this_week, notation="F+(7)")
    assert response.status_code == 400
    html = response.content.decode()
    error = re.search(r'id="errors-championship-3">\s*<p>([^<]+)</p>', html)
    assert error is not None
    assert "the extra-time value must be 0, 1, 2, 3 or X" in error.group(1)
    assert 'value="F+(7)"' in html
    assert '<details class="expert" open>' in html
    assert not picks_sent().exists()


def test_an_invalid_pick_is_refused_in_french_for_a_french_page(
    league: OpenLeague, coach: User
) -> None:
    response = send(french_client(coach), league.this_week, notation="F+(7)")
    assert response.status_code == 400
    html = response.content.decode()
    error = re.search(r'id="errors-championship-3">\s*<p>([^<]+)</p>', html)
    assert error is not None
    assert "la valeur de prolongation" in error.group(1)
    assert 'lang="fr"' in html


def test_a_column_already_played_is_refused_by_the_server_too(
    coach_client: Client, league: OpenLeague
) -> None:
    response = send(coach_client, league.this_week, notation="D(1)")
    assert response.status_code == 400
    assert "Column D is already used" in response.content.decode()
    assert not picks_sent().exists()


def test_choosing_tiles_without_an_extra_time_value_says_what_is_missing(
    coach_client: Client, league: OpenLeague
) -> None:
    response = send(coach_client, league.this_week, column="C")
    assert response.status_code == 400
    assert "Choose a column and an extra-time value, or type your pick." in (
        response.content.decode()
    )
    assert re.search(r'value="C" data-part="column" checked', response.content.decode())


def test_more_extra_goals_than_the_stock_are_refused(
    coach_client: Client, league: OpenLeague
) -> None:
    response = send(coach_client, league.this_week, notation="C+++(1)")
    assert response.status_code == 400
    assert "but your team has 2 left" in response.content.decode()
    response = send(coach_client, league.this_week, column="C", extra_time="1", extra_goals=5)
    assert response.status_code == 400
    assert "Your team has 2 left." in response.content.decode()
    assert not picks_sent().exists()


def test_after_the_deadline_the_form_is_closed_on_the_server(
    coach_client: Client, league: OpenLeague, season
) -> None:
    closed = competitions.round_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        number=5,
        week=5,
        deadline=paris_17h(-1),
    )
    response = send(coach_client, closed, notation="C(1)")
    assert response.status_code == 409
    html = response.content.decode()
    assert "was not recorded" in html
    assert "picks are closed" in html
    assert '<code class="notation">C(1)</code>' in html
    assert not picks_sent().exists()


def test_a_round_that_does_not_exist_is_not_found(coach_client: Client, league) -> None:
    response = coach_client.post("/picks/championship/11/", {})
    assert response.status_code == 404
    response = coach_client.post("/picks/hockey/1/", {})
    assert response.status_code == 404


def test_the_form_is_protected_against_cross_site_posts(league: OpenLeague, coach: User) -> None:
    browser = Client(enforce_csrf_checks=True, headers={"accept-language": "en"})
    browser.force_login(coach)
    response = send(browser, league.this_week, notation="C(1)")
    assert response.status_code == 403
    assert not picks_sent().exists()
    page = browser.get(PICKS).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page


def test_a_get_does_not_send_a_pick(coach_client: Client, league: OpenLeague) -> None:
    response = coach_client.get(reverse("pick_send", args=["championship", 3]))
    assert response.status_code == 405
    assert not picks_sent().exists()


# --- Secrecy -------------------------------------------------------------------------------------


def test_a_coach_never_sees_another_team_s_pick_of_an_unpublished_round(
    client: Client, league: OpenLeague, coach: User, other_coach: User
) -> None:
    theirs = pick_submit(
        team=Team.objects.get(coach=other_coach),
        round=league.this_week,
        notation="J#(2)",
        channel="web",
        entered_by=other_coach,
    ).pick
    client.force_login(coach)
    send(client, league.this_week, notation="C(1)")
    for html in (client.get(PICKS).content.decode(), client.get("/").content.decode()):
        assert "J#(2)" not in html
        assert theirs.receipt not in html
    # Round 2 is arbitrated but not published: the other team's K is not shown to the coach.
    page = client.get(PICKS).content.decode()
    assert "K(1)" not in page
    client.force_login(other_coach)
    theirs_page = client.get(PICKS).content.decode()
    assert "C(1)" not in theirs_page
    assert "J#(2)" in theirs_page


def test_an_error_message_never_speaks_of_another_team_s_pick(
    client: Client, league: OpenLeague, coach: User, other_coach: User
) -> None:
    # The other team played K in round 2 (not published); the coach may still play K.
    client.force_login(coach)
    response = send(client, league.this_week, notation="K(9)")
    html = response.content.decode()
    assert "Freezing Ass" not in html.split('id="errors-championship-3"', 1)[1].split("</div>")[0]
    send(client, league.this_week, notation="K(1)")
    assert picks_sent().get().normalized == "K(1)"


def test_a_coach_can_only_send_for_their_own_team(
    client: Client, league: OpenLeague, other_coach: User
) -> None:
    client.force_login(other_coach)
    send(client, league.this_week, notation="C(1)")
    assert picks_sent().get().entry == league.other_entry


# --- Spoken for: what earlier, unplayed picks already use (R11) ---------------------------------


def spoken_columns(html: str, anchor: str) -> list[str]:
    card = html.split(f'id="round-{anchor}"', 1)[1].split("</article>", 1)[0]
    return re.findall(
        rf'<label class="tile tile-spoken"[^>]*><input type="radio" name="{anchor}-column" '
        r'value="([A-Z])"',
        card,
    )


def test_a_column_an_earlier_unplayed_pick_uses_is_marked_on_the_next_week_s_form(
    coach_client: Client, league: OpenLeague
) -> None:
    assert spoken_columns(coach_client.get(PICKS).content.decode(), "championship-4") == []
    send(coach_client, league.this_week, column="C", extra_time="1")
    html = coach_client.get(PICKS, headers={"accept-language": "en"}).content.decode()
    assert spoken_columns(html, "championship-4") == ["C"]
    assert spoken_columns(html, "championship-3") == []  # its own round: nothing earlier
    card = html.split('id="round-championship-4"', 1)[1].split("</article>", 1)[0]
    assert "Already in your pick for round 3" in card
    assert "1 use already in your picks for earlier rounds" in card
    assert "C" in tiles(html, "championship-4", "column")  # still offered: the coach decides


def test_an_advance_pick_repeating_an_earlier_one_is_kept_and_warned_of(
    coach_client: Client, league: OpenLeague
) -> None:
    send(coach_client, league.this_week, column="C", extra_time="1")
    response = send(coach_client, league.next_week, column="C", extra_time="0")
    assert response.status_code == 302
    assert Pick.objects.filter(round=league.next_week, normalized="C(0)").exists()
    page = coach_client.get(PICKS, headers={"accept-language": "en"}).content.decode()
    assert "Your pick for round 3 already uses column C" in page
    # A pick that repeats nothing gets no warning.
    send(coach_client, league.next_week, column="E", extra_time="0")
    page = coach_client.get(PICKS, headers={"accept-language": "en"}).content.decode()
    assert "already uses column" not in page


def test_the_stock_already_spoken_for_agrees_in_number(
    coach_client: Client, league: OpenLeague
) -> None:
    send(coach_client, league.this_week, column="C", extra_time="1", extra_goals=2)
    card = (
        coach_client.get(PICKS, headers={"accept-language": "fr"})
        .content.decode()
        .split('id="round-championship-4"', 1)[1]
        .split("</article>", 1)[0]
    )
    assert "Ces ordres demandent aussi 2 extra-buts et 0 super-arrêt de votre stock." in card
    assert "(s)" not in card
    english = coach_client.get(PICKS, headers={"accept-language": "en"}).content.decode()
    assert "Those picks also ask for 2 extra goals and 0 great saves of your stock." in english
