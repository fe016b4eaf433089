"""A coach's private calendar address (``competitions.feeds``): renewing its key revokes it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from competitions.models import CalendarFeedKey
from competitions.models.feeds import calendar_feed_key_new
from league.services.audit import audit_record


@transaction.atomic
def calendar_feed_key_renew(*, user: User) -> CalendarFeedKey:
    """A new key for ``user``'s private calendar address: every address given before stops
    working (404), the new one is shown on « My account » and the pick page."""
    row, created = CalendarFeedKey.objects.select_for_update().get_or_create(user=user)
    if not created:
        row.key = calendar_feed_key_new()
        row.renewed_at = timezone.now()
        row.save(update_fields=["key", "renewed_at"])
    audit_record(actor=user, action="calendar_feed_renewed", obj=row, payload={})
    return row
