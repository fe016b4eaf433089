"""Commands by email (``mail.commands``, ``mail.command_answers``), on the demo league at week 3
(weeks 1 and 2 published, week 3 played and waiting for its referee, week 4 open): each
answer against the site's own page for the same state, in both languages, threaded in one
reply with the message's picks; what stays secret; the limits of the intake."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.utils import format_datetime

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import F
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django.fixtures import Settings

from competitions.demo import DemoLeague
from competitions.models import Competition, FixtureResult, Pick, Pool, PoolRound
from competitions.selectors.picks import entry_pools
from competitions.services import pool_round_arbitrate
from league.models import Entry, Profile, Team, WaitingListEntry
from mail.commands import command_line, message_items
from mail.intake import email_ingest
from mail.models import InboundEmail, OutboundEmail
from mail.outbox import emails_send_due
from mail.turn_sheet import turn_sheet
from tests.demo_worlds import DemoWorlds

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rates_afresh() -> Iterator[None]:
    """The rate limits' counters start afresh (the join page's per address lives in the cache,
    shared by a run's tests)."""
    cache.clear()
    yield
    cache.clear()


AUTHSERV_ID = "mx.matrixhockey.test"
_ids = iter(range(1, 10**6))


@pytest.fixture
def demo(demo_worlds: DemoWorlds, settings: Settings) -> DemoLeague:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    return demo_worlds.load(week=3)


def message(sender: str, body: str, *, headers: str = "", trusted: bool = True) -> bytes:
    """A message as the league's mail server delivers it: its Received header on top, with
    what it found of SPF, DKIM and DMARC (``trusted``: all pass)."""
    domain = sender.rsplit("@", 1)[1]
    verdict = "pass" if trusted else "fail"
    return (
        f"Authentication-Results: {AUTHSERV_ID}; spf={verdict} smtp.mailfrom={sender};"
        f" dkim={verdict} header.d={domain}; dmarc={verdict} header.from={domain}\n"
        f"Received: from mail.{domain} by {AUTHSERV_ID}; {format_datetime(timezone.now())}\n"
        f"From: {sender}\nTo: picks@matrixhockey.test\nSubject: Commandes\n"
        f"Message-ID: <command.{next(_ids)}@{domain}>\nMIME-Version: 1.0\n"
        f"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n{headers}\n"
        f"{body}\n"
    ).encode()


def ask(sender: str, body: str, **kwargs: object) -> tuple[InboundEmail, list[OutboundEmail]]:
    """Ingest a message from ``sender``; its record and the replies then sent."""
    result = email_ingest(raw=message(sender, body, **kwargs))  # type: ignore[arg-type]
    before = set(OutboundEmail.objects.values_list("pk", flat=True))
    emails_send_due()
    inbound = InboundEmail.objects.get(message_id=result.message_id)
    sent = OutboundEmail.objects.filter(
        status=OutboundEmail.Status.SENT, headers__contains={"In-Reply-To": result.message_id}
    )
    assert before >= set(sent.values_list("pk", flat=True))
    return inbound, list(sent.order_by("pk"))


def a_team(demo: DemoLeague) -> tuple[User, Team, Entry]:
    entry = (
        Entry.objects.playing()
        .filter(season=demo.season, division__tier=1)
        .select_related("team__coach")
        .order_by("team__slug")
        .first()
    )
    assert entry is not None and entry.team.coach is not None
    return entry.team.coach, entry.team, entry


def english(user: User) -> User:
    Profile.objects.update_or_create(user=user, defaults={"language": "en"})
    return user


def page(path: str) -> str:
    response = Client().get(path)
    assert response.status_code == 200, path
    return response.content.decode()


# --- Reading ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("AIDE", "help"),
        ("help", "help"),
        ("Résultats KDH J2", "results"),
        ("RESULTATS", "results"),
        ("résultats", "results"),
        ("Classement", "standings"),
        ("STANDINGS elite", "standings"),
        ("- ordres", "picks"),
        ("Picks", "picks"),
        ("MATRICE wg", "matrix"),
        ("Matrix", "matrix"),
        ("infos KDH", "info"),
        ("ADJOINT AUCUN", "deputy"),
        ("deputy none", "deputy"),
        ("LISTE Les Élans", "join"),
        ("join The Moose", "join"),
    ],
)
def test_each_command_word_reads_in_both_languages_any_case_accents_or_not(
    text: str, name: str
) -> None:
    command = command_line(text)
    assert command is not None and command.name == name and not command.error


def test_a_message_is_pick_lines_commands_and_lines_not_understood_in_order() -> None:
    items = message_items("Bonjour\nChampionnat : F+(2)\nclassement\n> AIDE\n-- \nAIDE")
    assert [type(item).__name__ for item in items] == ["Unknown", "PickLine", "Command"]


