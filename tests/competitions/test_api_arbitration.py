"""``POST /api/arbitrations/{competition}/{pool}/{round}/`` and ``…/publish/`` (API.md): a
referee of the pool (or staff) arbitrates through the task and gets the scores, then publishes
and gets everything (R23); idempotent; 409 before the deadline (R13) and for the other refusals;
and the others may not. (With a real worker: ``test_api_arbitration_worker.py``.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from kombu.exceptions import OperationalError as BrokerUnavailable
from pytest_django.fixtures import Settings
from rest_framework.test import APIClient

from competitions import services, tasks
from competitions.models import (
    ArbitrationRequest,
    Competition,
    FixtureResult,
    PoolRound,
    Round,
    TeamResult,
)
from league.models import AuditLog, Division, Season
from tests.competitions.desk_league import Desk, arbitration_url, desk_build

pytestmark = pytest.mark.usefixtures("eager")

ApiAs = Callable[[User | None], APIClient]
BEFORE_PUBLISHING = {
    "competition",
    "pool",
    "round",
    "status",
    "seed_hash",
    "matches",
    "voided_at",
    "void_reason",
}
PICKS = {"elite-01": "A++(1)", "elite-02": "B#(2)", "elite-03": "E+(X)"}


@pytest.fixture
def desk(season: Season, divisions: dict[str, Division]) -> Desk:
    made = desk_build(season=season, divisions=divisions)
    made.league.send_all("elite", 1, picks=PICKS, skip=["elite-07"])
    return made


def stored_matches(pool_round: PoolRound) -> list[dict]:
    return [
        {
            "home": r.fixture.home.team.slug,
            "away": r.fixture.away.team.slug,
            "home_goals": r.home_goals,
            "away_goals": r.away_goals,
            "decided": r.decided,
            "winner": r.winner.team.slug if r.winner else None,
        }
        for r in FixtureResult.objects.filter(fixture__pool_round=pool_round)
        .select_related("fixture__home__team", "fixture__away__team", "winner__team")
        .order_by("fixture_id")
    ]


def arbitrate(desk: Desk, number: int = 1) -> PoolRound:
    return services.pool_round_arbitrate(pool_round=desk.pool_round(number), by=desk.referee)


# --- Arbitrating ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_referee_arbitrates_and_gets_the_scores(desk: Desk, api_as: ApiAs) -> None:
    response = api_as(desk.referee).post(arbitration_url(1))

    assert response.status_code == 200, response.content
    pool_round = desk.pool_round(1)
    assert pool_round.status == PoolRound.Status.ARBITRATED
    assert pool_round.arbitrated_by == desk.referee
    body = response.json()
    assert set(body) == BEFORE_PUBLISHING
    assert body["status"] == "arbitrated"
    assert body["seed_hash"] == pool_round.seed_hash
    assert body["matches"] == stored_matches(pool_round)
    assert len(body["matches"]) == 6


def test_before_publishing_the_answer_holds_no_pick_seed_or_draw(desk: Desk, api_as: ApiAs) -> None:
    """R12, R23: the scores only — the played picks, the seed and the draws wait for publishing."""
    pool_round = arbitrate(desk)
    response = api_as(desk.referee).post(arbitration_url(1))
    assert response.status_code == 200
    text = response.content.decode()
    assert pool_round.seed not in text
    for display in TeamResult.objects.filter(pool_round=pool_round).values_list(
        "display", flat=True
    ):
        assert f'"{display}"' not in text
    assert not {"teams", "seed", "draws", "bonus_goal"} & set(response.json())


def test_a_second_call_returns_the_same_result(desk: Desk, api_as: ApiAs) -> None:
    arbitrate(desk)
    client = api_as(desk.referee)
    first, second = client.post(arbitration_url(1)), client.post(arbitration_url(1))
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert AuditLog.objects.filter(action="pool_round_arbitrate").count() == 1
    assert not AuditLog.objects.filter(action="pool_round_arbitration_request").exists()


def test_staff_may_arbitrate_any_pool(desk: Desk, api_as: ApiAs, admin_user: User) -> None:
    desk.league.send_all("d2a", 1)
    services.pool_round_arbitrate(pool_round=desk.pool_round(1, "d2a"), by=desk.other_referee)
    response = api_as(admin_user).post(arbitration_url(1, "d2a"))
    assert response.status_code == 200
    assert response.json()["pool"] == "d2a"


def test_before_the_deadline_the_answer_is_409(desk: Desk, api_as: ApiAs) -> None:
    """R13."""
    Round.objects.filter(pk=desk.league.round(Competition.CHAMPIONSHIP, 1).pk).update(
        deadline=timezone.now() + timedelta(hours=3)
    )
    response = api_as(desk.referee).post(arbitration_url(1))
    assert response.status_code == 409
    assert response.json()["code"] == "too_early"
    assert "deadline" in response.json()["detail"]
    assert desk.pool_round(1).status == PoolRound.Status.PENDING


def test_a_round_whose_earlier_round_is_not_arbitrated_is_409(desk: Desk, api_as: ApiAs) -> None:
    response = api_as(desk.referee).post(arbitration_url(2))
    assert response.status_code == 409
    assert response.json()["code"] == "out_of_order"


@pytest.mark.django_db(transaction=True)
def test_a_refusal_on_the_worker_is_409_with_its_code(desk: Desk, api_as: ApiAs) -> None:
    """R23: a seed that does not match its public SHA-256 is never played."""
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="0" * 64)
    response = api_as(desk.referee).post(arbitration_url(1))
    assert response.status_code == 409
    assert response.json()["code"] == "seed_commitment"
    assert not TeamResult.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_worker_s_refusal_is_stored_as_its_code_and_said_in_the_caller_s_language(
    desk: Desk,
) -> None:
    """The worker records a code, no words; each API caller reads it in their language."""
    PoolRound.objects.filter(pk=desk.pool_round(1).pk).update(seed_hash="0" * 64)
    said = {}
    for language in ("en", "fr"):
        client = APIClient(headers={"accept-language": language})
        client.force_authenticate(desk.referee)
        response = client.post(arbitration_url(1))
        assert response.status_code == 409
        said[language] = response.json()
    assert said == {
        "en": {
            "code": "seed_commitment",
            "detail": "The seed of this round does not match its published SHA-256.",
        },
        "fr": {
            "code": "seed_commitment",
            "detail": "La graine de cette journée ne correspond pas à son SHA-256 publié.",
        },
    }
    stored = AuditLog.objects.filter(action="pool_round_arbitration_refused").order_by("id")
    assert [(row.payload["code"], row.payload["facts"]) for row in stored] == [
        ("seed_commitment", {}),
        ("seed_commitment", {}),
    ]
    assert all("detail" not in row.payload for row in stored)


def test_while_the_arbitration_runs_the_answer_is_202(
    desk: Desk, api_as: ApiAs, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.ARBITRATION_WAIT_SECONDS = 0
    monkeypatch.setattr(tasks.pool_round_arbitrate, "apply_async", lambda *a, **k: None)
    response = api_as(desk.referee).post(arbitration_url(1))
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "arbitrating"
    request = ArbitrationRequest.objects.get()
    assert body["request"] == {
        "status": "requested",
        "requested_at": body["request"]["requested_at"],
        "started_at": None,
        "running": False,
        "attempts": 0,
        "ask_again": False,
    }
    assert parse_datetime(body["request"]["requested_at"]) == request.requested_at


def test_a_second_call_while_the_request_is_pending_waits_for_the_same_one(
    desk: Desk,
    api_as: ApiAs,
    admin_user: User,
    settings: Settings,
    django_capture_on_commit_callbacks: Callable,
) -> None:
    """Another referee (an admin) calls while the first request is queued: nothing more is
    queued, the call answers from the same request's row."""
    settings.ARBITRATION_WAIT_SECONDS = 0
    with django_capture_on_commit_callbacks(execute=False) as queued:  # no worker takes it
        first = api_as(desk.referee).post(arbitration_url(1))
        second = api_as(admin_user).post(arbitration_url(1))
    assert [first.status_code, second.status_code] == [202, 202]
    assert second.json()["request"] == first.json()["request"]
    assert len(queued) == 1
    assert ArbitrationRequest.objects.get().requested_by == desk.referee


