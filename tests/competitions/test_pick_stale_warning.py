"""R11's warning comes from the pick service (``PickSubmitted.stale``): an advance pick whose
column the team's pick for an earlier, unplayed round already uses is kept, and the page, the
API and the email reply say so in the same words."""

from __future__ import annotations

import io
from collections.abc import Callable
from html import escape

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

from competitions import services
from competitions.models import Pick
from competitions.services import StalePick
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.open_rounds import OpenLeague, picks_sent
from tests.competitions.test_current_entry import AUTHSERV_ID, message_from

pytestmark = pytest.mark.django_db

REPEATED = StalePick(column="C", round_number=3)
"""Round 4's pick repeats column C of round 3's, which is not played yet."""


def test_the_service_answers_with_the_warning_and_keeps_the_pick(
    coach: User, league: OpenLeague
) -> None:
    team = league.coach_entry.team
    first = services.pick_send(team=team, round=league.this_week, notation="C(1)", entered_by=coach)
    assert first.stale is None  # round 3: no earlier round is still to play
    second = services.pick_send(
        team=team, round=league.next_week, notation="C+(0)", entered_by=coach
    )
    assert second.stale == REPEATED
    assert second.pick == Pick.objects.get(round=league.next_week)
    other = services.pick_send(team=team, round=league.next_week, notation="E(0)", entered_by=coach)
    assert other.stale is None


def test_the_api_answers_with_the_warning(
    api_as: Callable[[User | None], APIClient], coach: User, league: OpenLeague
) -> None:
    client = api_as(coach)
    assert (
        client.put("/api/picks/championship/3/", {"pick": "C(1)"}, format="json").json()["warning"]
        is None
    )
    answer = client.put("/api/picks/championship/4/", {"pick": "C(0)"}, format="json")
    assert answer.status_code == 200
    assert answer.json()["warning"] == REPEATED.message
    assert "already uses column C" in REPEATED.message  # the test's own language: English


def test_the_page_shows_the_warning_after_the_form(
    client: Client, coach: User, league: OpenLeague
) -> None:
    client.force_login(coach)
    for number, notation in ((3, "C(1)"), (4, "C(0)")):
        url = reverse("pick_send", args=["championship", number])
        sent = client.post(url, {f"championship-{number}-notation": notation})
        assert sent.status_code == 302
    page = client.get(reverse("picks")).content.decode()
    # The same words (their citation a link to R11).
    assert escape(REPEATED.message.split("(R11)")[0]) in page


def test_the_email_reply_gives_the_warning_in_the_coach_s_language(
    coach: User, league: OpenLeague, settings: Settings
) -> None:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    raw = message_from(coach, ["Championnat J3 : C(1)", "Championnat J4 : C(0)"])
    call_command("ingest_email", stdin=io.BytesIO(raw), stdout=io.StringIO())
    assert picks_sent().count() == 2
    emails_send_due()  # the reply, rendered as the worker woken by the commit does it
    reply = OutboundEmail.objects.get(template="pick-reply")
    with translation.override("fr"):  # the coach's language, the league's by default
        warning = REPEATED.message
    assert "déjà" in warning
    assert reply.body_text.count(warning) == 1  # the second line's only
    assert "R11" in reply.body_html
