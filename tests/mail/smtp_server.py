"""A real SMTP server on 127.0.0.1 (aiosmtpd) for the tests whose emails go out through the
site's SMTP backend: :func:`smtp_serving` starts one with a handler of the test's own and points
the site's email settings at it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def smtp_serving(handler: object, settings: Any) -> Iterator[Controller]:
    """``handler`` (aiosmtpd's ``handle_RCPT``/``handle_DATA``) answering on a free port while
    inside, the site's email backend (``settings``: pytest-django's fixture) sending to it."""
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_TIMEOUT = 5
    try:
        yield controller
    finally:
        controller.stop()
