"""pool_round_void: an arbitrated or published pool round's result goes to the audit log, its
stocks come back (compensating ledger lines), and it is arbitrated again — the same result with
the same seed (R23) unless its picks changed (a late pick accepted, R13)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from competitions import services as competitions
from competitions.models import (
    Competition,
    Fixture,
    FixtureResult,
    LatePick,
    OnrSanction,
    PoolRound,
    Round,
    StockKind,
    StockMovement,
    StockReason,
    TeamResult,
)
from competitions.services import late_pick_accept
from league.models import AuditLog, Division, Entry, Profile, Season, Team
from mail import outbox
from mail.models import OutboundEmail
from tests.competitions.arbitration_league import League, add_kdh, build_league


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee: User) -> League:
    """The Elite, every team with 3 extra goals and 4 great saves."""
    return build_league(
        season=season, divisions=divisions, referee=referee, stocks=lambda d, c: (3, 4)
    )


def stored(pool_round: PoolRound) -> tuple[list[tuple], list[tuple], list[dict]]:
    """Everything an arbitration stored for ``pool_round``: team results, game results, draws."""
    teams = sorted(
        TeamResult.objects.filter(pool_round=pool_round).values_list(
            "entry__team__slug",
            "column",
            "extra_time",
            "extra_goals_used",
            "great_saves_used",
            "onr",
            "redrawn",
            "bonus_goal",
            "goals",
            "display",
        )
    )
    games = list(
        FixtureResult.objects.filter(fixture__pool_round=pool_round)
        .order_by("fixture_id")
        .values_list("fixture_id", "home_goals", "away_goals", "decided", "winner_id")
    )
    return teams, games, PoolRound.objects.get(pk=pool_round.pk).draw_log


def stocks(made: League) -> dict[str, tuple[int, int]]:
    return {
        entry.team.slug: (entry.extra_goals, entry.great_saves)
        for entry in Entry.objects.filter(pk__in=[e.pk for e in made.entries.values()])
    }


def void(pool_round: PoolRound, referee: User, reason: str = "wrong matrix value") -> PoolRound:
    return competitions.pool_round_void(pool_round=pool_round, by=referee, reason=reason)


def test_voiding_keeps_the_whole_old_result_in_the_audit_log(elite: League, referee: User) -> None:
    pool_round = elite.play("elite", 1, picks={"elite-01": "A++(1)", "elite-02": "B#(2)"})
    competitions.pool_round_publish(pool_round=pool_round, by=referee)
    teams, games, draws = stored(pool_round)

    void(pool_round, referee, reason="the referee entered a pick for the wrong team")

    log = AuditLog.objects.get(action="pool_round_void")
    assert log.actor == referee and log.object_id == str(pool_round.pk)
    payload = log.payload
    assert payload["reason"] == "the referee entered a pick for the wrong team"
    assert payload["status"] == PoolRound.Status.PUBLISHED
    assert payload["published_by"] == referee.pk
    assert (
        sorted(
            (
                r["team"],
                r["column"],
                r["extra_time"],
                r["extra_goals_used"],
                r["great_saves_used"],
                r["onr"],
                r["redrawn"],
                r["bonus_goal"],
                r["goals"],
                r["display"],
            )
            for r in payload["team_results"]
        )
        == teams
    )
    assert [
        (r["fixture"], r["home_goals"], r["away_goals"], r["decided"])
        for r in payload["fixture_results"]
    ] == [game[:4] for game in games]
    assert payload["draws"] == draws
    assert sorted((m["entry"], m["kind"], m["delta"]) for m in payload["stock_movements"]) == [
        (elite.entries["elite-01"].pk, StockKind.EXTRA_GOALS, -2),
        (elite.entries["elite-02"].pk, StockKind.GREAT_SAVES, -1),
    ]


def test_voiding_removes_the_results_and_opens_the_round_again(
    elite: League, referee: User
) -> None:
    pool_round = elite.play("elite", 1)
    competitions.pool_round_publish(pool_round=pool_round, by=referee)

    voided = void(pool_round, referee)

    assert voided.status == PoolRound.Status.VOID
    assert voided.arbitrated_at is None and voided.published_at is None
    assert voided.draw_log == []
    assert not TeamResult.objects.filter(pool_round=pool_round).exists()
    assert not FixtureResult.objects.filter(fixture__pool_round=pool_round).exists()
    assert Fixture.objects.filter(pool_round=pool_round).count() == 6  # the games stay
    assert elite.round(Competition.CHAMPIONSHIP, 1).status == Round.Status.CLOSED


def test_voiding_gives_the_stocks_back_with_compensating_movements(
    elite: League, referee: User
) -> None:
    """The ledger is append-only: the stocks come back as ``void`` lines, nothing is deleted."""
    before = stocks(elite)
    pool_round = elite.play("elite", 1, picks={"elite-01": "A++(1)", "elite-02": "B#(2)"})
    played = StockMovement.objects.filter(reason=StockReason.PLAYED).count()

    void(pool_round, referee)

    assert stocks(elite) == before
    assert StockMovement.objects.filter(reason=StockReason.PLAYED).count() == played
    assert sorted(
        StockMovement.objects.filter(reason=StockReason.VOID).values_list(
            "entry__team__slug", "kind", "delta"
        )
    ) == [("elite-01", StockKind.EXTRA_GOALS, 2), ("elite-02", StockKind.GREAT_SAVES, 1)]


def test_voiding_takes_back_an_onr_sanction_and_its_stocks(elite: League, referee: User) -> None:
    """R14: the sanction row goes, the ONR count and the stocks come back."""
    elite.play("elite", 1, skip=["elite-05"])
    pool_round = elite.play("elite", 2, skip=["elite-05"])
    barred = elite.entry("elite-05")
    assert (barred.onr_count, barred.promotion_barred, barred.extra_goals) == (2, True, 0)

    void(pool_round, referee)

    entry = elite.entry("elite-05")
    assert (entry.onr_count, entry.promotion_barred) == (1, False)
    assert (entry.extra_goals, entry.great_saves) == (2, 3)  # the first ONR's sanction stays
    assert list(OnrSanction.objects.filter(entry=entry).values_list("week", flat=True)) == [1]


def test_a_redo_gives_the_identical_result(elite: League, referee: User) -> None:
    """R23: the same seed and the same picks give the same result, stocks and sanctions."""
    elite.play("elite", 1, skip=["elite-05"])
    pool_round = elite.play(
        "elite", 2, picks={"elite-01": "A++(2)", "elite-02": "B#(0)"}, skip=["elite-05"]
    )
    result, after = stored(pool_round), stocks(elite)
    sanctions = list(OnrSanction.objects.values_list("entry_id", "week", "onr_count"))

    void(pool_round, referee)
    redone = competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)

    assert redone.status == PoolRound.Status.ARBITRATED
    assert stored(pool_round) == result
    assert stocks(elite) == after
    assert list(OnrSanction.objects.values_list("entry_id", "week", "onr_count")) == sanctions


def test_a_round_can_be_voided_and_redone_twice(elite: League, referee: User) -> None:
    pool_round = elite.play("elite", 1, picks={"elite-01": "A++(1)"})
    result, after = stored(pool_round), stocks(elite)
    for _ in range(2):
        void(pool_round, referee)
        competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
    assert stored(pool_round) == result
    assert stocks(elite) == after
    assert AuditLog.objects.filter(action="pool_round_void").count() == 2


def test_a_redo_plays_a_late_pick_accepted_since(elite: League, referee: User) -> None:
    """R13: after the void, the referee enters the pick a coach emailed after the deadline; the
    redo plays it instead of the ONR random pick — and, its column G being nobody else's (no
    crowding, R1), nothing else changes but, maybe, its opponent's golden goal (R3: the extra-time
    value it faces is no longer the ONR's random one)."""
    pool_round = elite.play("elite", 1, skip=["elite-05"])
    teams, _, _ = stored(pool_round)
    round = elite.round(Competition.CHAMPIONSHIP, 1)
    late = LatePick.objects.create(
        entry=elite.entries["elite-05"],
        round=round,
        notation="G(3)",
        received_at=round.deadline + timedelta(hours=2),
    )

    void(pool_round, referee)
    late_pick_accept(late_pick=late, by=referee)
    competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)

    redone = TeamResult.objects.get(pool_round=pool_round, entry__team__slug="elite-05")
    assert (redone.onr, redone.column, redone.extra_time) == (False, "G", "3")
    assert redone.pick == LatePick.objects.get(pk=late.pk).pick
    assert not OnrSanction.objects.exists()  # no longer ONR: no sanction (R14)
    assert elite.entry("elite-05").onr_count == 0
    fixture = Fixture.objects.get(
        Q(home__team__slug="elite-05") | Q(away__team__slug="elite-05"), pool_round=pool_round
    )
    involved = {fixture.home.team.slug, fixture.away.team.slug}
    others = [row for row in stored(pool_round)[0] if row[0] not in involved]
    assert others == [row for row in teams if row[0] not in involved]


