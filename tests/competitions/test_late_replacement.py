"""R14 through the site: a team placed by a replacement after a round's deadline is not ONR for
that round. It plays the pick the team it replaces had sent for it (an advance pick, R12), or
else a dummy's random legal pick, with no sanction; the referee's desk says so. A waiting-list
team placed that way gets its coach's invitation (« Join the league » promises it), through the
outbox, in the coach's language.

Every deadline of the test league has passed (its season started in March 2026), so a
replacement confirmed now is placed after the deadline of every round not yet played."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions import selectors
from competitions import services as competitions
from competitions.models import Competition, OnrSanction, Pick, StockMovement, TeamResult
from league.models import Division, Entry, Season, WaitingListEntry
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.arbitration_league import COLUMNS, League, build_league

CHAMPIONSHIP = Competition.CHAMPIONSHIP


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


def league_of(season: Season, divisions: dict[str, Division], referee: User, slug: str) -> League:
    return build_league(
        season=season,
        divisions=divisions,
        referee=referee,
        division_slugs=[slug],
        stocks=lambda d, c: (5, 6),
    )


@pytest.fixture
def d3a(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return league_of(season, divisions, referee, "d3a")


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return league_of(season, divisions, referee, "elite")


def third_onr(made: League, pool: str, team: str) -> OnrSanction:
    """``team`` sends nothing in rounds 1–3: its third ONR proposes its replacement (R14)."""
    for number in (1, 2, 3):
        made.play_published(pool, number, skip=[team])
    return OnrSanction.objects.get(entry=made.entries[team], onr_count=3)


def unused_pick(made: League, team: str) -> str:
    """A pick ``team`` can still play as sent: a column and an extra-time value its three ONR
    draws left it (R7, R19), so that nothing is redrawn (R11)."""
    played = TeamResult.objects.filter(entry=made.entries[team])
    columns = set(played.values_list("column", flat=True))
    extra_time = Counter(played.values_list("extra_time", flat=True))
    column = next(c for c in COLUMNS[CHAMPIONSHIP] if c not in columns)
    quota = CHAMPIONSHIP.rules.extra_time_quota
    value = next(v for v in ("1", "2", "3", "0") if extra_time[v] < quota[v])
    return f"{column}({value})"


def test_a_waiting_team_placed_after_the_deadline_plays_the_replaced_teams_advance_pick(
    d3a: League, referee: User
) -> None:
    sanction = third_onr(d3a, "d3a", "d3a-07")
    notation = unused_pick(d3a, "d3a-07")
    sent = d3a.send("d3a-07", CHAMPIONSHIP, 4, notation)  # an hour before round 4's deadline
    WaitingListEntry.objects.create(name="Les Tardifs", email="tardifs@example.org")
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    assert timezone.now() > d3a.round(CHAMPIONSHIP, 4).deadline

    pool_round = d3a.play("d3a", 4, skip=[new.team.slug])

    played = TeamResult.objects.get(pool_round=pool_round, entry=new)
    assert (played.onr, played.redrawn, played.pick_id) == (False, False, sent.pk)
    # The bonus goal may fall to it (R5: drawn among every team of the division): * in the display.
    assert (played.column, played.display.replace("*", "")) == (notation[0], notation)
    assert not OnrSanction.objects.filter(entry=new).exists()
    assert Entry.objects.get(pk=new.pk).onr_count == 0
    # The replay plays it the same way (R23).
    replayed = competitions.pool_round_replay(pool_round=pool_round).teams[new.team.slug]
    assert (replayed.display, replayed.onr) == (played.display, False)


def test_without_an_advance_pick_it_plays_a_random_legal_pick_and_is_not_onr(
    d3a: League, referee: User
) -> None:
    sanction = third_onr(d3a, "d3a", "d3a-07")
    WaitingListEntry.objects.create(name="Les Tardifs", email="tardifs@example.org")
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    before = list(StockMovement.objects.filter(entry=new).values_list("kind", "delta"))

    pool_round = d3a.play("d3a", 4, skip=[new.team.slug])

    played = TeamResult.objects.get(pool_round=pool_round, entry=new)
    used = set(
        TeamResult.objects.filter(entry=d3a.entries["d3a-07"]).values_list("column", flat=True)
    )
    assert not played.onr and played.pick is None
    assert played.column and played.column not in used  # R19: a column its record left
    assert not played.display.startswith("ONR")
    assert played.extra_goals_used == played.great_saves_used == 0
    assert f"dummy_column:{new.team.slug}" in {d["what"] for d in pool_round.draw_log}
    assert not OnrSanction.objects.filter(entry=new).exists()
    assert list(StockMovement.objects.filter(entry=new).values_list("kind", "delta")) == before


def test_a_dummy_placed_after_the_deadline_plays_the_replaced_teams_pick_without_stocks(
    elite: League, referee: User
) -> None:
    """R14: the pick the replaced team sent, its extra goal not played (a dummy has none)."""
    sanction = third_onr(elite, "elite", "elite-05")
    notation = unused_pick(elite, "elite-05")
    sent = elite.send("elite-05", CHAMPIONSHIP, 4, notation.replace("(", "+(", 1))
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    assert new.team.is_dummy

    pool_round = elite.play("elite", 4, skip=[new.team.slug])

    played = TeamResult.objects.get(pool_round=pool_round, entry=new)
    assert (played.onr, played.pick_id) == (False, sent.pk)
    assert (played.column, played.extra_goals_used) == (notation[0], 0)
    assert not OnrSanction.objects.filter(entry=new).exists()


def test_a_team_placed_before_the_deadline_must_send_its_own_pick(
    d3a: League, referee: User
) -> None:
    """R14: the rule is for a placement too late to send one; in time, no pick is an ONR."""
    sanction = third_onr(d3a, "d3a", "d3a-07")
    d3a.send("d3a-07", CHAMPIONSHIP, 4, unused_pick(d3a, "d3a-07"))
    WaitingListEntry.objects.create(name="Les Ponctuels", email="ponctuels@example.org")
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    deadline = d3a.round(CHAMPIONSHIP, 4).deadline
    Entry.objects.filter(pk=d3a.entries["d3a-07"].pk).update(replaced_at=deadline - timedelta(1))

    pool_round = d3a.play("d3a", 4, skip=[new.team.slug])

    played = TeamResult.objects.get(pool_round=pool_round, entry=new)
    assert played.onr and played.pick is None
    assert Entry.objects.get(pk=new.pk).onr_count == 1


# --- The referee's desk ------------------------------------------------------------------------


def test_the_desk_shows_a_late_placed_team_playing_the_replaced_teams_pick_not_onr(
    d3a: League, referee: User, client: Client
) -> None:
    sanction = third_onr(d3a, "d3a", "d3a-07")
    sent = d3a.send("d3a-07", CHAMPIONSHIP, 4, unused_pick(d3a, "d3a-07"))
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    d3a.send_all("d3a", 4, skip=[new.team.slug])
    pool_round = d3a.pool_round("d3a", 4)

    desk = selectors.referee_desk(pool_round=pool_round)
    (team,) = [t for t in desk.teams if t.entry == new]
    assert (team.placed_late, team.onr, team.received_at) == (True, False, sent.received_at)
    assert desk.onr == []

    client.force_login(referee)
    html = client.get(
        reverse("referee_round", args=["championship", "d3a", 4]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "placed after the deadline: plays the pick of the team it replaces" in html
    assert "Every team’s pick is in." in html or "Every team's pick is in." in html


def test_the_desk_shows_a_late_placed_team_without_a_pick_playing_a_random_one(
    d3a: League, referee: User
) -> None:
    sanction = third_onr(d3a, "d3a", "d3a-07")
    new = competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    desk = selectors.referee_desk(pool_round=d3a.pool_round("d3a", 4))
    (team,) = [t for t in desk.teams if t.entry == new]
    assert (team.placed_late, team.onr, team.received_at) == (True, False, None)
    assert new.team.slug not in {t.entry.team.slug for t in desk.onr}


# --- The invitation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "subject"),
    [
        ("en", "choose your password to coach Les Tardifs"),
        ("fr", "choisissez votre mot de passe pour entraîner Les Tardifs"),
    ],
)
def test_the_placed_teams_coach_gets_the_invitation_in_their_language(
    d3a: League, referee: User, language: str, subject: str
) -> None:
    sanction = third_onr(d3a, "d3a", "d3a-07")
    WaitingListEntry.objects.create(
        name="Les Tardifs", email="tardifs@example.org", language=language
    )
    competitions.onr_replacement_confirm(sanction=sanction, by=referee)
    emails_send_due()  # the invitation, rendered as the worker woken by the commit does it
    (email,) = OutboundEmail.objects.filter(template="invitation")
    assert (email.to, email.language) == (["tardifs@example.org"], language)
    assert subject in email.subject
    assert "D3" in email.body_text  # their division, with the link to choose a password
    assert "/reset/" in email.body_text or "password" in email.body_text.lower()


def test_a_team_with_an_account_placed_in_week_1_is_invited_too(d3a: League, referee: User) -> None:
    """The first-week replacement (R14) places a waiting team the same way."""
    user = User.objects.create_user("known", email="known@example.org", password="secret")
    d3a.play_published("d3a", 1, skip=["d3a-09"])
    WaitingListEntry.objects.create(name="Les Connus", email="known@example.org", user=user)
    new = competitions.entry_replace_first_week_onr(entry=d3a.entries["d3a-09"], by=referee)
    assert new.team.coach == user
    assert list(OutboundEmail.objects.values_list("template", "to")) == [
        ("invitation", ["known@example.org"])
    ]


def test_a_dummy_team_invites_nobody(elite: League, referee: User) -> None:
    competitions.onr_replacement_confirm(sanction=third_onr(elite, "elite", "elite-05"), by=referee)
    assert not OutboundEmail.objects.filter(template="invitation").exists()


def test_no_invitation_without_a_placement(d3a: League, referee: User) -> None:
    d3a.play("d3a", 1, skip=["d3a-09"])
    assert not OutboundEmail.objects.exists()
    assert not Pick.objects.filter(entry=d3a.entries["d3a-09"]).exists()
