"""The worked example of rules section 3.1.4 as a real Elite round: twelve teams with the rules'
names (the Sleigh Dogs and the Freezing Ass are the conftest's coaches' teams), the rules' matrix
row, the rules' picks sent before the deadline, and a seed whose draws give what the rules tell
(the bonus goal to the Freezing Ass, column F and value X to the ONR Cybérians).

The arbitration and the publication are the real services'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from html import unescape

from django.contrib.auth.models import AbstractBaseUser

from competitions import services as competitions
from competitions.models import Competition, Pool, PoolRound, Round, StockKind, StockReason
from engine import Pick, commitment
from league import services as league
from league.models import Entry, Season
from tests.competitions.arbitration_league import matrix_values

# The matrix of rules section 2.1.1, week 1.
WEEK_1 = dict(zip("ABCDEFGHIJK", (3, 3, 1, 4, 3, 5, 1, 1, 4, 3, 2), strict=True))

# Section 3.1.4's teams (English names) and picks; the Cybérians sent none (ONR).
PICKS = {
    "Sleigh Dogs": "F+(2)",
    "Snowmen": "I(3)",
    "Cybérians": None,
    "Ice Crocodiles": "F(0)",
    "Teddy Bears": "D(1)",
    "Grizzlies": "F(2)",
    "Freezing Ass": "D++(1)",
    "Groggs": "B(X)",
    "Igloos": "F#(3)",
    "Icebergs": "I(3)",
    "Puck Pukers": "J(1)",
    "Ice Breakers": "K(3)",
}
GAMES = [
    ("Sleigh Dogs", "Ice Crocodiles"),
    ("Cybérians", "Grizzlies"),
    ("Snowmen", "Teddy Bears"),
    ("Freezing Ass", "Groggs"),
    ("Igloos", "Icebergs"),
    ("Puck Pukers", "Ice Breakers"),
]
# Found by trying seeds with the engine: bonus goal → freezing-ass, then the ONR draws F and X.
SEED = "rules-3.1.4/659"

# The results as rules section 3.1.4 prints them (English text; its dashes are en dashes). The
# last line is the examples' misprint (RULINGS: the stated rules win): J = 3 and K = 2 with
# nobody else on them, so the Puck Pukers win 3-2 in regular time, not 6-7 AP.
RULES_LINES = [
    "Sleigh Dogs [F+(2)] – Ice Crocodiles [F(0)] : 3-2",
    "Cybérians [ONR : F(X)] – Grizzlies [F(2)] : 1-2",
    "Snowmen [I(3)] – Teddy Bears [D(1)] : 4-3 AP",
    "Freezing Ass [D++*(1)] – Groggs [B(X)] : 6-3",
    "Igloos [F#(3)] – Icebergs [I(3)] : 2-2 AP",
    "Puck Pukers [J(1)] – Ice breakers [K(3)] : 6-7 AP",
]
MISPRINT_CORRECTED = "Puck Pukers [J(1)] – Ice Breakers [K(3)] : 3-2"


@dataclass
class RulesWeek:
    season: Season
    pool: Pool
    round: Round
    pool_round: PoolRound
    referee: AbstractBaseUser
    entries: dict[str, Entry] = field(default_factory=dict)

    def refresh(self) -> PoolRound:
        self.pool_round = PoolRound.objects.select_related("pool", "round").get(
            pk=self.pool_round.pk
        )
        return self.pool_round

    def arbitrate(self) -> PoolRound:
        competitions.pool_round_arbitrate(pool_round=self.pool_round, by=self.referee)
        return self.refresh()

    def publish(self) -> PoolRound:
        competitions.pool_round_publish(pool_round=self.pool_round, by=self.referee)
        return self.refresh()


def rules_week(*, season: Season, pool: Pool, round: Round, referee: AbstractBaseUser) -> RulesWeek:
    """Section 3.1.4's week as the Elite's round 1 (``round``), picks in, not yet arbitrated.

    The Sleigh Dogs (code 01) and the Freezing Ass (02) must already be entered; the ten others
    are entered here (codes 03–12). The Freezing Ass get the two extra goals their pick plays.
    """
    competitions.matrix_create(
        season=season,
        competition=Competition.CHAMPIONSHIP,
        values=matrix_values(Competition.CHAMPIONSHIP, {1: WEEK_1}),
    )
    entries = {
        entry.team.name: entry
        for entry in Entry.objects.filter(season=season, division=pool.division).select_related(
            "team"
        )
    }
    code = 3
    for name in PICKS:
        if name not in entries:
            team = league.team_create(name=name)
            entries[name] = competitions.entry_create(
                season=season,
                team=team,
                division=pool.division,
                code=code,
                extra_goals=1,
                great_saves=2,
            )
            code += 1
    competitions.stock_move(
        entry=entries["Freezing Ass"],
        kind=StockKind.EXTRA_GOALS,
        delta=2,
        reason=StockReason.ADMIN,
    )
    pool_round = competitions.pool_round_create(pool=pool, round=round)
    PoolRound.objects.filter(pk=pool_round.pk).update(seed=SEED, seed_hash=commitment(SEED))
    for home, away in GAMES:
        competitions.fixture_create(pool_round=pool_round, home=entries[home], away=entries[away])
    for name, notation in PICKS.items():
        if notation is not None:
            competitions.pick_record(
                entry=entries[name],
                round=round,
                notation=notation,
                normalized=Pick.parse(notation).notation(),
                channel="web",
                received_at=round.deadline - timedelta(hours=2),
            )
    week = RulesWeek(
        season=season,
        pool=pool,
        round=round,
        pool_round=pool_round,
        referee=referee,
        entries={entry.team.slug: entry for entry in entries.values()},
    )
    week.refresh()
    return week


def game_lines(html: str) -> list[str]:
    """The games of a results page as text, one line each (tags dropped, spaces collapsed;
    the explanation each game opens on left out: :func:`game_explanations` reads it; and its
    head-to-head link)."""
    items = re.findall(r'<li [^>]*class="game[^"]*"[^>]*>(.*?)</li>', html, flags=re.DOTALL)
    items = [
        re.sub(
            r'<details class="explain">.*?</details>|<a class="h2h".*?</a>', "", i, flags=re.DOTALL
        )
        for i in items
    ]
    return [" ".join(unescape(re.sub(r"<[^>]+>", "", item)).split()) for item in items]


def game_explanations(html: str) -> list[dict[str, list[tuple[str, str]]]]:
    """Each game's explanation on a results page: per team (the table's caption, its name and
    pick), its steps as (amount, words), the total last as ("= n", its words)."""
    games = []
    for body in re.findall(r'<details class="explain">(.*?)</details>', html, flags=re.DOTALL):
        teams = {}
        for caption, rows in re.findall(
            r"<caption>(.*?)</caption>(.*?)</table>", body, flags=re.DOTALL
        ):
            cells = re.findall(r"<td[^>]*>(.*?)</td>\s*<td[^>]*>(.*?)</td>", rows, flags=re.DOTALL)
            teams[_text(caption)] = [(_text(amount), _text(words)) for amount, words in cells]
        games.append(teams)
    return games


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def bracket_columns(html: str) -> dict[int, str]:
    """Each round's column of the KDH bracket (its HTML), by round number."""
    found = {}
    for part in re.split(r'<section class="bracket-round', html)[1:]:
        number = int(re.search(r'id="round-(\d+)"', part).group(1))  # type: ignore[union-attr]
        found[number] = part.split("</section>", 1)[0]
    return found


INLINE_LINK = re.compile(r"</?a\b[^>]*>")


def bracket_slots(column: str) -> list[tuple[str, str]]:
    """A bracket column's slots: their classes and their text (tags dropped, spaces collapsed;
    a link inline, as a ruling's citation is)."""
    return [
        (classes, " ".join(unescape(re.sub(r"<[^>]+>", " ", INLINE_LINK.sub("", body))).split()))
        for classes, body in re.findall(
            r'<li class="slot ([^"]*)">(.*?)</li>', column, flags=re.DOTALL
        )
    ]
