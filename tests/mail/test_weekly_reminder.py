"""Friday's last reminder (rules §4, before R13's 17:00 deadline): only to the coaches still
missing a pick for a round their team plays this week, one email per coach covering every
competition, in the coach's language, with the one-click link."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions import services as competitions
from competitions.models import Competition, PoolMember, Stage
from mail.models import Mailing, OutboundEmail
from mail.weekly import reminders_send
from tests.conftest import TeamMaker
from tests.mail.weekly_league import (
    DEADLINE,
    FRIDAY,
    SECRET_PICKS,
    WeekLeague,
    emails_to,
    links_in,
    recipients,
    rendered,
    user,
)

pytestmark = pytest.mark.django_db


def test_a_coach_who_sent_everything_gets_nothing(week: WeekLeague) -> None:
    week.send(week.sleigh, week.championship, week.kdh)
    reminders_send(now=FRIDAY)
    assert emails_to("sleigh-coach@example.org", "reminder") == []


def test_only_the_coaches_missing_a_pick_are_reminded(week: WeekLeague) -> None:
    week.send(week.sleigh, week.championship, week.kdh)  # everything
    week.send(week.freezing, week.championship)  # the KDH is missing
    week.send(week.snowmen, week.championship)  # everything: not in the KDH
    # Igloos and Groggs sent nothing; Icebergs' coach has no address; the dummy has no coach.
    assert reminders_send(now=FRIDAY) == 3
    assert recipients("reminder") == [
        "freezing-coach@example.org",
        "grogg-coach@example.org",
        "igloo-coach@example.org",
    ]


def test_a_coach_missing_only_the_kdh_gets_one_email_saying_so(week: WeekLeague) -> None:
    week.send(week.freezing, week.championship)
    reminders_send(now=FRIDAY)
    [email] = emails_to("freezing-coach@example.org", "reminder")
    assert email.language == "fr"
    assert "Journée 2, Coupe KDH (32es de finale)" in email.body_text
    assert "championnat" not in email.body_text.lower()
    assert "championnat" not in email.body_html.lower()


def test_a_coach_missing_both_gets_one_email_naming_both(week: WeekLeague) -> None:
    reminders_send(now=FRIDAY)
    [email] = emails_to("igloo-coach@example.org", "reminder")
    assert "  - Journée 3, Championnat\n" in email.body_text
    assert "  - Journée 2, Coupe KDH (32es de finale)\n" in email.body_text
    assert "Igloos" in email.subject


def test_a_team_not_in_the_kdh_is_not_reminded_about_it(week: WeekLeague) -> None:
    reminders_send(now=FRIDAY)
    [email] = emails_to("snow-coach@example.org", "reminder")
    assert "  - Round 3, Championship\n" in email.body_text
    assert "KDH" not in email.body_text
    assert "KDH" not in email.body_html


def test_a_team_out_of_the_kdh_is_not_reminded_about_it(
    week: WeekLeague, enter_team: TeamMaker
) -> None:
    # A member of the cup's pool, but not drawn in this round: it went out earlier.
    out = enter_team("Puck Pukers", code=8, coach=user("puck-coach", language="en"))
    PoolMember.objects.create(pool=week.kdh_pool, entry=out)
    reminders_send(now=FRIDAY)
    [email] = emails_to("puck-coach@example.org", "reminder")
    assert "Round 3, Championship" in email.body_text
    assert "KDH" not in email.body_text


def test_a_wg_team_is_reminded_about_the_wg_and_the_others_are_not(week: WeekLeague) -> None:
    wg_round = competitions.round_create(
        season=week.season, competition=Competition.WG, number=1, week=3, stage=Stage.GROUP
    )
    wg = competitions.pool_create(season=week.season, competition=Competition.WG)
    for entry in (week.snowmen, week.igloos):
        PoolMember.objects.create(pool=wg, entry=entry, group="A")
    drawn = competitions.pool_round_create(pool=wg, round=wg_round)
    competitions.fixture_create(pool_round=drawn, home=week.snowmen, away=week.igloos)
    week.send(week.snowmen, week.championship)
    week.send(week.sleigh, week.championship, week.kdh)
    reminders_send(now=FRIDAY)
    [email] = emails_to("snow-coach@example.org", "reminder")
    assert "  - Round 1, WG cup (group stage)\n" in email.body_text
    assert "Championship" not in email.body_text
    assert emails_to("sleigh-coach@example.org", "reminder") == []


def test_each_coach_gets_one_email_whatever_the_number_of_rounds_missing(
    week: WeekLeague,
) -> None:
    reminders_send(now=FRIDAY)
    sent = OutboundEmail.objects.filter(template="reminder")
    assert sent.count() == 5
    assert len({email.to[0] for email in sent}) == 5


def test_it_speaks_the_coach_s_language(week: WeekLeague) -> None:
    reminders_send(now=FRIDAY)
    [french] = emails_to("igloo-coach@example.org", "reminder")
    [english] = emails_to("snow-coach@example.org", "reminder")
    assert (french.language, english.language) == ("fr", "en")
    assert french.body_text.startswith("Bonjour igloo-coach,")
    assert "vendredi 20 mars 2026, 17:00 (Europe/Paris)" in french.body_text
    assert "vendredi 20 mars 2026, 17:00" in french.subject
    assert english.body_text.startswith("Hello snow-coach,")
    assert "Friday 20 March 2026, 17:00 (Europe/Paris)" in english.body_text
    assert (
        english.subject
        == "Last reminder: picks missing for Snowmen (deadline Friday 20 March 2026, 17:00)"
    )


def test_its_one_click_link_signs_the_coach_in(week: WeekLeague, client: Client) -> None:
    reminders_send(now=FRIDAY)
    [email] = emails_to("igloo-coach@example.org", "reminder")
    [link] = links_in(email.body_text)
    assert f'href="{link}"' in email.body_html
    response = client.get(urlsplit(link).path)
    assert response.status_code == 302
    picks = client.get(response["Location"])
    assert picks.status_code == 200
    assert picks.context["user"].get_username() == "igloo-coach"


def test_it_never_shows_a_pick(week: WeekLeague) -> None:
    week.send(week.freezing, week.championship)
    week.send(week.groggs, week.kdh)
    reminders_send(now=FRIDAY)
    for email in rendered(template="reminder"):
        for content in (email.subject, email.body_text, email.body_html):
            assert all(notation not in content for notation in SECRET_PICKS.values())


def test_after_the_deadline_nobody_is_reminded(week: WeekLeague) -> None:
    assert reminders_send(now=DEADLINE) == 0
    assert reminders_send(now=DEADLINE + timedelta(hours=1)) == 0
    assert not Mailing.objects.exists()


def test_a_second_run_sends_nobody_a_second_reminder(
    week: WeekLeague,
) -> None:
    assert reminders_send(now=FRIDAY) == 5
    week.send(week.igloos, week.championship)
    assert reminders_send(now=FRIDAY + timedelta(hours=1)) == 0
    assert len(emails_to("igloo-coach@example.org", "reminder")) == 1


def test_the_deputy_the_coach_named_is_reminded_too_with_their_own_link(
    week: WeekLeague,
) -> None:
    deputy = User.objects.create_user("sleigh-deputy", email="sleigh-deputy@example.org")
    team = week.sleigh.team
    team.deputy = deputy
    team.save(update_fields=["deputy"])
    reminders_send(now=FRIDAY)
    [coach_email] = emails_to("sleigh-coach@example.org", "reminder")
    [deputy_email] = emails_to("sleigh-deputy@example.org", "reminder")
    # Each link signs in its own person.
    assert links_in(coach_email.body_text) != links_in(deputy_email.body_text)
    assert "KDH" in deputy_email.body_text
