"""The email reply says each notation fault (R10) in the coach's language, worded from the one
table (``competitions.services.errors.MESSAGES``) by its code, and the report keeps the code."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings

from engine import NotationFault
from league.models import Profile, Season
from mail.models import InboundEmail
from tests.competitions.test_refusal_codes import NOTATION_CASES
from tests.mail.test_ingest_email import (
    AUTHSERV_ID,
    EML,
    EmailLeague,
    build_email_league,
    ingest,
    picks,
    replies,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def email_league(season: Season, coach: User, other_coach: User, settings: Settings) -> EmailLeague:
    settings.MAIL_AUTH_REQUIRED = True
    settings.MAIL_AUTHSERV_ID = [AUTHSERV_ID]
    return build_email_league(season, coach, other_coach)


def message_with(lines: list[str], message_id: str) -> bytes:
    """The fixture ``bad-notation.eml`` (the Sleigh Dogs' coach, authenticated) with its pick
    lines replaced by ``lines``."""
    raw = (EML / "bad-notation.eml").read_bytes().decode()
    head, _body = raw.split("\n\n", 1)
    head = head.replace("<bad-notation.3@mail.example.org>", message_id)
    return f"{head}\n\n{chr(10).join(lines)}\n".encode()


@pytest.mark.parametrize("language", ["fr", "en"])
def test_each_fault_is_answered_in_the_coach_s_language(
    email_league: EmailLeague, language: str
) -> None:
    Profile.objects.create(user=email_league.coach, language=language)
    lines = [f"Championnat J1 : {text}" for text, _fault, _en, _fr in NOTATION_CASES]
    message_id = f"<faults-{language}@mail.example.org>"
    ingest(message_with(lines, message_id))
    assert picks() == []
    [reply] = replies()
    assert reply.language == language
    report = InboundEmail.objects.get(message_id=message_id).report
    assert [line["code"] for line in report] == ["notation"] * len(NOTATION_CASES)
    for (text, fault, english, french), line in zip(NOTATION_CASES, report, strict=True):
        expected = french if language == "fr" else english
        assert isinstance(fault, NotationFault)
        assert line["line"] == f"Championnat J1 : {text}"
        assert line["message"] == expected
        assert expected in reply.body_text
