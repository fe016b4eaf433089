"""``manage.py ingest_email``: real ``.eml`` messages on standard input, on PostgreSQL.

The fixtures (``fixtures/eml/``) are what a mail server delivers: ``Received`` headers added by
the league's server ``mx.matrixhockey.test`` and its ``Authentication-Results`` (SPF, DKIM,
DMARC), then the sender's own headers. The league's week 1 runs from Monday 2 to Sunday 8 March
2026; its deadline is Friday 6 March, 17:00 Europe/Paris (R13).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from competitions import services as competitions
from competitions.models import (
    Competition,
    LatePick,
    Pick,
    Pool,
    PoolMember,
    PoolRound,
    Round,
    Stage,
)
from competitions.services import late_pick_accept, late_pick_reject
from league.models import AuditLog, Entry, Profile, Season, Team
from mail.models import InboundEmail, OutboundEmail
from mail.outbox import emails_send_due
from tests.conftest import TeamMaker, eager_tasks

EML = Path(__file__).parent / "fixtures" / "eml"
ROOT = Path(__file__).resolve().parents[2]
PARIS = ZoneInfo("Europe/Paris")
AUTHSERV_ID = "mx.matrixhockey.test"
COACH = "sleigh-coach@example.org"
OTHER_COACH = "freezing-coach@example.org"


@dataclass
class EmailLeague:
    """Week 1 of season 1: the championship's first three rounds, KDH and WG round 1; the Sleigh
    Dogs (French coach) play both cups; the Freezing Ass's coach reads English."""

    season: Season
    rounds: dict[tuple[str, int], Round]
    coach: User
    other_coach: User
    entry: Entry


def build_email_league(season: Season, coach: User, other_coach: User) -> EmailLeague:
    rounds = {
        ("championship", n): competitions.round_create(
            season=season, competition=Competition.CHAMPIONSHIP, number=n, week=n
        )
        for n in (1, 2, 3)
    }
    rounds["kdh", 1] = competitions.round_create(
        season=season, competition=Competition.KDH, number=1, week=1, stage=Stage.ROUND_OF_64
    )
    rounds["wg", 1] = competitions.round_create(
        season=season, competition=Competition.WG, number=1, week=1, stage=Stage.GROUP
    )
    entry = Entry.objects.get(team__coach=coach)
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    wg = competitions.pool_create(season=season, competition=Competition.WG)
    PoolMember.objects.create(pool=kdh, entry=entry)
    PoolMember.objects.create(pool=wg, entry=entry, group="A")
    Profile.objects.create(user=other_coach, language="en")
    return EmailLeague(season, rounds, coach, other_coach, entry)


@pytest.fixture
def league(season: Season, coach: User, other_coach: User, settings: Settings) -> EmailLeague:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    return build_email_league(season, coach, other_coach)


def ingest(name: str | bytes, *args: str) -> str:
    """Run ``manage.py ingest_email`` with fixture ``name`` (or raw bytes) on standard input."""
    raw = name if isinstance(name, bytes) else (EML / name).read_bytes()
    out = io.StringIO()
    call_command("ingest_email", *args, stdin=io.BytesIO(raw), stdout=out)
    return out.getvalue()


def picks() -> list[tuple[str, int, str, str]]:
    return [
        (p.round.competition, p.round.number, p.normalized, p.channel)
        for p in Pick.objects.order_by("id").select_related("round")
    ]


def replies() -> list[OutboundEmail]:
    """The replies, rendered and sent as the worker woken by their commit does it."""
    emails_send_due()
    return list(OutboundEmail.objects.filter(template="pick-reply").order_by("id"))


def inbound(message_id: str) -> InboundEmail:
    return InboundEmail.objects.get(message_id=message_id)


# --- A coach's picks --------------------------------------------------------------------------


