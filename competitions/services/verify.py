"""R23 verification: a stored round replayed from its stored input and compared with what
was stored, difference by difference.

Every published pool round is verified after its publication (a task queued on the
publication's commit) and every night over the current season (beat): a mismatch is recorded
(:class:`~competitions.models.VerificationFailure`, once per pool round and night) and
:data:`~competitions.signals.pool_round_verification_failed` tells the mail, which alerts the
admins; the season desk lists the mismatches still open. Never silently.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from competitions.models import PoolRound, SeasonArchive, TeamResult, VerificationFailure
from competitions.selectors.results import PlayedPick
from competitions.services.arbitration import pool_round_replay
from competitions.signals import pool_round_verification_failed
from engine import commitment
from league.models import Season

logger = logging.getLogger(__name__)

NEWLINE = "\n"
"""Joins the pool rounds' seeds into what the plan seed hashes (R23)."""


def season_plan_seed(*, season: Season) -> str:
    """R23: the next season's plan's seed, ``<season>/plan/`` then the SHA-256 of every pool
    round's seed, one a line, by competition, pool and round: each seed was committed by its
    SHA-256 before its round and published with it, so nobody could know the plan's seed
    before the season's last round is published and anyone can work it out after."""
    seeds = (
        PoolRound.objects.filter(round__season=season)
        .order_by("pool__competition", "pool__slug", "round__number")
        .values_list("seed", flat=True)
    )
    return f"{season.number}/plan/{commitment(NEWLINE.join(seeds))}"


@dataclass(frozen=True)
class Verification:
    """What :func:`pool_round_verify` found: each difference between the stored results and a
    replay, in words (empty when everything matches)."""

    pool_round: PoolRound
    differences: tuple[str, ...]

    @property
    def matches(self) -> bool:
        return not self.differences


TEAM_RESULT_FIELDS = (
    "column",
    "extra_time",
    "shootout",
    "extra_goals_used",
    "great_saves_used",
    "onr",
    "redrawn",
    "bonus_goal",
    "goals",
    "display",
)
"""What an arbitration stores of each team's game (``TeamResult``), all of which a replay must
find again."""


_MATCH_FIELDS = ("home", "away", "home_goals", "away_goals", "decided", "winner")


def pool_round_verify(*, pool_round: PoolRound) -> Verification:
    """R23: play ``pool_round`` again from stored data (:func:`pool_round_replay`) and compare
    every team result, game, the bonus goal and every draw of the arbitration with what is
    stored; the seed is checked against its published SHA-256 too.

    Reads only; raises :class:`NotArbitrated` for a pool round not played yet. The cups' draws
    for the next round (``<seed>/next-round-draw``, ``<seed>/opening-draw``) are logged with
    their own seed and are not replayed here.
    """
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    replay = pool_round_replay(pool_round=pool_round)
    differences: list[str] = []
    if commitment(pool_round.seed) != pool_round.seed_hash:
        differences.append("seed: its SHA-256 is not the published seed_hash")

    def compare(where: str, stored: Mapping[str, object], replayed: Mapping[str, object]) -> None:
        for name, value in stored.items():
            if replayed[name] != value:
                differences.append(f"{where}: {name} stored {value!r}, replayed {replayed[name]!r}")

    rows = TeamResult.objects.filter(pool_round=pool_round).select_related("entry__team")
    stored_teams = {row.entry.team.slug: PlayedPick.of(row).as_dict() for row in rows}
    for team in sorted(set(stored_teams) | set(replay.teams)):
        if team not in replay.teams:
            differences.append(f"team {team}: stored, but it does not play in the replay")
        elif team not in stored_teams:
            differences.append(f"team {team}: plays in the replay, but has no stored result")
        else:
            replayed = replay.teams[team]
            compare(
                f"team {team}",
                stored_teams[team],
                {name: getattr(replayed, name) for name in TEAM_RESULT_FIELDS},
            )

    fixtures = list(
        pool_round.fixtures.select_related(
            "home__team", "away__team", "result__winner__team"
        ).order_by("id")
    )
    if len(fixtures) != len(replay.matches):
        differences.append(f"games: {len(fixtures)} stored, {len(replay.matches)} in the replay")
    pairs = zip(fixtures, replay.matches, strict=False)  # a count mismatch is reported above
    for number, (fixture, match) in enumerate(pairs, start=1):
        result = getattr(fixture, "result", None)
        if result is None:
            differences.append(f"game {number}: no stored result")
            continue
        compare(
            f"game {number}",
            {
                "home": fixture.home.team.slug,
                "away": fixture.away.team.slug,
                "home_goals": result.home_goals,
                "away_goals": result.away_goals,
                "decided": result.decided,
                "winner": None if result.winner is None else result.winner.team.slug,
            },
            match.as_dict(),
        )

    stored_bonus = [team for team, played in stored_teams.items() if played["bonus_goal"]]
    replayed_bonus = [replay.bonus_goal] if replay.bonus_goal else []
    if stored_bonus != replayed_bonus:
        differences.append(f"bonus goal: stored {stored_bonus!r}, replayed {replayed_bonus!r}")

    # The arbitration's own draws carry the pool round's seed (R23); the cups' opening and
    # next-round draws carry seeds of their own.
    stored_draws = [
        (draw["what"], list(draw["options"]), draw["result"])
        for draw in pool_round.draw_log
        if draw.get("seed") == pool_round.seed
    ]
    replayed_draws = [(draw.what, list(draw.options), draw.result) for draw in replay.draws]
    draws = zip(stored_draws, replayed_draws, strict=False)  # a count mismatch is reported below
    for number, (stored_draw, replayed_draw) in enumerate(draws, start=1):
        if stored_draw != replayed_draw:
            differences.append(f"draw {number}: stored {stored_draw!r}, replayed {replayed_draw!r}")
    if len(stored_draws) != len(replayed_draws):
        differences.append(
            f"draws: {len(stored_draws)} stored, {len(replayed_draws)} in the replay"
        )
    return Verification(pool_round=pool_round, differences=tuple(differences))


