"""Teams of the league, from one season to the next."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils.text import slugify
from django.utils.translation import gettext as _

from league.models import Team
from league.services.audit import audit_record
from league.signals import deputy_ended
from matrixhockey.db import save_valid


@transaction.atomic
def team_create(
    *,
    name: str,
    slug: str = "",
    coach: User | None = None,
    is_dummy: bool = False,
) -> Team:
    """A new team; its slug defaults to the slugified name. A user coaches one team at most,
    and a coach deputises no other team: a deputy made coach stops deputising
    (:func:`coach_deputyship_end`)."""
    team = save_valid(Team(name=name, slug=slug or slugify(name), coach=coach, is_dummy=is_dummy))
    if coach is not None:
        coach_deputyship_end(coach=coach, team=team, by=None)
    return team


@transaction.atomic
def coach_deputyship_end(*, coach: User, team: Team, by: User | None) -> Team | None:
    """``coach`` coaches ``team`` now, so they stop deputising any other: a person is never
    coach of one team and deputy of another, or their picks would go to the other team (a
    deputy's picks are the team's, R12). Called by whatever makes someone a coach, in its
    transaction: a team made (a waiting-list placement, an import), the admin's choice of
    coach. The team they deputised hears of it (``league.signals.deputy_ended``: an email to
    its coach); that team, or ``None`` when they deputised none."""
    deputised = (
        Team.objects.select_for_update().filter(deputy_id=coach.pk).exclude(pk=team.pk).first()
    )
    if deputised is None:
        return None
    Team.objects.filter(pk=deputised.pk, deputy_id=coach.pk).update(deputy=None)
    deputised.deputy = None
    audit_record(
        actor=by,
        action="team_deputy_end",
        obj=deputised,
        payload={"deputy": coach.get_username(), "coaches": team.slug},
    )
    deputy_ended.send(sender=Team, team=deputised, deputy=coach)
    return deputised


class DeputyRefused(ValueError):
    """Why a coach's choice of deputy was refused, in words for the coach."""


def _deputy_find(who: str) -> User:
    """The active user whose username or email is ``who`` (case-insensitive)."""
    who = who.strip()
    found = list(
        get_user_model()
        .objects.filter(Q(username__iexact=who) | Q(email__iexact=who), is_active=True)
        .order_by("pk")[:2]
    )
    if not who or not found:
        raise DeputyRefused(_("Nobody of the league has this username or email address."))
    if len(found) > 1:
        raise DeputyRefused(_("Several people share this email address: give a username."))
    return found[0]


def team_deputy_check(*, team: Team, deputy: User) -> None:
    """:class:`DeputyRefused` when ``deputy`` may not deputise ``team``: they coach another
    team (a person is never coach of one team and deputy of another) or deputise one
    already. The coach's form and the admin's ask it alike."""
    if Team.objects.filter(coach_id=deputy.pk).exclude(pk=team.pk).exists():
        raise DeputyRefused(_("This person coaches a team of their own."))
    if Team.objects.filter(deputy_id=deputy.pk).exclude(pk=team.pk).exists():
        raise DeputyRefused(_("This person is already another team's deputy."))


@transaction.atomic
def team_deputy_set(*, team: Team, by: User, who: str) -> Team:
    """``by`` (the team's coach) names ``who`` (a username or an email address) deputy: they
    may send the team's picks too, recorded as entered by them (R12), and get its reminders.
    One deputy a team; a deputy is nobody's coach and no other team's deputy."""
    team = Team.objects.select_for_update().get(pk=team.pk)
    if team.coach_id is None or team.coach_id != by.pk:
        raise DeputyRefused(_("Only the team's coach may choose its deputy."))
    deputy = _deputy_find(who)
    if deputy.pk == team.coach_id:
        raise DeputyRefused(_("You are the coach: choose someone else as your deputy."))
    team_deputy_check(team=team, deputy=deputy)
    before = team.deputy_id
    team.deputy = deputy
    save_valid(team)
    audit_record(
        actor=by,
        action="team_deputy_set",
        obj=team,
        payload={"deputy": deputy.get_username(), "before": before},
    )
    return team


@transaction.atomic
def team_deputy_remove(*, team: Team, by: User) -> Team:
    """The coach takes the team's deputy's right away (nothing happens when there is none)."""
    team = Team.objects.select_for_update().get(pk=team.pk)
    if team.coach_id is None or team.coach_id != by.pk:
        raise DeputyRefused(_("Only the team's coach may choose its deputy."))
    if team.deputy_id is None:
        return team
    removed = team.deputy
    team.deputy = None
    team.save(update_fields=["deputy"])
    audit_record(
        actor=by,
        action="team_deputy_remove",
        obj=team,
        payload={"deputy": removed.get_username() if removed else None},
    )
    return team
