"""Work kept for after the response (:mod:`matrixhockey.after_response`): at once outside a
request; under Django's test client, once, when the client closes the response, before the test
reads it; under a real server, after the response was sent, in a thread of its own, while the
connection answers its next request (a browser's redirect comes on the same connection)."""

from __future__ import annotations

import threading
import time

import pytest
import requests
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path
from pytest_django.live_server_helper import LiveServer

from matrixhockey.after_response import after_response

pytestmark = pytest.mark.urls(__name__)

DEADLINE = 10.0
"""Seconds a test waits for what should happen at once."""

done: list[str] = []
gate = threading.Event()
"""Opened by the test: the work kept by ``/gated/`` waits for it."""


def record() -> None:
    done.append("work")


def gated_record() -> None:
    assert gate.wait(DEADLINE), "the test never opened the gate"
    done.append("work")


def kept_twice(request: HttpRequest) -> HttpResponse:
    after_response(record)
    after_response(record)
    done.append("view")
    return HttpResponse("kept")


def kept_behind_the_gate(request: HttpRequest) -> HttpResponse:
    after_response(gated_record)
    return HttpResponse("kept")


def page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(f"page after {len(done)}")


urlpatterns = [
    path("kept/", kept_twice),
    path("gated/", kept_behind_the_gate),
    path("page/", page),
]


@pytest.fixture(autouse=True)
def _fresh() -> None:
    done.clear()
    gate.clear()


def test_outside_a_request_the_work_runs_at_once() -> None:
    after_response(record)
    assert done == ["work"]


def test_under_the_test_client_the_work_runs_once_after_the_view_before_the_test_reads() -> None:
    answer = Client().get("/kept/")
    assert answer.content == b"kept"
    assert done == ["view", "work"]


def test_a_request_after_one_that_kept_work_keeps_nothing_of_it() -> None:
    browser = Client()
    browser.get("/kept/")
    browser.get("/page/")
    assert done == ["view", "work"]


def test_under_a_real_server_the_answer_and_the_next_request_on_its_connection_do_not_wait(
    live_server: LiveServer,
) -> None:
    with requests.Session() as browser:  # one keep-alive connection, as a browser's
        try:
            answer = browser.get(f"{live_server.url}/gated/", timeout=DEADLINE)
            assert answer.text == "kept"
            following = browser.get(f"{live_server.url}/page/", timeout=DEADLINE)
            assert following.text == "page after 0"
        finally:
            gate.set()
    deadline = time.monotonic() + DEADLINE
    while done != ["work"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert done == ["work"]
