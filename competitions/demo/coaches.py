"""The demo's people: the admin, the referee and a coach per team, and the coaches sending their
picks — random legal ones (the engine's), at random times before the deadline, stored as
received on the web (R12)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User

from competitions import selectors as competition_selectors
from competitions.models import Competition, Fixture, Matrix, Round
from competitions.models import Pick as PickRow
from engine import Competition as EngineCompetition
from engine import Pick
from engine.quotas import columns_left, values_left
from engine.season import PickRequest, random_picks

SEED = "matrix-hockey-demo"
"""Every draw of the demo's set-up (codes, matrices, stocks, picks) derives from it; the pool
rounds' seeds are fresh secrets, as in the real league (R23)."""

PASSWORD = "demo"
"""Every coach's password (username = the team's slug)."""

ADMIN = ("admin", "admin")
"""The league admin's username and password (a superuser: the admin site and the desks)."""

REFEREE = ("referee", "referee")
"""The referee's username and password (referee of every pool, not staff)."""

DEPUTY = ("sleigh-dogs-deputy", PASSWORD, "sleigh-dogs")
"""The deputy's username, password and the team whose coach named them (R12): they send its
picks too, recorded as theirs, and get its receipts and reminders."""


def users_create(names: Iterable[str]) -> tuple[User, User, dict[str, User]]:
    """The admin, the referee and a coach per team (their password hashed once for all)."""
    admin = User.objects.filter(username=ADMIN[0]).first() or User.objects.create_superuser(
        ADMIN[0], f"{ADMIN[0]}@example.org", ADMIN[1]
    )
    referee = User.objects.filter(username=REFEREE[0]).first() or User.objects.create_user(
        REFEREE[0], f"{REFEREE[0]}@example.org", REFEREE[1]
    )
    password = make_password(PASSWORD)
    coaches = User.objects.bulk_create(
        [User(username=name, email=f"{name}@example.org", password=password) for name in names]
    )
    return admin, referee, {coach.username: coach for coach in coaches}


class Coaches:
    """The league's coaches sending picks. Their choices and times come from :data:`SEED`, a
    generator per round, so who sends a championship pick and when does not hang on how the
    cups went (their draws come from the pool rounds' fresh seeds)."""

    def __init__(self, coaches: dict[str, User]) -> None:
        self.coaches = coaches
        # Picks sent for rounds not arbitrated yet, per (entry, competition) and round number.
        self.pending: dict[tuple[int, str], dict[int, Pick]] = {}

    def send(
        self,
        round: Round,
        *,
        skip: Iterable[str] = (),
        share: float = 1.0,
        sent_between: tuple[datetime, datetime],
    ) -> list[PickRow]:
        """Picks for ``round`` from the teams of its games (all but ``skip``; a ``share`` of
        them), each received at a random time in ``sent_between``."""
        skip = set(skip)
        competition = Competition(round.competition)
        choose = random_picks(f"{SEED}/picks/{competition.value}/{round.number}")
        times = random.Random(f"{SEED}/times/{competition.value}/{round.number}")
        rules = competition.rules
        matrix = Matrix.objects.get(season=round.season, competition=competition)
        row = competition_selectors.matrix_row(matrix=matrix, round_number=round.number)
        fixtures = list(
            Fixture.objects.filter(pool_round__round=round).select_related(
                "home__team", "away__team", "home__season"
            )
        )
        playing = [(f.home, f.away) for f in fixtures] + [(f.away, f.home) for f in fixtures]
        used = competition_selectors.entries_used(
            entries=[entry for entry, _ in playing],
            competition=competition,
            sight=competition_selectors.Sight.REFEREE,
        )
        rows = []
        start, end = sent_between
        for entry, opponent in sorted(playing, key=lambda pair: pair[0].team.slug):
            slug = entry.team.slug
            if slug in skip or times.random() >= share:
                continue
            # A coach playing ahead counts the picks already sent for the weeks before.
            ahead = list(self.pending.get((entry.pk, competition.value), {}).values())
            columns = [*used[entry.pk].columns, *(p.column for p in ahead)]
            extra_time = [*used[entry.pk].extra_time, *(p.extra_time for p in ahead)]
            shootout = [*used[entry.pk].shootout, *(p.shootout for p in ahead if p.shootout)]
            pick = choose(
                PickRequest(
                    team=slug,
                    competition=EngineCompetition(round.engine_competition),
                    round_number=round.number,
                    week=round.week,
                    opponent=opponent.team.slug,
                    matrix_row=row,
                    columns_left=columns_left(rules.columns, columns),
                    extra_time_left=tuple(values_left(rules.extra_time_quota, extra_time)),
                    shootout_left=tuple(values_left(rules.shootout_quota or {}, shootout)),
                    extra_goals=entry.extra_goals,
                    great_saves=entry.great_saves,
                )
            )
            self.pending.setdefault((entry.pk, competition.value), {})[round.number] = pick
            received_at = start + (end - start) * times.random()
            record = PickRow(
                entry=entry,
                round=round,
                notation=pick.notation(),
                normalized=pick.notation(),
                channel=PickRow.Channel.WEB,
                received_at=received_at,
                entered_by=self.coaches[slug],
            )
            record.receipt = record.compute_receipt()
            rows.append(record)
        return PickRow.objects.bulk_create(rows)

    def played(self, round: Round) -> None:
        """``round`` is arbitrated: its picks are now in the teams' used values."""
        for (_, competition), picks in self.pending.items():
            if competition == round.competition:
                picks.pop(round.number, None)
