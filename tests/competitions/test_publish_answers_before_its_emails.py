"""« Publier » answers at once and the results emails follow from the outbox, with eager tasks
too (``make run``: no worker; :mod:`matrixhockey.after_response`): the referee's page comes back
— the POST and the desk it redirects to, on one keep-alive connection as in a browser — while
the mail server has not yet taken a single results email, and the emails go out after it.

A real server (pytest-django's live server) and a real email backend: Django's in-memory one,
behind a gate the test opens once the page is back. Before the emails were sent after the
response, the POST waited at the gate and the test's request timed out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest
import requests
from django.core import mail
from django.core.mail import EmailMessage
from django.core.mail.backends.locmem import EmailBackend
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper
from pytest_django.live_server_helper import LiveServer

from competitions import services
from competitions.models import PoolRound
from mail.models import OutboundEmail
from tests.competitions.desk_league import Desk
from tests.conftest import eager_tasks

pytestmark = pytest.mark.django_db(transaction=True)

DEADLINE = 10.0
"""Seconds: the page must be back well within; the emails must be out within once let go."""

gate = threading.Event()


class GatedBackend(EmailBackend):
    """Django's in-memory backend, sending only once the test opens :data:`gate`."""

    def send_messages(self, messages: Sequence[EmailMessage]) -> int:
        assert gate.wait(2 * DEADLINE), "the test never let the emails go"
        return super().send_messages(messages)


def results_emails() -> list[OutboundEmail]:
    return list(OutboundEmail.objects.filter(template="results-published"))


def test_publishing_answers_the_referee_before_any_results_email_is_sent_and_they_follow(
    desk: Desk, live_server: LiveServer, settings: SettingsWrapper
) -> None:
    pool_round = desk.pool_round(1)
    services.pool_round_arbitrate(pool_round=pool_round, by=desk.referee)
    signed_in = Client()
    signed_in.force_login(desk.referee)
    settings.EMAIL_BACKEND = f"{__name__}.GatedBackend"
    gate.clear()
    desk_url = f"{live_server.url}/referee/championship/elite/1/"
    with eager_tasks(), requests.Session() as browser:
        browser.cookies.set("sessionid", signed_in.cookies["sessionid"].value)
        browser.headers["Accept-Language"] = "en"
        try:
            browser.get(desk_url, timeout=DEADLINE).raise_for_status()
            answer = browser.post(
                f"{desk_url}publish/",
                data={"csrfmiddlewaretoken": browser.cookies["csrftoken"]},
                timeout=DEADLINE,
            )
            answer.raise_for_status()
            assert answer.url == desk_url
            assert "The results emails are on their way to the pool" in answer.text
            pool_round.refresh_from_db()
            assert pool_round.status == PoolRound.Status.PUBLISHED
            queued = results_emails()
            assert {email.to[0] for email in queued} == {
                desk.coach.email,
                desk.other_coach.email,
            }
            assert all(email.status == OutboundEmail.Status.QUEUED for email in queued)
            assert mail.outbox == []
        finally:
            gate.set()
        deadline = time.monotonic() + DEADLINE
        while len(mail.outbox) < len(queued) and time.monotonic() < deadline:
            time.sleep(0.02)
    assert sorted(message.to[0] for message in mail.outbox) == sorted(
        email.to[0] for email in queued
    )
    assert all(email.status == OutboundEmail.Status.SENT for email in results_emails())
