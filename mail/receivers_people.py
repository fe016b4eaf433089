"""The mail listening to what happens to people: a new coach's invitation to set a password
(``league.signals.coach_invited``) and a season's announcement to every coach
(``competitions.signals.season_started``). Loaded by ``mail.receivers``."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.dispatch import receiver

from competitions.models import Round
from competitions.signals import season_started
from league.models import Entry, Season
from league.signals import coach_invited
from mail.emails import email_invitation, email_season_started


@receiver(coach_invited, dispatch_uid="mail.coach_invitation")
def coach_invitation(sender: type, user: AbstractBaseUser, **kwargs: object) -> None:
    """A coach created without a password is invited to choose one."""
    email_invitation(user=user)


@receiver(season_started, dispatch_uid="mail.season_announcement")
def season_announcement(sender: type[Season], season: Season, **kwargs: object) -> None:
    """Every coach of the season hears of it, in their language: division, code, stocks and
    the first deadline."""
    first = Round.objects.filter(season=season).order_by("deadline").first()
    if first is None:
        return
    entries = (
        Entry.objects.filter(season=season, replaced_at__isnull=True)
        .select_related("team__coach", "division", "season")
        .order_by("division__tier", "division__group", "code")
    )
    for entry in entries:
        email_season_started(entry=entry, first_deadline=first.deadline)