def test_a_french_coachs_pick_is_stored_with_channel_email_when_the_league_received_it(
    league: EmailLeague,
) -> None:
    output = ingest("fr-championship.eml")
    pick = Pick.objects.get()
    assert (pick.entry, pick.round) == (league.entry, league.rounds["championship", 1])
    assert (pick.notation, pick.normalized, pick.channel) == ("F+(2)", "F+(2)", "email")
    assert pick.entered_by == league.coach
    # The top Received header (the league's server), not Date (the sender's claim, 3 March).
    assert pick.received_at == datetime(2026, 3, 4, 10, 15, 2, tzinfo=PARIS)
    assert "recorded  championship round 1: F+(2)" in output
    assert pick.receipt in output
    row = inbound("<fr-championship.1@mail.example.org>")
    assert (row.outcome, row.user, row.sender) == ("processed", league.coach, COACH)


def test_the_pick_line_of_a_signature_is_ignored(league: EmailLeague) -> None:
    ingest("fr-championship.eml")
    assert picks() == [("championship", 1, "F+(2)", "email")]


def test_the_coach_gets_one_reply_in_french_with_the_pick_and_its_receipt(
    league: EmailLeague,
) -> None:
    ingest("fr-championship.eml")
    [reply] = replies()
    pick = Pick.objects.get()
    assert reply.to == [COACH]
    assert reply.language == "fr"
    assert "F+(2)" in reply.body_text and pick.receipt in reply.body_text
    assert "« Championnat : F+(2) »" in reply.body_text
    assert reply.headers["In-Reply-To"] == "<fr-championship.1@mail.example.org>"
    assert reply.headers["Auto-Submitted"] == "auto-replied"
    assert inbound("<fr-championship.1@mail.example.org>").reply == reply


def test_an_english_coach_is_answered_in_english_at_the_registered_address(
    league: EmailLeague,
) -> None:
    ingest("en-championship.eml")  # From: Freezing-Coach@EXAMPLE.org — any case matches
    pick = Pick.objects.get()
    assert pick.entry.team.coach == league.other_coach
    assert (pick.notation, pick.normalized) == ("d(1)", "D(1)")
    [reply] = replies()
    assert (reply.to, reply.language) == ([OTHER_COACH], "en")
    assert "Recorded — Championship, round 1: D(1)" in reply.body_text
    assert reply.subject == "Your picks by email: recorded"


def test_two_competitions_in_one_message_and_reply_to_is_ignored(league: EmailLeague) -> None:
    ingest("two-competitions.eml")
    assert picks() == [("championship", 1, "F+(2)", "email"), ("kdh", 1, "C(1)(4)", "email")]
    [reply] = replies()
    assert reply.to == [COACH]  # not the message's Reply-To
    assert "jean.perso@elsewhere.example" not in str(reply.to)


def test_a_named_round_takes_the_pick_for_that_round(league: EmailLeague) -> None:
    ingest("round-number.eml")  # « Championnat J2 » and « Championship round 3 »
    assert picks() == [
        ("championship", 2, "B(3)", "email"),
        ("championship", 3, "C++(0)", "email"),
    ]


def test_a_bad_notation_is_reported_with_what_is_wrong_and_the_other_line_stored(
    league: EmailLeague,
) -> None:
    output = ingest("bad-notation.eml")
    assert picks() == [("kdh", 1, "C(1)(4)", "email")]
    [reply] = replies()
    assert "« Championnat : F+(7) »" in reply.body_text
    assert "error     'Championnat : F+(7)' [notation]" in output
    [error] = [
        line
        for line in inbound("<bad-notation.3@mail.example.org>").report
        if line["status"] == "error"
    ]
    assert (error["line"], error["code"]) == ("Championnat : F+(7)", "notation")
    assert "(7)" in error["message"] and error["message"] in reply.body_text


def test_a_great_save_in_the_kdh_is_refused_R6(league: EmailLeague) -> None:
    Profile.objects.create(user=league.coach, language="en")
    ingest("kdh-great-save.eml")
    assert picks() == []
    [line] = inbound("<kdh-great-save.4@mail.example.org>").report
    assert (line["status"], line["code"]) == ("error", "not_allowed")
    assert "Great saves (#)" in line["message"] and "championship" in line["message"]
    [reply] = replies()
    assert "Great saves (#)" in reply.body_text


