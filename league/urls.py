"""The registry's pages: the divisions, signing in (with the one-click pick link) and « My
account »."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from league import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", views.SignInView.as_view(), name="sign_in"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="sign_out"),
    path("accounts/", views.account, name="account"),
    path("picks/link/<str:token>/", views.pick_link_signin, name="pick_link"),
]
