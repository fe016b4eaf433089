"""The coach's turn sheet (``mail.turn_sheet``): the pick page and « infos équipes » by email.

The demo at week 3 (``tests/demo_worlds.py``): weeks 1–2 published, week 3 waiting for its
referee, week 4 (the championship's round 4, the KDH's round 3, the WG's round 2) open. The
sheet is read for week 4, and checked against the site's own pages for the same state, in
both languages, for the coach and the deputy; before and after the referee arbitrates the
KDH's round 2 without publishing it; and answered: a reply built from it, fed to the intake,
stores the picks written on its lines and nothing else. Wednesday's job sends it once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pytest_django.fixtures import Settings

from competitions import services as competitions
from competitions.demo import DemoLeague
from competitions.models import Competition, Pick, PoolMember, PoolRound, Round
from league.models import Entry, Profile, Team
from mail import inbound
from mail.intake import email_ingest
from mail.models import Mailing, OutboundEmail
from mail.outbox import emails_send_due
from mail.turn_sheet import (
    FILL_NAMES,
    SHEET_WIDTH,
    TurnSheet,
    TurnSheetData,
    fill_line,
    turn_sheet,
    turn_sheet_read,
)
from mail.weekly import weekly_emails_send
from tests.competitions.matrix_values import card_tiles
from tests.demo_worlds import demo_world
from tests.final_results import unguarded

week_3 = demo_world(3)

AUTHSERV_ID = "mx.matrixhockey.test"
SHEET_QUERIES = 40
"""What one sheet costs at most (36 measured for a team in the three competitions)."""


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test reads the database, each in its own transaction, rolled back."""


def speaks(user: User, language: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"language": language})


def cup_coach(league: DemoLeague) -> User:
    """The coach of a team that plays the three competitions in week 4 (the WG's twelve that
    played the KDH's round 2)."""
    wg = PoolMember.objects.filter(pool__season=league.season, pool__competition=Competition.WG)
    kdh = PoolMember.objects.filter(pool__season=league.season, pool__competition=Competition.KDH)
    for entry in (
        Entry.objects.filter(pk__in=wg.values("entry_id"), team__coach__isnull=False)
        .filter(pk__in=kdh.values("entry_id"))
        .select_related("team__coach")
        .order_by("team__name")
    ):
        assert entry.team.coach is not None
        data = turn_sheet_read(entry.team.coach)
        if data is not None and len(data.rounds) == 3:
            return entry.team.coach
    raise AssertionError("no team of the demo plays the three competitions in week 4")


def long_lines(text: str) -> list[str]:
    """The lines wider than the sheet's width, a link alone on its line excepted."""
    return [
        line
        for line in text.splitlines()
        if len(line) > SHEET_WIDTH and not line.startswith(("http://", "https://"))
    ]


def without_links(text: str) -> str:
    """``text`` without its personal links (each reader's one-click link differs)."""
    return "\n".join(line for line in text.splitlines() if "/picks/link/" not in line)


# --- What it says, against the site's pages ------------------------------------------------------


