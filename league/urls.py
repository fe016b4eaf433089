"""The registry's pages: signing in (with the one-click pick link), a password (an
invitation's first one, a forgotten one, a change), « My account », the language switch and
« Join the league ». The home page, with the divisions, is the competitions' (the week at a
glance is theirs)."""

from __future__ import annotations

from django.urls import path

from league import views, views_accounts, views_join, views_rules, views_team

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", views.SignInView.as_view(), name="sign_in"),
    path("accounts/logout/", views.SignOutView.as_view(), name="sign_out"),
    path("accounts/", views.account, name="account"),
    path("accounts/api-token/", views.api_token, name="account_api_token"),
    # The password asked again of a one-click link's session (league.picks_only).
    path("accounts/confirm/", views_accounts.password_confirm, name="password_confirm"),
    # A password: a change; « Forgot your password? »; an invitation's link and the reset
    # email's link both land on password_reset_confirm (Django's reset token).
    *(
        path(route, view.as_view(), name=name)
        for route, view, name in (
            ("accounts/password/", views_accounts.PasswordChangeView, "password_change"),
            ("accounts/password_reset/", views_accounts.PasswordResetView, "password_reset"),
            (
                "accounts/password_reset/done/",
                views_accounts.PasswordResetDoneView,
                "password_reset_done",
            ),
            (
                "accounts/reset/<uidb64>/<token>/",
                views_accounts.PasswordResetConfirmView,
                "password_reset_confirm",
            ),
            (
                "accounts/reset/done/",
                views_accounts.PasswordResetCompleteView,
                "password_reset_complete",
            ),
        )
    ),
    # The header's switch: Django's set_language, saved in the profile too (before i18n/).
    path("i18n/setlang/", views_accounts.language_set, name="set_language"),
    path("join/", views_join.join, name="join"),
    path("join/sent/", views_join.join_sent, name="join_sent"),
    path("join/confirm/<str:token>/", views_join.join_confirm, name="join_confirm"),
    path("join/place/<str:token>/", views_join.join_place, name="join_place"),
    path("join/place/<str:token>/leave/", views_join.join_leave, name="join_leave"),
    path("rules/", views_rules.rules, name="rules"),
    path("rules/rulings/", views_rules.rulings, name="rulings"),
    path("picks/link/<str:token>/", views.pick_link_signin, name="pick_link"),
    path("teams/<slug:slug>/deputy/", views_team.deputy_set, name="team_deputy_set"),
    path("teams/<slug:slug>/deputy/remove/", views_team.deputy_remove, name="team_deputy_remove"),
]