# --- The answers against the site's pages ------------------------------------------------------


def test_standings_answer_the_standings_page_s_numbers_in_french(demo: DemoLeague) -> None:
    coach, _team, entry = a_team(demo)
    _inbound, [reply] = ask(coach.email, "CLASSEMENT")
    assert reply.language == "fr" and "Classement" in reply.body_text
    pool = entry_pools(entry=entry)[Competition.CHAMPIONSHIP]
    html = page(reverse("standings", kwargs={"pool": pool.slug}))
    site_points = re.findall(r'<td class="num pts"><strong>(\d+)</strong>', html)
    site_teams = re.findall(r'class="team-name" href="/teams/([^/]+)/"', html)
    names = dict(Team.objects.filter(slug__in=site_teams).values_list("slug", "name"))
    rows = [
        line
        for line in reply.body_text.splitlines()
        if re.match(r"^\s+\d+  ", line) and any(names[slug][:20] in line for slug in site_teams)
    ]
    assert len(rows) == len(site_teams) == len(site_points) > 0
    for row, slug, points in zip(rows, site_teams, site_points, strict=True):
        assert names[slug][:20] in row
        assert row[29:33].strip() == points
    assert any(int(points) > 0 for points in site_points)  # published rounds are counted


def test_results_answer_the_results_page_s_games_with_their_explanation_in_english(
    demo: DemoLeague,
) -> None:
    coach, _team, entry = a_team(demo)
    english(coach)
    _inbound, [reply] = ask(coach.email, "Results")
    pool = entry_pools(entry=entry)[Competition.CHAMPIONSHIP]
    latest = (
        PoolRound.objects.filter(pool=pool, status=PoolRound.Status.PUBLISHED)
        .order_by("-round__number")
        .first()
    )
    assert latest is not None
    assert f"Results — {pool.display_name}, round {latest.round.number}" in reply.body_text
    html = page(
        reverse(
            "results_pool_round",
            kwargs={"competition": "championship", "pool": pool.slug, "round": latest.round.number},
        )
    )
    scores = re.findall(
        r'home-goals">(\d+)</span><span class="sep">-</span><span class="goals away-goals">(\d+)',
        html,
    )
    assert scores
    for home, away in scores:
        assert f" : {home}-{away}" in reply.body_text
    assert 'class="explain"' in html
    assert reply.body_text.count("      =  ") == 2 * len(scores)  # every team's goals explained


def test_picks_answer_the_team_s_own_current_picks_with_their_receipts(demo: DemoLeague) -> None:
    coach, _team, entry = a_team(demo)
    _inbound, [reply] = ask(coach.email, "Championnat : F+(2)\nORDRES")
    pick = Pick.objects.filter(entry=entry).order_by("-pk").first()
    assert pick is not None and pick.normalized == "F+(2)"
    answers = reply.body_text.split("==== ")
    assert pick.receipt in answers[-1]
    others = Pick.objects.filter(round=pick.round).exclude(entry=entry)
    for other in others[:20]:
        assert other.receipt not in reply.body_text


