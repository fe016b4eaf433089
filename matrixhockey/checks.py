"""The site's own system checks. Django runs them at start-up (``migrate``, ``runserver``,
every management command, ``manage.py check``); an Error stops the command with its message
and hint, no traceback. The WSGI and ASGI entry points run them too (:func:`refuse_to_start`):
gunicorn runs no command first."""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register

GUNICORN_APP_LOAD_ERROR = 4
"""The exit status with which gunicorn's master stops when a worker cannot load the site,
instead of starting new workers forever."""


@register(Tags.security)
def trusted_proxy_check(**kwargs: Any) -> list[CheckMessage]:
    """Behind a proxy (``DJANGO_BEHIND_PROXY``) that ``TRUSTED_PROXY_COUNT`` does not count,
    every visitor has the proxy's address: a few wrong passwords from anyone would pause signing
    in for everybody, and one client would spend everybody's rate limits."""
    if not settings.BEHIND_PROXY or settings.TRUSTED_PROXY_COUNT > 0:
        return []
    return [
        Error(
            "DJANGO_BEHIND_PROXY=1 but TRUSTED_PROXY_COUNT=0: every visitor would have the "
            "proxy's address, and a few wrong passwords from anyone would pause signing in "
            "for everybody.",
            hint="Set TRUSTED_PROXY_COUNT to the number of the league's own proxies in front "
            "of the site, each adding the address it got the request from to X-Forwarded-For "
            "(1 for the one proxy of docker-compose.yml).",
            id="matrixhockey.E001",
        )
    ]


def refuse_to_start() -> None:
    """Stop the process, with the messages and no traceback, when a check of this module
    fails: for the WSGI and ASGI servers, which start without a management command."""
    errors = [message for message in trusted_proxy_check() if message.is_serious()]
    if not errors:
        return
    for error in errors:
        print(f"The site cannot start: {error}", file=sys.stderr)
    sys.stderr.flush()
    raise SystemExit(GUNICORN_APP_LOAD_ERROR)
