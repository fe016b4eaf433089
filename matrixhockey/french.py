"""French with names, numbers and dates: what gettext cannot do alone.

A French message that puts « de » or « à » before a name contracts it with the name's article
and elides it before a vowel: « de l’Élite », « des Harfangs » (a team named « Les Harfangs »),
« du Canadien » (« Le Canadien »), « d’Ottawa », « aux Harfangs », never « de Les Harfangs ».
The message's placeholder carries the contracted form: its msgid writes the English with the
bare name (« Honours of %(of_team)s »), its French msgstr no « de » (« Palmarès %(of_team)s »),
and the code fills it with :func:`of_name` (:func:`to_name` for « à »), which gives the bare
name in English and the contracted one in French. A placeholder named ``of_…`` or ``to_…`` is
always filled so.

Numbers: « 1re place », « 2e place » (:func:`place`), « 1st, 2nd » in English. Dates: « 1er
janvier » in French (:func:`date_format`, which the site's ``date`` template filter uses).

>>> contracted("de", "Les Harfangs"), contracted("à", "Les Harfangs")
('des Harfangs', 'aux Harfangs')
>>> contracted("de", "Le Canadien"), contracted("à", "Le Canadien")
('du Canadien', 'au Canadien')
>>> contracted("de", "l’Élite"), contracted("de", "la D2A"), contracted("de", "Ottawa")
('de l’Élite', 'de la D2A', 'd’Ottawa')
>>> contracted("de", "Sleigh Dogs"), contracted("de", "Harfangs"), contracted("à", "Igloos")
('de Sleigh Dogs', 'de Harfangs', 'à Igloos')
>>> ordinal_fr(1, feminine=True), ordinal_fr(1), ordinal_fr(2), ordinal_en(1), ordinal_en(12)
('1re', '1er', '2e', '1st', '12th')
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import time as Time
from typing import Literal, Protocol

from django.utils import dateformat, formats, translation
from django.utils.translation import gettext as _

Preposition = Literal["de", "à"]

# « de le » → « du », « à les » → « aux »: the article is the name's first word.
_CONTRACTIONS: dict[tuple[Preposition, str], str] = {
    ("de", "le"): "du",
    ("de", "les"): "des",
    ("à", "le"): "au",
    ("à", "les"): "aux",
}
_ARTICLE = re.compile(r"^(?:(les|le|la)\s+|(l['’])\s*)", re.IGNORECASE)
_VOWEL = "aàâäeéèêëiîïoôöuùûüœæ"
# Words with a mute h (« l’hiver », « d’Hirondelles »); every other h is aspirated, as in English
# names and « les Harfangs », « les Hiboux », « les Hurons », and takes no elision.
_MUTE_H = ("habitant", "hermine", "hirondelle", "hiver", "homme", "honneur", "horizon", "huître")


def _elides(word: str) -> bool:
    lower = word.lower()
    return lower[:1] in _VOWEL or lower.startswith(_MUTE_H)


def contracted(preposition: Preposition, name: str) -> str:
    """« de » or « à » before ``name`` as French writes them: contracted with the name's own
    article (« Les Harfangs » → « des Harfangs »), elided before a vowel or mute h (« d’Ottawa »).
    An article ``la`` or ``l’`` stays, in lower case: « de la D2A », « à l’Élite »."""
    name = name.strip()
    article = _ARTICLE.match(name)
    if article is not None:
        word = (article.group(1) or article.group(2)).lower().replace("'", "’")
        rest = name[article.end() :]
        joined = _CONTRACTIONS.get((preposition, word))
        if joined is not None:
            return f"{joined} {rest}"
        return f"{preposition} {word}{'' if word == 'l’' else ' '}{rest}"
    if preposition == "de" and _elides(name):
        return f"d’{name}"
    return f"{preposition} {name}"


def _french() -> bool:
    return (translation.get_language() or "").split("-")[0] == "fr"


def of_name(name: str) -> str:
    """The value of an ``of_…`` placeholder: ``name`` after « de » in French (« des
    Harfangs »), the bare name in English."""
    return contracted("de", name) if _french() else name


def to_name(name: str) -> str:
    """The value of a ``to_…`` placeholder: ``name`` after « à » in French (« aux
    Harfangs »), the bare name in English."""
    return contracted("à", name) if _french() else name


def with_article(name: str, *, elite: bool) -> str:
    """A division's name as a French sentence says it, with its article: « l’Élite » (the
    league's first division, its French name), « la D2A » (« la division 2A »); the bare name
    in English."""
    if not _french():
        return name
    if elite:
        return "l’Élite"
    return f"l’{name}" if _elides(name) else f"la {name}"


class Division(Protocol):
    """A championship division as these words need it (``league.models.Division``)."""

    name: str
    tier: int


def of_division(division: Division) -> str:
    """The value of an ``of_division`` placeholder: « de l’Élite », « de la D2A » in French, the
    division's name in English."""
    return of_name(with_article(division.name, elite=division.tier == 1))


def ordinal_fr(number: int, *, feminine: bool = False) -> str:
    """« 1er » / « 1re », then « 2e », « 3e »… (the French abbreviations, no superscript)."""
    if number == 1:
        return "1re" if feminine else "1er"
    return f"{number}e"


def ordinal_en(number: int) -> str:
    """« 1st », « 2nd », « 3rd », « 4th »… « 11th », « 12th », « 13th », « 21st »."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def place(number: int) -> str:
    """A place in a table in words, in the active language: « 1re place », « 2e place »; « 1st
    place », « 2nd place »."""
    if _french():
        return _("%(ordinal)s place") % {"ordinal": ordinal_fr(number, feminine=True)}
    return _("%(ordinal)s place") % {"ordinal": ordinal_en(number)}


# A format's ``j`` (the day of the month) not escaped by a backslash: French writes the first
# of the month « 1er » (« 1er janvier »), the others as numbers (« 2 janvier »).
_FORMAT_TOKEN = re.compile(r"\\.|j", re.DOTALL)
_FIRST = r"1\e\r"  # « 1er », its letters escaped (e and r are format characters)


def date_format(value: Date | Time, format: str | None = None) -> str:
    """``value`` in ``format`` (a Django date format or the name of one, ``DATE_FORMAT`` by
    default) in the active language, as :func:`django.utils.formats.date_format` does, but
    « 1er janvier » in French."""
    pattern = formats.get_format(format or "DATE_FORMAT")
    if getattr(value, "day", None) == 1 and _french():
        pattern = _FORMAT_TOKEN.sub(lambda m: _FIRST if m.group() == "j" else m.group(), pattern)
    return dateformat.format(value, pattern)