@pytest.mark.django_db(transaction=True)
def test_a_task_queue_that_is_down_is_503(
    desk: Desk, api_as: ApiAs, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise BrokerUnavailable("Connection refused")

    monkeypatch.setattr(tasks.pool_round_arbitrate, "apply_async", refuse)
    response = api_as(desk.referee).post(arbitration_url(1))
    assert response.status_code == 503
    assert response.json()["code"] == "queue_unavailable"


# --- Publishing ----------------------------------------------------------------------------------


def test_publishing_reveals_the_seed_the_draws_and_the_played_picks(
    desk: Desk, api_as: ApiAs
) -> None:
    pool_round = arbitrate(desk)
    response = api_as(desk.referee).post(arbitration_url(1, publish=True))

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "published"
    assert body["seed"] == pool_round.seed
    assert body["draws"] == PoolRound.objects.get(pk=pool_round.pk).draw_log
    assert body["matches"] == stored_matches(pool_round)
    assert {team: played["display"] for team, played in body["teams"].items()} == dict(
        TeamResult.objects.filter(pool_round=pool_round).values_list("entry__team__slug", "display")
    )
    # R5: the seeded bonus goal may fall on this team and add its « * ».
    assert body["teams"]["elite-01"]["display"].replace("*", "") == "A++(1)"
    assert body["teams"]["elite-07"]["onr"] is True
    assert desk.pool_round(1).published_by == desk.referee


def test_publishing_twice_returns_the_same_published_result(desk: Desk, api_as: ApiAs) -> None:
    arbitrate(desk)
    client = api_as(desk.referee)
    first = client.post(arbitration_url(1, publish=True))
    second = client.post(arbitration_url(1, publish=True))
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert AuditLog.objects.filter(action="pool_round_publish").count() == 1


def test_after_publishing_the_arbitration_call_answers_in_full(desk: Desk, api_as: ApiAs) -> None:
    arbitrate(desk)
    client = api_as(desk.referee)
    published = client.post(arbitration_url(1, publish=True)).json()
    assert client.post(arbitration_url(1)).json() == published


def test_publishing_before_arbitration_is_409(desk: Desk, api_as: ApiAs) -> None:
    response = api_as(desk.referee).post(arbitration_url(1, publish=True))
    assert response.status_code == 409
    assert response.json()["code"] == "not_arbitrated"


# --- And the others may not ----------------------------------------------------------------------


@pytest.mark.parametrize("who", ["coach", "other_coach", "other_referee", "visitor"])
@pytest.mark.parametrize("publish", [False, True])
def test_others_may_neither_arbitrate_nor_publish(
    desk: Desk, api_as: ApiAs, who: str, publish: bool
) -> None:
    """Not even the result already stored goes to them before publishing (R12)."""
    arbitrate(desk)
    response = api_as(getattr(desk, who)).post(arbitration_url(1, publish=publish))
    assert response.status_code == 403
    assert set(response.json()) == {"detail"}
    assert desk.pool_round(1).status == PoolRound.Status.ARBITRATED
    assert not AuditLog.objects.filter(action="pool_round_publish").exists()


def test_another_referee_cannot_start_an_arbitration(desk: Desk, api_as: ApiAs) -> None:
    response = api_as(desk.other_referee).post(arbitration_url(1))
    assert response.status_code == 403
    assert desk.pool_round(1).status == PoolRound.Status.PENDING
    assert not AuditLog.objects.filter(action="pool_round_arbitration_request").exists()


@pytest.mark.parametrize("publish", [False, True])
def test_anonymous_callers_are_asked_to_sign_in(desk: Desk, api_as: ApiAs, publish: bool) -> None:
    response = api_as(None).post(arbitration_url(1, publish=publish))
    assert response.status_code == 401
    assert desk.pool_round(1).status == PoolRound.Status.PENDING


@pytest.mark.parametrize(
    "path",
    [
        "/api/arbitrations/championship/d3a/1/",  # no such pool this season
        "/api/arbitrations/championship/elite/12/",  # no such round
        "/api/arbitrations/kdh/elite/1/",  # no such pool in that competition
        "/api/arbitrations/hockey/elite/1/publish/",
    ],
)
def test_an_unknown_pool_or_round_is_404(desk: Desk, api_as: ApiAs, path: str) -> None:
    response = api_as(desk.referee).post(path)
    assert response.status_code == 404
    assert json.loads(response.content)["detail"]


def test_only_post_is_allowed(desk: Desk, api_as: ApiAs) -> None:
    assert api_as(desk.referee).get(arbitration_url(1)).status_code == 405