def season_plan_seed_verify(*, archive: SeasonArchive) -> bool:
    """R23: the archive's ``plan_seed`` is the one every published pool round's seed gives
    (:func:`~competitions.services.season_close.season_plan_seed`), and each of those seeds
    hashes to the SHA-256 published before its round."""
    seeds = PoolRound.objects.filter(round__season_id=archive.season_id).values_list(
        "seed", "seed_hash", "status"
    )
    return archive.plan_seed == season_plan_seed(season=archive.season) and all(
        commitment(seed) == seed_hash and status == PoolRound.Status.PUBLISHED
        for seed, seed_hash, status in seeds
    )


def pool_round_verification_record(
    *, pool_round: PoolRound, now: datetime | None = None
) -> Verification | None:
    """R23: verify the published ``pool_round`` (:func:`pool_round_verify`) and keep what it
    found. A mismatch — or a replay that fails outright, which proves nothing either — is
    recorded once per pool round and night (the season's time zone), and the first record of
    the night sends :data:`~competitions.signals.pool_round_verification_failed` in the same
    transaction (the admins' alert email is committed with it); found again that night, the
    record's differences are brought up to date and nobody is emailed twice. A match resolves
    the pool round's open records. ``None`` for a pool round not published (nothing to say
    before publication: its seed and picks are secret)."""
    now = now or timezone.now()
    pool_round = PoolRound.objects.select_related("round__season", "pool").get(pk=pool_round.pk)
    if not pool_round.is_published:
        return None
    try:
        verification = pool_round_verify(pool_round=pool_round)
    except DatabaseError:
        raise  # the database's trouble, not the round's: the caller retries
    except Exception as error:  # a replay that cannot run is a failed verification too
        logger.exception("Verifying pool round %s failed", pool_round.pk)
        verification = Verification(
            pool_round=pool_round,
            differences=(f"replay: it failed ({type(error).__name__}: {error})",),
        )
    if verification.matches:
        VerificationFailure.objects.filter(pool_round=pool_round, resolved_at=None).update(
            resolved_at=now
        )
        return verification
    logger.error(
        "Pool round %s does not verify: %s", pool_round.pk, "; ".join(verification.differences)
    )
    night = timezone.localtime(now, ZoneInfo(pool_round.round.season.time_zone)).date()
    differences = list(verification.differences)
    with transaction.atomic():
        try:
            with transaction.atomic():
                failure = VerificationFailure.objects.create(
                    pool_round=pool_round, night=night, differences=differences, found_at=now
                )
        except IntegrityError:  # found already tonight: the admins were told then
            VerificationFailure.objects.filter(pool_round=pool_round, night=night).update(
                differences=differences, resolved_at=None
            )
            return verification
        pool_round_verification_failed.send(sender=VerificationFailure, failure=failure)
    return verification


def season_rounds_verify(*, season: Season | None = None, now: datetime | None = None) -> int:
    """R23, nightly: verify every published pool round of ``season`` (the current one by
    default) with :func:`pool_round_verification_record`, each in its own transaction so that
    one round's trouble holds back none of the others. How many did not verify."""
    season = season or Season.objects.filter(is_current=True).first()
    if season is None:
        return 0
    now = now or timezone.now()
    published = PoolRound.objects.filter(
        round__season=season, status=PoolRound.Status.PUBLISHED
    ).order_by("round__deadline", "pool__competition", "pool__slug", "round__number")
    failed = 0
    for pool_round in published.only("pk"):
        verification = pool_round_verification_record(pool_round=pool_round, now=now)
        failed += verification is not None and not verification.matches
    return failed
