"""Run the project in a fresh Python process with a chosen environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` (or ``python args…`` when code is empty) in the repository, with only
    ``env`` (plus PATH and HOME) as the environment."""
    base = {k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ}
    base["DJANGO_SETTINGS_MODULE"] = "matrixhockey.settings"
    command = [sys.executable, "-c", code] if code else [sys.executable, *args]
    return subprocess.run(
        command, cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=120
    )


def settings_in(env: dict[str, str], *names: str) -> dict[str, object]:
    """The values of settings ``names`` as a fresh process with ``env`` loads them."""
    wanted = f"{{n: getattr(settings, n, None) for n in {list(names)!r}}}"
    code = (
        f"import json; from django.conf import settings; print(json.dumps({wanted}, default=str))"
    )
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "k8#Vq2!zL0pWm5@rT9xYc3^nB7&hJ4*sD1(fG6)aE8-uI0_oP2=lK5+jH3~gF7",
    "DJANGO_ALLOWED_HOSTS": "hockey.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://hockey.example.org",
    "SITE_URL": "https://hockey.example.org",
}


@pytest.fixture
def production_env() -> dict[str, str]:
    return dict(PRODUCTION)
