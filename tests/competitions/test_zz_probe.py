import os
import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.core.cache import caches
from competitions.demo import demo_load

pytestmark = pytest.mark.django_db

def test_probe():
    league = demo_load(week=int(os.environ.get("WEEK", "3")))
    for path in os.environ["PATHS"].split(","):
        client = Client(headers={"Accept-Language": "en"})
        for c in caches.all():
            c.clear()
        with CaptureQueriesContext(connection) as q:
            r = client.get(path)
        print("\n==", path, r.status_code, len(q))
        for x in q.captured_queries:
            print("  ", x["sql"][:300])
