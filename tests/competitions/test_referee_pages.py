"""The referees' pages (``/referee/``): a referee's pools week by week, one pool round's desk
(picks received — when and how, never what —, ONR so far, late picks, R13), the « Arbitrer » and
« Publier » buttons (POST, CSRF, idempotent), and the others may not."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions import services
from competitions.models import Competition, LatePick, Pick, Pool, PoolRound, Round, TeamResult
from mail.models import OutboundEmail
from tests.competitions.desk_league import PICKS, Desk

pytestmark = pytest.mark.usefixtures("eager")

DESK_URL = "/referee/championship/elite/1/"


def text_of(response: object) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def late_pick(desk: Desk, team: str = "elite-07", notation: str = "G+(3)") -> LatePick:
    round = desk.league.round(Competition.CHAMPIONSHIP, 1)
    return LatePick.objects.create(
        entry=desk.league.entries[team],
        round=round,
        notation=notation,
        received_at=round.deadline + timedelta(minutes=42),
    )


def assert_no_pick_shown(html: str) -> None:
    for notation in [*PICKS.values(), "G+(3)"]:
        assert notation not in html


# --- The list of pools --------------------------------------------------------------------------


def test_a_referee_sees_their_pools_rounds_this_week_first(desk: Desk, open_as: Callable) -> None:
    response = open_as(desk.referee).get(reverse("referee"))
    assert response.status_code == 200
    html = text_of(response)
    weeks = re.findall(r'id="week-(\d+)"', html)
    assert weeks[0] == "1"  # deadline passed, not published: this week's work
    assert "badge-now" in html.split('id="week-1"')[1].split('id="week-')[0]
    assert DESK_URL in html
    assert "/referee/championship/d2a/" not in html  # another referee's pool
    assert "11/12 picks" in html
    assert_no_pick_shown(html)


def test_the_current_week_is_the_first_not_yet_published(desk: Desk, open_as: Callable) -> None:
    pool_round = services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    services.pool_round_publish(pool_round=pool_round, by=desk.referee)
    html = text_of(open_as(desk.referee).get(reverse("referee")))
    assert re.findall(r'id="week-(\d+)"', html)[:2] == ["2", "3"]
    assert re.findall(r'id="week-(\d+)"', html)[-1] == "1"  # the past, last


def test_staff_see_every_pool(desk: Desk, open_as: Callable, admin_user: User) -> None:
    html = text_of(open_as(admin_user).get(reverse("referee")))
    assert DESK_URL in html and "/referee/championship/d2a/1/" in html


@pytest.mark.parametrize("who", ["coach", "other_coach", "visitor"])
def test_people_who_referee_nothing_have_no_desk(desk: Desk, open_as: Callable, who: str) -> None:
    assert open_as(getattr(desk, who)).get(reverse("referee")).status_code == 403


def test_visitors_who_are_not_signed_in_are_sent_to_sign_in(desk: Desk, client: Client) -> None:
    response = client.get(reverse("referee"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("sign_in"))
    assert client.get(DESK_URL).status_code == 302


# --- One pool round's desk ------------------------------------------------------------------------


def test_the_desk_shows_when_and_how_each_pick_came_never_what(
    desk: Desk, open_as: Callable
) -> None:
    round = desk.league.round(Competition.CHAMPIONSHIP, 1)
    desk.league.send("elite-03", Competition.CHAMPIONSHIP, 1, "J(2)", channel=Pick.Channel.EMAIL)
    response = open_as(desk.referee).get(DESK_URL)
    assert response.status_code == 200
    html = text_of(response)
    assert_no_pick_shown(html)
    assert "J(2)" not in html
    hour = timezone.localtime(round.deadline - timedelta(hours=1)).strftime("%H:%M")
    assert hour in html
    assert "11/12" in html
    rows = dict(re.findall(r'<span class="desk-team-name">([^<]+)</span> (.*?)</li>', html))
    assert "ONR so far" in rows["Elite 07"]
    assert "web" in rows["Elite 01"]
    assert "email" in rows["Elite 03"] and "2 picks sent" in rows["Elite 03"]
    assert pool_round_hash(desk) in html
    assert "Arbitrate" in html


def pool_round_hash(desk: Desk) -> str:
    return desk.pool_round(1).seed_hash


def test_a_late_pick_waits_with_its_team_and_time_but_not_the_pick(
    desk: Desk, open_as: Callable
) -> None:
    late = late_pick(desk)
    html = text_of(open_as(desk.referee).get(DESK_URL))
    assert "Late picks received by email" in html
    assert reverse("referee_late_pick", args=[late.pk, "accept"]) in html
    assert reverse("referee_late_pick", args=[late.pk, "reject"]) in html
    received = timezone.localtime(late.received_at).strftime("%H:%M:%S")
    assert received in html
    assert_no_pick_shown(html)


def test_before_the_deadline_the_arbitrate_button_is_disabled(
    desk: Desk, open_as: Callable
) -> None:
    Round.objects.filter(pk=desk.league.round(Competition.CHAMPIONSHIP, 1).pk).update(
        deadline=timezone.now() + timedelta(days=1)
    )
    html = text_of(open_as(desk.referee).get(DESK_URL))
    assert "Picks are still open" in html
    assert reverse("referee_arbitrate", args=["championship", "elite", 1]) not in html


@pytest.mark.parametrize("who", ["coach", "other_coach", "other_referee", "visitor"])
def test_others_may_not_see_the_desk(desk: Desk, open_as: Callable, who: str) -> None:
    assert open_as(getattr(desk, who)).get(DESK_URL).status_code == 403


def test_staff_may_see_any_desk(desk: Desk, open_as: Callable, admin_user: User) -> None:
    assert open_as(admin_user).get(DESK_URL).status_code == 200


def test_an_unknown_pool_round_is_404(desk: Desk, open_as: Callable) -> None:
    browser = open_as(desk.referee)
    assert browser.get("/referee/championship/d3a/1/").status_code == 404
    assert browser.get("/referee/championship/elite/12/").status_code == 404


# --- « Arbitrer » and « Publier » -----------------------------------------------------------------


def arbitrate_url(number: int = 1) -> str:
    return reverse("referee_arbitrate", args=["championship", "elite", number])


def publish_url(number: int = 1) -> str:
    return reverse("referee_publish", args=["championship", "elite", number])


def test_arbitrating_from_the_desk_shows_the_scores_with_the_played_picks_to_check(
    desk: Desk,
    open_as: Callable,
    client: Client,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    browser = open_as(desk.referee)
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(arbitrate_url())
    assert response.status_code == 302 and response.url == DESK_URL

    html = text_of(browser.get(DESK_URL))
    assert desk.pool_round(1).status == PoolRound.Status.ARBITRATED
    assert "arbitrated, not published" in html
    assert "Scores to check" in html
    assert len(re.findall(r'<li class="score">', html)) == 6
    # The referee checks each score against the picks as played, in the rules' display (R10).
    played = TeamResult.objects.filter(pool_round=desk.pool_round(1))
    assert played.count() == 12
    assert all(f"[{display}]" in html for display in played.values_list("display", flat=True))
    assert publish_url() in html
    # Nobody else sees them before publication: not a referee of another pool, not the public.
    elsewhere = User.objects.create_user("d2a-only")
    Pool.objects.get(division__slug="d2a", competition="championship").referees.add(elsewhere)
    assert open_as(elsewhere).get(DESK_URL).status_code == 403
    public = text_of(client.get("/results/championship/elite/1/"))
    assert not any(f"[{d}]" in public for d in played.values_list("display", flat=True))
    assert_no_pick_shown(public)


def test_a_round_still_open_says_until_when_not_waiting_for_arbitration(
    desk: Desk, open_as: Callable
) -> None:
    round = desk.league.round(Competition.CHAMPIONSHIP, 2)
    Round.objects.filter(pk=round.pk).update(deadline=timezone.now() + timedelta(days=3))
    round.refresh_from_db()
    html = text_of(open_as(desk.referee).get(reverse("referee")))
    week_2 = html.split('id="week-2"')[1].split('id="week-')[0]
    assert "open until" in week_2 and "waiting for arbitration" not in week_2
    day = timezone.localtime(round.deadline).strftime("%A")
    assert day in week_2
    # Past its deadline, round 1 waits for the referee.
    assert "waiting for arbitration" in html.split('id="week-1"')[1].split('id="week-')[0]


def test_a_second_click_on_arbitrate_shows_the_state_not_a_second_result(
    desk: Desk, open_as: Callable, django_capture_on_commit_callbacks: Callable
) -> None:
    browser = open_as(desk.referee)
    with django_capture_on_commit_callbacks(execute=True):
        browser.post(arbitrate_url())
    arbitrated_at = desk.pool_round(1).arbitrated_at
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = browser.post(arbitrate_url(), follow=True)
    assert callbacks == []
    assert "already arbitrated" in text_of(response)
    assert desk.pool_round(1).arbitrated_at == arbitrated_at
    assert TeamResult.objects.count() == 12


def test_while_the_worker_arbitrates_the_desk_says_so_and_reloads(
    desk: Desk, open_as: Callable, django_capture_on_commit_callbacks: Callable
) -> None:
    browser = open_as(desk.referee)
    with django_capture_on_commit_callbacks(execute=False):  # the worker has not run yet
        response = browser.post(arbitrate_url(), follow=True)
    html = text_of(response)
    assert "Arbitration started" in html
    assert 'data-status="arbitrating"' in html
    assert re.search(r'<meta http-equiv="refresh" content="\d+">', html)
    assert arbitrate_url() not in html  # no second button while it runs


def test_an_arbitration_refused_says_why(desk: Desk, open_as: Callable) -> None:
    response = open_as(desk.referee).post(arbitrate_url(2), follow=True)
    assert "Round 1 of this pool is not arbitrated yet" in text_of(response)
    assert desk.pool_round(2).status == PoolRound.Status.PENDING


def test_a_refusal_recorded_by_the_worker_shows_on_the_desk(
    desk: Desk, open_as: Callable, django_capture_on_commit_callbacks: Callable
) -> None:
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="0" * 64)
    browser = open_as(desk.referee)
    with django_capture_on_commit_callbacks(execute=True):
        browser.post(arbitrate_url())
    html = text_of(browser.get(DESK_URL))
    assert "The last arbitration was refused" in html and "does not match" in html
    assert arbitrate_url() in html  # it may be asked again


def test_publishing_from_the_desk_shows_the_played_picks(desk: Desk, open_as: Callable) -> None:
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    browser = open_as(desk.referee)
    response = browser.post(publish_url(), follow=True)
    html = text_of(response)
    assert desk.pool_round(1).status == PoolRound.Status.PUBLISHED
    assert "Published: the results are public" in html
    # Public now, as played: the bonus goal (R5, drawn from the round's seed) may add a « * ».
    played = TeamResult.objects.filter(
        pool_round=desk.pool_round(1), entry__team__slug__in=["elite-01", "elite-02"]
    )
    assert {r.display.replace("*", "") for r in played} == {"A++(1)", "K#(2)"}
    assert all(f"[{r.display}]" in html for r in played)

    again = text_of(browser.post(publish_url(), follow=True))
    assert "already published" in again
    assert desk.pool_round(1).published_by == desk.referee


def test_publishing_before_arbitration_says_so(desk: Desk, open_as: Callable) -> None:
    html = text_of(open_as(desk.referee).post(publish_url(), follow=True))
    assert "not been arbitrated" in html
    assert desk.pool_round(1).status == PoolRound.Status.PENDING


@pytest.mark.parametrize("who", ["coach", "other_coach", "other_referee", "visitor"])
def test_others_may_neither_arbitrate_nor_publish(desk: Desk, open_as: Callable, who: str) -> None:
    browser = open_as(getattr(desk, who))
    assert browser.post(arbitrate_url()).status_code == 403
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    assert browser.post(publish_url()).status_code == 403
    assert desk.pool_round(1).status == PoolRound.Status.ARBITRATED


def test_the_buttons_need_the_csrf_token(desk: Desk, open_as: Callable) -> None:
    browser = open_as(desk.referee, enforce_csrf_checks=True)
    assert browser.post(arbitrate_url()).status_code == 403
    assert desk.pool_round(1).status == PoolRound.Status.PENDING
    page = browser.get(DESK_URL).content.decode()
    assert "csrfmiddlewaretoken" in page


def test_the_buttons_only_answer_post(desk: Desk, open_as: Callable) -> None:
    browser = open_as(desk.referee)
    assert browser.get(arbitrate_url()).status_code == 405
    assert browser.get(publish_url()).status_code == 405


# --- Late picks (R13) -----------------------------------------------------------------------------


def decide_url(late: LatePick, decision: str) -> str:
    return reverse("referee_late_pick", args=[late.pk, decision])


def test_accepting_a_late_pick_enters_it_as_the_referee(desk: Desk, open_as: Callable) -> None:
    late = late_pick(desk)
    response = open_as(desk.referee).post(decide_url(late, "accept"), follow=True)
    html = text_of(response)
    assert response.redirect_chain[-1][0] == DESK_URL
    assert "The late pick of Elite 07 was entered." in html
    late.refresh_from_db()
    assert late.status == LatePick.Status.ACCEPTED
    assert (late.pick.channel, late.pick.entered_by) == (Pick.Channel.REFEREE, desk.referee)
    assert late.pick.received_at == late.received_at
    rows = dict(re.findall(r'<span class="desk-team-name">([^<]+)</span> (.*?)</li>', html))
    assert "entered by a referee" in rows["Elite 07"]
    assert "12/12" in html
    assert_no_pick_shown(html)


def test_rejecting_a_late_pick_tells_its_coach(desk: Desk, open_as: Callable) -> None:
    late = late_pick(desk, team="elite-01")
    response = open_as(desk.referee).post(decide_url(late, "reject"), follow=True)
    assert "rejected; its coach is told" in text_of(response)
    late.refresh_from_db()
    assert late.status == LatePick.Status.REJECTED
    assert OutboundEmail.objects.filter(to=[desk.coach.email]).exists()


def test_a_late_pick_that_does_not_read_is_refused_without_quoting_it(
    desk: Desk, open_as: Callable
) -> None:
    late = late_pick(desk, notation="Z+(9)")
    html = text_of(open_as(desk.referee).post(decide_url(late, "accept"), follow=True))
    assert "was not entered: the pick does not read" in html
    assert "Z+(9)" not in html
    assert LatePick.objects.get(pk=late.pk).status == LatePick.Status.PENDING


def test_a_late_pick_is_decided_once(desk: Desk, open_as: Callable) -> None:
    late = late_pick(desk)
    browser = open_as(desk.referee)
    browser.post(decide_url(late, "accept"))
    html = text_of(browser.post(decide_url(late, "reject"), follow=True))
    assert "already decided" in html
    assert LatePick.objects.get(pk=late.pk).status == LatePick.Status.ACCEPTED


@pytest.mark.parametrize("who", ["coach", "other_coach", "other_referee", "visitor"])
def test_others_may_not_decide_on_late_picks(desk: Desk, open_as: Callable, who: str) -> None:
    late = late_pick(desk)
    for decision in ("accept", "reject"):
        assert open_as(getattr(desk, who)).post(decide_url(late, decision)).status_code == 403
    assert LatePick.objects.get(pk=late.pk).status == LatePick.Status.PENDING


def test_an_unknown_decision_is_404(desk: Desk, open_as: Callable) -> None:
    late = late_pick(desk)
    assert open_as(desk.referee).post(decide_url(late, "maybe")).status_code == 404


def test_visitors_who_are_not_signed_in_press_no_button(desk: Desk, client: Client) -> None:
    late = late_pick(desk)
    posts = [arbitrate_url(), publish_url(), decide_url(late, "accept"), decide_url(late, "reject")]
    for url in posts:
        response = client.post(url)
        assert response.status_code == 302
        assert response.url.startswith(reverse("sign_in"))
    assert desk.pool_round(1).status == PoolRound.Status.PENDING
    assert LatePick.objects.get(pk=late.pk).status == LatePick.Status.PENDING


def test_the_seed_stays_off_the_desk_until_publication(desk: Desk, open_as: Callable) -> None:
    # R23: the seed's hash is public from the start, the seed itself only once published.
    services.pool_round_arbitrate(pool_round=desk.pool_round(1), by=desk.referee)
    pool_round = desk.pool_round(1)
    html = text_of(open_as(desk.referee).get(DESK_URL))
    assert pool_round.seed_hash in html
    assert pool_round.seed not in html
