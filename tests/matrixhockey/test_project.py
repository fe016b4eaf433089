"""The project as a whole: Django's checks, migrations in step with the models, catalogues."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.matrixhockey.conftest import ROOT, run_python


def test_django_system_checks_pass() -> None:
    done = run_python("", {}, "manage.py", "check", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr


def test_migrations_are_up_to_date_with_the_models() -> None:
    done = run_python("", {}, "manage.py", "makemigrations", "--check", "--dry-run")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_catalogues_are_complete_and_compile(language: str) -> None:
    po = ROOT / "locale" / language / "LC_MESSAGES" / "django.po"
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt (gettext) is not installed: make installs it")
    done = subprocess.run(
        [msgfmt, "--check", "--statistics", "-o", "/dev/null", str(po)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "untranslated" not in done.stderr and "fuzzy" not in done.stderr, done.stderr
