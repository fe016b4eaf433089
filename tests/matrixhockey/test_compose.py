"""docker-compose.yml and the Dockerfile, checked statically (Docker does not run here)."""

from __future__ import annotations

import importlib
import re
import shlex
from typing import Any

import pytest
import yaml
from celery import Celery
from celery.app.utils import find_app

from matrixhockey.beat import SCHEDULE
from tests.matrixhockey.conftest import ROOT

APP_SERVICES = ("web", "worker", "beat")


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def command(service: dict[str, Any]) -> list[str]:
    raw = service["command"]
    return shlex.split(raw) if isinstance(raw, str) else [str(part) for part in raw]


def test_compose_runs_the_whole_production_shape(services: dict[str, dict[str, Any]]) -> None:
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(services)
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    catchers = [s for s in services.values() if re.search(r"mailpit|mailhog", s.get("image", ""))]
    assert catchers, "no mail catcher service"


def test_the_web_service_serves_the_wsgi_application_with_gunicorn(
    services: dict[str, dict[str, Any]],
) -> None:
    args = command(services["web"])
    assert args[0] == "gunicorn"
    target = next(a for a in args[1:] if not a.startswith("-"))
    module, _, attribute = target.partition(":")
    application = getattr(importlib.import_module(module), attribute)
    assert callable(application)


@pytest.mark.parametrize(("service", "subcommand"), [("worker", "worker"), ("beat", "beat")])
def test_the_celery_services_run_the_projects_app(
    services: dict[str, dict[str, Any]], service: str, subcommand: str
) -> None:
    args = command(services[service])
    assert args[:2] == ["celery", "-A"]
    app = find_app(args[2])
    assert isinstance(app, Celery) and app.main == "matrixhockey"
    assert subcommand in args[3:]


def test_beat_schedules_only_registered_tasks() -> None:
    app = find_app("matrixhockey")
    app.loader.import_default_modules()
    assert app.conf.beat_schedule == SCHEDULE
    for name, entry in SCHEDULE.items():
        assert entry["task"] in app.tasks, name


def test_the_app_services_share_the_production_environment(
    services: dict[str, dict[str, Any]],
) -> None:
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["DJANGO_DEBUG"] == "0", name
        assert (
            env["DATABASE_URL"].startswith("postgresql://") and "@postgres:" in env["DATABASE_URL"]
        )
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["EMAIL_BACKEND"] == "smtp"
        assert services[name]["build"] == "."


def test_every_variable_compose_sets_is_documented_in_the_readme(
    services: dict[str, dict[str, Any]],
) -> None:
    readme = (ROOT / "README.md").read_text()
    for name in services["web"]["environment"]:
        assert f"`{name}`" in readme, name


def test_the_image_is_python_311_slim_installs_the_project_and_runs_unprivileged() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    assert lines[next(i for i, line in enumerate(lines) if line.startswith("FROM"))] == (
        "FROM python:3.11-slim"
    )
    text = "\n".join(lines)
    assert re.search(r"pip install \.(\s|$)", text)
    assert "collectstatic --noinput" in text
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
