"""The public results pages: a pool's round, a week, standings and cup brackets."""

from __future__ import annotations

from django.urls import path

from competitions import views

urlpatterns = [
    path("results/", views.results_latest, name="results_latest"),
    path("results/week/<int:season>/<int:week>/", views.results_week, name="results_week"),
    path(
        "results/<slug:competition>/<slug:pool>/<int:round>/",
        views.results_pool_round,
        name="results_pool_round",
    ),
    path(
        "results/<slug:competition>/<slug:pool>/<int:round>/input.json",
        views.results_input,
        name="results_input",
    ),
    path("standings/", views.standings_index, name="standings_index"),
    path("standings/<slug:pool>/", views.standings, name="standings"),
]
