"""The emails write every date in the site's one shape (``matrixhockey/formats/``), subjects
included: « Friday 20 March 2026, 17:00 », never « Friday 17:00 », « March 20, 2026, 5 p.m. »
or a weekday said twice."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User

from competitions.services import pool_round_create, round_deadline_move
from league.models import Profile
from mail.emails import email_deadline_moved
from mail.weekly import reminders_send, watchdog_alerts_send, weekly_emails_send
from tests.date_shapes import dates_on
from tests.mail.weekly_league import DEADLINE, FRIDAY, WEDNESDAY, WeekLeague, rendered

pytestmark = pytest.mark.django_db

MOMENT = "Friday 20 March 2026, 17:00"
HOUR = timedelta(hours=1)


def test_the_week_s_emails_write_each_date_in_the_site_s_shape(
    week: WeekLeague, referee: User, admin_user: User
) -> None:
    Profile.objects.all().update(language="en")
    for person in (referee, admin_user):
        Profile.objects.update_or_create(user=person, defaults={"language": "en"})
    week.send(week.sleigh, week.championship)
    weekly_emails_send(now=WEDNESDAY)
    reminders_send(now=FRIDAY)
    pool_round_create(pool=week.elite, round=week.championship)
    watchdog_alerts_send(now=DEADLINE + timedelta(hours=49))
    before = {email.pk for email in rendered(language="en")}
    moved = round_deadline_move(round=week.championship, deadline=DEADLINE + HOUR, by=None)
    email_deadline_moved(round=moved, before=DEADLINE)
    emails = rendered(language="en")
    assert {email.template for email in emails} == {
        "weekly",
        "reminder",
        "watchdog",
        "deadline-moved",
    }
    for email in emails:
        for part in (email.subject, email.body_text, email.body_html):
            assert dates_on(part)[1] == [], (email.template, part)
        assert dates_on(email.body_text)[0], email.template
    subjects = {email.template: email.subject for email in emails if email.pk in before}
    assert subjects["weekly"].endswith(f"picks by {MOMENT}")
    assert subjects["reminder"].endswith(f"(deadline {MOMENT})")
    reminder = next(email for email in emails if email.template == "reminder")
    assert f"The deadline is {MOMENT} (Europe/Paris)" in reminder.body_text
    told = next(email for email in emails if email.template == "deadline-moved")
    assert f"{MOMENT} (Europe/Paris)" in told.body_text
    assert "Friday 20 March 2026, 18:00 (Europe/Paris)" in told.body_text
