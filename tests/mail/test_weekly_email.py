"""Wednesday's email (rules §4): every coach gets the week's information and the list of the
teams that have not sent their picks yet — names only, never a pick."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions import services as competition_services
from league import services as league
from league.models import Season
from mail.models import Mailing, OutboundEmail
from mail.weekly import weekly_emails_send
from tests.mail.weekly_league import (
    DEADLINE,
    SECRET_PICKS,
    WEDNESDAY,
    WeekLeague,
    emails_to,
    links_in,
    recipients,
    rendered,
)

pytestmark = pytest.mark.django_db

MISSING_HEADING = "Teams that have not sent all their picks for this week yet:"


def missing_teams(email: OutboundEmail) -> set[str]:
    """The team names listed under the missing-picks heading of an English email's text."""
    lines = email.body_text.splitlines()
    start = lines.index(MISSING_HEADING) + 1
    teams: set[str] = set()
    for line in lines[start:]:
        if not line.strip():
            break
        _, names = line.split(": ", 1)
        teams.update(name.strip() for name in names.split(","))
    return teams


def test_every_coach_with_an_address_gets_it_and_nobody_else(
    week: WeekLeague, referee: User, admin_user: User, visitor: User
) -> None:
    assert weekly_emails_send(now=WEDNESDAY) == 5
    # Not the dummy team (no coach), not the coach without an address, not the referee, the
    # admin or a visitor: they coach no team.
    assert recipients("weekly") == [
        "freezing-coach@example.org",
        "grogg-coach@example.org",
        "igloo-coach@example.org",
        "sleigh-coach@example.org",
        "snow-coach@example.org",
    ]


def test_a_coach_whose_team_was_replaced_gets_nothing(week: WeekLeague) -> None:
    newcomer = User.objects.create_user(username="new-coach", email="new@example.org")
    competition_services.entry_replace(
        entry=week.groggs, team=league.team_create(name="Groggs II", coach=newcomer)
    )
    weekly_emails_send(now=WEDNESDAY)
    assert emails_to("grogg-coach@example.org", "weekly") == []
    assert len(emails_to("new@example.org", "weekly")) == 1


def test_it_lists_exactly_the_teams_still_missing_a_pick_this_week(week: WeekLeague) -> None:
    week.send(week.sleigh, week.championship, week.kdh)  # everything
    week.send(week.freezing, week.championship)  # the KDH is missing
    week.send(week.groggs, week.kdh)  # the championship is missing
    week.send(week.snowmen, week.championship)  # everything: not in the KDH
    # Igloos and Icebergs sent nothing; the dummy team plays random picks (R14).
    weekly_emails_send(now=WEDNESDAY)
    for email in rendered(template="weekly", language="en"):
        assert missing_teams(email) == {"Freezing Ass", "Groggs", "Igloos", "Icebergs"}
    [email] = emails_to("snow-coach@example.org", "weekly")
    assert "Dummy Pucks" not in email.body_text
    assert "Sleigh Dogs" not in email.body_text


def test_when_every_team_has_sent_its_picks_it_says_so(week: WeekLeague) -> None:
    for entry in (week.sleigh, week.freezing, week.igloos, week.groggs):
        week.send(entry, week.championship, week.kdh)
    for entry in (week.snowmen, week.no_address):
        week.send(entry, week.championship)
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    assert MISSING_HEADING not in email.body_text
    assert "Every team has sent its picks for this week." in email.body_text


def test_it_shows_a_team_s_picks_to_its_own_coach_only(week: WeekLeague) -> None:
    picks = week.send(week.sleigh, week.championship, week.kdh)
    picks += week.send(week.freezing, week.championship)
    weekly_emails_send(now=WEDNESDAY)
    emails = rendered(template="weekly")
    assert len(emails) == 5
    own = {
        "sleigh-coach@example.org": [pick for pick in picks if pick.entry == week.sleigh],
        "freezing-coach@example.org": [pick for pick in picks if pick.entry == week.freezing],
    }
    for email in emails:
        mine = own.get(email.to[0], [])
        for content in (email.body_text, email.body_html):
            for pick in picks:
                # A pick is secret (R23): its team's turn sheet gives it with its receipt.
                assert (pick.receipt in content) is (pick in mine), (email.to, pick)
        for notation in SECRET_PICKS.values():
            assert notation not in email.subject
            if not mine:
                assert notation not in email.body_text