@pytest.mark.parametrize(
    ("name", "message_id"),
    [
        ("iso-8859-1-qp.eml", "<latin1.1@mail.example.org>"),
        ("reply-quoted.eml", "<reply-quoted.1@mail.example.org>"),
    ],
)
def test_latin1_quoted_printable_and_quoted_replies_give_only_the_coachs_own_pick(
    league: EmailLeague, name: str, message_id: str
) -> None:
    ingest(name)
    assert picks() == [("championship", 1, "G(2)", "email")]
    # The record's pick lines (the lines not understood follow them, answered with the help).
    report = inbound(message_id).report
    assert [line["line"] for line in report if line["status"] != "unknown"] == [
        "Championnat journée 1 : G(2)" if name.startswith("iso") else "Championnat : G(2)"
    ]


def test_a_latin1_subject_is_decoded(league: EmailLeague) -> None:
    ingest("iso-8859-1-qp.eml")
    assert inbound("<latin1.1@mail.example.org>").subject == "Choix de la journée"


def test_an_html_only_message_is_read_without_its_quoted_part(league: EmailLeague) -> None:
    ingest("html-only.eml")
    assert picks() == [("championship", 1, "F+(2)", "email"), ("kdh", 1, "C(1)(4)", "email")]


# --- Once per Message-ID ----------------------------------------------------------------------


def test_the_same_message_twice_stores_nothing_new_and_is_answered_once(
    league: EmailLeague,
) -> None:
    ingest("fr-championship.eml")
    again = ingest("fr-championship.eml")
    assert len(picks()) == 1
    assert len(replies()) == 1
    assert InboundEmail.objects.count() == 1
    assert "duplicate" in again and "no reply" in again


# --- Deadline: the referee's queue (R13) --------------------------------------------------------


def test_a_message_received_after_the_deadline_goes_to_the_referees_queue(
    league: EmailLeague,
) -> None:
    output = ingest("late.eml")  # Date: Friday 16:58 (the sender's claim); received Saturday
    assert picks() == []
    late = LatePick.objects.get()
    assert (late.entry, late.round) == (league.entry, league.rounds["championship", 1])
    assert (late.notation, late.status) == ("E+(1)", "pending")
    assert late.received_at == datetime(2026, 3, 7, 9, 12, 44, tzinfo=PARIS)
    assert late.message_id == "<late.1@mail.example.org>"
    assert "late      championship round 1: E+(1)" in output
    [reply] = replies()
    assert reply.to == [COACH] and reply.language == "fr"
    assert "« Championnat : E+(1) »" in reply.body_text
    [line] = inbound("<late.1@mail.example.org>").report
    assert (line["status"], line["pick"], line["round"]) == ("late", "E+(1)", 1)


@pytest.fixture
def late_pick(league: EmailLeague) -> LatePick:
    ingest("late.eml")
    return LatePick.objects.get()


