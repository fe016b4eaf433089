"""« Join the league »: a visitor registers a team on the waiting list, confirms the address,
and may leave. Staff manage the list in the admin; R14's replacements take its first team
(``competitions.services.replacement``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from league.models import Language, WaitingListEntry
from league.signals import plan_inputs_changed, waiting_list_registered

OPEN = (WaitingListEntry.Status.PENDING, WaitingListEntry.Status.WAITING)
"""The entries an address may hold one of: not confirmed yet, or on the list."""


@dataclass(frozen=True)
class WaitingRegistration:
    """What a registration did: ``entry`` is the address's open entry, ``known`` whether the
    address was on the list already (then nothing changed, and its place's link was emailed)."""

    entry: WaitingListEntry
    known: bool


@transaction.atomic
def waiting_list_register(
    *,
    team_name: str,
    contact_name: str,
    email: str,
    language: str,
    user: User | None = None,
    in_reply_to: str = "",
) -> WaitingRegistration:
    """Register ``team_name`` on the waiting list for ``email``, to count once the address is
        confirmed; the confirmation link is emailed. An address already on the list keeps its entry
        and place (its link is emailed again); one not confirmed yet has its entry updated and the
        confirmation sent again. The asker is told the same in every case: an email was sent —
    threaded under the message ``in_reply_to`` (a Message-ID) when the asking was an email
    (``LISTE`` / ``JOIN``, :mod:`mail.intake`)."""
    email = email.strip()
    existing = (
        WaitingListEntry.objects.select_for_update()
        .filter(email__iexact=email, status__in=OPEN)
        .order_by("registered_at", "id")
        .first()
    )
    if existing is not None and existing.status == WaitingListEntry.Status.WAITING:
        waiting_list_registered.send(
            sender=WaitingListEntry, entry=existing, known=True, in_reply_to=in_reply_to
        )
        return WaitingRegistration(entry=existing, known=True)
    entry = existing or WaitingListEntry(email=email, status=WaitingListEntry.Status.PENDING)
    entry.name = team_name.strip()
    entry.contact_name = contact_name.strip()
    entry.language = Language(language).value
    if user is not None and user.is_authenticated:
        entry.user = user
    entry.registered_at = timezone.now()
    entry.full_clean()
    entry.save()
    waiting_list_registered.send(
        sender=WaitingListEntry, entry=entry, known=False, in_reply_to=in_reply_to
    )
    return WaitingRegistration(entry=entry, known=False)


@transaction.atomic
def waiting_list_confirm(*, entry: WaitingListEntry) -> bool:
    """The address of ``entry`` is confirmed: it joins the list now, at its end. Whether this
    confirmed it (``False``: it was confirmed already, placed, or withdrawn; nothing changed)."""
    now = timezone.now()
    # A conditional update: a second click, or two at once, confirm once.
    confirmed = bool(
        WaitingListEntry.objects.filter(pk=entry.pk, status=WaitingListEntry.Status.PENDING).update(
            status=WaitingListEntry.Status.WAITING, confirmed_at=now, registered_at=now
        )
    )
    if confirmed:  # a team on the list: the next season's plan counts it (R24)
        plan_inputs_changed.send(sender=WaitingListEntry)
    return confirmed


@transaction.atomic
def waiting_list_leave(*, entry: WaitingListEntry) -> bool:
    """``entry`` leaves the list (withdrawn; kept for the record). Whether it left now
    (``False``: it had left already, or was placed)."""
    left = bool(
        WaitingListEntry.objects.filter(pk=entry.pk, status__in=OPEN).update(
            status=WaitingListEntry.Status.WITHDRAWN
        )
    )
    if left:
        plan_inputs_changed.send(sender=WaitingListEntry)
    return left
