"""Typed readers for the environment: settings come from here and fail loudly on a bad value.

Every reader takes the variable's name and a default. A missing variable gives the default (or
:class:`~django.core.exceptions.ImproperlyConfigured` when the default is :data:`REQUIRED`); a
variable that is set but cannot be read raises ``ImproperlyConfigured`` naming the variable, the
value and what was expected, so a typo in a deployment stops the process at start-up.

>>> env_int("MH_DOCTEST_UNSET", 3, environ={})
3
>>> env_bool("FLAG", False, environ={"FLAG": "yes"})
True
>>> env_list("HOSTS", [], environ={"HOSTS": "a.example, b.example,"})
['a.example', 'b.example']
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, TypeVar
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()
"""A default that means "this variable must be set"."""

_RATE = re.compile(r"^[0-9]+/(s|sec|second|m|min|minute|h|hour|d|day)$")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _raw(name: str, environ: Mapping[str, str] | None) -> str | None:
    value = (os.environ if environ is None else environ).get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _missing(name: str, default: T | _Required) -> T:
    if isinstance(default, _Required):
        raise ImproperlyConfigured(f"{name} is not set: this setting is required.")
    return default


def _bad(name: str, value: str, expected: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"{name}={value!r} is not valid: expected {expected}.")


def env_str(
    name: str, default: str | _Required, *, environ: Mapping[str, str] | None = None
) -> str:
    """A string; an empty or blank value counts as unset.

    >>> env_str("NAME", REQUIRED, environ={})
    Traceback (most recent call last):
    ...
    django.core.exceptions.ImproperlyConfigured: NAME is not set: this setting is required.
    """
    value = _raw(name, environ)
    return _missing(name, default) if value is None else value


def env_bool(
    name: str, default: bool | _Required, *, environ: Mapping[str, str] | None = None
) -> bool:
    """A boolean written 1/0, true/false, yes/no or on/off (any case).

    A bad value, say ``DJANGO_DEBUG=maybe``, names the variable, the value and what is expected.
    """
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise _bad(name, value, "a boolean (1/0, true/false, yes/no, on/off)")


def env_int(
    name: str,
    default: int | _Required,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """A whole number, optionally bounded (bounds included)."""
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    low = "" if minimum is None else f" from {minimum}"
    high = "" if maximum is None else f" to {maximum}"
    expected = f"a whole number{low}{high}"
    try:
        number = int(value)
    except ValueError:
        raise _bad(name, value, expected) from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise _bad(name, value, expected)
    return number


def env_float(
    name: str,
    default: float | _Required,
    *,
    minimum: float,
    maximum: float,
    environ: Mapping[str, str] | None = None,
) -> float:
    """A decimal number between ``minimum`` and ``maximum`` (included): a number of seconds.

    >>> env_float("T", 0.5, minimum=0.05, maximum=30, environ={"T": "0.25"})
    0.25
    """
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    expected = f"a number from {minimum:g} to {maximum:g}"
    try:
        number = float(value)
    except ValueError:
        raise _bad(name, value, expected) from None
    if not minimum <= number <= maximum:  # NaN fails this too
        raise _bad(name, value, expected)
    return number


_SIZE = re.compile(r"^([0-9]+)\s*([kmg]?)(?:i?b)?$", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def env_bytes(
    name: str,
    default: int | _Required,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """A size in bytes: a whole number, or one with a unit K, M or G, counted in powers of 1024
    (``512K``, ``10M``, ``10MiB``, ``1GB``), optionally bounded (bounds included).

    >>> env_bytes("MAIL_MAX_BYTES", 1024, environ={"MAIL_MAX_BYTES": "10MiB"})
    10485760
    """
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    low = "" if minimum is None else f" from {minimum}"
    high = "" if maximum is None else f" to {maximum}"
    expected = f"a size in bytes{low}{high}, such as 1048576, 512K or 10M"
    match = _SIZE.match(value)
    if match is None:
        raise _bad(name, value, expected)
    size = int(match.group(1)) * _SIZE_UNITS[match.group(2).lower()]
    if (minimum is not None and size < minimum) or (maximum is not None and size > maximum):
        raise _bad(name, value, expected)
    return size


def env_choice(
    name: str,
    default: str | _Required,
    choices: Sequence[str],
    *,
    environ: Mapping[str, str] | None = None,
) -> str:
    """One of ``choices`` (compared in lower case).

    >>> env_choice("MAIL", "console", ["console", "smtp"], environ={"MAIL": "SMTP"})
    'smtp'
    """
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    if value.lower() not in choices:
        raise _bad(name, value, "one of " + ", ".join(choices))
    return value.lower()


def env_rate(name: str, default: str, *, environ: Mapping[str, str] | None = None) -> str:
    """A request rate for the API's throttling, ``<number>/<second|minute|hour|day>``."""
    value = _raw(name, environ)
    if value is None:
        return default
    if not _RATE.match(value):
        raise _bad(name, value, "a rate such as 60/minute (per second, minute, hour or day)")
    return value


def env_list(
    name: str, default: list[str] | _Required, *, environ: Mapping[str, str] | None = None
) -> list[str]:
    """A comma-separated list; spaces around items and empty items are dropped."""
    value = _raw(name, environ)
    if value is None:
        return list(_missing(name, default))
    return [item.strip() for item in value.split(",") if item.strip()]


def _check_url(name: str, value: str, schemes: Iterable[str], whole: str | None = None) -> str:
    allowed = sorted(schemes)
    expected = "a URL starting with " + " or ".join(f"{s}://" for s in allowed)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it validates the port number
    except ValueError:
        raise _bad(name, whole or value, expected) from None
    if parts.scheme not in allowed or not (parts.netloc or parts.path):
        raise _bad(name, whole or value, expected)
    return value


def env_url(
    name: str,
    default: T | _Required,
    *,
    schemes: Iterable[str],
    environ: Mapping[str, str] | None = None,
) -> str | T:
    """A URL whose scheme is one of ``schemes``; ``None`` as default makes it optional."""
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    return _check_url(name, value, schemes)


def env_url_list(
    name: str,
    default: list[str],
    *,
    schemes: Iterable[str],
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """A comma-separated list of URLs, each with one of ``schemes``."""
    urls = env_list(name, default, environ=environ)
    whole = _raw(name, environ)
    return [_check_url(name, url, schemes, whole) for url in urls]