def test_a_referee_accepts_a_late_pick_it_is_entered_as_theirs_at_its_time(
    late_pick: LatePick,
    referee: User,
    league: EmailLeague,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    # The receipt is written by a task queued on commit (run here in the test's process).
    with eager_tasks(), django_capture_on_commit_callbacks(execute=True):
        accepted = late_pick_accept(late_pick=late_pick, by=referee)
    pick = Pick.objects.get()
    assert (pick.normalized, pick.channel, pick.entered_by) == ("E+(1)", "referee", referee)
    assert pick.received_at == late_pick.received_at
    accepted.refresh_from_db()
    assert (accepted.status, accepted.pick, accepted.decided_by) == ("accepted", pick, referee)
    assert accepted.decided_at is not None
    receipt = OutboundEmail.objects.get(template="pick-receipt")
    assert receipt.to == [COACH]
    assert AuditLog.objects.filter(action="late_pick_accepted").exists()


def test_a_late_pick_is_decided_once(late_pick: LatePick, referee: User) -> None:
    late_pick_reject(late_pick=late_pick, by=referee)
    with pytest.raises(ValidationError):
        late_pick_accept(late_pick=late_pick, by=referee)
    assert Pick.objects.count() == 0
    late_pick.refresh_from_db()
    assert late_pick.status == "rejected"


def test_a_rejected_late_pick_is_told_to_the_coach(late_pick: LatePick, referee: User) -> None:
    Profile.objects.create(user=late_pick.entry.team.coach, language="en")
    late_pick_reject(late_pick=late_pick, by=referee)
    told = replies()[-1]
    assert told is not None and (told.to, told.language) == ([COACH], "en")
    assert told.subject == "Your late pick was not accepted"
    assert "« E+(1) » for Sleigh Dogs — championship, round 1" in told.body_text


def test_only_a_referee_of_the_pool_or_staff_decides_on_late_picks(
    late_pick: LatePick, other_coach: User, visitor: User, admin_user: User
) -> None:
    for someone in (other_coach, visitor):
        with pytest.raises(PermissionDenied):
            late_pick_reject(late_pick=late_pick, by=someone)
        with pytest.raises(PermissionDenied):
            late_pick_accept(late_pick=late_pick, by=someone)
    late_pick.refresh_from_db()
    assert late_pick.status == "pending"
    late_pick_accept(late_pick=late_pick, by=admin_user)
    assert Pick.objects.get().entered_by == admin_user


def test_a_late_pick_is_refused_once_the_pool_round_is_arbitrated(
    late_pick: LatePick, referee: User, elite_pool: Pool, league: EmailLeague
) -> None:
    pool_round = competitions.pool_round_create(
        pool=elite_pool, round=league.rounds["championship", 1]
    )
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=datetime(2026, 3, 8, tzinfo=UTC)
    )
    with pytest.raises(ValidationError):
        late_pick_accept(late_pick=late_pick, by=referee)
    assert Pick.objects.count() == 0


def test_the_admin_lists_late_picks_and_its_actions_decide_them(
    late_pick: LatePick, admin_client: Client, admin_user: User, league: EmailLeague
) -> None:
    url = reverse("admin:competitions_latepick_changelist")
    listing = admin_client.get(url, {"status__exact": "pending"})
    assert "Sleigh Dogs" in listing.content.decode()
    done = admin_client.post(url, {"action": "accept", "_selected_action": [late_pick.pk]})
    assert done.status_code == 302
    assert Pick.objects.get().entered_by == admin_user
    again = admin_client.post(
        url, {"action": "reject", "_selected_action": [late_pick.pk]}, follow=True
    )
    assert "already decided" in again.content.decode()
    late_pick.refresh_from_db()
    assert late_pick.status == "accepted"
    inbound_list = admin_client.get(reverse("admin:mail_inboundemail_changelist"))
    assert COACH in inbound_list.content.decode()


def test_a_late_message_for_an_arbitrated_round_is_an_error_not_a_late_pick(
    league: EmailLeague, elite_pool: Pool
) -> None:
    pool_round = competitions.pool_round_create(
        pool=elite_pool, round=league.rounds["championship", 1]
    )
    PoolRound.objects.filter(pk=pool_round.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=datetime(2026, 3, 7, tzinfo=UTC)
    )
    ingest("late.eml")
    assert LatePick.objects.count() == 0
    [line] = inbound("<late.1@mail.example.org>").report
    assert (line["status"], line["code"]) == ("error", "arbitrated")


def test_the_received_at_option_overrides_the_received_header(league: EmailLeague) -> None:
    ingest("late.eml", "--received-at", "2026-03-06T16:59:00+01:00")
    assert picks() == [("championship", 1, "E+(1)", "email")]
    assert LatePick.objects.count() == 0


# --- Senders the league does not trust -----------------------------------------------------------


def test_an_unknown_sender_gets_one_polite_reply_and_no_pick(league: EmailLeague) -> None:
    ingest("unknown-sender.eml")
    ingest("unknown-sender-again.eml")
    assert picks() == [] and LatePick.objects.count() == 0
    [reply] = replies()
    assert (reply.to, reply.language) == (["stranger@elsewhere.example"], "en")
    assert "Championship" not in reply.body_text  # nothing of the message is sent back
    outcomes = InboundEmail.objects.values_list("outcome", flat=True)
    assert list(outcomes) == ["unknown_sender", "unknown_sender"]


