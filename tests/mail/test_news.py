"""The league's news (``league.models.News``, ``mail.news``): admins post an announcement in
French and English; the home page shows the latest in the reader's language, the Wednesday email
tells those posted since the one before, and « Email it now » sends one to every coach who wants
news, once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import timezone

from league.models import News, Profile
from mail.models import Mailing, OutboundEmail
from mail.news import news_emails_send
from mail.preferences import email_preferences_save
from mail.weekly import weekly_emails_send
from tests.mail.weekly_league import PARIS, WEDNESDAY, WeekLeague, emails_to

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

Capture = Callable[..., object]


def post(title: str, *, at: datetime | None = None) -> News:
    return News.objects.create(
        title_fr=f"{title} (fr)",
        title_en=f"{title} (en)",
        body_fr=f"Le texte de {title}.",
        body_en=f"The text of {title}.",
        published_at=at or timezone.now() - timedelta(minutes=1),
    )


# --- The home page ------------------------------------------------------------------------------


def test_the_home_page_shows_the_latest_news_in_the_readers_language(
    client: Client, db: None
) -> None:
    now = timezone.now()
    for day, title in enumerate(["Oldest", "Older", "Recent", "Latest"]):
        post(title, at=now - timedelta(days=4 - day))
    post("Scheduled", at=now + timedelta(days=1))
    english = client.get("/").content.decode()
    assert [t in english for t in ("Latest (en)", "Recent (en)", "Older (en)")] == [True] * 3
    assert "Oldest" not in english  # three on the home page
    assert "Scheduled" not in english  # not before its time
    assert english.index("Latest (en)") < english.index("Recent (en)")
    assert "The text of Latest." in english
    french = Client(headers={"accept-language": "fr"}).get("/").content.decode()
    assert "Latest (fr)" in french
    assert "Latest (en)" not in french


def test_without_news_the_home_page_has_no_news_section(client: Client, db: None) -> None:
    assert 'id="news-title"' not in client.get("/").content.decode()


# --- The Wednesday email ------------------------------------------------------------------------


def test_the_wednesday_email_tells_the_news_posted_since_the_one_before(
    week: WeekLeague, coach: User, other_coach: User
) -> None:
    # The Sleigh Dogs' coach got last Wednesday's email; the Freezing Ass' coach got none.
    Mailing.objects.create(
        season=week.season,
        week=2,
        kind=Mailing.Kind.WEEKLY,
        user=coach,
        created_at=datetime(2026, 3, 11, 9, 0, tzinfo=PARIS),  # a late run
    )
    Profile.objects.create(user=coach, language="en")
    post("Before last Wednesday", at=datetime(2026, 3, 11, 8, 30, tzinfo=PARIS))
    post("Since", at=datetime(2026, 3, 13, 12, 0, tzinfo=PARIS))
    post("Next week", at=datetime(2026, 3, 19, 12, 0, tzinfo=PARIS))
    weekly_emails_send(now=WEDNESDAY)
    [english] = emails_to(coach.email, "weekly")
    assert "Since (en)" in english.body_text
    assert "The text of Since." in english.body_html
    assert "Before last Wednesday" not in english.body_text
    assert "Next week" not in english.body_text
    # A first Wednesday email tells the week before: both, in French.
    [french] = emails_to(other_coach.email, "weekly")
    assert "Since (fr)" in french.body_text
    assert "Before last Wednesday (fr)" in french.body_text
    assert "Since (en)" not in french.body_text


def test_who_wants_no_news_gets_the_wednesday_email_without_it(
    week: WeekLeague, coach: User
) -> None:
    email_preferences_save(user=coach, weekly=True, results=True, news=False)
    post("Since", at=datetime(2026, 3, 13, 12, 0, tzinfo=PARIS))
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to(coach.email, "weekly")
    assert "Since" not in email.body_text


# --- « Email it now » ---------------------------------------------------------------------------


def email_now(client: Client, news: News) -> object:
    return client.post(
        "/admin/league/news/",
        {"action": "email_now", "_selected_action": [str(news.pk)]},
        follow=True,
    )


def test_an_admin_emails_a_news_item_at_once_to_every_coach_in_their_language_once(
    admin_client: Client,
    coach: User,
    other_coach: User,
    visitor: User,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    Profile.objects.create(user=coach, language="en")
    news = post("Christmas break")
    with django_capture_on_commit_callbacks(execute=True):
        response = email_now(admin_client, news)
    assert "is being emailed to every coach" in response.content.decode()
    news.refresh_from_db()
    assert news.emailed_at is not None
    sent = {tuple(m.to): m for m in mail.outbox}
    assert set(sent) == {(coach.email,), (other_coach.email,)}  # coaches only
    assert sent[(coach.email,)].subject == "News: Christmas break (en)"
    assert "Christmas break (fr)" in sent[(other_coach.email,)].subject
    for message in sent.values():
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with django_capture_on_commit_callbacks(execute=True):
        again = email_now(admin_client, news)
    assert "emailed already" in again.content.decode()
    assert OutboundEmail.objects.filter(template="news").count() == 2


def test_the_news_emails_are_in_the_outbox_when_the_admin_s_request_ends(
    admin_client: Client, coach: User, other_coach: User
) -> None:
    """Written in the admin's transaction, not by a task queued after it: nothing after the
    commit (the broker down, say) can lose them."""
    news = post("Christmas break")
    email_now(admin_client, news)  # no on-commit callback runs
    news.refresh_from_db()
    assert news.emailed_at is not None
    outbox = OutboundEmail.objects.filter(template="news").values_list("to", flat=True)
    assert sorted(outbox) == sorted([[coach.email], [other_coach.email]])


def test_a_coach_who_wants_no_news_is_not_emailed(
    coach: User, other_coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    email_preferences_save(user=other_coach, weekly=True, results=True, news=False)
    news = post("Rules change")
    assert news_emails_send(news_id=news.pk) == 1
    assert news_emails_send(news_id=news.pk) == 0  # once, whoever calls
    assert [e.to for e in OutboundEmail.objects.filter(template="news")] == [[coach.email]]


def test_a_scheduled_news_item_is_not_emailed_before_its_time(
    admin_client: Client, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    news = post("Later", at=timezone.now() + timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True):
        response = email_now(admin_client, news)
    assert "not published yet" in response.content.decode()
    assert not OutboundEmail.objects.filter(template="news").exists()
    assert news_emails_send(news_id=news.pk) == 0


def test_only_staff_reach_the_news_admin(client: Client, coach: User) -> None:
    news = post("Private draft")
    client.force_login(coach)
    response = client.post(
        "/admin/league/news/", {"action": "email_now", "_selected_action": [str(news.pk)]}
    )
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    news.refresh_from_db()
    assert news.emailed_at is None
