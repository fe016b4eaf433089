"""The mail's pages: a person's email choices and the one-click unsubscribe link."""

from __future__ import annotations

from django.urls import path

from mail import views

urlpatterns = [
    path("emails/preferences/", views.email_preferences, name="email_preferences"),
    path(
        "emails/unsubscribe/<str:token>/",
        views.email_unsubscribe_link,
        name="email_unsubscribe",
    ),
]