@pytest.mark.parametrize(
    "name",
    ["forged-from.eml", "forged-signed-elsewhere.eml", "forged-fake-results.eml"],
)
def test_a_forged_coach_address_stores_nothing_and_nothing_goes_to_the_forger(
    league: EmailLeague, name: str
) -> None:
    output = ingest(name)
    assert picks() == [] and LatePick.objects.count() == 0
    row = InboundEmail.objects.get()
    assert (row.outcome, row.user) == ("forged", league.coach)
    assert "forged" in output
    emails_send_due()  # rendered, as the worker woken by the commit does it
    for email in OutboundEmail.objects.all():
        assert email.to == [COACH]
        assert "evil" not in email.body_text and "K(3)" not in email.body_text


def test_the_coach_is_warned_of_forged_messages_at_most_once_a_day(league: EmailLeague) -> None:
    Profile.objects.create(user=league.coach, language="en")
    for name in ("forged-from.eml", "forged-signed-elsewhere.eml", "forged-fake-results.eml"):
        ingest(name)
    [notice] = replies()
    assert notice.to == [COACH]
    assert notice.subject == "An email in your name was refused"
    assert "In-Reply-To" not in notice.headers


def test_several_from_addresses_are_refused_without_reply(league: EmailLeague) -> None:
    ingest("several-from.eml")
    assert picks() == [] and replies() == []
    assert InboundEmail.objects.get().outcome == "bad_sender"


@pytest.mark.parametrize("name", ["auto-reply.eml", "bounce.eml"])
def test_auto_replies_and_bounces_are_ignored_and_not_answered(
    league: EmailLeague, name: str
) -> None:
    ingest(name)
    assert picks() == [] and replies() == []
    assert InboundEmail.objects.get().outcome == "automatic"


def without_authentication_results(name: str) -> bytes:
    raw = (EML / name).read_bytes()
    head, _, body = raw.partition(b"\n\n")
    lines = head.split(b"\n")
    kept: list[bytes] = []
    skipping = False
    for line in lines:
        if line.lower().startswith(b"authentication-results:"):
            skipping = True
            continue
        if skipping and line[:1] in (b" ", b"\t"):
            continue
        skipping = False
        kept.append(line)
    return b"\n".join(kept) + b"\n\n" + body


def test_without_the_servers_authentication_results_a_coach_is_not_trusted(
    league: EmailLeague,
) -> None:
    ingest(without_authentication_results("fr-championship.eml"))
    assert picks() == []
    assert InboundEmail.objects.get().outcome == "forged"


def test_a_league_whose_server_adds_no_authentication_results_turns_the_check_off(
    league: EmailLeague, settings: Settings
) -> None:
    settings.MAIL_AUTH_REQUIRED = False
    ingest(without_authentication_results("fr-championship.eml"))
    assert picks() == [("championship", 1, "F+(2)", "email")]


def test_with_no_trusted_server_configured_nobody_is_trusted(
    league: EmailLeague, settings: Settings
) -> None:
    settings.MAIL_AUTHSERV_ID = []
    ingest("fr-championship.eml")
    assert picks() == []
    assert "MAIL_AUTHSERV_ID" in InboundEmail.objects.get().authentication


def test_a_coach_without_a_team_is_an_unknown_sender(league: EmailLeague) -> None:
    Team.objects.filter(coach=league.coach).update(coach=None)
    ingest("fr-championship.eml")
    assert picks() == []
    assert InboundEmail.objects.get().outcome == "unknown_sender"


# --- Rounds chosen by the week ------------------------------------------------------------------


