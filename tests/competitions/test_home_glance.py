"""The week at a glance on the home page (``competitions.views.home``), read from the demo
league at week 3 (``load_demo``: weeks 1–2 published, week 3's deadline just passed and waiting
for its referee, week 4 open with some picks in advance — ``test_load_demo_weeks.py``).

The calendar (``engine/calendar.py``): week 3 plays the championship's round 3, the KDH's round
2 (its round of 64) and the WG's round 1; week 4 the championship's round 4, the KDH's round 3
and the WG's round 2. The Elite's code-01 team is in both cups: exempt from the KDH's
qualifying round (R17), one of the WG's twelve (the demo's choice, R18).
"""

from __future__ import annotations

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timeuntil
from pytest_django.fixtures import Settings

from competitions import services
from competitions.demo import DemoLeague
from competitions.models import Competition, Fixture, Pick, PoolRound, Round, TeamResult
from competitions.selectors import Sight, entry_choices
from competitions.selectors.glance import week_glance
from league.models import Entry
from league.public_cache import public_cache_forget
from league.services import team_deputy_set
from tests.demo_worlds import demo_world

PARIS = ZoneInfo("Europe/Paris")
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')
POOL_ROUND_LINK = re.compile(r'href="(/results/(?:championship|kdh|wg)/[a-z0-9-]+/\d+/)"')
"""A link to a pool's round of results (not to a week's)."""


week_3 = demo_world(3)


@pytest.fixture(autouse=True)
def _database(db: None) -> None:
    """Every test reads the database, each in its own transaction, rolled back."""


def visitor() -> Client:
    return Client(headers={"Accept-Language": "en"})


def signed_in(user: User) -> Client:
    client = visitor()
    client.force_login(user)
    return client


def home(client: Client) -> str:
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return CSRF.sub(r"\1\2", response.content.decode())


def section(html: str, id: str) -> str:
    """The ``<article id="…">`` of the glance, or ``""`` when the page has none."""
    found = re.search(rf'<article[^>]* id="{id}".*?</article>', html, re.S)
    return found.group(0) if found else ""


def entry_at(league: DemoLeague, division: str, code: int) -> Entry:
    return Entry.objects.select_related("team__coach").get(
        season=league.season, division__slug=division, code=code
    )


def week_round(league: DemoLeague, competition: str, week: int) -> Round:
    return Round.objects.get(season=league.season, competition=competition, week=week)


def pool_round(league: DemoLeague, competition: str, week: int, pool: str) -> PoolRound:
    return PoolRound.objects.select_related("round", "pool").get(
        round__season=league.season,
        round__competition=competition,
        round__week=week,
        pool__slug=pool,
    )


def game_of(entry: Entry, round: Round) -> Fixture | None:
    """``entry``'s game in ``round``, if drawn."""
    return (
        Fixture.objects.filter(pool_round__round=round)
        .filter(Q(home=entry) | Q(away=entry))
        .select_related("home__team", "away__team")
        .first()
    )


def opponent(entry: Entry, round: Round) -> Entry:
    game = game_of(entry, round)
    assert game is not None
    return game.away if game.home_id == entry.pk else game.home


def a_legal_pick(entry: Entry, competition: str) -> str:
    choices = entry_choices(entry=entry, competition=competition, sight=Sight.TEAM)
    return f"{choices.columns[0]}({next(iter(choices.extra_time))})"


# --- Everyone's part -----------------------------------------------------------------------------


class TestTheDeadline:
    def test_the_countdown_reads_without_javascript_and_the_deadline_is_paris_time(
        self, week_3: DemoLeague
    ) -> None:
        deadline = week_round(week_3, Competition.CHAMPIONSHIP, 4).deadline
        before = timezone.now()
        card = section(home(visitor()), "glance-deadline")
        after = timezone.now()
        paris = deadline.astimezone(PARIS)
        assert paris.hour == 17 and paris.weekday() == 4  # Friday 17:00 in Paris (R13)
        assert "Week 4" in card
        # The time left, written by the server: "6 days, 23 hours" and the like.
        left = {timeuntil(deadline, now) for now in (before, after)}
        assert any(
            f"Closes in</span> <strong data-countdown-text>{text}</strong>" in card for text in left
        ), card
        # The league's time, in Paris with its offset; the script adds the visitor's own.
        shown = f"{paris:%A} {paris.day} {paris:%B %Y}, 17:00"
        assert f'<time datetime="{paris.isoformat()}">{shown}</time>' in card
        assert "(Europe/Paris)" in card
        assert (
            f'data-deadline="{deadline.astimezone(ZoneInfo("UTC")):%Y-%m-%dT%H:%M:%S}+00:00"'
            in card
        )
        assert "data-local hidden" in card
        assert (
            "<li>Championship, round 4</li><li>KDH cup, round 3 · round of 32</li>"
            "<li>WG cup, round 2 · group stage</li>"
        ) in card

    def test_the_countdown_counts_from_now_to_the_next_deadline(self, week_3: DemoLeague) -> None:
        deadline = week_round(week_3, Competition.CHAMPIONSHIP, 4).deadline
        glance = week_glance(season=week_3.season, now=deadline - timedelta(days=2, hours=5))
        assert glance.next_deadline == deadline and glance.next_week == 4
        assert timeuntil(glance.next_deadline, glance.now) == "2\xa0days, 5\xa0hours"
        assert {(r.competition, r.number) for r in glance.next_rounds} == {
            ("championship", 4),
            ("kdh", 3),
            ("wg", 2),
        }

    def test_after_the_season_s_last_deadline_nothing_is_ahead(self, week_3: DemoLeague) -> None:
        last = Round.objects.filter(season=week_3.season).order_by("-deadline").first()
        assert last is not None
        glance = week_glance(season=week_3.season, now=last.deadline + timedelta(days=1))
        assert glance.next_deadline is None and glance.next_rounds == ()


