"""The registry's pages: the divisions, signing in (with the one-click pick link), setting a
first password from an invitation, and « My account »."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from league import views, views_team

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", views.SignInView.as_view(), name="sign_in"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="sign_out"),
    path("accounts/", views.account, name="account"),
    # A new coach's invitation links here to set a first password (Django's reset token).
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="league/password_reset_confirm.html",
            success_url=reverse_lazy("password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="league/password_reset_complete.html"
        ),
        name="password_reset_complete",
    ),
    path("picks/link/<str:token>/", views.pick_link_signin, name="pick_link"),
    path("teams/<slug:slug>/deputy/", views_team.deputy_set, name="team_deputy_set"),
    path("teams/<slug:slug>/deputy/remove/", views_team.deputy_remove, name="team_deputy_remove"),
]