def test_the_sheet_gives_what_the_pick_page_gives_for_each_round(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    speaks(coach, "en")
    sheet = turn_sheet(coach)
    assert sheet is not None
    client = Client()
    client.force_login(coach)
    response = client.get("/picks/")
    html = response.content.decode()
    page = response.context["page"]
    _week, cards = page.weeks[0]
    assert [card.round.pk for card in cards] == [r.round.pk for r in sheet.data.rounds]
    for card, sheet_round in zip(cards, sheet.data.rounds, strict=True):
        tiles = card_tiles(html, card.anchor)
        # The columns the team has left with their value in the round's row (R19, R25).
        assert sheet_round.mine.columns == tuple((c, worth) for c, (worth, _, _) in tiles.items())
        assert dict(sheet_round.mine.extra_time) == {
            value: left for value, left in card.choices.extra_time.items() if left
        }
        assert (sheet_round.mine.extra_goals, sheet_round.mine.great_saves) == (
            card.choices.extra_goals,
            card.choices.great_saves,
        )
        assert sheet_round.opponent == card.opponent
        if card.current is not None:
            assert f"Your pick: {card.current.normalized}, received" in sheet.text
            assert f"Receipt: {card.current.receipt}" in sheet.text
        assert sheet_round.mine.columns_text in sheet.text
    assert ("No pick yet." in sheet.text) is any(card.current is None for card in cards)


def test_the_opponent_is_told_as_infos_equipes_tells_it(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    sheet = turn_sheet(coach)
    assert sheet is not None
    client = Client()
    client.force_login(coach)
    told = 0
    for sheet_round in sheet.data.rounds:
        if sheet_round.opponent is None:
            continue
        round, pool = sheet_round.round, sheet_round.pool
        assert pool is not None
        grid = client.get(f"/infos/{pool.competition}/{pool.slug}/").context["grid"]
        [line] = [
            line
            for _, lines in grid.sections
            for line in lines
            if line.entry.pk == sheet_round.opponent.pk
        ]
        theirs = sheet_round.theirs
        assert theirs is not None
        assert grid.coming_round == round.number
        assert theirs.columns == tuple((c.value, c.worth) for c in line.columns if c.playable)
        assert theirs.extra_time == tuple((c.value, c.left) for c in line.extra_time if c.left)
        assert theirs.shootout == tuple((c.value, c.left) for c in line.shootout if c.left)
        assert (theirs.extra_goals, theirs.great_saves) == (
            line.choices.extra_goals,
            line.choices.great_saves,
        )
        assert f"Opponent: {sheet_round.opponent.team.name}" in sheet.text or (
            f"Adversaire : {sheet_round.opponent.team.name}" in sheet.text
        )
        told += 1
    assert told >= 2  # the championship's and the WG group's games are drawn from the start


def test_the_week_s_results_and_the_table_are_the_published_ones(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    data = turn_sheet_read(coach)
    assert data is not None and data.entry is not None
    # The demo's week 2 was published at the time of its play: give the sheet its week back.
    published = PoolRound.objects.filter(
        pool__season=week_3.season, status=PoolRound.Status.PUBLISHED, round__week=2
    )
    with unguarded():
        published.update(published_at=timezone.now() - timedelta(days=2))
    data = turn_sheet_read(coach)
    assert data is not None and data.results
    assert all(data.entry.team.name in result.line for result in data.results)
    client = Client()
    standings = client.get(f"/standings/{data.entry.division.slug}/").content.decode()
    for line in data.table:
        assert line.entry.team.name in standings
    ranks = [line.row.rank for line in data.table]
    assert ranks[:3] == [1, 2, 3] and ranks[-1] == max(ranks) == 12
    assert data.entry.team_id in {line.entry.team_id for line in data.table}


# --- How it reads ---------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_line_fits_76_columns_in_each_language(week_3: DemoLeague, language: str) -> None:
    coaches = list(
        User.objects.filter(team__isnull=False, team__entries__season=week_3.season)
        .distinct()
        .order_by("pk")[:24]
    )
    assert coaches
    for coach in coaches:
        speaks(coach, language)
        sheet = turn_sheet(coach)
        assert sheet is not None
        assert long_lines(sheet.text) == [], coach.username
    words = {"fr": ("Date limite :", "Votre équipe :"), "en": ("Deadline:", "Your team:")}
    for word in words[language]:
        assert word in sheet.text
    assert sheet.html.count("<h3") >= 1


def test_the_deputy_gets_the_coach_s_sheet(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    deputy = User.objects.create_user(username="deputy", email="deputy@example.org")
    Team.objects.filter(coach=coach).update(deputy=deputy)
    for person in (coach, deputy):
        speaks(person, "fr")
    mine, theirs = turn_sheet(coach), turn_sheet(deputy)
    assert mine is not None and theirs is not None
    assert without_links(theirs.text) == without_links(mine.text)
    assert theirs.subject == mine.subject


def test_someone_who_plays_no_team_has_no_sheet(week_3: DemoLeague) -> None:
    assert turn_sheet(week_3.referee) is None


def test_a_competition_asked_gives_its_rounds_only(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    sheet = turn_sheet(coach, competition=Competition.WG)
    assert sheet is not None
    assert [r.round.competition for r in sheet.data.rounds] == ["wg"]


# --- Secrecy before publication (R23) ------------------------------------------------------------


def _public_part(data: TurnSheetData) -> list[object]:
    """What the sheet tells of others and of results: rounds, opponents and their sides,
    results, table."""
    return [
        [(r.round.pk, r.opponent, r.theirs) for r in data.rounds],
        data.results,
        [(line.entry.pk, line.row) for line in data.table],
    ]


def test_an_arbitrated_unpublished_kdh_round_tells_a_losing_coach_nothing(
    week_3: DemoLeague,
) -> None:
    kdh_2 = PoolRound.objects.get(
        pool__season=week_3.season, pool__competition=Competition.KDH, round__number=2
    )
    teams = [
        entry
        for fixture in kdh_2.fixtures.select_related("home__team__coach", "away__team__coach")
        for entry in (fixture.home, fixture.away)
        if entry.team.coach is not None
    ]
    before = {entry.pk: turn_sheet_read(entry.team.coach) for entry in teams}
    competitions.pool_round_arbitrate(pool_round=kdh_2, by=week_3.referee)
    kdh_2.refresh_from_db()
    assert kdh_2.status == PoolRound.Status.ARBITRATED
    kdh_3 = Round.objects.get(season=week_3.season, competition=Competition.KDH, number=3)
    for entry in teams:
        after = turn_sheet_read(entry.team.coach)
        assert before[entry.pk] is not None and after is not None
        assert _public_part(after) == _public_part(before[entry.pk]), entry.team.name
        # Winner or loser, its sheet still has the KDH's round 3, its opponent not told.
        [kdh] = [r for r in after.rounds if r.round.competition == Competition.KDH]
        assert kdh.round.pk == kdh_3.pk and kdh.opponent is None


# --- The answer -----------------------------------------------------------------------------------


def _notation(data: TurnSheetData, competition: str) -> str:
    """A pick the team may play in ``competition``'s round: its first column and values left."""
    [sheet_round] = [r for r in data.rounds if r.round.competition == competition]
    column = sheet_round.mine.columns[0][0]
    extra_time = sheet_round.mine.extra_time[0][0]
    shootout = f"({sheet_round.mine.shootout[0][0]})" if sheet_round.shootout else ""
    return f"{column}({extra_time}){shootout}"


def _message(coach: User, body: str, *, html: bool = False) -> bytes:
    domain = coach.email.split("@")[1]
    message = EmailMessage()
    message["Authentication-Results"] = (
        f"{AUTHSERV_ID}; dkim=pass header.d={domain} header.i=@{domain}; "
        f"spf=pass smtp.mailfrom={coach.email}; dmarc=pass header.from={domain}"
    )
    message["Received"] = f"from mail.{domain} by {AUTHSERV_ID}; {format_datetime(timezone.now())}"
    message["From"] = coach.email
    message["To"] = "picks@matrixhockey.test"
    message["Subject"] = "Re: sheet"
    message["Message-ID"] = make_msgid(domain=domain)
    message.set_content(body, subtype="html" if html else "plain")
    return bytes(message)


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


@pytest.fixture
def answering(week_3: DemoLeague, settings: Settings) -> tuple[User, TurnSheet]:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    coach = cup_coach(week_3)
    speaks(coach, "fr")
    sheet = turn_sheet(coach)
    assert sheet is not None
    return coach, sheet


def test_only_the_lines_to_fill_in_read_as_pick_lines(answering: tuple[User, TurnSheet]) -> None:
    _coach, sheet = answering
    fills = [r.fill for r in sheet.data.rounds]
    for text in (sheet.text, inbound.html_text(sheet.html)):
        lines = inbound.pick_lines(text)
        assert [line.text for line in lines] == fills
        assert all(line.error is not None for line in lines)  # empty: no pick


@pytest.mark.parametrize("language", ["fr", "en"])
def test_each_fill_line_reads_as_its_round(language: str) -> None:
    for competition in FILL_NAMES[language]:
        line = inbound.pick_line(fill_line(competition=competition, number=7, language=language))
        assert line is not None
        assert (line.competition, line.round_number) == (competition, 7)
        filled = inbound.pick_line(
            fill_line(competition=competition, number=7, language=language) + " F(1)"
        )
        assert filled is not None and (filled.notation, filled.error) == ("F(1)", None)


def _stored(coach: User, since: int) -> dict[str, str]:
    return {
        pick.round.competition: pick.normalized
        for pick in Pick.objects.filter(entered_by=coach, pk__gt=since).select_related("round")
    }


def _last_pick() -> int:
    last = Pick.objects.order_by("-pk").first()
    return last.pk if last else 0


def test_a_reply_with_the_lines_filled_above_the_quoted_sheet_stores_each_pick_once(
    answering: tuple[User, TurnSheet],
) -> None:
    coach, sheet = answering
    wanted = {
        r.round.competition: _notation(sheet.data, r.round.competition) for r in sheet.data.rounds
    }
    filled = "\n".join(f"{r.fill} {wanted[r.round.competition]}" for r in sheet.data.rounds)
    body = f"{filled}\n\nLe mercredi, Matrix Hockey a écrit :\n{_quoted(sheet.text)}\n"
    since = _last_pick()
    result = email_ingest(raw=_message(coach, body), received_at=timezone.now())
    assert [line.status for line in result.lines] == ["recorded"] * len(sheet.data.rounds), (
        result.outcome,
        result.reason,
    )
    assert _stored(coach, since) == wanted
    assert Pick.objects.filter(pk__gt=since).count() == len(sheet.data.rounds)


def test_a_reply_that_fills_the_quoted_lines_in_place_stores_them(
    answering: tuple[User, TurnSheet],
) -> None:
    coach, sheet = answering
    wanted = {
        r.round.competition: _notation(sheet.data, r.round.competition) for r in sheet.data.rounds
    }
    quoted = _quoted(sheet.text).splitlines()
    fills = {f"> {r.fill}": f"{r.fill} {wanted[r.round.competition]}" for r in sheet.data.rounds}
    body = "\n".join(fills.get(line, line) for line in quoted) + "\n"
    since = _last_pick()
    result = email_ingest(raw=_message(coach, body), received_at=timezone.now())
    assert [line.status for line in result.lines] == ["recorded"] * len(sheet.data.rounds), (
        result.outcome,
        result.reason,
    )
    assert _stored(coach, since) == wanted


def test_an_html_reply_above_the_quoted_sheet_stores_each_pick(
    answering: tuple[User, TurnSheet],
) -> None:
    coach, sheet = answering
    rounds = sheet.data.rounds
    wanted = {r.round.competition: _notation(sheet.data, r.round.competition) for r in rounds}
    filled = "".join(f"<div>{r.fill} {wanted[r.round.competition]}</div>" for r in rounds)
    body = f"<html><body>{filled}<blockquote>{sheet.html}</blockquote></body></html>"
    since = _last_pick()
    result = email_ingest(raw=_message(coach, body, html=True), received_at=timezone.now())
    assert [line.status for line in result.lines] == ["recorded"] * len(rounds)
    assert _stored(coach, since) == wanted


def test_a_sheet_sent_back_as_it_is_stores_nothing(answering: tuple[User, TurnSheet]) -> None:
    coach, sheet = answering
    since = _last_pick()
    for body in (sheet.text, _quoted(sheet.text)):
        email_ingest(raw=_message(coach, body), received_at=timezone.now())
    assert Pick.objects.filter(pk__gt=since).count() == 0


# --- Wednesday's job -----------------------------------------------------------------------------


def _wednesday(league: DemoLeague) -> datetime:
    """Wednesday 08:00 of week 4 (its deadline, R13, is Friday 17:00)."""
    deadline = Round.objects.filter(season=league.season, week=4).earliest("deadline").deadline
    return deadline - timedelta(days=2, hours=9)


def test_wednesday_s_job_sends_each_coach_and_deputy_their_sheet_once(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    deputy = User.objects.create_user(username="deputy", email="deputy@example.org")
    Team.objects.filter(coach=coach).update(deputy=deputy)
    speaks(deputy, "en")
    wednesday = _wednesday(week_3)
    queued = weekly_emails_send(now=wednesday)
    assert weekly_emails_send(now=wednesday) == 0
    coaches = (
        Entry.objects.current(season=week_3.season)
        .filter(team__coach__isnull=False, team__is_dummy=False)
        .exclude(team__coach__email="")
    )
    # Each team's deputy too: this one, and the demo's own (competitions.demo.DEPUTY).
    deputies = Team.objects.filter(deputy__isnull=False).exclude(deputy__email="").count()
    assert queued == coaches.count() + deputies
    assert Mailing.objects.filter(kind=Mailing.Kind.WEEKLY).count() == queued
    emails_send_due()
    emails = {email.to[0]: email for email in OutboundEmail.objects.filter(template="weekly")}
    assert len(emails) == queued
    for email in emails.values():
        assert email.status == OutboundEmail.Status.SENT
        for line in long_lines(email.body_text):
            raise AssertionError(f"{email.to}: {line!r}")
    expected = turn_sheet_read(coach, at=wednesday)
    assert expected is not None
    mine, theirs = emails[coach.email], emails[deputy.email]
    for sheet_round in expected.rounds:
        assert sheet_round.fill in mine.body_text
        assert sheet_round.mine.columns_text in mine.body_text
        assert sheet_round.mine.columns_text in theirs.body_text
    assert theirs.language == "en" and "Your team:" in theirs.body_text
    # Another team's coach: its own sheet, not this one's.
    other = next(address for address in emails if address not in (coach.email, deputy.email))
    assert expected.team.name not in emails[other].subject


def test_a_sheet_costs_a_bounded_number_of_queries(week_3: DemoLeague) -> None:
    coach = cup_coach(week_3)
    with CaptureQueriesContext(connection) as cup:
        turn_sheet(coach)
    with CaptureQueriesContext(connection) as championship:
        turn_sheet(coach, competition=Competition.CHAMPIONSHIP)
    assert len(cup) <= SHEET_QUERIES
    # The opponents' « infos équipes » are read once per competition (two queries), whatever
    # the number of rounds.
    assert len(cup) - len(championship) <= 2 * (len(Competition) - 1)