class TestThePools:
    def test_the_week_being_played_lists_every_pool_to_be_played(self, week_3: DemoLeague) -> None:
        card = section(home(visitor()), "glance-played")
        assert "Week 3" in card
        statuses = dict(re.findall(r'data-pool="([a-z0-9-]+)" data-status="([a-z]+)"', card))
        # Seven divisions' round 3, the KDH's round 2, the WG's round 1: none played yet.
        assert statuses == {
            **{d: "closed" for d in ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")},
            "kdh": "closed",
            "wg": "closed",
        }
        assert card.count("to be played") == 9
        assert '<a href="/results/championship/elite/3/">Elite</a>' in card

    def test_the_latest_results_are_week_2_s_published_pools(self, week_3: DemoLeague) -> None:
        card = section(home(visitor()), "glance-results")
        assert '<a href="/results/week/1/2/">Week 2</a>' in card
        links = POOL_ROUND_LINK.findall(card)
        assert sorted(links) == sorted(
            [
                f"/results/championship/{d}/2/"
                for d in ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")
            ]
            + ["/results/kdh/kdh/1/"]
        )

    def test_an_arbitrated_round_is_being_checked_and_shows_nothing_of_its_result(
        self, week_3: DemoLeague
    ) -> None:
        client = visitor()
        before = home(client)
        elite = pool_round(week_3, Competition.CHAMPIONSHIP, 3, "elite")
        services.pool_round_arbitrate(pool_round=elite, by=week_3.referee)
        after = home(client)
        closed = '<span class="badge badge-closed">to be played</span>'
        checked = '<span class="badge badge-arbitrated">played, being checked</span>'
        # The only change on the whole page: Elite's status (R23) — no score, no played pick.
        assert after.count(checked) == 1
        assert _without_countdown(after) == _without_countdown(before).replace(
            'data-pool="elite" data-status="closed"', 'data-pool="elite" data-status="arbitrated"'
        ).replace(closed, checked, 1)
        played = TeamResult.objects.filter(pool_round=elite)
        assert played.count() == 12
        assert not any(f"[{row.display}]" in after for row in played)

    def test_a_published_round_moves_to_the_latest_results(self, week_3: DemoLeague) -> None:
        elite = pool_round(week_3, Competition.CHAMPIONSHIP, 3, "elite")
        services.pool_round_arbitrate(pool_round=elite, by=week_3.referee)
        services.pool_round_publish(pool_round=elite, by=week_3.referee, announce=False)
        html = home(visitor())
        played, results = section(html, "glance-played"), section(html, "glance-results")
        assert 'data-pool="elite" data-status="published"' in played
        assert 'data-pool="d2a" data-status="closed"' in played
        assert '<a href="/results/week/1/3/">Week 3</a>' in results
        assert POOL_ROUND_LINK.findall(results) == ["/results/championship/elite/3/"]

    def test_a_visitor_sees_no_coach_block(self, week_3: DemoLeague) -> None:
        html = home(visitor())
        assert 'id="glance-deadline"' in html
        assert "glance-coach" not in html and "your games" not in html
        # A signed-in person who coaches no team neither.
        assert "glance-coach" not in home(signed_in(week_3.referee))


def _without_countdown(html: str) -> str:
    """The page less the server's countdown text (a minute may pass between two requests)."""
    return re.sub(r"<strong data-countdown-text>[^<]*</strong>", "", html)


# --- A coach's part ------------------------------------------------------------------------------


def games(html: str) -> dict[str, str]:
    """The coach block's games: each round's anchor → its line's text."""
    card = section(html, "glance-coach")
    return {
        anchor: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)).strip()
        for anchor, body in re.findall(r'<li data-game="([a-z]+-\d+)">(.*?)</li>', card, re.S)
    }