def test_the_championships_last_week_asks_which_of_its_two_rounds(
    league: EmailLeague, enter_team: TeamMaker
) -> None:
    for number in (10, 11):
        competitions.round_create(
            season=league.season, competition=Competition.CHAMPIONSHIP, number=number, week=10
        )
    raw = (EML / "fr-championship.eml").read_bytes()
    raw = raw.replace(b"Wed,  4 Mar 2026 10:15:02", b"Wed,  6 May 2026 10:15:02")
    ingest(raw)
    report = inbound("<fr-championship.1@mail.example.org>").report
    [line] = [line for line in report if line["status"] != "unknown"]
    assert (line["status"], line["code"]) == ("error", "round")
    assert "10" in line["message"]


# --- The command itself -------------------------------------------------------------------------


def test_empty_standard_input_is_an_error() -> None:
    with pytest.raises(CommandError, match="nothing on standard input"):
        call_command("ingest_email", stdin=io.BytesIO(b"  \n"))


def test_a_bad_received_at_option_is_an_error() -> None:
    with pytest.raises(CommandError, match="ISO 8601"):
        ingest("late.eml", "--received-at", "saturday")


def manage(*args: str, stdin: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    base = {k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        input=stdin,
        env={**base, **env},
        capture_output=True,
        timeout=120,
    )


def test_the_command_as_a_mail_server_runs_it_exits_0_and_empty_input_does_not() -> None:
    done = manage("ingest_email", stdin=b"", env={})
    assert done.returncode != 0
    assert b"nothing on standard input" in done.stderr


@pytest.mark.django_db(transaction=True)
def test_a_real_process_stores_the_pick_and_mails_the_reply(
    season: Season, coach: User, other_coach: User, tmp_path: Path
) -> None:
    league = build_email_league(season, coach, other_coach)
    db = connection.settings_dict
    env = {
        "DATABASE_URL": f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MAIL_AUTHSERV_ID": AUTHSERV_ID,
        "EMAIL_BACKEND": "file",
        "EMAIL_FILE_PATH": str(tmp_path),
    }
    done = manage("ingest_email", stdin=(EML / "two-competitions.eml").read_bytes(), env=env)
    assert done.returncode == 0, done.stderr.decode()
    assert b"recorded  kdh round 1: C(1)(4)" in done.stdout
    assert picks() == [("championship", 1, "F+(2)", "email"), ("kdh", 1, "C(1)(4)", "email")]
    assert Pick.objects.filter(entry=league.entry).count() == 2
    [sent] = list(tmp_path.iterdir())  # Celery runs eagerly without REDIS_URL: mailed at once
    text = sent.read_text()
    assert f"To: {COACH}" in text and "jean.perso" not in text.split("\n\n")[0]
    refused = manage("ingest_email", stdin=(EML / "kdh-great-save.eml").read_bytes(), env=env)
    assert refused.returncode == 0  # handled: the refusal went to the coach
    assert b"error" in refused.stdout


def test_the_team_s_deputy_may_send_its_picks_by_email_recorded_as_theirs(
    league: EmailLeague,
) -> None:
    deputy = User.objects.create_user("sleigh-deputy", email="sleigh-deputy@example.org")
    Team.objects.filter(pk=league.entry.team_id).update(deputy=deputy)
    raw = (
        (EML / "fr-championship.eml")
        .read_bytes()
        .replace(COACH.encode(), b"sleigh-deputy@example.org")
    )
    ingest(raw)
    pick = Pick.objects.get()
    assert (pick.entry, pick.entered_by, pick.channel) == (league.entry, deputy, "email")
    # Removed, the deputy's emails are a stranger's: nothing is stored.
    Team.objects.filter(pk=league.entry.team_id).update(deputy=None)
    ingest(raw.replace(b"fr-championship.1@", b"fr-championship.2@"))
    assert Pick.objects.count() == 1


def test_the_reply_links_the_ruling_it_cites(league: EmailLeague, settings: Settings) -> None:
    settings.SITE_URL = "https://hockey.example"
    ingest("fr-championship.eml")
    [reply] = replies()
    # R12 is cited: the text gives the rules' address once, the HTML links the citation.
    assert reply.body_text.count("https://hockey.example/rules/#r12") == 1
    assert '<a href="https://hockey.example/rules/#r12">R12</a>' in reply.body_html
