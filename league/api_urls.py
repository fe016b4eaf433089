"""The registry's API paths (``shared/API.md``), included under ``/api/``."""

from django.urls import path

from league import api

urlpatterns = [
    path("token/", api.TokenView.as_view(), name="api-token"),
]
