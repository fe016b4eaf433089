"""The league's news by email: an announcement an admin chose to email at once, to every coach
who wants news (``mail.preferences``), each in their language. The Wednesday email tells the news
of the week too (``mail.weekly.weekly_news``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse

from league.models import News
from league.selectors import news_in_language, user_language
from league.services import news_emailed_mark
from mail.models import EmailKind, OutboundEmail
from mail.outbox import Memo, Rendering, emails_queue, renders
from mail.preferences import email_wanted, unsubscribe_url
from matrixhockey.site import site_url


def news_recipients() -> list[User]:
    """Every coach of a team with an address and an active account, once each."""
    return list(
        get_user_model()
        .objects.filter(team__isnull=False, is_active=True)
        .exclude(email="")
        .distinct()
        .order_by("pk")
    )


@transaction.atomic
def news_emails_send(*, news_id: int) -> int:
    """Email news ``news_id`` to every coach who wants news, once whoever calls: the item is
    marked emailed in the transaction that queues the emails — one row per coach, rendered by
    the worker that sends it (:func:`news_rendering`) — so a second call, or a redelivered
    task, finds it marked and queues nothing. How many emails were queued."""
    news = news_emailed_mark(news_id=news_id)
    if news is None:
        return 0
    queued = emails_queue(
        [
            OutboundEmail(template="news", user=coach, to=[coach.email], context={"news": news.pk})
            for coach in news_recipients()
            if email_wanted(user=coach, kind=EmailKind.NEWS)
        ]
    )
    return len(queued)


@renders("news")
def news_rendering(email: OutboundEmail, memo: Memo) -> Rendering | None:
    """A news email, when sent, in its coach's language (the item's text in it when it has
    one), with the one-click link that stops news. Nobody when the item is gone."""
    news = News.objects.filter(pk=email.context["news"]).first()
    coach = email.user
    if news is None or coach is None:
        return None
    language = user_language(coach)
    return Rendering(
        user=coach,
        language=language,
        context={
            "user": coach,
            "news": news_in_language(news=news, language=language),
            "news_url": site_url(reverse("home") + f"#news-{news.pk}"),
        },
        unsubscribe=unsubscribe_url(user=coach, kind=EmailKind.NEWS),
    )