class TestTheCoach:
    def coach(self, league: DemoLeague) -> Entry:
        """The Elite's code-01 team, in both cups, with its week-4 picks: the championship's
        sent now (whatever the demo sent in advance, the cups' left as the demo left them)."""
        entry = entry_at(league, "elite", 1)
        round = week_round(league, Competition.CHAMPIONSHIP, 4)
        services.pick_send(
            team=entry.team,
            round=round,
            notation=a_legal_pick(entry, Competition.CHAMPIONSHIP),
            entered_by=entry.team.coach,
        )
        return entry

    def test_the_coach_sees_the_week_s_games_with_opponents_and_pick_status(
        self, week_3: DemoLeague
    ) -> None:
        entry = self.coach(week_3)
        html = home(signed_in(entry.team.coach))
        assert f"{entry.team.name}: your games" in section(html, "glance-coach")
        lines = games(html)
        assert list(lines) == ["championship-4", "kdh-3", "wg-2"]
        championship = week_round(week_3, Competition.CHAMPIONSHIP, 4)
        assert f"Opponent: {opponent(entry, championship).team.name}" in lines["championship-4"]
        assert "Pick sent" in lines["championship-4"]
        wg = week_round(week_3, Competition.WG, 4)
        assert f"Opponent: {opponent(entry, wg).team.name}" in lines["wg-2"]
        # The KDH's round 3 is drawn when round 2 is arbitrated: not yet.
        assert "Opponent not known yet" in lines["kdh-3"]
        # The cups' picks as the demo sent them in advance, or not (R12).
        for anchor, competition in (("kdh-3", Competition.KDH), ("wg-2", Competition.WG)):
            sent = Pick.objects.filter(entry=entry, round=week_round(week_3, competition, 4))
            assert ("Pick sent" if sent.exists() else "No pick sent yet") in lines[anchor]
        assert 'href="/picks/#round-championship-4"' in section(html, "glance-coach")

    def test_a_missing_pick_says_so_and_links_to_the_pick_page(self, week_3: DemoLeague) -> None:
        entry = next(
            e
            for e in Entry.objects.filter(season=week_3.season, division__slug="d3a")
            .select_related("team__coach")
            .order_by("code")
            if not Pick.objects.filter(entry=e, round__week=4).exists()
        )
        html = home(signed_in(entry.team.coach))
        lines = games(html)
        assert lines and all("No pick sent yet" in line for line in lines.values())
        card = section(html, "glance-coach")
        assert (
            'class="badge badge-missing" data-pick="missing" href="/picks/#round-championship-4"'
            in card
        )
        assert "Send your picks" in card

    def test_with_the_public_part_kept_the_card_follows_a_pick_at_once(
        self, week_3: DemoLeague, settings: Settings
    ) -> None:
        settings.PUBLIC_CACHE_SECONDS = 60  # the page's public part kept (public_fragment)
        public_cache_forget()
        cache.clear()
        entry = next(
            e
            for e in Entry.objects.filter(season=week_3.season, division__slug="d3a")
            .select_related("team__coach")
            .order_by("code")
            if not Pick.objects.filter(entry=e, round__week=4).exists()
        )
        client = signed_in(entry.team.coach)
        assert "No pick sent yet" in games(home(client))["championship-4"]
        services.pick_send(
            team=entry.team,
            round=week_round(week_3, Competition.CHAMPIONSHIP, 4),
            notation=a_legal_pick(entry, Competition.CHAMPIONSHIP),
            entered_by=entry.team.coach,
        )
        # A pick moves no public version: the card is the coach's own, computed every time.
        assert "Pick sent" in games(home(client))["championship-4"]
        public_cache_forget()
        cache.clear()

    def test_the_deputy_sees_the_team_s_games(self, week_3: DemoLeague) -> None:
        entry = self.coach(week_3)
        deputy = User.objects.create_user("deputy-of-elite-01", password="x")
        team_deputy_set(team=entry.team, by=entry.team.coach, who=deputy.username)
        coach_lines = games(home(signed_in(entry.team.coach)))
        assert games(home(signed_in(deputy))) == coach_lines
        assert "Pick sent" in coach_lines["championship-4"]

    def test_a_cup_opponent_stays_secret_until_the_draw_s_round_is_published(
        self, week_3: DemoLeague
    ) -> None:
        entry = entry_at(week_3, "elite", 1)
        client = signed_in(entry.team.coach)
        kdh_2 = pool_round(week_3, Competition.KDH, 3, "kdh")
        services.pool_round_arbitrate(pool_round=kdh_2, by=week_3.referee)
        kdh_3 = week_round(week_3, Competition.KDH, 4)
        assert Fixture.objects.filter(pool_round__round=kdh_3).exists()  # drawn, not public
        # Arbitrated, unpublished: the team still plays round 3 as far as anyone may tell, and
        # its opponent is not named — whether it won or lost.
        lines = games(home(client))
        assert "Opponent not known yet" in lines["kdh-3"]
        services.pool_round_publish(pool_round=kdh_2, by=week_3.referee, announce=False)
        lines = games(home(client))
        if game_of(entry, kdh_3) is not None:
            assert f"Opponent: {opponent(entry, kdh_3).team.name}" in lines["kdh-3"]
        else:
            assert "kdh-3" not in lines  # out of the cup: no game
