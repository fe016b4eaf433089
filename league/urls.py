"""The coaches' pages: signing in, their account, their picks; the public infos équipes."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from league import views

urlpatterns = [
    path("accounts/login/", views.SignInView.as_view(), name="sign_in"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="sign_out"),
    path("accounts/", views.account, name="account"),
    path("picks/", views.picks, name="picks"),
    path("picks/link/<str:token>/", views.pick_link_signin, name="pick_link"),
    path("picks/<str:competition>/<int:number>/", views.pick_send, name="pick_send"),
    path("infos/", views.infos_index, name="infos_index"),
    path("infos/<str:competition>/<slug:pool>/", views.infos, name="infos"),
]
