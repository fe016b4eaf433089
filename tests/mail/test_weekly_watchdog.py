"""The arbitration watchdog: a pool round still not arbitrated 48 hours after its deadline alerts
the pool's referees and the admins (staff with an address) — once, each in their language."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client

from competitions import services as competitions
from competitions.models import Competition, Pool, PoolRound, Round
from league.models import Division, Profile, Season
from mail.models import Mailing, OutboundEmail
from mail.weekly import watchdog_alerts_send
from tests.mail.weekly_league import DEADLINE, recipients, rendered, user

pytestmark = pytest.mark.django_db

H47_59 = timedelta(hours=47, minutes=59)
H48_01 = timedelta(hours=48, minutes=1)


@pytest.fixture
def week3(season: Season) -> Round:
    """Championship round 3: deadline Friday 20 March 2026, 17:00 Paris (R13)."""
    return competitions.round_create(
        season=season, competition=Competition.CHAMPIONSHIP, number=3, week=3
    )


@pytest.fixture
def pending(elite_pool: Pool, week3: Round, referee: User, admin_user: User) -> PoolRound:
    """The Elite's round 3, not arbitrated; the referee speaks French, the admin English."""
    Profile.objects.create(user=admin_user, language="en")
    return competitions.pool_round_create(pool=elite_pool, round=week3)


def test_the_deadline_is_the_one_of_r13(week3: Round) -> None:
    assert week3.deadline == DEADLINE


def test_47_hours_59_after_the_deadline_nobody_is_alerted(pending: PoolRound) -> None:
    assert watchdog_alerts_send(now=DEADLINE + H47_59) == 0
    assert not OutboundEmail.objects.exists()


def test_48_hours_01_after_the_deadline_the_referees_and_the_admins_are_alerted_once(
    pending: PoolRound,
) -> None:
    assert watchdog_alerts_send(now=DEADLINE + H48_01) == 2
    assert recipients("watchdog") == ["admin@example.org", "referee@example.org"]
    # Beat runs it every hour: the same pool round never alerts the same person twice.
    assert watchdog_alerts_send(now=DEADLINE + timedelta(hours=49)) == 0
    assert watchdog_alerts_send(now=DEADLINE + timedelta(days=7)) == 0
    assert OutboundEmail.objects.filter(template="watchdog").count() == 2
    assert Mailing.objects.filter(kind=Mailing.Kind.WATCHDOG, pool_round=pending).count() == 2


def test_each_recipient_reads_it_in_their_language(pending: PoolRound) -> None:
    watchdog_alerts_send(now=DEADLINE + H48_01)
    [french] = rendered(template="watchdog", to=["referee@example.org"])
    [english] = rendered(template="watchdog", to=["admin@example.org"])
    assert (french.language, english.language) == ("fr", "en")
    assert french.body_text.startswith("Bonjour referee,")
    assert "vendredi 20 mars 2026, 17:00 (Europe/Paris)" in french.body_text
    assert english.body_text.startswith("Hello admin,")
    assert english.subject == "Not arbitrated 48 hours after its deadline: Elite, round 3"
    assert "Friday 20 March 2026, 17:00 (Europe/Paris)" in english.body_text
    assert "48 hours after its deadline" in english.body_text
    # The admin gets the admin's page, the referee the referee's.
    assert f"/admin/competitions/poolround/{pending.pk}/change/" in english.body_text
    assert "/admin/" not in french.body_text
    assert "/referee/championship/elite/3/" in french.body_text
    assert "/referee/" not in english.body_text


def test_an_arbitrated_or_published_round_raises_no_alert(pending: PoolRound) -> None:
    for status in (PoolRound.Status.ARBITRATED, PoolRound.Status.PUBLISHED):
        PoolRound.objects.filter(pk=pending.pk).update(
            status=status, arbitrated_at=DEADLINE + timedelta(hours=20), published_at=DEADLINE
        )
        assert watchdog_alerts_send(now=DEADLINE + timedelta(hours=72)) == 0
    assert not OutboundEmail.objects.exists()


def test_a_round_stuck_in_arbitration_raises_the_alert(pending: PoolRound) -> None:
    PoolRound.objects.filter(pk=pending.pk).update(status=PoolRound.Status.ARBITRATING)
    assert watchdog_alerts_send(now=DEADLINE + timedelta(hours=48)) == 2


def test_the_referees_of_other_pools_coaches_and_visitors_are_not_alerted(
    pending: PoolRound,
    season: Season,
    divisions: dict[str, Division],
    coach: User,
    visitor: User,
) -> None:
    other = competitions.pool_create(
        season=season, competition=Competition.CHAMPIONSHIP, division=divisions["d2a"]
    )
    other.referees.add(user("d2a-referee"))
    watchdog_alerts_send(now=DEADLINE + H48_01)
    assert recipients("watchdog") == ["admin@example.org", "referee@example.org"]


def test_each_late_pool_round_alerts_once_and_a_referee_who_is_staff_once(
    pending: PoolRound, week3: Round, season: Season, referee: User
) -> None:
    referee.is_staff = True
    referee.save(update_fields=["is_staff"])
    kdh = competitions.pool_create(season=season, competition=Competition.KDH)
    kdh.referees.add(referee)
    kdh_round = competitions.round_create(
        season=season, competition=Competition.KDH, number=1, week=3, stage="qualifying"
    )
    competitions.pool_round_create(pool=kdh, round=kdh_round)
    assert watchdog_alerts_send(now=DEADLINE + H48_01) == 4
    assert recipients("watchdog") == [
        "admin@example.org",
        "admin@example.org",
        "referee@example.org",
        "referee@example.org",
    ]


def test_staff_without_an_address_and_inactive_referees_are_skipped(
    pending: PoolRound, admin_user: User, referee: User
) -> None:
    User.objects.filter(pk=admin_user.pk).update(email="")
    User.objects.filter(pk=referee.pk).update(is_active=False)
    assert watchdog_alerts_send(now=DEADLINE + H48_01) == 0


def test_a_pool_round_of_another_season_is_not_watched(pending: PoolRound) -> None:
    Season.objects.update(is_current=False)
    assert watchdog_alerts_send(now=DEADLINE + H48_01) == 0


def test_the_links_open_the_referee_s_round_page_and_the_admin_s(
    pending: PoolRound, referee: User, admin_user: User, client: Client
) -> None:
    watchdog_alerts_send(now=DEADLINE + H48_01)
    for person in (referee, admin_user):
        [email] = rendered(template="watchdog", to=[person.email])
        [link] = re.findall(r"https?://\S+/(?:referee|admin)/\S+", email.body_text)
        assert f'href="{link}"' in email.body_html
        client.force_login(person)
        assert client.get(urlsplit(link).path).status_code == 200, link


def test_admins_see_who_was_alerted_in_the_admin_and_cannot_change_it(
    pending: PoolRound, admin_client: Client
) -> None:
    watchdog_alerts_send(now=DEADLINE + H48_01)
    page = admin_client.get("/admin/mail/mailing/")
    assert page.status_code == 200
    assert page.content.decode().count("arbitration watchdog alert") >= 2
    mailing = Mailing.objects.first()
    assert mailing is not None
    assert admin_client.get("/admin/mail/mailing/add/").status_code == 403
    assert admin_client.post(f"/admin/mail/mailing/{mailing.pk}/delete/").status_code == 403
    assert Mailing.objects.count() == 2
