"""The README and the docs name files and folders that exist: a path written in backticks that
starts with one of the repository's folders (or ``../shared/``) is there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FOLDERS = (
    "engine/",
    "league/",
    "competitions/",
    "mail/",
    "matrixhockey/",
    "templates/",
    "static/",
    "locale/",
    "tests/",
    "bench/",
    "docs/",
    ".ci/",
    "../shared/",
)
QUOTED = re.compile(r"`([^`\s]+)`")


def named_paths(text: str) -> set[str]:
    """The repository paths ``text`` quotes: ``tests/conftest.py``, ``engine/``,
    ``competitions/services/picks.py:pick_submit`` (read as its file)…"""
    found = set()
    for quoted in QUOTED.findall(text):
        if not quoted.startswith(FOLDERS):
            continue
        path = re.split(r"[:(]", quoted, maxsplit=1)[0].rstrip(".,")
        if "*" in path or "<" in path or "{" in path:
            continue  # a pattern (``templates/rules/_guide_<fr|en>.html``), not a path
        found.add(path)
    return found


def test_named_paths_reads_paths_only() -> None:
    text = "see `tests/conftest.py:fixture`, `engine/`, `/picks/`, `x.py`, `docs/*.md`"
    assert named_paths(text) == {"tests/conftest.py", "engine/"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_path_a_doc_names_exists(doc: Path) -> None:
    missing = sorted(path for path in named_paths(doc.read_text()) if not (ROOT / path).exists())
    assert missing == []


def test_the_readme_points_to_the_rules_the_site_serves() -> None:
    # The rules a reader of the README is sent to are the project's own (the guide the site
    # serves at /rules/), not a folder beside the clone that a clone does not have.
    readme = (ROOT / "README.md").read_text()
    assert "../shared/rules" not in readme
    assert "`templates/rules/_guide_fr.html`" in readme.split("## Configuration")[0]