def test_voiding_is_refused_when_a_later_round_of_the_pool_is_arbitrated(
    elite: League, referee: User
) -> None:
    first = elite.play("elite", 1)
    elite.play("elite", 2)
    with pytest.raises(competitions.VoidRefused) as caught:
        void(first, referee)
    assert (caught.value.code, caught.value.facts) == ("void_refused", {"number": 2})
    assert PoolRound.objects.get(pk=first.pk).status == PoolRound.Status.ARBITRATED
    assert TeamResult.objects.filter(pool_round=first).count() == 12
    assert not AuditLog.objects.filter(action="pool_round_void").exists()


def test_a_round_not_arbitrated_cannot_be_voided(elite: League, referee: User) -> None:
    with pytest.raises(competitions.NotArbitrated):
        void(elite.pool_round("elite", 1), referee)


def test_voiding_needs_a_reason(elite: League, referee: User) -> None:
    pool_round = elite.play("elite", 1)
    with pytest.raises(ValidationError):
        void(pool_round, referee, reason="  ")
    assert PoolRound.objects.get(pk=pool_round.pk).status == PoolRound.Status.ARBITRATED


def test_voiding_is_refused_once_a_team_of_the_round_was_replaced(
    elite: League, referee: User
) -> None:
    """R14: the replacement holds the record now; the old games cannot be played again."""
    for number in (1, 2, 3):
        pool_round = elite.play_published("elite", number, skip=["elite-05"])
    competitions.onr_replacement_confirm(sanction=OnrSanction.objects.get(week=3), by=referee)
    with pytest.raises(competitions.VoidAfterReplacement) as caught:
        void(pool_round, referee)
    assert caught.value.code == "void_replaced"
    assert "replaced since (R14)" in caught.value.message


