"""The head-to-head, the records and the records broken cost the same queries after one closed
season and after three (issue 25): each page and API read of the memory reads stored rows in a
constant number of statements. The history is ``tests/competitions/memory_peers_league.py``'s."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from competitions.models import RecordBreak
from tests.competitions.memory_peers_league import peers_history, peers_more

pytestmark = pytest.mark.django_db


def _queries(client: Client, paths: list[str]) -> dict[str, int]:
    counts = {}
    for path in paths:
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(path)
        assert answer.status_code == 200, path
        counts[path] = len(queries)
    return counts


def test_the_memorys_pages_cost_the_same_queries_at_one_season_and_at_three(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    peers = peers_history(monkeypatch)
    client = Client()
    running = peers.running
    paths = [
        "/",
        "/records/",
        "/head-to-head/aigles/boucs/",
        "/head-to-head/",
        f"/results/week/{running}/1/",
        "/api/records/",
        "/api/head-to-head/aigles/boucs/",
        "/api/records/breaks/?week=1",
    ]
    one = _queries(client, paths)
    running = peers_more(peers)
    assert RecordBreak.objects.filter(season__number=running, week=1).exists()
    paths[4] = f"/results/week/{running}/1/"
    three = _queries(client, paths)
    assert all(one.values())
    assert list(three.values()) == list(one.values())
