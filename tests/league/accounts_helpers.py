"""Shared by the accounts tests: emails delivered in the test's process, links read back from
them."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager

from django.conf import settings
from django.core import mail
from django.http import HttpResponse
from django.test import Client

Capture = Callable[..., AbstractContextManager[list[Callable[[], None]]]]


def post_committed(
    client: Client, capture: Capture, path: str, data: dict[str, str], **extra: object
) -> HttpResponse:
    """POST, then run what the request queued on commit (the outbox's delivery)."""
    with capture(execute=True):
        return client.post(path, data, **extra)


def link_in(message: mail.EmailMessage, pattern: str) -> str:
    """The one site path matching ``pattern`` in an email's text."""
    [link] = re.findall(rf"http\S+{pattern}", message.body)
    return link.removeprefix(settings.SITE_URL.rstrip("/"))


def html_of(message: mail.EmailMessage) -> str:
    [(html, kind)] = message.alternatives  # type: ignore[attr-defined]
    assert kind == "text/html"
    return html
