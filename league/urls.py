"""The coaches' pages: signing in, their account, their picks; the public infos équipes."""

from __future__ import annotations

from django.urls import path

from league import views

urlpatterns = [
    path("picks/", views.picks, name="picks"),
]
