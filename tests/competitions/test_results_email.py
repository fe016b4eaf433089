"""The results email (issue 5): publishing a pool round sends its results to every coach of the
pool, once, each in their own language, their own game first — never before publication
(R23), never to a dummy team, never twice."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from competitions.services import pool_round_void
from league.models import Profile, Team
from mail.emails import email_results_published
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from mail.receivers import results_email_on_publish
from tests.competitions.results_league import RulesWeek

pytestmark = pytest.mark.django_db

Capture = Callable[..., object]
DOGS_LINE = "Sleigh Dogs [F+(2)] – Ice Crocodiles [F(0)] : 3-2"
ASS_LINE = "Freezing Ass [D++*(1)] – Groggs [B(X)] : 6-3"
SNOWMEN_LINE = "Snowmen [I(3)] – Teddy Bears [D(1)] : 4-3 AP"


@pytest.fixture
def week(week: RulesWeek, coach: User) -> RulesWeek:
    # The Sleigh Dogs' coach reads English; the Freezing Ass' coach keeps the league's French.
    Profile.objects.update_or_create(user=coach, defaults={"language": "en"})
    return week


def results_emails() -> list[OutboundEmail]:
    return list(OutboundEmail.objects.filter(template="results-published").order_by("id"))


def publish(week: RulesWeek, capture: Capture) -> None:
    with capture(execute=True):  # the rows are written in the publication's transaction
        week.publish()
    emails_send_due()  # what the worker woken by the commit does: render and send them


def test_publishing_sends_each_coach_of_the_pool_one_email_in_their_language(
    week: RulesWeek,
    coach: User,
    other_coach: User,
    django_capture_on_commit_callbacks: Capture,
) -> None:
    week.arbitrate()
    publish(week, django_capture_on_commit_callbacks)
    emails = {tuple(email.to): email for email in results_emails()}
    # Twelve teams played; only two have a coach.
    assert set(emails) == {(coach.email,), (other_coach.email,)}
    english, french = emails[(coach.email,)], emails[(other_coach.email,)]
    assert (english.language, french.language) == ("en", "fr")
    assert english.subject == (
        "Results — Elite, championship round 1: Sleigh Dogs 3-2 Ice Crocodiles"
    )
    assert english.body_text.startswith("Hello sleigh-coach,")
    assert french.body_text.startswith("Bonjour freezing-coach,")
    for email in (english, french):
        for line in (DOGS_LINE, ASS_LINE, SNOWMEN_LINE):
            assert line in email.body_text
            assert line in email.body_html
        assert "/results/championship/elite/1/" in email.body_text
        assert "/standings/elite/" in email.body_text
    assert "Bonus goal (*): Freezing Ass." in english.body_text


def test_the_coachs_own_game_comes_first(
    week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    week.arbitrate()
    publish(week, django_capture_on_commit_callbacks)
    for email in results_emails():
        own = DOGS_LINE if email.to == ["sleigh-coach@example.org"] else ASS_LINE
        other = ASS_LINE if own == DOGS_LINE else DOGS_LINE
        body = email.body_text
        assert body.index(own) < body.index(SNOWMEN_LINE)
        assert body.index(own) < body.index(other)
        assert body.count(own) == 1


def test_publishing_twice_or_a_receiver_firing_twice_sends_nothing_more(
    week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    week.arbitrate()
    publish(week, django_capture_on_commit_callbacks)
    assert len(results_emails()) == 2
    publish(week, django_capture_on_commit_callbacks)  # the service: already published
    results_email_on_publish(sender=type(week.pool_round), pool_round=week.pool_round, by=None)
    assert email_results_published(pool_round=week.pool_round) == []
    assert len(results_emails()) == 2


def test_nothing_is_sent_before_publication(
    week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        week.arbitrate()
    assert email_results_published(pool_round=week.pool_round) == []
    assert results_emails() == []
    # No email of any kind carries another team's played pick before publication.
    for email in OutboundEmail.objects.all():
        assert "D++*" not in email.body_text and "ONR : F(X)" not in email.body_text


def test_a_dummy_team_gets_no_email_and_teams_without_a_coach_neither(
    week: RulesWeek, coach: User, django_capture_on_commit_callbacks: Capture
) -> None:
    # R14: the Groggs were replaced by a dummy team (which has no coach, by constraint).
    Team.objects.filter(slug="groggs").update(is_dummy=True)
    week.arbitrate()
    publish(week, django_capture_on_commit_callbacks)
    recipients = [email.to for email in results_emails()]
    assert len(recipients) == 2
    assert ["sleigh-coach@example.org"] in recipients
    dummy_line = next(
        line for line in results_emails()[0].body_text.splitlines() if "Groggs [" in line
    )
    assert dummy_line.strip().startswith("Freezing Ass [D++*(1)] – Groggs [")


def test_a_round_voided_and_published_again_sends_its_new_results_once_more(
    week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    week.arbitrate()
    publish(week, django_capture_on_commit_callbacks)
    pool_round_void(pool_round=week.pool_round, by=week.referee, reason="a late pick accepted")
    assert email_results_published(pool_round=week.pool_round) == []  # void: nothing public
    week.arbitrate()
    publish(week, django_capture_on_commit_callbacks)
    publish(week, django_capture_on_commit_callbacks)
    assert len(results_emails()) == 4  # two coaches, two publications


def test_emails_of_a_publication_voided_before_they_went_out_are_dropped(
    week: RulesWeek, django_capture_on_commit_callbacks: Capture
) -> None:
    """A round voided while its results emails wait for a worker: they would tell results no
    longer public, so the worker drops them; its next publication writes its own."""
    week.arbitrate()
    with django_capture_on_commit_callbacks(execute=False):
        week.publish()
    pool_round_void(pool_round=week.pool_round, by=week.referee, reason="a late pick accepted")
    # What goes out is the void's own notice to the pool's coaches, nothing of the results.
    voided = OutboundEmail.objects.filter(template="pool-round-voided")
    assert emails_send_due().sent == voided.count() > 0
    assert set(voided.values_list("status", flat=True)) == {"sent"}
    assert {email.status for email in results_emails()} == {"dropped"}
    assert all(email.body_text == "" for email in results_emails())
