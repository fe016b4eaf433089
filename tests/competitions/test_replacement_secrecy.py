"""An R14 replacement waits for the publication of the round that found the ONR (R23).

A replacement shows on the public pages at once: the new team's name in the table, the lost
place, the team's page. Confirmed as soon as the arbitration wrote a third ONR, it would tell
everyone, before the referee publishes, that the team sent nothing that round. So the admin's
confirmation (and the first-week replacement) is refused until that round is published, with
a message that says why, in French and in English.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from competitions import services as competitions
from competitions.models import OnrSanction, PoolRound
from league.models import Division, Season, Team
from tests.competitions.arbitration_league import League, build_league

pytestmark = pytest.mark.django_db

VARIES = re.compile(
    r'(csrfmiddlewaretoken" value=")[^"]*|(chart-(?:goals|stocks|places)-)\d+'
    r"|(<strong data-countdown-text>)[^<]*"
)
"""What differs between two readings of one page: the CSRF token, the charts' element ids, the
time left before the next deadline."""

WAITS = {
    "en": "which is not published yet: the replacement can be confirmed once it is",
    "fr": "qui n’est pas encore publiée : le remplacement pourra être confirmé une fois",
}


@pytest.fixture
def referee(db: None) -> User:
    return User.objects.create_user("the-referee", password="x")


@pytest.fixture
def elite(season: Season, divisions: dict[str, Division], referee: User) -> League:
    return build_league(
        season=season, divisions=divisions, referee=referee, stocks=lambda d, c: (5, 6)
    )


@pytest.fixture
def third(elite: League) -> OnrSanction:
    """Elite 05 sends nothing three weeks running; rounds 1–2 are published, round 3 (its third
    ONR, which proposes its replacement) is arbitrated and not published."""
    for number in (1, 2):
        elite.play_published("elite", number, skip=["elite-05"])
    elite.play("elite", 3, skip=["elite-05"])
    sanction = OnrSanction.objects.get(entry=elite.entries["elite-05"], week=3)
    assert sanction.replacement
    return sanction


def public_pages(elite: League) -> str:
    visitor = Client(headers={"accept-language": "en"})
    return "".join(
        VARIES.sub(r"\1\2\3", visitor.get(path).content.decode())
        for path in ("/", "/standings/elite/", f"/teams/{elite.entries['elite-05'].team.slug}/")
    )


def test_the_replacement_is_refused_until_its_round_is_published(
    elite: League, third: OnrSanction, referee: User
) -> None:
    before = public_pages(elite)
    with pytest.raises(ValidationError) as refused:
        competitions.onr_replacement_confirm(sanction=third, by=referee)
    assert refused.value.code == "not_published"
    assert WAITS["en"] in refused.value.messages[0]
    assert "(R14, R23)" in refused.value.messages[0]
    assert elite.entry("elite-05").replaced_at is None
    assert not Team.objects.filter(is_dummy=True).exists()
    assert public_pages(elite) == before
    assert "Équipe fantôme" not in before

    competitions.pool_round_publish(pool_round=elite.pool_round("elite", 3), by=referee)
    new = competitions.onr_replacement_confirm(sanction=third, by=referee)
    assert new.team.is_dummy
    assert elite.entry("elite-05").replaced_at is not None
    assert new.team.name in public_pages(elite)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_admin_s_action_says_why_in_the_admin_s_language(
    elite: League, third: OnrSanction, admin_client: Client, language: str
) -> None:
    changelist = reverse("admin:competitions_onrsanction_changelist")
    headers = {"accept-language": language}
    response = admin_client.post(
        changelist,
        {"action": "confirm_replacement", "_selected_action": [third.pk]},
        follow=True,
        headers=headers,
    )
    assert WAITS[language] in response.content.decode()
    assert elite.entry("elite-05").replaced_at is None

    # The list says which proposals wait for their round's publication.
    def published_column() -> str:
        html = admin_client.get(changelist, headers=headers).content.decode()
        row = html.split(f'value="{third.pk}"', 1)[1].split("</tr>", 1)[0]
        return row.split('class="field-round_published"', 1)[1].split("</td>", 1)[0]

    assert 'alt="False"' in published_column()
    competitions.pool_round_publish(pool_round=elite.pool_round("elite", 3), by=elite.referee)
    assert 'alt="True"' in published_column()
    admin_client.post(
        changelist,
        {"action": "confirm_replacement", "_selected_action": [third.pk]},
        follow=True,
        headers=headers,
    )
    assert elite.entry("elite-05").replaced_at is not None


def test_a_new_team_onr_in_week_1_is_replaced_once_week_1_is_published(
    elite: League, referee: User
) -> None:
    elite.play("elite", 1, skip=["elite-09"])
    with pytest.raises(ValidationError) as refused:
        competitions.entry_replace_first_week_onr(entry=elite.entries["elite-09"], by=referee)
    assert refused.value.code == "not_published"
    assert elite.entry("elite-09").replaced_at is None
    pool_round = elite.pool_round("elite", 1)
    assert pool_round.status == PoolRound.Status.ARBITRATED
    competitions.pool_round_publish(pool_round=pool_round, by=referee)
    new = competitions.entry_replace_first_week_onr(entry=elite.entries["elite-09"], by=referee)
    assert new.replaces_id == elite.entries["elite-09"].pk
