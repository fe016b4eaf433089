"""A finished season to start the next one from, and its plan written by hand.

Season 1 has the league's 84 teams, ``elite-01`` … ``d3d-12`` (division slug and code), each with
its coach ``coach-elite-01`` … (French for odd codes, English for even ones). The plan keeps
every team in its division but gives each the code ``13 − code`` (so a start that copied last
season's codes would show), and stocks worked out from the code: ``code % 5`` extra goals and
``2 + code % 3`` great saves (R21's shape, any numbers do).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User

from competitions import services as competitions
from competitions.models import Competition
from league import services as league
from league.models import Division, Entry, Profile, Season, Team

DIVISION_SLUGS = ("elite", "d2a", "d2b", "d3a", "d3b", "d3c", "d3d")


@dataclass
class Finished:
    season: Season
    divisions: dict[str, Division]
    entries: dict[str, Entry]
    """Season 1's entries by team slug."""
    referees: dict[str, User]
    """Season 1's referees by pool slug (the Elite and the KDH have one)."""


def finished_season_build() -> Finished:
    """Season 1, finished and current, with its 84 teams and two refereed pools (written in
    bulk: only what a start reads from it)."""
    divisions = {d.slug: d for d in league.divisions_create_standard()}
    season = league.season_create(number=1, starts_on=date(2026, 3, 2))
    places = [
        (slug, code, f"{slug}-{code:02d}") for slug in DIVISION_SLUGS for code in range(1, 13)
    ]
    coaches = User.objects.bulk_create(
        [
            User(
                username=f"coach-{name}",
                email=f"coach-{name}@example.org",
                password=make_password(None),
            )
            for _slug, _code, name in places
        ]
    )
    Profile.objects.bulk_create(
        [
            Profile(user=coach, language="fr" if code % 2 else "en")
            for coach, (_slug, code, _name) in zip(coaches, places, strict=True)
        ]
    )
    teams = Team.objects.bulk_create(
        [
            Team(name=name, slug=name, coach=coach)
            for coach, (_slug, _code, name) in zip(coaches, places, strict=True)
        ]
    )
    entries = Entry.objects.bulk_create(
        [
            Entry(season=season, team=team, division=divisions[slug], code=code, great_saves=2)
            for team, (slug, code, _name) in zip(teams, places, strict=True)
        ]
    )
    referees = {}
    for slug, competition, division in (
        ("elite", Competition.CHAMPIONSHIP, divisions["elite"]),
        ("kdh", Competition.KDH, None),
    ):
        referees[slug] = User.objects.create_user(username=f"referee-{slug}")
        competitions.pool_create(
            season=season, competition=competition, division=division, referees=[referees[slug]]
        )
    Season.objects.filter(pk=season.pk).update(status=Season.Status.FINISHED)
    league.season_make_current(season=season)
    season.refresh_from_db()
    return Finished(
        season=season,
        divisions=divisions,
        entries={entry.team.slug: entry for entry in entries},
        referees=referees,
    )


def plan_code(code: int) -> int:
    """The plan's code for last season's ``code``."""
    return 13 - code


WG_TWELVE = (
    ("elite-01", "division_winner"),
    ("d2a-01", "division_winner"),
    ("d2b-01", "division_winner"),
    ("d3a-01", "division_winner"),
    ("d3b-01", "division_winner"),
    ("d3c-01", "division_winner"),
    ("d3d-01", "division_winner"),
    ("elite-02", "kdh_winner"),
    ("d2a-05", "kdh_finalist"),
    ("elite-03", "holder"),
    ("d3a-07", "most_goals"),
    ("d2b-04", "fewest_against"),
)


def hand_plan(from_season: int = 1) -> dict[str, object]:
    """The plan of season ``from_season + 1``, in ``season_plan --json``'s shape."""
    teams = []
    for slug in DIVISION_SLUGS:
        for code in range(1, 13):
            new = plan_code(code)
            teams.append(
                {
                    "team": f"{slug}-{code:02d}",
                    "from": slug,
                    "rank": code,
                    "move": "stays",
                    "to": slug,
                    "code": new,
                    "extra_goals": new % 5,
                    "great_saves": 2 + new % 3,
                    "extra_goal_points": {},
                }
            )
    # R17 worked by hand: the 40 D3 teams whose new code is 03–12 play the qualifying round,
    # i.e. last season's codes 01–10; everyone else enters later.
    qualifying = [f"{slug}-{code:02d}" for slug in DIVISION_SLUGS[3:] for code in range(1, 11)]
    later = [t["team"] for t in teams if t["team"] not in qualifying]
    return {
        "from_season": from_season,
        "season": from_season + 1,
        "teams": teams,
        "leaving": [],
        "kdh": {"qualifying_round": qualifying, "enter_later": later},
        "wg": [{"team": team, "why": why} for team, why in WG_TWELVE],
    }


def plan_with_joiner(plan: dict[str, object], *, leaving: str, joiner: str) -> dict[str, object]:
    """``plan`` where ``leaving`` withdraws and ``joiner`` (a waiting-list team's slug) takes its
    division and code (R24)."""
    teams = plan["teams"]
    kdh = plan["kdh"]
    assert isinstance(teams, list) and isinstance(kdh, dict)
    for team in teams:
        if team["team"] == leaving:
            team.update({"team": joiner, "move": "joined", "from": None, "rank": None})
    for key in ("qualifying_round", "enter_later"):
        kdh[key] = [joiner if slug == leaving else slug for slug in kdh[key]]
    plan["leaving"] = [{"team": leaving, "why": "withdrawn"}]
    return plan
