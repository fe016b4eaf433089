"""Work that waits until a request's response has been sent: :func:`after_response`.

With a broker, slow work after an action is a Celery task that a worker runs while the request
answers. Without one (``make run``'s embedded default: ``CELERY_TASK_ALWAYS_EAGER``) the task
runs where it is queued, so the person who clicked would wait for all of it: the results emails
of a KDH round rendered one by one before « Publier » answers. What such a task does after the
response changes nothing in the response, so the request keeps it for later:

- in a request (between Django's ``request_started`` and ``request_finished``), the work is
  kept — once however many times it is asked for — and run when ``request_finished`` fires:
  after the server has sent the response and closed it (PEP 3333's ``close()``). Under a real
  server (the signal's sender is Django's ``WSGIHandler`` or ``ASGIHandler``, runserver's and
  the live server's included) it runs in a thread of its own: the server handles a connection's
  requests one after the other, and a browser sends the redirect's GET on the connection the
  POST's answer came back on, so work run on that thread would hold the next page back. Under
  Django's test client, which fires the signal itself before handing the response to the test,
  it runs there and then: the test reads what it did as soon as its request returns.
- outside a request (a command, a worker, a shell, a test calling a service), it runs at once:
  a command's emails are sent before its process ends.

What runs in a thread closes its own database connections when it is done; an error there is
logged, never raised (the response is gone). Nothing is queued in memory beyond the request
that asked: the work is a task's, its truth in the database (the outbox's rows).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar

from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import connections
from django.dispatch import receiver

logger = logging.getLogger(__name__)

Work = Callable[[], None]

_kept: ContextVar[list[Work] | None] = ContextVar("after_response", default=None)
"""The work the current request keeps for after its response; ``None`` outside a request."""


def after_response(work: Work) -> None:
    """Run ``work`` once the current request's response is sent, or at once outside a request
    (module docstring). Asked for twice in one request, it runs once."""
    kept = _kept.get()
    if kept is None:
        work()
    elif work not in kept:
        kept.append(work)


@receiver(request_started, dispatch_uid="matrixhockey.after_response.request_started")
def _request_started(sender: object, **kwargs: object) -> None:
    _kept.set([])


@receiver(request_finished, dispatch_uid="matrixhockey.after_response.request_finished")
def _request_finished(sender: object, **kwargs: object) -> None:
    kept = _kept.get()
    _kept.set(None)
    if not kept:
        return
    if isinstance(sender, type) and issubclass(sender, WSGIHandler | ASGIHandler):
        threading.Thread(
            target=_run_in_thread, args=(kept,), name="after-response", daemon=True
        ).start()
    else:
        for work in kept:
            work()


def _run_in_thread(kept: list[Work]) -> None:
    try:
        for work in kept:
            try:
                work()
            except Exception:  # the response is sent: nobody else can hear of it
                logger.exception("Work left for after the response failed")
    finally:
        connections.close_all()
