"""Signing in behind a real reverse proxy, as docker-compose.yml deploys the site: Debian's nginx
in front of pytest-django's live server, trusted as the compose file's environment says
(``TRUSTED_PROXY_COUNT``, read through the settings as a process with that environment loads
them). Each visitor's socket is bound to an address of its own on 127.0.0.0/8, so the proxy sees
strangers and coaches apart, as on the internet: a stranger hammering a coach's user name pauses
only the stranger, never the coach on the right password, and the proxy's own address is never
what gets paused.

Without ``nginx`` (``make test-packages`` installs it) these tests are skipped, or fail with
``REQUIRE_SERVICES=1``."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
import yaml
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings
from pytest_django.live_server_helper import LiveServer

from tests.conftest import services_required
from tests.matrixhockey.conftest import ROOT, settings_in

pytestmark = pytest.mark.django_db(transaction=True)

SIGN_IN = "/accounts/login/"
TOKEN = "/api/token/"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def compose_trusted_proxies() -> int:
    """How many proxies the site trusts with docker-compose.yml's environment for `web`."""
    web = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]
    wanted = ("DJANGO_BEHIND_PROXY", "TRUSTED_PROXY_COUNT")
    env = {name: str(web["environment"][name]) for name in wanted if name in web["environment"]}
    loaded = settings_in(env, "REST_FRAMEWORK")["REST_FRAMEWORK"]
    assert isinstance(loaded, dict)
    return int(loaded["NUM_PROXIES"])


NGINX_CONF = """
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://{upstream};
            proxy_set_header Host $host;
            # As a deployment's proxy does: the address the request came from, appended.
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
        }}
    }}
}}
"""


@pytest.fixture
def proxy(live_server: LiveServer, settings: Settings, tmp_path: Path) -> Iterator[int]:
    """nginx on a free port of 127.0.0.1 in front of the live server, the site trusting it as
    docker-compose.yml has it; its port."""
    binary = nginx_binary()
    if binary is None:
        reason = "nginx is not installed (apt-get install nginx-light)"
        if services_required():
            pytest.fail(f"REQUIRE_SERVICES=1 and {reason}", pytrace=False)
        pytest.skip(reason)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": compose_trusted_proxies()}
    # Slowed sign-ins are part of what runs; their wait is for the benchmark, not this test.
    settings.SIGN_IN_SLOWDOWN_MILLISECONDS = 1
    port = free_port()
    upstream = urlsplit(live_server.url).netloc
    conf = tmp_path / "nginx.conf"
    conf.write_text(NGINX_CONF.format(directory=tmp_path, port=port, upstream=upstream))
    process = subprocess.Popen(
        [binary, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(100):
            if process.poll() is not None:
                error = process.stderr.read().decode() if process.stderr else ""
                pytest.fail(f"nginx did not start: {error}", pytrace=False)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("nginx did not listen", pytrace=False)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class Visitor:
    """A browser of one's own, its connections from ``address`` (on 127.0.0.0/8) to the proxy."""

    address: str
    port: int
    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self, method: str, path: str, body: bytes | None = None, **headers: str
    ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=30, source_address=(self.address, 0)
        )
        try:
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            sent = {"Accept-Language": "en", **headers, **({"Cookie": cookie} if cookie else {})}
            connection.request(method, path, body=body, headers=sent)
            answer = connection.getresponse()
            text = answer.read().decode()
            for raw in answer.headers.get_all("Set-Cookie") or []:
                parsed: SimpleCookie = SimpleCookie(raw)
                self.cookies.update({name: morsel.value for name, morsel in parsed.items()})
            return answer.status, dict(answer.headers.items()), text
        finally:
            connection.close()

    def sign_in(self, username: str, password: str, **headers: str) -> tuple[int, str]:
        if "csrftoken" not in self.cookies:
            self.request("GET", SIGN_IN)
        form = {
            "csrfmiddlewaretoken": self.cookies["csrftoken"],
            "username": username,
            "password": password,
        }
        status, _headers, text = self.request(
            "POST",
            SIGN_IN,
            urlencode(form).encode(),
            **{"Content-Type": "application/x-www-form-urlencoded", **headers},
        )
        return status, text

    def token(self, username: str, password: str) -> tuple[int, dict[str, Any]]:
        body = json.dumps({"username": username, "password": password}).encode()
        status, _headers, text = self.request(
            "POST", TOKEN, body, **{"Content-Type": "application/json"}
        )
        return status, json.loads(text)


def test_a_stranger_hammering_a_coach_s_user_name_does_not_lock_the_coach_out(
    proxy: int, coach: User
) -> None:
    strangers = [Visitor(f"127.0.0.{n}", proxy) for n in range(11, 14)]
    for stranger in strangers:
        codes = [stranger.sign_in("sleigh-coach", "guess")[0] for _ in range(5)]
        assert codes == [200, 200, 200, 200, 429]
    # The stranger's address is paused for that account, even with the right password…
    status, text = strangers[0].sign_in("sleigh-coach", "secret-password")
    assert status == 429
    assert "signing in to this account from your address is paused until" in text
    # …and the coach, from an address of their own, signs in.
    status, _text = Visitor("127.0.0.2", proxy).sign_in("sleigh-coach", "secret-password")
    assert status == 302


def test_an_address_trying_many_user_names_is_paused_alone(proxy: int, coach: User) -> None:
    stranger = Visitor("127.0.0.21", proxy)
    codes = [stranger.sign_in(f"someone-{n}", "guess")[0] for n in range(30)]
    assert codes == [200] * 29 + [429]
    status, text = stranger.sign_in("sleigh-coach", "secret-password")
    assert status == 429
    assert "signing in from your address is paused until" in text
    assert Visitor("127.0.0.22", proxy).sign_in("sleigh-coach", "secret-password")[0] == 302


def test_a_forged_x_forwarded_for_does_not_escape_the_pause(proxy: int, coach: User) -> None:
    """The proxy appends the address it saw: what the client wrote before it is not believed."""
    stranger = Visitor("127.0.0.31", proxy)
    for n in range(5):
        stranger.sign_in("sleigh-coach", "guess", **{"X-Forwarded-For": f"198.51.100.{n}"})
    forged = {"X-Forwarded-For": "198.51.100.200"}
    assert stranger.sign_in("sleigh-coach", "secret-password", **forged)[0] == 429


def test_the_api_s_token_is_paused_the_same_way(proxy: int, coach: User) -> None:
    strangers = [Visitor(f"127.0.0.{n}", proxy) for n in range(41, 44)]
    for stranger in strangers:
        codes = [stranger.token("sleigh-coach", "guess")[0] for _ in range(5)]
        assert codes == [400, 400, 400, 400, 429]
    status, body = strangers[0].token("sleigh-coach", "secret-password")
    assert status == 429
    assert body["paused"] == "account"
    status, body = Visitor("127.0.0.3", proxy).token("sleigh-coach", "secret-password")
    assert status == 200
    assert len(body["token"]) == 40
