"""R25: Wednesday's email gives each coach the value in this round's matrix row of each column
their team has left, for each round it plays that week (per competition), and none of a round
it does not play."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from competitions.models import Round
from mail.weekly import weekly_emails_send
from tests.competitions.matrix_values import card_tiles, matrices_create
from tests.mail.weekly_league import WEDNESDAY, WeekLeague, emails_to, links_in

pytestmark = pytest.mark.django_db

# Championship round 3, (3 + c) % 6 + 1 from A; KDH round 2, 6 − (2 + c) % 6 from A.
CHAMPIONSHIP_3 = "A 4 · B 5 · C 6 · D 1 · E 2 · F 3 · G 4 · H 5 · I 6 · J 1 · K 2"
KDH_2 = "A 4 · B 3 · C 2 · D 1 · E 6 · F 5 · G 4"


@pytest.fixture
def matrices(week: WeekLeague) -> WeekLeague:
    matrices_create(season=week.season)
    return week


def test_a_coach_in_both_competitions_gets_both_rows(matrices: WeekLeague) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")  # English, not in the KDH
    assert f"Columns left (value this round):\n    {CHAMPIONSHIP_3}" in email.body_text
    assert KDH_2 not in email.body_text
    assert CHAMPIONSHIP_3 in email.body_html
    [email] = emails_to("sleigh-coach@example.org", "weekly")
    text = email.body_text
    assert CHAMPIONSHIP_3 in text and KDH_2 in text
    assert text.index(CHAMPIONSHIP_3) < text.index(KDH_2)
    assert KDH_2 in email.body_html


def test_the_row_is_worded_in_the_coach_s_language(matrices: WeekLeague) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("sleigh-coach@example.org", "weekly")
    assert email.language == "fr"
    assert f"Colonnes restantes (valeur cette journée) :\n    {CHAMPIONSHIP_3}" in email.body_text


def test_without_a_matrix_the_email_has_no_row(week: WeekLeague) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("snow-coach@example.org", "weekly")
    assert "A · B · C · D · E · F · G · H · I · J · K" in email.body_text
    assert "A 4" not in email.body_text


def test_the_one_click_link_opens_the_pick_page_with_the_rows(
    matrices: WeekLeague, client: Client
) -> None:
    weekly_emails_send(now=WEDNESDAY)
    [email] = emails_to("sleigh-coach@example.org", "weekly")
    [link] = [link for link in links_in(email.body_text) if "/picks/link/" in link]
    # The week's rounds still ahead when the coach clicks.
    Round.objects.filter(season=matrices.season).update(deadline=timezone.now() + timedelta(days=2))
    signed_in = client.get(urlsplit(link).path)
    assert signed_in.status_code == 302
    html = client.get(signed_in["Location"]).content.decode()
    championship = card_tiles(html, "championship-3")
    kdh = card_tiles(html, "kdh-2")
    assert " · ".join(f"{column} {tile[0]}" for column, tile in championship.items()) == (
        CHAMPIONSHIP_3
    )
    assert " · ".join(f"{column} {tile[0]}" for column, tile in kdh.items()) == KDH_2