def test_it_gives_the_week_its_rounds_and_their_deadline_in_paris_time(
    week: WeekLeague,
) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    assert email.language == "en"
    # Friday 20 March 2026 17:00 in Paris is 16:00 UTC (winter time).
    assert email.subject == "Week 3: picks by Friday 20 March 2026, 17:00"
    text = email.body_text
    assert "Week 3 of the season" in text
    assert (
        "== Championship · round 3 ==\nDeadline: Friday 20 March 2026, 17:00 (Europe/Paris)"
    ) in text
    assert "4 p.m." not in text
    # Snowmen are not in the KDH: their sheet has their own rounds only.
    assert "KDH" not in text
    [email] = emails_to("grogg-coach@example.org", "weekly")
    assert "== Coupe KDH · journée 2 (32es de finale) ==" in email.body_text


def test_it_links_the_one_click_pick_page_infos_equipes_results_and_standings(
    week: WeekLeague, client: Client
) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    paths = {urlsplit(link).path for link in links_in(email.body_text)}
    assert "/infos/championship/elite/" in paths
    assert "/infos/kdh/kdh/" not in paths  # Snowmen are not in the KDH
    assert "/results/" in paths
    assert "/standings/elite/" in paths
    [pick_link] = [path for path in paths if path.startswith("/picks/link/")]
    for path in paths - {pick_link}:
        assert client.get(path, follow=True).status_code == 200, path
    response = client.get(pick_link)
    assert response.status_code == 302
    assert response["Location"] == "/picks/"
    assert client.get("/picks/").context["user"].get_username() == "snow-coach"
    # The HTML part carries the same links.
    for link in links_in(email.body_text):
        assert f'href="{link}"' in email.body_html


def test_a_french_coach_gets_it_in_french(week: WeekLeague) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("sleigh-coach@example.org", "weekly")
    assert email.language == "fr"
    assert email.body_text.startswith("Bonjour sleigh-coach,")
    assert "== Championnat · journée 3 ==\n" in email.body_text
    assert "== Coupe KDH · journée 2" in email.body_text
    assert "Date limite : vendredi 20 mars 2026, 17:00 (Europe/Paris)" in email.body_text
    assert "vendredi 20 mars 2026, 17:00" in email.subject


def test_each_coach_gets_their_own_one_click_link(week: WeekLeague) -> None:
    weekly_emails_send(now=WEDNESDAY)
    links = {
        email.to[0]: [link for link in links_in(email.body_text) if "/picks/link/" in link]
        for email in rendered(template="weekly")
    }
    assert all(len(found) == 1 for found in links.values())
    assert len({found[0] for found in links.values()}) == 5


def test_a_week_whose_deadline_passed_gets_no_email(week: WeekLeague) -> None:
    # A worker that was down until after Friday's deadline sends nothing stale.
    assert weekly_emails_send(now=DEADLINE + timedelta(minutes=1)) == 0
    assert weekly_emails_send(now=DEADLINE + timedelta(days=2)) == 0
    assert not OutboundEmail.objects.exists()
    assert not Mailing.objects.exists()


def test_a_week_without_rounds_gets_no_email(week: WeekLeague) -> None:
    assert weekly_emails_send(now=WEDNESDAY + timedelta(weeks=1)) == 0
    assert weekly_emails_send(now=WEDNESDAY - timedelta(weeks=3)) == 0  # before the season
    assert not OutboundEmail.objects.exists()


def test_without_a_current_season_nothing_is_sent(week: WeekLeague) -> None:
    Season.objects.update(is_current=False)
    assert weekly_emails_send(now=WEDNESDAY) == 0


def test_it_is_recorded_once_per_coach_for_the_week(week: WeekLeague) -> None:
    weekly_emails_send(now=WEDNESDAY)
    mailings = Mailing.objects.filter(kind=Mailing.Kind.WEEKLY)
    assert mailings.count() == 5
    assert {m.week for m in mailings} == {3}
    for mailing in mailings:
        assert mailing.email is not None
        assert mailing.email.to == [mailing.user.email]
