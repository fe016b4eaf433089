"""« Email it now » through a real Celery worker on the real Redis broker and a real SMTP server
(aiosmtpd on 127.0.0.1): the news reaches every coach with its one-click unsubscribe headers, and
the link read from the received message's header unsubscribes."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from celery import Celery
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.utils import timezone

from league import services as league
from league.models import News
from mail.models import EmailPreferences
from tests.mail.test_tasks_email import MailServer, mail_server, worker  # noqa: F401

pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


def wait_for_messages(server: MailServer, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(server.received) < count:
        time.sleep(0.05)
    assert len(server.received) == count


def test_news_emailed_by_the_worker_carries_a_working_one_click_unsubscribe(
    mail_server: MailServer,  # noqa: F811
    worker: Celery,  # noqa: F811
    coach: User,
    other_coach: User,
) -> None:
    news = News.objects.create(
        title_fr="Trêve",
        title_en="Break",
        body_fr="Pas de journée.",
        body_en="No round.",
        published_at=timezone.now(),
    )
    with transaction.atomic():
        league.news_email_request(news=news, by=None)
    wait_for_messages(mail_server, 2)
    by_address = {message["To"]: message for message in mail_server.received}
    message = by_address[coach.email]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # The header is folded on its own line (RFC 5322): its value starts with that whitespace.
    link = message["List-Unsubscribe"].strip().removeprefix("<").removesuffix(">")
    response = Client(enforce_csrf_checks=True).post(
        urlsplit(link).path,
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    assert EmailPreferences.objects.get(user=coach).news is False
    assert not EmailPreferences.objects.filter(user=other_coach).exists()
    news.refresh_from_db()
    assert news.emailed_at is not None