def test_matrix_answers_the_public_matrix_s_values(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    _inbound, [reply] = ask(coach.email, "matrice")
    from competitions.selectors.matrices import season_matrix

    matrix = season_matrix(season=demo.season, competition="championship")
    assert matrix is not None
    html = page(reverse("matrices"))
    for row in matrix.rows[:3]:
        line = next(
            text
            for text in reply.body_text.splitlines()
            if text.startswith(f"J{row.round.number} ")
        )
        assert [int(value) for value in line.split()[1 : 1 + len(row.values)]] == [
            value for _column, value in row.values
        ]
        for _column, value in row.values:
            assert f">{value}<" in html


def test_help_in_english_and_in_french(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    _inbound, [french] = ask(coach.email, "aide")
    assert "Écrivez une commande par ligne" in french.body_text
    english(coach)
    _inbound, [reply] = ask(coach.email, "HELP")
    assert "Write one command a line" in reply.body_text
    assert "Championnat : F+(2)" in reply.body_text


def test_picks_and_commands_get_one_reply_threaded_under_the_message(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    inbound, replies = ask(coach.email, "Bonjour\nChampionnat : F+(2)\nCLASSEMENT\nRÉSULTATS")
    [reply] = replies
    assert reply.headers["In-Reply-To"] == inbound.message_id
    assert reply.headers["References"] == inbound.message_id
    assert reply.headers["Auto-Submitted"] == "auto-replied"
    assert inbound.reply == reply
    assert "F+(2)" in reply.body_text
    assert "« CLASSEMENT »" in reply.body_text and "« RÉSULTATS »" in reply.body_text
    assert "« Bonjour »" in reply.body_text  # not understood: answered with the help
    assert "AIDE / HELP" in reply.body_text


def test_the_same_message_id_is_answered_once(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    raw = message(coach.email, "CLASSEMENT")
    email_ingest(raw=raw)
    assert email_ingest(raw=raw).outcome == "duplicate"
    emails_send_due()
    assert OutboundEmail.objects.filter(template="pick-reply", to=[coach.email]).count() == 1


# --- Secrecy -------------------------------------------------------------------------------------


def test_an_arbitrated_unpublished_round_is_in_no_answer(demo: DemoLeague) -> None:
    coach, _team, entry = a_team(demo)
    pool = entry_pools(entry=entry)[Competition.CHAMPIONSHIP]
    waiting = PoolRound.objects.get(pool=pool, round__week=3)
    before_standings = ask(coach.email, "CLASSEMENT")[1][0].body_text
    # The referee's arbitration of week 3, as far as what commands could tell: its status.
    PoolRound.objects.filter(pk=waiting.pk).update(
        status=PoolRound.Status.ARBITRATED, arbitrated_at=timezone.now()
    )
    _inbound, [standings] = ask(coach.email, "CLASSEMENT")
    assert standings.body_text.split("\n", 3)[3] == before_standings.split("\n", 3)[3]
    _inbound, [results] = ask(coach.email, f"RÉSULTATS championnat J{waiting.round.number}")
    assert "n’est pas publiée" in results.body_text
    _inbound, [picks] = ask(coach.email, "ORDRES")
    for pick in Pick.objects.filter(round=waiting.round):
        assert pick.receipt not in picks.body_text


def test_a_deputy_may_not_name_a_deputy(demo: DemoLeague) -> None:
    _coach, team, _entry = a_team(demo)
    deputy = User.objects.create_user("deputy-x", email="deputy-x@example.org")
    Team.objects.filter(pk=team.pk).update(deputy=deputy)
    _inbound, [reply] = ask(deputy.email, "ADJOINT autre@example.org")
    assert reply.to == [deputy.email]
    assert "Seul l’entraîneur de l’équipe peut choisir son adjoint." in reply.body_text
    assert "?deputy=" not in reply.body_text
    team.refresh_from_db()
    assert team.deputy == deputy


def test_the_coach_s_deputy_command_links_to_the_site_s_form_filled_in(demo: DemoLeague) -> None:
    coach, team, _entry = a_team(demo)
    User.objects.create_user("helper", email="helper@example.org")
    _inbound, [reply] = ask(coach.email, "DEPUTY helper@example.org")
    [link] = re.findall(r"https?://\S+\?deputy=\S+", reply.body_text)
    team.refresh_from_db()
    assert team.deputy is None  # confirmed on the site only
    client = Client()
    client.force_login(coach)
    path = "/" + link.split("://", 1)[1].split("/", 1)[1].split("#")[0]
    html = client.get(path).content.decode()
    assert 'id="deputy-who"' in html, path
    assert 'value="helper@example.org"' in html


def test_a_forged_sender_gets_today_s_refusal_and_no_answer(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    inbound, replies = ask(coach.email, "CLASSEMENT", trusted=False)
    assert inbound.outcome == "forged" and inbound.report == []
    assert all("Classement" not in reply.body_text for reply in replies)


def test_an_unknown_address_s_commands_get_the_one_polite_reply(demo: DemoLeague) -> None:
    inbound, [reply] = ask("stranger@example.net", "CLASSEMENT")
    assert inbound.outcome == "unknown_sender"
    assert "Classement" not in reply.body_text.split("\n", 1)[1]


def test_automatic_messages_are_never_answered(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    inbound, replies = ask(coach.email, "AIDE", headers="Auto-Submitted: auto-replied\n")
    assert inbound.outcome == "automatic" and replies == []


# --- JOIN ----------------------------------------------------------------------------------------


def test_join_from_an_unknown_address_is_the_join_page_s_confirmation_threaded(
    demo: DemoLeague,
) -> None:
    inbound, [reply] = ask("newcomer@example.net", "LISTE Les Élans de Québec")
    entry = WaitingListEntry.objects.get(email="newcomer@example.net")
    assert (entry.name, entry.status, entry.language) == ("Les Élans de Québec", "pending", "fr")
    assert reply.template == "waiting-list" and inbound.reply == reply
    assert "/join/confirm/" in reply.body_text or "confirm" in reply.body_text
    assert reply.headers["In-Reply-To"] == inbound.message_id


def test_join_without_a_team_name_says_how_in_english(demo: DemoLeague) -> None:
    _inbound, [reply] = ask("newcomer2@example.net", "JOIN")
    assert not WaitingListEntry.objects.filter(email="newcomer2@example.net").exists()
    assert reply.language == "en" and "JOIN The Frozen Moose" in reply.body_text


# --- The rate ---------------------------------------------------------------------------------


def test_a_burst_of_commands_is_answered_at_the_limited_rate_and_picks_still_count(
    demo: DemoLeague, settings: Settings
) -> None:
    settings.MAIL_MAX_COMMAND_MESSAGES = 2
    coach, _team, _entry = a_team(demo)
    answered = [ask(coach.email, "CLASSEMENT")[1] for _ in range(4)]
    assert [len(replies) for replies in answered] == [1, 1, 0, 0]
    _inbound, [reply] = ask(coach.email, "Championnat : D(1)\nCLASSEMENT")
    assert "« Championnat : D(1) »" in reply.body_text  # the pick line is read and answered
    assert "Classement —" not in reply.body_text
    assert "n’ont pas de réponse" in reply.body_text


def test_every_pool_of_the_season_reads_as_a_standings_argument(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    for pool in Pool.objects.filter(season=demo.season).order_by("pk")[:3]:
        _inbound, [reply] = ask(coach.email, f"STANDINGS {pool.slug}")
        assert pool.display_name in reply.body_text


def test_a_kdh_round_arbitrated_not_published_tells_its_loser_nothing(demo: DemoLeague) -> None:
    """The week's KDH round arbitrated by the referee, not published: its losing coach's
    ORDRES and INFOS list the cup's next round as its winner's do (who plays on follows the
    published results only), and RESULTS KDH does not show it."""
    waiting = (
        PoolRound.objects.filter(pool__competition=Competition.KDH, round__week=3)
        .select_related("round")
        .get()
    )
    arbitrated = pool_round_arbitrate(pool_round=waiting, by=demo.referee)
    assert arbitrated.status == PoolRound.Status.ARBITRATED
    game = (
        FixtureResult.objects.filter(fixture__pool_round=waiting, winner__isnull=False)
        .exclude(home_goals=F("away_goals"))
        .select_related("fixture__home__team__coach", "fixture__away__team__coach", "winner")
        .first()
    )
    assert game is not None
    home, away = game.fixture.home, game.fixture.away
    winner, loser = (home, away) if game.winner_id == home.pk else (away, home)
    answers, infos = {}, {}
    for entry in (winner, loser):
        coach = entry.team.coach
        assert coach is not None
        _inbound, [reply] = ask(coach.email, "ORDRES\nRÉSULTATS KDH\nINFOS KDH")
        picks_part, results_part, info_part = reply.body_text.split("==== ")[1:4]
        fills = re.findall(r"^\s*KDH J(\d+) :", info_part, re.MULTILINE)
        infos[entry.pk] = fills
        answers[entry.pk] = [
            re.sub(r":.*", "", line) for line in picks_part.splitlines() if "KDH" in line
        ]
        title = results_part.splitlines()[0]
        assert not re.search(rf"journée {waiting.round.number}\b", title), title
    assert answers[winner.pk] == answers[loser.pk]
    assert answers[winner.pk]  # the cup's coming round, listed for both
    assert infos[winner.pk] == infos[loser.pk] != []


def test_a_long_message_s_record_and_reply_stay_bounded(demo: DemoLeague) -> None:
    coach, _team, _entry = a_team(demo)
    prose = "\n".join(f"Ligne de bavardage {n}" for n in range(50))
    inbound, [reply] = ask(coach.email, prose + "\n" + "AIDE\n" * 14)
    statuses = [record["status"] for record in inbound.report]
    assert statuses.count("unknown") == 5 and statuses.count("command") == 10
    text = " ".join(reply.body_text.split())
    assert "et 45 de plus" in text
    assert "4 de plus n’ont pas été lues" in text


def test_infos_answers_the_turn_sheet_of_the_coach_and_of_the_deputy(demo: DemoLeague) -> None:
    coach, team, _entry = a_team(demo)
    deputy = User.objects.create_user("deputy-i", email="deputy-i@example.org")
    Team.objects.filter(pk=team.pk).update(deputy=deputy)
    for sender in (coach, deputy):
        sheet = turn_sheet(sender)
        assert sheet is not None
        _inbound, [reply] = ask(sender.email, "INFOS")
        assert reply.to == [sender.email]
        first = next(line for line in sheet.text.splitlines() if line.strip())
        assert first in reply.body_text
        assert sheet.html.strip()[:200] in reply.body_html
    english(coach)
    _inbound, [reply] = ask(coach.email, "info KDH")
    sheet = turn_sheet(coach, competition="kdh")
    assert sheet is not None and reply.language == "en"
    assert sheet.text.strip().splitlines()[0] in reply.body_text
