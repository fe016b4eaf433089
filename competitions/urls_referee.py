"""The referees' pages, under ``/referee/`` (``matrixhockey/urls.py``)."""

from django.urls import path

import matrixhockey.converters  # noqa: F401  (registers <num:…>)
from competitions.views import referee

urlpatterns = [
    path("", referee.referee_index, name="referee"),
    path(
        "late-picks/<num:pk>/<slug:decision>/",
        referee.referee_late_pick,
        name="referee_late_pick",
    ),
    path(
        "<slug:competition>/<slug:pool>/<num:number>/",
        referee.referee_round,
        name="referee_round",
    ),
    path(
        "<slug:competition>/<slug:pool>/<num:number>/arbitrate/",
        referee.referee_arbitrate,
        name="referee_arbitrate",
    ),
    path(
        "<slug:competition>/<slug:pool>/<num:number>/publish/",
        referee.referee_publish,
        name="referee_publish",
    ),
]