def test_voiding_a_kdh_round_takes_back_the_next_round_it_drew(
    season: Season, divisions: dict[str, Division], referee: User
) -> None:
    """R17, R23: the next round's games go, its pool round (and public seed hash) stays; the
    redo draws the same games."""
    made = build_league(
        season=season, divisions=divisions, referee=referee, division_slugs=["elite", "d2a"]
    )
    first = add_kdh(made)
    made.play("kdh", 1)
    following = made.pool_round("kdh", 2)
    games, seed_hash = made.games("kdh", 2), following.seed_hash
    qualified = set(PoolRound.objects.get(pk=first.pk).qualified.values_list("pk", flat=True))

    void(first, referee)

    assert not Fixture.objects.filter(pool_round=following).exists()
    assert not PoolRound.objects.get(pk=first.pk).qualified.exists()
    log = AuditLog.objects.get(action="pool_round_void").payload
    assert [tuple(f[:2]) for f in log["next_round"]["fixtures"]] == games
    kept = PoolRound.objects.get(pk=following.pk)
    assert kept.seed_hash == seed_hash and kept.status == PoolRound.Status.PENDING
    assert [d["seed"] for d in PoolRound.objects.get(pk=first.pk).draw_log] == [
        f"{first.seed}/opening-draw"
    ] * len(first.draw_log)

    competitions.pool_round_arbitrate(pool_round=first, by=referee)
    assert made.games("kdh", 2) == games
    assert made.pool_round("kdh", 2).pk == following.pk
    assert set(PoolRound.objects.get(pk=first.pk).qualified.values_list("pk", flat=True)) == (
        qualified
    )


# --- Said publicly, and told to the pool's coaches ------------------------------------------------


