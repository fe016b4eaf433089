"""The site refuses to start behind a proxy it does not count (``matrixhockey.checks``): every
visitor would have the proxy's address, and a few wrong passwords from anyone would pause
signing in for everybody. Management commands stop on the system check's error, gunicorn on the
WSGI entry point's; both say why, with no traceback. docker-compose.yml counts its proxy."""

from __future__ import annotations

import socket
from typing import Any

import pytest
import yaml

from tests.matrixhockey.conftest import PRODUCTION, ROOT, run_python

BEHIND_A_PROXY = {**PRODUCTION, "DJANGO_BEHIND_PROXY": "1"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_command_refuses_to_start_behind_a_proxy_with_no_trusted_hop() -> None:
    done = run_python("", BEHIND_A_PROXY, "manage.py", "check")
    assert done.returncode != 0
    assert "(matrixhockey.E001) DJANGO_BEHIND_PROXY=1 but TRUSTED_PROXY_COUNT=0" in done.stderr
    assert "HINT: Set TRUSTED_PROXY_COUNT" in done.stderr
    assert "Traceback" not in done.stderr


def test_gunicorn_refuses_to_start_behind_a_proxy_with_no_trusted_hop() -> None:
    bind = f"127.0.0.1:{free_port()}"
    done = run_python(
        "",
        BEHIND_A_PROXY,
        "-m",
        "gunicorn",
        "matrixhockey.wsgi:application",
        f"--bind={bind}",
        "--workers=1",
    )
    assert done.returncode == 4  # gunicorn's "App failed to load": the master stops
    assert "The site cannot start: ?: (matrixhockey.E001)" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({**BEHIND_A_PROXY, "TRUSTED_PROXY_COUNT": "1"}, id="behind-a-counted-proxy"),
        pytest.param(dict(PRODUCTION), id="no-proxy"),
    ],
)
def test_the_site_starts_when_its_proxies_are_counted(env: dict[str, str]) -> None:
    done = run_python("", env, "manage.py", "check")
    assert done.returncode == 0, done.stderr


def test_docker_compose_counts_its_proxy() -> None:
    services: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    wanted = ("DJANGO_BEHIND_PROXY", "TRUSTED_PROXY_COUNT")
    web = services["web"]["environment"]
    env = {**PRODUCTION, **{name: str(web[name]) for name in wanted if name in web}}
    done = run_python("", env, "manage.py", "check")
    assert done.returncode == 0, done.stderr
