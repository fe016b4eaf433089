"""The API's URLs (``shared/API.md``), included under ``/api/`` by ``matrixhockey/urls.py``.

Grouped by who uses them; the referees' arbitration and the results (issue 5) slot in under
their own headings with the same shapes: ``arbitrations/<competition>/<pool>/<int:round>/``,
``…/publish/`` and ``results/<competition>/<pool>/<int:round>/``.
"""

from django.urls import path

from competitions import api as referees
from competitions.api_results import ResultsView
from league import api

urlpatterns = [
    # Signing in.
    path("token/", api.TokenView.as_view(), name="api-token"),
    path("me/", api.MeView.as_view(), name="api-me"),
    # The league, for anyone.
    path("seasons/current/", api.SeasonCurrentView.as_view(), name="api-season-current"),
    path("standings/<slug:pool>/", api.StandingsView.as_view(), name="api-standings"),
    path("infos/<slug:competition>/<slug:pool>/", api.InfosView.as_view(), name="api-infos"),
    # A coach's picks: always the caller's own team (no team in the URL).
    path("picks/<slug:competition>/<int:round>/", api.PicksView.as_view(), name="api-picks"),
    path(
        "results/<slug:competition>/<slug:pool>/<int:round>/",
        ResultsView.as_view(),
        name="api-results",
    ),
    # The referees: arbitrate a pool's round, then publish it.
    path(
        "arbitrations/<slug:competition>/<slug:pool>/<int:round>/",
        referees.ArbitrationView.as_view(),
        name="api-arbitration",
    ),
    path(
        "arbitrations/<slug:competition>/<slug:pool>/<int:round>/publish/",
        referees.PublishView.as_view(),
        name="api-arbitration-publish",
    ),
]
