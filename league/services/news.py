"""The league's news: emailing an announcement to every coach, once."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from league.models import News
from league.services.audit import audit_record
from league.signals import news_email_requested


class NewsNotReady(Exception):
    """The news item is not published yet, or was emailed already."""


@transaction.atomic
def news_email_request(*, news: News, by: User | None) -> None:
    """Ask for ``news`` to be emailed to every coach in their language (those who want news):
    the mail, above the registry, hears :data:`~league.signals.news_email_requested` and writes
    one outbox email per coach in this transaction (its worker renders and sends them). Raises
    :class:`NewsNotReady` for an item not yet published or already emailed."""
    now = timezone.now()
    if news.published_at > now or news.emailed_at is not None:
        raise NewsNotReady(news.pk)
    audit_record(actor=by, action="news_email_requested", obj=news, payload={})
    news_email_requested.send(sender=News, news=news)


def news_emailed_mark(*, news_id: int, at: datetime | None = None) -> News | None:
    """Mark news ``news_id`` as emailed — only one caller ever can (a conditional update): the
    news item for that caller, ``None`` for every other (or when it is not published yet). Call
    it in the transaction that queues the emails."""
    at = at or timezone.now()
    marked = News.objects.filter(pk=news_id, emailed_at__isnull=True, published_at__lte=at).update(
        emailed_at=at
    )
    return News.objects.get(pk=news_id) if marked else None
