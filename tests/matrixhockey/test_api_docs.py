"""The API's OpenAPI schema and its browsable docs, served from local files (no CDN)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse


def test_the_openapi_schema_is_served(client: Client) -> None:
    response = client.get(reverse("api-schema"), headers={"accept": "application/json"})
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Matrix Hockey API"


def test_the_api_docs_load_their_scripts_from_the_site_itself(client: Client) -> None:
    html = client.get(reverse("api-docs")).content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assets = [s for s in sources if s.endswith((".js", ".css"))]
    assert assets and all(s.startswith("/static/drf_spectacular_sidecar/") for s in assets)
    assert "cdn" not in html.lower()


def test_the_api_authenticates_by_token_and_session_and_throttles() -> None:
    api = settings.REST_FRAMEWORK
    assert api["DEFAULT_AUTHENTICATION_CLASSES"] == [
        "matrixhockey.api.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ]
    assert set(api["DEFAULT_THROTTLE_RATES"]) == {"anon", "user", "token"}


def test_the_schema_is_generated_without_a_warning(tmp_path: Path) -> None:
    """Two serializers of one name, or a choice set named twice, make the schema guess (and
    ``manage.py check --deploy`` fail): each component has one name and one shape."""
    schema = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--file", str(schema))
    assert "TeamName:" in schema.read_text()
