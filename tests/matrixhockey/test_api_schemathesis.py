"""Schemathesis over the OpenAPI schema (``/api/schema/``), with every role's token.

The schema is loaded from the app itself (WSGI, in-process) on the PostgreSQL test database of a
small league: championship round 1 published, round 2 arbitrated but not published, rounds 3
and 4 open, the KDH's round 1 open, the championship's and the KDH's matrices (R25). Every
operation is called by a visitor (no token), a coach, the coach's deputy, another coach, a
referee of the Elite and a staff member, with every check schemathesis has: no server error,
status codes, content types, headers and bodies as documented, schema-valid data accepted and
schema-invalid data refused. So every answer, errors included, is JSON in a documented shape,
and the schema accepts exactly what the server accepts.

Bounded and repeatable: few examples per operation, no deadline, derandomized.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import hypothesis
import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from pytest_django.fixtures import Settings
from schemathesis import Case
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.schemas import OpenApiSchema

from competitions.models import Pool
from engine.notation import Pick
from league import services as league
from league.models import Team
from tests.competitions.matrix_values import matrices_create
from tests.competitions.open_rounds import coaches_open_league
from tests.conftest import ResultRecorder

CONFIG = SchemathesisConfig.from_path(Path(__file__).resolve().parents[2] / "schemathesis.toml")
"""The repository's ``schemathesis.toml`` (as ``schemathesis run`` reads it): the two refusals of
well-formed requests that depend on what is stored."""

ROLES = ("visitor", "coach", "deputy", "other_coach", "referee", "staff")

SIGNED_IN_ALIKE = ("deputy", "other_coach", "referee", "staff")
PERSONAL = re.compile(r"^/api/(me|picks|arbitrations)/")
"""The public reads and the token answer every signed-in caller alike: a visitor and a coach call
every operation, the other roles those whose answer depends on who calls."""


@pytest.fixture(params=ROLES)
def role(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def deputy(coach: User) -> User:
    """The deputy of the coach's team (R12): they send its picks too."""
    user = User.objects.create_user("deputy", email="deputy@example.org", password="x")
    Team.objects.filter(coach=coach).update(deputy=user)
    return user


@pytest.fixture
def headers(
    role: str,
    coach: User,
    deputy: User,
    other_coach: User,
    referee: User,
    admin_user: User,
) -> dict[str, str]:
    """The headers of a request by ``role``: its API token, none for a visitor."""
    people = {
        "coach": coach,
        "deputy": deputy,
        "other_coach": other_coach,
        "referee": referee,
        "staff": admin_user,
    }
    user = people.get(role)
    answer = {"Accept-Language": "en"}
    if user is not None:
        answer["Authorization"] = f"Token {league.api_token_obtain(user=user)}"
    return answer


@pytest.fixture
def api_schema(
    headers: dict[str, str],
    coach: User,
    other_coach: User,
    elite_pool: Pool,
    record_played: ResultRecorder,
    settings: Settings,
) -> Iterator[OpenApiSchema]:
    """The league of the module's docstring, and the schema the app serves for it."""
    # The throttles are tested elsewhere: here they would only turn the examples into 429s.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }
    coaches_open_league(
        coach=coach, other_coach=other_coach, elite=elite_pool, record_played=record_played
    )
    matrices_create(season=elite_pool.season)  # R25: the matrices' read answers its rows
    cache.clear()
    # As Django's test client does: the requests run inside the test's transaction, which closing
    # "old" connections at each request's start and end would close under it.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application(), config=CONFIG)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        cache.clear()


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.django_db
@schema.parametrize()
@hypothesis.settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(hypothesis.HealthCheck),
)
def test_every_answer_is_as_the_schema_documents_it(
    case: Case, role: str, headers: dict[str, str]
) -> None:
    if role in SIGNED_IN_ALIKE and not PERSONAL.match(case.operation.path):
        pytest.skip("answers every signed-in caller alike: called by the coach")
    response = case.call_and_validate(headers=headers)
    if (
        response.status_code == 400
        and case.meta is not None
        and case.meta.generation.mode.is_positive
    ):
        _refused_for_what_is_stored_only(case, response.json())


def _refused_for_what_is_stored_only(case: Case, answer: object) -> None:
    """``schemathesis.toml`` lets two operations answer 400 to well-formed data, for what only
    the stored rows can tell: never for the text itself, which the schema must describe."""
    if case.operation.label == "POST /api/token/":
        # The account: a body the schema takes is one the server reads.
        assert answer == {"detail": "Unable to sign in with this user name and password."}
    elif case.operation.label == "PUT /api/picks/{competition}/{round}/":
        # The team's own record and the competition's rules (R6, R7, R11), not the notation: a
        # pick the schema takes is one the engine reads (R10).
        assert isinstance(answer, dict) and set(answer) <= {"pick", "faults"}, answer
        assert answer["pick"] and all(
            fault["code"] != "notation" for fault in answer.get("faults", [])
        ), answer
        Pick.parse(case.body["pick"])
    else:
        raise AssertionError(f"{case.operation.label} refused well-formed data: {answer}")
