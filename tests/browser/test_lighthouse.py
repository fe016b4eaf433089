"""Lighthouse (the Node package pinned in package.json, installed by ``make test``) scores every
public page of the demo league at 100 for accessibility, best practices and SEO, in Debian's
Chromium, on a phone's screen and a desktop's.

One Node process audits every page in one Chromium (``tests/browser/lighthouse.mjs``). When
``node_modules/lighthouse`` is missing (``make node-packages`` installs it) the tests are
skipped, or fail with ``REQUIRE_SERVICES=1``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest

from competitions.demo import DemoLeague
from tests.browser.conftest import CHROMIUM, DemoSite
from tests.conftest import services_required

pytestmark = [pytest.mark.browser, pytest.mark.django_db(serialized_rollback=True)]

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("lighthouse.mjs")
CATEGORIES = ("accessibility", "best-practices", "seo")
NOT_FOUND = "not found"
"""The 404 page fails two audits by being one: SEO's « Page has unsuccessful HTTP status code »
and, in best practices, the console's « Failed to load resource: … 404 » for the page itself.
Everything else is held to 100 there too."""


@pytest.fixture(scope="module", autouse=True)
def _lighthouse_installed() -> None:
    problems = []
    if shutil.which("node") is None:
        problems.append("Node.js is not installed (Debian package: nodejs)")
    if not (ROOT / "node_modules" / "lighthouse").is_dir():
        problems.append("node_modules/lighthouse is missing (make node-packages installs it)")
    if problems:
        problem = "; ".join(problems)
        if services_required():
            pytest.fail(f"REQUIRE_SERVICES=1 and {problem}", pytrace=False)
        pytest.skip(problem)


FORM_FACTORS = ("mobile", "desktop")
ONE_FORM_FACTOR = {
    "results latest": "mobile",
    "results week waiting": "desktop",
    "results elite round": "desktop",
    "results kdh round": "mobile",
    "infos index": "desktop",
    "infos kdh": "mobile",
}
"""Pages drawn by one template with another page of this list (``results/week.html``,
``results/pool_round.html``, ``league/infos.html``): each is audited in one form factor, its
twin in the other, so that every page is audited and every template in both form factors. An
audit costs a few seconds of CPU; what tells two form factors apart (the viewport, tap targets,
font sizes) is the template's and its stylesheet's, not the rows it shows."""


def audited(pages: dict[str, str], form_factor: str) -> dict[str, str]:
    """The pages audited in ``form_factor``, by name."""
    return {
        name: path
        for name, path in pages.items()
        if ONE_FORM_FACTOR.get(name, form_factor) == form_factor
    }


@pytest.fixture(scope="module")
def reports(demo_site: DemoSite) -> dict[str, dict[str, Any]]:
    """Lighthouse's report of every public page on a phone's screen and a desktop's, the two
    audited side by side (each in its own Chromium): every page, once or in both (see
    :data:`ONE_FORM_FACTOR`)."""
    pages = demo_site.public_pages()
    runs = {
        form_factor: subprocess.Popen(
            [
                "node",
                str(SCRIPT),
                str(CHROMIUM),
                form_factor,
                *(demo_site.url + path for path in audited(pages, form_factor).values()),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for form_factor in FORM_FACTORS
    }
    done = {}
    for form_factor, run in runs.items():
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, err[-4000:]
        done[form_factor] = json.loads(out)
    return done


def worded(audit: dict[str, Any]) -> str:
    lines = [f"  {audit['category']}: {audit['id']} ({audit['score']}) {audit['title']}"]
    for item in audit["items"]:
        shown = {key: value for key, value in item.items() if value}
        lines.append(f"      {json.dumps(shown, ensure_ascii=False)[:400]}")
    return "\n".join(lines)


def its_own_404(audit: dict[str, Any], url: str) -> bool:
    return all(
        item["url"] == url and "status of 404" in item["description"] for item in audit["items"]
    )


@pytest.mark.parametrize("form_factor", FORM_FACTORS)
def test_every_public_page_scores_100_for_accessibility_best_practices_and_seo(
    demo_site: DemoSite, reports: dict[str, dict[str, Any]], form_factor: str
) -> None:
    pages = audited(demo_site.public_pages(), form_factor)
    report = reports[form_factor]
    scores, problems = [], []
    for name, path in pages.items():
        url = demo_site.url + path
        result = report[url]
        assert result["runtimeError"] is None, f"{name}: {result['runtimeError']}"
        scores.append(
            f"{name:22} {path:42} "
            + " ".join(f"{result['scores'][c] * 100:5.0f}" for c in CATEGORIES)
        )
        failing = result["failing"]
        if name == NOT_FOUND:
            # Lighthouse saw a 404, and the only error in the console is that page's own.
            assert "http-status-code" in {audit["id"] for audit in failing}
            failing = [
                audit
                for audit in failing
                if audit["id"] != "http-status-code"
                and not (audit["id"] == "errors-in-console" and its_own_404(audit, url))
            ]
        if failing:
            problems.append(f"{name} ({path}):\n" + "\n".join(map(worded, failing)))
    print(f"Lighthouse ({form_factor}): accessibility, best practices, SEO", *scores, sep="\n")
    assert not problems, "\n".join(problems)


def test_every_public_page_is_audited_and_each_shared_template_in_both_form_factors() -> None:
    pages = DemoSite(url="", league=cast(DemoLeague, None), team="t").public_pages()
    assert set(ONE_FORM_FACTOR) <= set(pages)
    assert set(audited(pages, "mobile")) | set(audited(pages, "desktop")) == set(pages)
    shared = list(ONE_FORM_FACTOR.values())
    assert shared.count("mobile") == shared.count("desktop")
