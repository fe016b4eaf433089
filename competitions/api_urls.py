"""The competitions' API paths (``shared/API.md``), included under ``/api/``."""

from django.urls import path

import matrixhockey.converters  # noqa: F401  (registers <num:…>)
from competitions.api import history, memory, public, referee
from competitions.api.results import ResultsView

urlpatterns = [
    path("me/", public.MeView.as_view(), name="api-me"),
    # The league, for anyone.
    path("seasons/", public.SeasonListView.as_view(), name="api-seasons"),
    path("seasons/current/", public.SeasonCurrentView.as_view(), name="api-season-current"),
    path("seasons/<num:number>/", public.SeasonView.as_view(), name="api-season"),
    path("standings/<slug:pool>/", public.StandingsView.as_view(), name="api-standings"),
    path("infos/<slug:competition>/<slug:pool>/", public.InfosView.as_view(), name="api-infos"),
    path("matrices/<slug:competition>/", public.MatrixView.as_view(), name="api-matrix"),
    # The league's memory (issue 25): what the season closes stored.
    path("all-time/", history.AllTimeView.as_view(), name="api-all-time"),
    path("teams/<slug:slug>/history/", history.TeamHistoryView.as_view(), name="api-team-history"),
    path("coaches/<str:username>/", history.CoachCareerView.as_view(), name="api-coach"),
    # A coach's picks: always the caller's own team (no team in the URL).
    path("picks/<slug:competition>/<num:round>/", public.PicksView.as_view(), name="api-picks"),
    path(
        "results/<slug:competition>/<slug:pool>/<num:round>/",
        ResultsView.as_view(),
        name="api-results",
    ),
    # The league's memory (issue 25).
    path(
        "head-to-head/<slug:team_a>/<slug:team_b>/",
        memory.HeadToHeadView.as_view(),
        name="api-head-to-head",
    ),
    path("records/", memory.RecordsView.as_view(), name="api-records"),
    path("records/breaks/", memory.RecordBreaksView.as_view(), name="api-record-breaks"),
    # The referees: arbitrate a pool's round, then publish it.
    path(
        "arbitrations/<slug:competition>/<slug:pool>/<num:round>/",
        referee.ArbitrationView.as_view(),
        name="api-arbitration",
    ),
    path(
        "arbitrations/<slug:competition>/<slug:pool>/<num:round>/publish/",
        referee.PublishView.as_view(),
        name="api-arbitration-publish",
    ),
]