def page(client: Client, url: str, language: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def results_url(pool_round: PoolRound) -> str:
    return reverse(
        "results_pool_round",
        args=[pool_round.pool.competition, pool_round.pool.slug, pool_round.round.number],
    )


VOIDED_AT = datetime(2026, 3, 12, 21, 30, tzinfo=UTC)  # 22:30 in Paris (winter time)


def test_a_replayed_round_says_so_on_its_results_and_team_pages_once_published_again(
    elite: League, referee: User, client: Client
) -> None:
    """Voided, then published again: « Voided on <date, Paris time>, replayed: <reason> » on the
    round's results page and on its teams' pages, in French and in English; nothing of it while
    the round is not published again."""
    pool_round = elite.play_published("elite", 1)
    void(pool_round, referee, reason="a matrix value was wrong")
    # A void's time of day to read in Paris time (the round is pending: its row is open).
    PoolRound.objects.filter(pk=pool_round.pk).update(voided_at=VOIDED_AT)
    team = reverse("team", args=["elite-01"])
    for language in ("en", "fr"):
        for url in (results_url(pool_round), team):
            assert "a matrix value was wrong" not in page(client, url, language)

    competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
    for language in ("en", "fr"):
        assert "a matrix value was wrong" not in page(client, results_url(pool_round), language)
    competitions.pool_round_publish(pool_round=pool_round, by=referee)

    english = "Voided on Thursday 12 March 2026, 22:30, replayed: a matrix value was wrong"
    french = "Annulée le jeudi 12 mars 2026, 22:30, rejouée : a matrix value was wrong"
    for url in (results_url(pool_round), team):
        assert english in page(client, url, "en")
        assert french in page(client, url, "fr")


def test_a_replayed_round_says_so_on_its_week_page_and_in_the_results_api(
    elite: League, referee: User, client: Client
) -> None:
    """The week's results page and ``GET /api/results/…`` say it too (``voided_at`` in the
    season's time zone and ``void_reason``), once the round is published again; null before."""
    pool_round = elite.play_published("elite", 1)
    void(pool_round, referee, reason="a matrix value was wrong")
    PoolRound.objects.filter(pk=pool_round.pk).update(voided_at=VOIDED_AT)
    api = "/api/results/championship/elite/1/"
    week = reverse("results_week", args=[elite.season.number, pool_round.round.week])

    competitions.pool_round_arbitrate(pool_round=pool_round, by=referee)
    body = client.get(api).json()
    assert (body["status"], body["voided_at"], body["void_reason"]) == ("arbitrated", None, None)
    competitions.pool_round_publish(pool_round=pool_round, by=referee)

    body = client.get(api).json()
    assert body["voided_at"] == "2026-03-12T22:30:00+01:00"
    assert body["void_reason"] == "a matrix value was wrong"
    assert "Voided on Thursday 12 March 2026, 22:30, replayed: a matrix value was wrong" in page(
        client, week, "en"
    )
    assert "Annulée le jeudi 12 mars 2026, 22:30, rejouée : a matrix value was wrong" in page(
        client, week, "fr"
    )


def test_a_round_never_voided_says_nothing_of_a_void(elite: League, client: Client) -> None:
    pool_round = elite.play_published("elite", 1)
    week = reverse("results_week", args=[elite.season.number, pool_round.round.week])
    for url in (results_url(pool_round), reverse("team", args=["elite-01"]), week):
        for language in ("en", "fr"):
            html = page(client, url, language)
            assert "data-voided" not in html
            assert "Voided on" not in html and "Annulée le" not in html
    body = client.get("/api/results/championship/elite/1/").json()
    assert body["voided_at"] is body["void_reason"] is None


def test_voiding_emails_the_coaches_and_deputies_of_the_pool_in_their_language(
    elite: League, referee: User
) -> None:
    """At the void, the round is pending again: each coach and deputy of a team that played it
    is told, in their language, that it will be replayed and why — nothing of a new result."""
    people = {}
    for slug, role, language in (
        ("elite-01", "coach", "fr"),
        ("elite-01", "deputy", "en"),
        ("elite-02", "coach", "en"),
    ):
        person = User.objects.create_user(f"{slug}-{role}", email=f"{slug}-{role}@example.org")
        Profile.objects.update_or_create(user=person, defaults={"language": language})
        Team.objects.filter(slug=slug).update(**{role: person})
        people[person.email] = language
    pool_round = elite.play_published("elite", 1)
    mail.outbox.clear()
    OutboundEmail.objects.all().delete()

    void(pool_round, referee, reason="a matrix value was wrong")
    voided_at = PoolRound.objects.get(pk=pool_round.pk).voided_at
    assert voided_at is not None
    paris = timezone.localtime(voided_at, ZoneInfo("Europe/Paris"))
    assert sorted(
        OutboundEmail.objects.filter(template="pool-round-voided").values_list("to", flat=True)
    ) == sorted([address] for address in people)
    assert outbox.emails_send_due().sent == 3

    sent = {message.to[0]: message for message in mail.outbox}
    assert set(sent) == set(people)
    for address, language in people.items():
        message = sent[address]
        assert "a matrix value was wrong" in message.body
        assert results_url(pool_round) in message.body
        if language == "fr":
            assert message.subject == "Journée annulée, à rejouer — Championnat, journée 1"
            assert "la journée sera rejouée" in message.body
            with translation.override("fr"):
                when = formats.date_format(paris, "DATETIME_FORMAT")
            assert f"Annulée le : {when} (Europe/Paris)" in message.body
        else:
            assert message.subject == "Round voided, to be replayed — Championship, round 1"
            assert "the round will be replayed" in message.body
            with translation.override("en"):
                when = formats.date_format(paris, "DATETIME_FORMAT")
            assert f"Voided on: {when} (Europe/Paris)" in message.body
