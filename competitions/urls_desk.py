"""The season desk, under ``/desk/season/`` (``matrixhockey/urls.py``): staff only."""

from django.urls import path

import matrixhockey.converters  # noqa: F401  (registers <num:…>)
from competitions.views import season_desk as desk

urlpatterns = [
    path("", desk.season_desk_page, name="season_desk"),
    path("import/", desk.season_desk_import, name="season_desk_import"),
    path("matrices/", desk.season_desk_matrices, name="season_desk_matrices"),
    path("calendar/", desk.season_desk_calendar, name="season_desk_calendar"),
    path("pools/", desk.season_desk_pools, name="season_desk_pools"),
    path("kdh/", desk.season_desk_kdh, name="season_desk_kdh"),
    path("wg/", desk.season_desk_wg, name="season_desk_wg"),
    path("start/", desk.season_desk_start, name="season_desk_start"),
    path("close/", desk.season_desk_close, name="season_desk_close"),
    path("plan/swap/", desk.season_desk_swap, name="season_desk_swap"),
    path("plan/calendar/", desk.season_desk_plan_calendar, name="season_desk_plan_calendar"),
    path("withdraw/", desk.season_desk_withdraw, name="season_desk_withdraw"),
    path("jobs/<num:pk>/", desk.season_desk_job, name="season_desk_job"),
    path("jobs/<num:pk>/restart/", desk.season_desk_job_restart, name="season_desk_job_restart"),
]
