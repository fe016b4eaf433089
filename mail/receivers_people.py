"""The mail listening to what happens to people: a new coach's invitation to set a password
(``league.signals.coach_invited``), a forgotten password's link, a deputy's right ended
(``league.signals.deputy_ended``), the waiting list's emails, and
a season's announcement to every coach (``competitions.signals.season_started``), a news item
an admin emails now (``league.signals.news_email_requested``). Loaded by
``mail.receivers``."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.dispatch import receiver

from competitions.signals import season_started
from league.models import News, Season, Team, WaitingListEntry
from league.signals import (
    coach_invited,
    deputy_ended,
    news_email_requested,
    password_reset_requested,
    waiting_list_registered,
)
from mail.emails import email_invitation, emails_season_started
from mail.emails_accounts import email_deputy_ended, email_password_reset, email_waiting_list
from mail.news import news_emails_send


@receiver(coach_invited, dispatch_uid="mail.coach_invitation")
def coach_invitation(sender: type, user: User, **kwargs: object) -> None:
    """A coach created without a password is invited to choose one."""
    email_invitation(user=user)


@receiver(deputy_ended, dispatch_uid="mail.deputy_ended")
def deputy_ended_email(sender: type[Team], team: Team, deputy: User, **kwargs: object) -> None:
    """A deputy who now coaches a team of their own deputises ``team`` no more: its coach
    hears of it."""
    email_deputy_ended(team=team, deputy=deputy)


@receiver(news_email_requested, dispatch_uid="mail.news_email")
def news_email(sender: type[News], news: News, **kwargs: object) -> None:
    """An admin asked for a news item to go to every coach now: its emails are written to the
    outbox in the admin's transaction (a worker renders and sends each)."""
    news_emails_send(news_id=news.pk)


@receiver(password_reset_requested, dispatch_uid="mail.password_reset")
def password_reset(sender: type, user: User, **kwargs: object) -> None:
    """Someone asked for a new password with ``user``'s address: the link goes to that address."""
    email_password_reset(user=user)


@receiver(waiting_list_registered, dispatch_uid="mail.waiting_list_registered")
def waiting_list_email(
    sender: type, entry: WaitingListEntry, known: bool, in_reply_to: str = "", **kwargs: object
) -> None:
    """A registration on the waiting list: the confirmation link, or the place's link (a reply
    to the message ``in_reply_to`` when the registration came by email)."""
    email_waiting_list(entry=entry, known=known, in_reply_to=in_reply_to)


@receiver(season_started, dispatch_uid="mail.season_announcement")
def season_announcement(sender: type[Season], season: Season, **kwargs: object) -> None:
    """Every coach of the season hears of it, in their language: division, code, stocks and
    the first deadline — one outbox row each, written in the start's transaction and rendered
    by the worker that sends it (:func:`~mail.emails.emails_season_started`)."""
    emails_season_started(season=season)
