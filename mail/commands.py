"""Commands by email, the play-by-email judges' way: a line of a message that starts with a
command word is a command, answered in the reply to the message (:mod:`mail.intake`), in the
reader's language, with what the site's own pages show for the same state.

This module reads (:func:`command_line`, :func:`message_items`) and, when the reply is sent,
answers (:mod:`mail.command_answers`); it stores nothing. A command's record (what
:func:`command_record` gives) is ids and codes, as every outbox row's context is: the answer is
worded when the reply is rendered.

The words, French and English, in any case and with or without accents (a bullet ``-``, ``*``
or ``•`` may start the line)::

    AIDE / HELP                       the commands and the notation, with an example
    INFOS / INFO [competition]        the coach's turn sheet, now
    ORDRES / PICKS                    the team's current picks for every open round, receipts
    CLASSEMENT / STANDINGS [pool]     a table in plain text (published rounds only)
    RÉSULTATS / RESULTS [comp] [J3]   published results, each game's goals explained (R3)
    MATRICE / MATRIX [competition]    the season's matrix (public from the season's start, R25)
    ADJOINT / DEPUTY address          name a deputy (the coach only, confirmed on the site, R12)
    ADJOINT AUCUN / DEPUTY NONE       remove the deputy (idem)
    LISTE / JOIN [team name]          join the waiting list from an address the league does not know

>>> command_line("Résultats KDH J2")
Command(text='Résultats KDH J2', name='results', language='fr', args={'competition': 'kdh', \
'round': 2}, error='')
>>> command_line("classement") .name, command_line("Bonjour") is None
('standings', True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mail import inbound

COMMAND_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "help": (("aide", "fr"), ("help", "en")),
    "info": (("infos", "fr"), ("info", "en"), ("infos", "en")),
    "picks": (("ordres", "fr"), ("picks", "en"), ("orders", "en")),
    "standings": (("classement", "fr"), ("standings", "en")),
    "results": (("resultats", "fr"), ("results", "en")),
    "matrix": (("matrice", "fr"), ("matrix", "en")),
    "deputy": (("adjoint", "fr"), ("deputy", "en")),
    "join": (("liste", "fr"), ("join", "en")),
}
"""Each command and its words (without accents, in lower case) with the language each is
written in: an unknown sender's ``JOIN`` is answered in it."""

_WORDS: dict[str, tuple[str, str]] = {
    word: (name, language)
    for name, words in COMMAND_WORDS.items()
    for word, language in reversed(words)
}

NOBODY_WORDS = frozenset({"aucun", "aucune", "personne", "none", "nobody"})
"""``DEPUTY NONE``: the words that remove the deputy."""

COMMANDS_MAX = 10
"""The commands of one message answered; the next ones are not read (a message is one
reply, of a bounded length)."""

UNKNOWN_LINES_MAX = 5
"""The lines not understood that a reply quotes before the help (the others are counted)."""

_COMMAND = re.compile(r"^\s*(?:[-*•·]\s*)?(?P<word>[a-z]+)\s*[:.!?]?(?:\s+(?P<rest>.*?))?\s*$")
_BULLET = re.compile(r"^\s*[-*•·]\s*")
_ROUND = re.compile(r"^(?:(?:journee|tour|round|j|r)\s*\.?\s*)?(?P<number>\d{1,3})$")


@dataclass(frozen=True)
class Command:
    """A command line: its command (a key of :data:`COMMAND_WORDS`), the language of the word it
    was written with, what it asks (``args``), or why what follows the word does not read
    (``error``: ``competition``, ``round``, ``address``, ``arguments``)."""

    text: str
    name: str
    language: str
    args: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def _folded(text: str) -> str:
    return inbound.without_accents(text).lower()


def _competition(words: list[str]) -> tuple[str | None, list[str]]:
    """The competition the first of ``words`` name (« KDH », « coupe WG », « championnat »…) and
    the words after it; ``(None, words)`` when they name none."""
    text = " ".join(words)
    named = inbound.competition_prefix(text)
    if named is None:
        return None, words
    competition, rest = named
    return competition, rest.split()


def _round(words: list[str]) -> int | None:
    """The round ``words`` name (« J3 », « round 3 », « 3 »), or ``None`` when they name none;
    raises ``ValueError`` when they are something else."""
    if not words:
        return None
    match = _ROUND.match("".join(words))
    if match is None or int(match["number"]) < 1:
        raise ValueError(words)
    return int(match["number"])


def command_line(text: str) -> Command | None:
    """Read one line: ``None`` when it does not start with a command word."""
    stripped = inbound.printable(text.strip())
    match = _COMMAND.match(_folded(stripped))
    if match is None or match["word"] not in _WORDS:
        return None
    name, language = _WORDS[match["word"]]
    rest = (match["rest"] or "").split()
    # The arguments as written (a team's name keeps its accents and case).
    written = _BULLET.sub("", stripped).split()[1:]
    args: dict[str, Any] = {}
    error = ""
    if name in ("info", "matrix", "results"):
        competition, after = _competition(rest)
        if competition is not None:
            args["competition"] = competition
        if name == "results":
            try:
                number = _round(after)
            except ValueError:
                error = "round" if competition is not None or not rest else "competition"
            else:
                if number is not None:
                    args["round"] = number
        elif after:
            error = "competition"
    elif name == "standings":
        if len(rest) > 1:
            competition, after = _competition(rest)
            if competition is None or after:
                error = "arguments"
            else:
                args["pool"] = competition
        elif rest:
            args["pool"] = rest[0][:16]
    elif name == "deputy":
        if len(rest) != 1:
            error = "address"
        elif rest[0] in NOBODY_WORDS:
            args["remove"] = True
        else:
            args["who"] = written[-1][:254] if written else rest[0][:254]
    elif name == "join":
        args["team_name"] = " ".join(written)[:80]
    elif rest and name != "help":
        error = "arguments"
    return Command(text=stripped[:300], name=name, language=language, args=args, error=error)


@dataclass(frozen=True)
class Unknown:
    """A line of the sender's own text that is neither a pick line nor a command."""

    text: str


Item = inbound.PickLine | Command | Unknown


def message_items(body: str) -> list[Item]:
    """Every line the sender wrote (quoted text and signature left out, blank lines skipped),
    in order: a pick line (:func:`mail.inbound.pick_line`), a command, or a line not
    understood."""
    items: list[Item] = []
    for text in inbound.own_text(body):
        if not text.strip():
            continue
        pick = inbound.pick_line(text)
        if pick is not None:
            items.append(pick)
            continue
        command = command_line(text)
        items.append(command if command is not None else Unknown(inbound.printable(text.strip())))
    return items


def command_record(command: Command) -> dict[str, Any]:
    """A command as the message's record (:attr:`~mail.models.InboundEmail.report`) keeps it:
    what the reply is worded from when it is sent."""
    return {
        "line": command.text,
        "status": "command",
        "command": command.name,
        "language": command.language,
        "args": command.args,
        "error": command.error,
    }
