"""The competitions' pages: the home page (the week at a glance, the news, the divisions),
results, standings and cups for everyone; the coach's picks and infos équipes."""

from __future__ import annotations

from django.urls import path

import matrixhockey.converters  # noqa: F401  (registers <num:…>)
from competitions.views import (
    feeds,
    head_to_head,
    home,
    matrices,
    memory,
    picks,
    records,
    seasons,
    teams,
)
from competitions.views import public as views

urlpatterns = [
    path("", home.home, name="home"),
    path("results/", views.results_latest, name="results_latest"),
    path("results/week/<num:season>/<num:week>/", views.results_week, name="results_week"),
    path(
        "results/<slug:competition>/<slug:pool>/<num:round>/",
        views.results_pool_round,
        name="results_pool_round",
    ),
    path(
        "results/<slug:competition>/<slug:pool>/<num:round>/input.json",
        views.results_input,
        name="results_input",
    ),
    path("standings/", views.standings_index, name="standings_index"),
    path("standings/<slug:pool>/", views.standings, name="standings"),
    path("seasons/", seasons.seasons, name="seasons"),
    path("seasons/<num:number>/", seasons.season, name="season"),
    path("seasons/teams/<slug:slug>/", seasons.season_team, name="season_team"),
    path("teams/<slug:slug>/", teams.team, name="team"),
    path("wg/race/", teams.wg_race, name="wg_race"),
    path("all-time/", memory.all_time, name="all_time"),
    path("coaches/<str:username>/", memory.coach, name="coach"),
    path("head-to-head/", head_to_head.head_to_head_pick, name="head_to_head_pick"),
    path(
        "head-to-head/<slug:team_a>/<slug:team_b>/",
        head_to_head.head_to_head,
        name="head_to_head",
    ),
    path("records/", records.records_page, name="records"),
    path("picks/", picks.picks, name="picks"),
    path("picks/<str:competition>/<num:number>/", picks.pick_send, name="pick_send"),
    path("matrices/", matrices.matrices, name="matrices"),
    path("infos/", picks.infos_index, name="infos_index"),
    path("infos/<str:competition>/<slug:pool>/", picks.infos, name="infos"),
    path("calendar/league.ics", feeds.calendar_league, name="calendar_league"),
    path("calendar/coach/renew/", feeds.calendar_coach_renew, name="calendar_coach_renew"),
    path("calendar/coach/<str:token>.ics", feeds.calendar_coach, name="calendar_coach"),
]
