"""The league's news: emailing an announcement to every coach, once."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from league.models import News
from league.services.audit import audit_record
from matrixhockey.celery import app as celery_app

NEWS_EMAIL_TASK = "mail.news_email_send"
"""The Celery task that emails a news item to every coach (``mail.tasks.news_email_send``)."""


class NewsNotReady(Exception):
    """The news item is not published yet, or was emailed already."""


def news_email_request(*, news: News, by: AbstractBaseUser | None) -> None:
    """Ask a worker to email ``news`` to every coach in their language (those who want news),
    once the transaction commits; by the task's registered name (the mail sits above the
    registry). Raises :class:`NewsNotReady` for an item not yet published or already emailed."""
    now = timezone.now()
    if news.published_at > now or news.emailed_at is not None:
        raise NewsNotReady(news.pk)
    audit_record(actor=by, action="news_email_requested", obj=news, payload={})
    transaction.on_commit(lambda: celery_app.tasks[NEWS_EMAIL_TASK].delay(news.pk))


def news_emailed_mark(*, news_id: int, at: datetime | None = None) -> News | None:
    """Mark news ``news_id`` as emailed — only one caller ever can (a conditional update): the
    news item for that caller, ``None`` for every other (or when it is not published yet). Call
    it in the transaction that queues the emails."""
    at = at or timezone.now()
    marked = News.objects.filter(pk=news_id, emailed_at__isnull=True, published_at__lte=at).update(
        emailed_at=at
    )
    return News.objects.get(pk=news_id) if marked else None
