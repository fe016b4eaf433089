"""What the in-process benchmarks share: their own PostgreSQL database, made afresh, and a
query counter (``bench_arbitration.py``, ``bench_memory.py``, ``bench_publish.py``,
``bench_screens.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg2
from psycopg2 import sql


def database_url(name: str) -> str:
    """The URL of database ``name`` on the server of ``$DATABASE_URL`` (or the local one)."""
    base = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/postgres"
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def database_create(url: str, template: str | None = None) -> None:
    """Drop the bench's database if it is there and create it empty (a copy of the database
    ``template``, nobody connected to it, when given: a migrated one, say)."""
    parts = urlsplit(url)
    connection = psycopg2.connect(
        dbname="postgres",
        user=parts.username,
        password=parts.password,
        host=parts.hostname,
        port=parts.port,
    )
    connection.autocommit = True
    name = sql.Identifier(parts.path.lstrip("/"))
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        if template is None:
            cursor.execute(sql.SQL("CREATE DATABASE {}").format(name))
        else:
            cursor.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(name, sql.Identifier(template))
            )
    connection.close()


def query_count(counted: list[int], execute: Callable, statement: str, *args: Any) -> Any:
    """A database execute wrapper counting the queries (``connection.execute_wrapper``)."""
    counted[0] += 1
    return execute(statement, *args)
