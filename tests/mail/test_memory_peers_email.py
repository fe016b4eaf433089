"""The results email names the records its round broke (issue 25), in its reader's language —
and nothing of a round not published: the running season's Elite week 2, arbitrated, would break
« most goals in a game » and the unbeaten run; the D2A's week 2, published meanwhile, says
nothing of them. The history is ``tests/competitions/memory_peers_league.py``'s."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from competitions import services as competitions
from competitions.models import PoolRound
from league.models import Profile
from mail.models import OutboundEmail
from mail.outbox import emails_send_due
from tests.competitions.memory_peers_league import RUNNING_SEASON, Peers, peers_history

pytestmark = pytest.mark.django_db

Capture = Callable[..., object]


def _coach(name: str, language: str) -> User:
    user = User.objects.create_user(name, f"{name}@example.org", "secret-password")
    Profile.objects.update_or_create(user=user, defaults={"language": language})
    return user


@pytest.fixture
def peers(monkeypatch: pytest.MonkeyPatch) -> Peers:
    coaches = {
        "boucs": _coach("boucs-coach", "en"),
        "hiboux": _coach("hiboux-coach", "fr"),
        "castors": _coach("castors-coach", "en"),
    }
    return peers_history(monkeypatch, coaches=coaches)


def _publish(peers: Peers, pool_round: PoolRound, capture: Capture) -> dict[str, OutboundEmail]:
    """``pool_round`` published as a referee does (its emails written), the emails sent."""
    with capture(execute=True):
        competitions.pool_round_publish(pool_round=pool_round, by=peers.history.admin)
    emails_send_due()
    return {
        email.to[0].split("@")[0]: email
        for email in OutboundEmail.objects.filter(
            template="results-published", context__pool_round=pool_round.pk
        )
    }


def test_the_results_email_names_the_records_its_round_broke_and_none_before(
    peers: Peers, django_capture_on_commit_callbacks: Capture
) -> None:
    made = peers.history
    games = RUNNING_SEASON["d2a"][1]  # type: ignore[index]
    d2a = made.arbitrate(made.schedule(2, "d2a", 2, [(g[0], g[1]) for g in games]), games)
    quiet = _publish(peers, d2a, django_capture_on_commit_callbacks)["castors-coach"]
    assert quiet.body_text and "record" not in quiet.body_text.lower()
    assert "7-1" not in quiet.body_text and "7-1" not in quiet.body_html

    emails = _publish(peers, peers.secret, django_capture_on_commit_callbacks)
    english, french = emails["boucs-coach"], emails["hiboux-coach"]
    assert "Records broken:" in english.body_text
    assert (
        "Most goals in a game: Boucs, 7 goals (7-1 against Hiboux) · was 6 goals (Hiboux)"
        in english.body_text
    )
    assert "Longest unbeaten run: Aigles, 5 games" in english.body_text
    assert "/records/" in english.body_text
    assert "Des records battus :" in french.body_text
    assert (
        "Le plus de buts en un match : Boucs, 7 buts (7-1 contre Hiboux) · avant : 6 buts (Hiboux)"
        in french.body_text
    )
    assert "data-record-breaks" in french.body_html and "?season=2#game-" in french.body_html
