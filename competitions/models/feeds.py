"""The key in a coach's private calendar feed address (``competitions.feeds``)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def calendar_feed_key_new() -> str:
    """A fresh secret for a person's private calendar address."""
    return secrets.token_urlsafe(16)


class CalendarFeedKey(models.Model):
    """A person's secret in the signed address of their private calendar feed.

    The address signs the person and this key: a new key (« New address ») makes every address
    given before answer 404. A person without a row has the empty key until they renew it.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="calendar_feed_key",
    )
    key = models.CharField(_("key"), max_length=64, default=calendar_feed_key_new)
    renewed_at = models.DateTimeField(_("renewed at"), default=timezone.now)

    class Meta:
        verbose_name = _("calendar feed key")
        verbose_name_plural = _("calendar feed keys")

    def __str__(self) -> str:
        return str(self.user)
