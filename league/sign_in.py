"""How failed sign-ins pause signing in, as OWASP's authentication guidance has it: nobody can
lock a coach out by guessing at their user name from elsewhere.

django-axes records every failed sign-in (the site's form, the admin's, ``POST /api/token/``)
as a row per user name, client address and user agent, and asks its handler, before each
password is checked, whether to refuse. This handler (``AXES_HANDLER``) counts the failures of
the cool-off (``AXES_COOLOFF_TIME``, from each row's last failure) in three scopes:

- **an account from one address** (user name + address): ``AXES_FAILURE_LIMIT`` failures
  (``SIGN_IN_FAILURE_LIMIT``) pause signing in to that account from that address;
- **an address** (whatever the user names): ``SIGN_IN_ADDRESS_FAILURE_LIMIT`` failures pause
  every sign-in from it;
- **a user name** (from every address): never a pause; past ``SIGN_IN_SLOWDOWN_AFTER``
  failures each sign-in to it waits ``SIGN_IN_SLOWDOWN_MILLISECONDS`` before its password is
  checked (whether right or wrong: the wait tells nothing), so the right password from a clean
  address still signs in while strangers hammer the name. The wait holds a server thread: the
  address's pause bounds how many one address can cause, and the API's token endpoint is
  throttled per address besides (``bench/bench_sign_in.py`` measures the wait).

The address is the one every limit of the site reads (``matrixhockey.api.client_address``,
``AXES_CLIENT_IP_CALLABLE``): behind the league's proxies, the client's.
"""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest

logger = logging.getLogger(__name__)


class PauseScope(enum.Enum):
    """What a pause refuses."""

    ACCOUNT_FROM_ADDRESS = "account"
    """Signing in to one account from one address (its other addresses are not paused)."""
    ADDRESS = "address"
    """Every sign-in from one address, whatever the user name."""


@dataclass(frozen=True)
class Pause:
    """A pause in force: what it refuses and when it ends."""

    scope: PauseScope
    until: datetime


def paused_until(
    failures: list[tuple[datetime, int]], *, limit: int, cool_off: timedelta
) -> datetime | None:
    """When a scope whose failures are ``failures`` (each row's last failure and its count) is
    no longer paused, or ``None`` when it is not paused. A row stops counting ``cool_off``
    after its last failure: the pause ends when enough of the oldest rows have stopped counting
    to leave fewer than ``limit`` failures.

    >>> from datetime import datetime, timedelta
    >>> at = datetime(2026, 1, 9, 12, 0)
    >>> paused_until([(at, 3), (at + timedelta(minutes=5), 2)], limit=5,
    ...              cool_off=timedelta(minutes=15))
    datetime.datetime(2026, 1, 9, 12, 15)
    >>> paused_until([(at, 4)], limit=5, cool_off=timedelta(minutes=15)) is None
    True
    """
    total = sum(count for _when, count in failures)
    if total < limit:
        return None
    for when, count in sorted(failures):
        total -= count
        if total < limit:
            return when + cool_off
    raise AssertionError("unreachable: the total falls to 0 < limit")


def _username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    name = get_client_username(request, credentials)
    return name if isinstance(name, str) else None


def sign_in_pause(request: HttpRequest, credentials: dict[str, Any] | None = None) -> Pause | None:
    """The pause that refuses this sign-in (the one that ends last when both scopes are
    paused), or ``None``. One query: the failures of the cool-off from the client's address.
    ``request`` has been through django-axes (its ``axes_ip_address`` and attempt time)."""
    username = _username(request, credentials)
    rows = list(
        AccessAttempt.objects.filter(
            ip_address=request.axes_ip_address,  # type: ignore[attr-defined]  # set by axes
            attempt_time__gte=get_cool_off_threshold(request),
        ).values_list("username", "attempt_time", "failures_since_start")
    )
    cool_off: timedelta = settings.AXES_COOLOFF_TIME
    candidates = [
        (
            paused_until(
                [(when, count) for _name, when, count in rows],
                limit=settings.SIGN_IN_ADDRESS_FAILURE_LIMIT,
                cool_off=cool_off,
            ),
            PauseScope.ADDRESS,
        ),
        (
            paused_until(
                [(when, count) for name, when, count in rows if name == username],
                limit=settings.AXES_FAILURE_LIMIT,
                cool_off=cool_off,
            )
            if username is not None
            else None,
            PauseScope.ACCOUNT_FROM_ADDRESS,
        ),
    ]
    pauses = [Pause(scope=scope, until=until) for until, scope in candidates if until is not None]
    return max(pauses, key=lambda pause: pause.until, default=None)


def username_failures(request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
    """The failures of the cool-off for this sign-in's user name, from every address."""
    username = _username(request, credentials)
    if username is None:
        return 0
    total = AccessAttempt.objects.filter(
        username=username, attempt_time__gte=get_cool_off_threshold(request)
    ).aggregate(total=Sum("failures_since_start"))["total"]
    return int(total or 0)


class SignInHandler(AxesDatabaseHandler):
    """django-axes's database handler, its failures weighed scope by scope (module docstring).

    Axes compares :meth:`get_failures` with ``AXES_FAILURE_LIMIT`` (before the password is
    checked, and after a failure to answer that failure with the pause): it gets the limit
    itself when a scope is paused, 0 otherwise.
    """

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        if sign_in_pause(request, credentials) is not None:
            return int(settings.AXES_FAILURE_LIMIT)
        return 0

    def is_allowed(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
        allowed = bool(super().is_allowed(request, credentials))
        if allowed:
            self.slow_down(request, credentials)
        return allowed

    def slow_down(self, request: HttpRequest, credentials: dict[str, Any] | None) -> None:
        """Wait before a sign-in to a user name failed too often from everywhere: slower
        guessing, and never a refusal of the right password."""
        if settings.SIGN_IN_SLOWDOWN_MILLISECONDS == 0:
            return
        failures = username_failures(request, credentials)
        if failures < settings.SIGN_IN_SLOWDOWN_AFTER:
            return
        # The user name stays out of the log, as django-axes keeps it out of its own lines.
        logger.warning(
            "Sign-in slowed by %d ms: its user name failed %d times from every address",
            settings.SIGN_IN_SLOWDOWN_MILLISECONDS,
            failures,
        )
        time.sleep(settings.SIGN_IN_SLOWDOWN_MILLISECONDS / 1000)
