"""R23, never silently: every published pool round is verified after its publication (a task
queued on the publication's commit) and nightly over the season (beat); a mismatch emails the
admins once a night, in their language, and stays on the season desk — for staff only."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from competitions import tasks
from competitions.models import TeamResult, VerificationFailure
from competitions.services import season_rounds_verify
from league.models import Profile
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.results_league import RulesWeek

pytestmark = pytest.mark.django_db

Capture = Callable[..., AbstractContextManager[list[Callable[[], object]]]]
DIFFERENCE = "team freezing-ass: goals stored 2, replayed 6"


@pytest.fixture
def admins(admin_user: User) -> list[User]:
    """Two admins (staff superusers), one reading English and one the league's French, and
    staff who are not admins: a plain staff member and an admin without an address."""
    Profile.objects.update_or_create(user=admin_user, defaults={"language": "en"})
    french = User.objects.create_superuser(
        username="admin-fr", email="admin-fr@example.org", password="admin-password"
    )
    User.objects.create_user(username="staff", email="staff@example.org", is_staff=True)
    User.objects.create_superuser(username="admin-mute", email="", password="admin-password")
    return [admin_user, french]


def freezing_ass_goals_set(goals: int) -> None:
    """What a restored backup or a hand-edited database does: the Freezing Ass' stored goals
    (6) changed with the table's own triggers off (within the test's transaction only: the
    append-only guard refuses such an UPDATE otherwise)."""
    table = connection.ops.quote_name(TeamResult._meta.db_table)
    with connection.cursor() as cursor:
        # The transaction's deferred foreign-key checks first: a table with pending trigger
        # events cannot be altered.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        cursor.execute(
            f"UPDATE {table} SET goals = %s WHERE id = %s",
            [goals, TeamResult.objects.get(entry__team__slug="freezing-ass").pk],
        )
        cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def alerts() -> list[OutboundEmail]:
    return list(OutboundEmail.objects.filter(template="verification-failed").order_by("id"))


def desk(browser: Client) -> str:
    response = browser.get(reverse("season_desk"))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.usefixtures("eager")
def test_publication_queues_the_verification_of_its_pool_round_and_runs_it(
    week: RulesWeek, admins: list[User], django_capture_on_commit_callbacks: Capture
) -> None:
    week.arbitrate()
    freezing_ass_goals_set(2)  # between arbitration and publication
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        week.publish()
    assert callbacks  # the verification waits for the publication's commit
    [failure] = VerificationFailure.objects.filter(pool_round=week.pool_round)
    assert DIFFERENCE in failure.differences
    assert sorted(tuple(email.to) for email in alerts()) == [
        ("admin-fr@example.org",),
        ("admin@example.org",),
    ]


def test_the_nightly_check_catches_a_row_changed_behind_the_databases_back_and_alerts_once(
    week: RulesWeek,
    admins: list[User],
    coach: User,
    open_as: Callable[..., Client],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    week.arbitrate()
    week.publish()
    emails_send_due()  # the coaches' results emails
    mail.outbox.clear()
    freezing_ass_goals_set(2)
    night = timezone.make_aware(datetime(2026, 11, 27, 3, 30))
    for _run in range(2):  # two beat processes, or a retried task: one alert each
        with django_capture_on_commit_callbacks(execute=True):
            assert season_rounds_verify(now=night) == 1
    emails_send_due()
    english, french = alerts()
    assert (english.language, french.language) == ("en", "fr")
    assert english.subject == "Published results do not verify: Elite, round 1"
    assert DIFFERENCE in english.body_text and reverse("season_desk") in english.body_text
    assert french.subject.startswith("Les résultats publiés ne se vérifient pas")
    assert sorted(message.to[0] for message in mail.outbox) == [
        "admin-fr@example.org",
        "admin@example.org",
    ]
    # The desk shows it to the admins, and to nobody else.
    page = desk(open_as(admins[0]))
    assert "Published results that do not verify" in page and DIFFERENCE in page
    assert open_as(coach).get(reverse("season_desk")).status_code == 403
    assert DIFFERENCE not in open_as(None).get(reverse("season_desk")).content.decode()
    # The next night it is still wrong: told again, once.
    with django_capture_on_commit_callbacks(execute=True):
        assert season_rounds_verify(now=night + timedelta(days=1)) == 1
    assert len(alerts()) == 4
    # Put right, it verifies again: off the desk, nobody emailed.
    freezing_ass_goals_set(6)
    with django_capture_on_commit_callbacks(execute=True):
        assert season_rounds_verify(now=night + timedelta(days=2)) == 0
    assert len(alerts()) == 4
    assert "Published results that do not verify" not in desk(open_as(admins[0]))


def test_a_clean_season_sends_nothing(
    week: RulesWeek,
    admins: list[User],
    open_as: Callable[..., Client],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    week.arbitrate()
    week.publish()
    emails_send_due()  # the coaches' results emails
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.season_rounds_verify.apply().get() == 0
    emails_send_due()
    assert not VerificationFailure.objects.exists() and not alerts() and not mail.outbox
    assert "Published results that do not verify" not in desk(open_as(admins[0]))
