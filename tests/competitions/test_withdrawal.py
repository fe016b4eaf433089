"""R24: a team of a finished season withdrawn before the next one starts (``entry_withdraw``)."""

from __future__ import annotations

from datetime import date

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from competitions.models import Withdrawal
from competitions.services import entry_replace
from competitions.services.withdrawal import entry_withdraw
from league import services as league
from league.models import AuditLog, Entry, PublicVersion, Season
from tests.conftest import TeamMaker


@pytest.fixture
def finished(season: Season) -> Season:
    Season.objects.filter(pk=season.pk).update(status=Season.Status.FINISHED)
    season.refresh_from_db()
    return season


def test_a_team_of_a_finished_season_withdraws_once(
    finished: Season, enter_team: TeamMaker, admin_user: User
) -> None:
    entry = enter_team("Snowmen", code=2)
    withdrawal = entry_withdraw(entry=entry, by=admin_user)
    assert (withdrawal.entry, withdrawal.by) == (entry, admin_user)
    assert entry_withdraw(entry=entry, by=None) == withdrawal
    assert Withdrawal.objects.count() == 1
    assert AuditLog.objects.filter(action="entry_withdraw").count() == 1


def test_a_withdrawal_moves_the_public_version_once(
    finished: Season, enter_team: TeamMaker
) -> None:
    """The tables mark the team withdrawn: the cached public reads must follow."""
    entry = enter_team("Snowmen", code=2)
    before = PublicVersion.objects.get(pk=1).published
    entry_withdraw(entry=entry, by=None)
    entry_withdraw(entry=entry, by=None)
    assert PublicVersion.objects.get(pk=1).published == before + 1


def test_refused_while_the_season_runs(season: Season, enter_team: TeamMaker) -> None:
    entry = enter_team("Snowmen", code=2)
    with pytest.raises(ValidationError) as error:
        entry_withdraw(entry=entry, by=None)
    assert error.value.code == "season_not_finished"
    assert not Withdrawal.objects.exists()


def test_refused_once_the_next_season_has_started(finished: Season, enter_team: TeamMaker) -> None:
    entry = enter_team("Snowmen", code=2)
    following = league.season_create(number=2, starts_on=date(2027, 3, 1))
    assert entry_withdraw(entry=enter_team("Groggs", code=3), by=None)  # preparing: still time
    Season.objects.filter(pk=following.pk).update(status=Season.Status.RUNNING)
    with pytest.raises(ValidationError) as error:
        entry_withdraw(entry=entry, by=None)
    assert error.value.code == "next_started"


def test_refused_for_a_dummy_team_and_a_replaced_one(
    finished: Season, enter_team: TeamMaker
) -> None:
    entry = enter_team("Snowmen", code=2)
    dummy = league.team_create(name="Équipe fantôme 1", is_dummy=True)
    new = entry_replace(entry=entry, team=dummy)
    for who, code in ((new, "dummy"), (Entry.objects.get(pk=entry.pk), "replaced")):
        with pytest.raises(ValidationError) as error:
            entry_withdraw(entry=who, by=None)
        assert error.value.code == code
    assert not Withdrawal.objects.exists()
