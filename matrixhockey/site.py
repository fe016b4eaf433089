"""The site's own address, for links that leave it (emails, calendar feeds)."""

from __future__ import annotations

from django.conf import settings


def site_url(path: str) -> str:
    """An absolute address on the site, for links in emails (``SITE_URL``)."""
    return settings.SITE_URL.rstrip("/") + path
