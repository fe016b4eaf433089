"""The translation catalogues: French, the league's language, is complete and well-formed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

LOCALE = Path(__file__).resolve().parents[2] / "locale"
FRENCH = LOCALE / "fr" / "LC_MESSAGES" / "django.po"
ENGLISH = LOCALE / "en" / "LC_MESSAGES" / "django.po"
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdr]|\{\w*\}")


def entries(path: Path) -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(path)) if not e.obsolete]


def test_every_french_message_is_translated_and_none_is_fuzzy() -> None:
    untranslated = [e.msgid for e in entries(FRENCH) if not e.translated()]
    fuzzy = [e.msgid for e in entries(FRENCH) if "fuzzy" in e.flags]
    assert untranslated == []
    assert fuzzy == []


def test_every_french_plural_has_both_forms() -> None:
    for entry in entries(FRENCH):
        if entry.msgid_plural:
            assert set(entry.msgstr_plural) == {0, 1}, entry.msgid
            assert all(entry.msgstr_plural.values()), entry.msgid


@pytest.mark.parametrize("path", [FRENCH, ENGLISH], ids=["fr", "en"])
def test_translations_keep_the_placeholders_of_their_message(path: Path) -> None:
    for entry in entries(path):
        wanted = sorted(PLACEHOLDER.findall(entry.msgid_plural or entry.msgid))
        forms = entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr]
        for form in forms:
            if form:
                assert sorted(PLACEHOLDER.findall(form)) == wanted, (entry.msgid, form)


def test_no_english_message_is_fuzzy() -> None:
    assert [e.msgid for e in entries(ENGLISH) if "fuzzy" in e.flags] == []


@pytest.mark.parametrize("path", [FRENCH, ENGLISH], ids=["fr", "en"])
def test_the_catalogues_compile(path: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        ["msgfmt", "--check-format", "-o", str(tmp_path / "django.mo"), str(path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_every_message_of_the_code_and_templates_is_in_the_french_catalogue(
    tmp_path: Path,
) -> None:
    # A string marked for translation but never extracted would show in English to a French
    # visitor: extract again into a scratch copy of the project and compare.
    root = LOCALE.parent
    copy = tmp_path / "project"
    # Not node_modules either (Lighthouse's 185 MB in 13,000 files, no string of the site's):
    # copying it was most of this test's time.
    ignored = shutil.ignore_patterns(
        ".*", "var", "staticfiles", "node_modules", "tests", "__pycache__", "*.mo"
    )
    shutil.copytree(root, copy, ignore=ignored)
    done = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "fr", "--no-obsolete", "-v", "0"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    extracted = {
        (e.msgctxt, e.msgid) for e in entries(copy / "locale" / "fr" / "LC_MESSAGES" / "django.po")
    }
    catalogued = {(e.msgctxt, e.msgid) for e in entries(FRENCH)}
    assert sorted(extracted - catalogued, key=str) == []


# The site's French that differs from Django's on purpose, where the site's reads better
# everywhere the message is shown, the admin included.
OWN_WORDS = {"object id", "Page not found", "Change my password", "Email"}


def test_the_site_s_catalogue_leaves_django_s_own_french_alone() -> None:
    """The site's catalogue comes first: a message Django also translates, in another sense
    (« Change » a stock's variation, « Close » a season), takes a context, or the admin would
    show the site's sense (« Variation » on every row for « Modifier »)."""
    import django

    ours = {(e.msgctxt, e.msgid): e.msgstr for e in entries(FRENCH) if not e.msgid_plural}
    contrib = Path(django.__file__).parent
    catalogues = [*contrib.glob("contrib/*/locale/fr/LC_MESSAGES/django.po")]
    catalogues.append(contrib / "conf" / "locale" / "fr" / "LC_MESSAGES" / "django.po")
    clashes = [
        (entry.msgid, entry.msgstr, ours[(entry.msgctxt, entry.msgid)])
        for catalogue in catalogues
        for entry in polib.pofile(str(catalogue))
        if (entry.msgctxt, entry.msgid) in ours
        and entry.msgstr
        and entry.msgid not in OWN_WORDS
        and ours[(entry.msgctxt, entry.msgid)] != entry.msgstr
    ]
    assert clashes == []


def test_french_messages_use_the_typographic_apostrophe() -> None:
    """French prose writes « l’équipe », not « l'équipe » (a code-like message, none yet, would
    be listed here)."""
    straight = [
        form
        for entry in entries(FRENCH)
        for form in (entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr])
        if "'" in form
    ]
    assert straight == []


def test_the_infos_legend_names_the_stocks_as_the_rules_do() -> None:
    legend = next(e.msgstr for e in entries(FRENCH) if e.msgid.startswith("Extra time and shoot"))
    assert "extra-buts, # super-arrêts" in legend


@pytest.mark.parametrize("path", [FRENCH, ENGLISH], ids=["fr", "en"])
def test_no_message_hedges_its_number_with_a_bracketed_s(path: Path) -> None:
    """« 2 extra-buts », « 1 colonne manquante »: a number's noun agrees with it (ngettext,
    ``{% blocktranslate count %}``), never « extra-but(s) »."""
    hedged = [
        text
        for entry in entries(path)
        for text in [entry.msgid, entry.msgid_plural, entry.msgstr, *entry.msgstr_plural.values()]
        if "(s)" in text
    ]
    assert hedged == []


def test_the_french_names_the_coach_s_pick_an_ordre_as_the_rules_do() -> None:
    """The rules say « jeu d’ordres », « envoyer ses ordres »: a message about picks never calls
    them « choix » (which stays for the emails' choices)."""
    pick = re.compile(r"\bpicks?\b", re.IGNORECASE)
    choix = [
        form
        for entry in entries(FRENCH)
        if pick.search(entry.msgid)
        for form in (entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr])
        if re.search(r"\bchoix\b", form, re.IGNORECASE)
    ]
    assert choix == []


def test_no_french_message_puts_de_or_a_before_a_name_it_cannot_contract() -> None:
    """« des Harfangs », « de l’Élite »: a name after « de » or « à » is an ``of_…`` or
    ``to_…`` placeholder, which the code fills already contracted (``matrixhockey.french``)."""
    named = re.compile(r"\b(?:de|à|du|des|au|aux)\s+%\((?:team|division|pool|object|entry)\)s")
    uncontracted = [
        form
        for entry in entries(FRENCH)
        for form in (entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr])
        if named.search(form)
    ]
    assert uncontracted == []
