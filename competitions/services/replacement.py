"""R14 replacements: a team at its third ONR replaced by a dummy team or the waiting list's
first team, once an admin confirms; a new team ONR in week 1 replaced straight away. A waiting
team placed so gets its coach's invitation (``league.signals.coach_invited``); placed after a
round's deadline, it plays that round as :func:`engine.late_placement` says (the arbitration's
``competitions.services.round_input``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.text import slugify
from django.utils.translation import gettext as _

from competitions.models import OnrSanction
from competitions.selectors.teams import onr_sanction_published
from competitions.services.entries import entry_replace
from league.models import Entry, Profile, Team, WaitingListEntry
from league.services import audit_record, team_create
from league.signals import coach_invited
from matrixhockey.db import save_valid
from matrixhockey.french import of_name

DUMMY_TEAM_NAME = "Équipe fantôme {number}"
"""A dummy team's name (R14). Team names are the league's data, in French whatever the reader's
language, like every other team's."""


def dummy_team_create() -> Team:
    """A new dummy team (R14: random legal picks, no coach), with the next free number."""
    number = Team.objects.filter(is_dummy=True).count() + 1
    while Team.objects.filter(
        Q(name=DUMMY_TEAM_NAME.format(number=number))
        | Q(slug=slugify(DUMMY_TEAM_NAME.format(number=number)))
    ).exists():
        number += 1
    return team_create(name=DUMMY_TEAM_NAME.format(number=number), is_dummy=True)


def _free_team_name(name: str) -> str:
    """``name``, or ``name (2)``, ``name (3)``… when a team already has that name or slug."""
    candidate, number = name, 1
    while Team.objects.filter(Q(name=candidate) | Q(slug=slugify(candidate))).exists():
        number += 1
        candidate = f"{name} ({number})"
    return candidate


@dataclass(frozen=True)
class WaitingListPlacement:
    """A waiting-list team given a place: its new team, and whether its coach's account was
    created for it (then with no usable password: the league invites them to set one)."""

    team: Team
    coach_created: bool


def _waiting_coach(waiting: WaitingListEntry) -> tuple[User | None, bool]:
    """The coach of a waiting-list team taking a place: its user, else the account with its
    contact email, else a new account (no password: the league's one-click links sign them in);
    ``None`` when that user already coaches a team. With whether the account is new."""
    user_model = get_user_model()
    user = waiting.user or user_model.objects.filter(email__iexact=waiting.email).first()
    if user is None:
        base = slugify(waiting.email.split("@")[0]) or "coach"
        username, number = base, 1
        while user_model.objects.filter(username=username).exists():
            number += 1
            username = f"{base}-{number}"
        user = user_model.objects.create_user(username=username, email=waiting.email)
        # The language chosen on « Join the league »: the invitation and every email after it.
        Profile.objects.create(user=user, language=waiting.language)
        return user, True
    if Team.objects.filter(coach=user).exists():
        return None, False
    return user, False


def waiting_list_place(*, waiting: WaitingListEntry) -> WaitingListPlacement:
    """Give ``waiting`` (a waiting-list entry, locked by the caller) its place: its team created
    under its name (numbered when taken), coached by its user, and the entry marked placed."""
    coach, created = _waiting_coach(waiting)
    team = team_create(name=_free_team_name(waiting.name), coach=coach)
    waiting.status = WaitingListEntry.Status.PLACED
    waiting.team = team
    save_valid(waiting)
    return WaitingListPlacement(team=team, coach_created=created)


def _replacement_team(*, waiting_list: bool) -> tuple[Team, WaitingListEntry | None]:
    """R14's replacement: the first team of the waiting list when ``waiting_list`` and the list
    is not empty (its team and coach created, the entry marked placed), else a new dummy team.

    The waiting list's rows are locked, so two replacements at once do not take the same team.
    """
    waiting = (
        list(
            WaitingListEntry.objects.select_for_update(of=("self",))
            .filter(status=WaitingListEntry.Status.WAITING)
            .select_related("user")
            .order_by("registered_at", "id")
        )
        if waiting_list
        else []
    )
    if not waiting:
        return dummy_team_create(), None
    first = waiting[0]
    return waiting_list_place(waiting=first).team, first


def _replace(entry: Entry, *, waiting_list: bool, by: User | None, why: str) -> Entry:
    team, waiting = _replacement_team(waiting_list=waiting_list)
    new = entry_replace(entry=entry, team=team, by=by)
    if waiting is not None and team.coach is not None:
        # R14: the waiting list's team is placed now; its coach gets the invitation « Join the
        # league » promises (their team, a link to choose a password), in the outbox with it.
        coach_invited.send(sender=get_user_model(), user=team.coach)
    audit_record(
        actor=by,
        action="onr_replacement_confirm",
        obj=entry,
        payload={
            "why": why,
            "replaced_by_entry": new.pk,
            "team": team.slug,
            "dummy": team.is_dummy,
            "waiting_list_entry": waiting.pk if waiting is not None else None,
        },
    )
    return new


def _locked_playing_entry(entry: Entry) -> Entry:
    locked = (
        Entry.objects.select_for_update(of=("self",))
        .select_related("team", "division", "season")
        .get(pk=entry.pk)
    )
    if locked.replaced_at is not None:
        raise ValidationError(
            _("%(team)s was already replaced (R14).") % {"team": locked.team}, code="replaced"
        )
    return locked


def _not_published(entry: Entry, sanction: OnrSanction) -> ValidationError:
    """R23: a replacement shows on the public pages at once (the new team's name, the lost
    place), so it waits for the publication of the round that found the ONR."""
    return ValidationError(
        _(
            "The ONR of %(of_team)s was found by the arbitration of %(round)s, which is not "
            "published yet: the replacement can be confirmed once it is, so that nothing of "
            "that round shows before its results (R14, R23)."
        )
        % {"of_team": of_name(entry.team.name), "round": sanction.round},
        code="not_published",
    )


@transaction.atomic
def onr_replacement_confirm(*, sanction: OnrSanction, by: User | None) -> Entry:
    """An admin confirms the replacement a third ONR proposed (R14): an Elite or D2 team by a new
    dummy team, a D3 team by the first team of the waiting list (a dummy when the list is empty —
    the list as it is now, not as it was at the arbitration). Through
    :func:`competitions.services.entry_replace`: the replacement keeps the record (points, results,
    stocks) and takes over the games not yet played; a waiting team's coach is invited. Refused
    until the round whose arbitration found the ONR is published (R23: the replacement shows on
    the public pages at once). Returns the replacement's entry."""
    sanction = OnrSanction.objects.select_related("entry__team", "round").get(pk=sanction.pk)
    if not sanction.replacement:
        raise ValidationError(
            _("No replacement was proposed for this ONR: only a third ONR proposes one (R14)."),
            code="no_replacement",
        )
    entry = _locked_playing_entry(sanction.entry)
    if not onr_sanction_published(sanction=sanction):
        raise _not_published(entry, sanction)
    return _replace(
        entry, waiting_list=entry.division.tier == 3, by=by, why=f"onr_{sanction.onr_count}"
    )


@transaction.atomic
def entry_replace_first_week_onr(*, entry: Entry, by: User | None) -> Entry:
    """R14: an admin replaces a new team (one that played no earlier season) that was ONR in week
    1, straight away, by the first team of the waiting list (a dummy team when it is empty), as
    the rules' « replaced immediately by a team from the waiting list », once that round is
    published (R23). Returns the replacement's entry."""
    entry = _locked_playing_entry(entry)
    if Entry.objects.filter(team=entry.team, season__number__lt=entry.season.number).exists():
        raise ValidationError(
            _("%(team)s played an earlier season: only a new team is replaced at its first ONR.")
            % {"team": entry.team},
            code="not_new",
        )
    sanction = OnrSanction.objects.filter(entry=entry, week=1).select_related("round").first()
    if sanction is None:
        raise ValidationError(
            _("%(team)s was not ONR in week 1 (R14).") % {"team": entry.team}, code="not_onr"
        )
    if not onr_sanction_published(sanction=sanction):
        raise _not_published(entry, sanction)
    return _replace(entry, waiting_list=True, by=by, why="onr_week_1")
