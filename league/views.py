"""The registry's pages: signing in (with the one-click pick link too) and
« My account » (the language, the API token).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from league import services
from league.forms import ApiTokenForm, ProfileForm
from league.links import LinkExpired, LinkInvalid, pick_link_check, waiting_place_path
from league.models import Profile, Team
from league.picks_only import picks_only_begin
from league.selectors import user_has_api_token, user_waiting_entries
from league.views_accounts import landing_url
from matrixhockey.health import DOWN, health
from matrixhockey.http import SignedInRequest, signed_in_user
from matrixhockey.redirects import SitePathRedirectMixin


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and container health checks: each part's state as JSON,
    ``{"status": "ok" | "degraded" | "down", "database", "cache", "broker"}``; 503 only when the
    database is down (Redis down is "degraded": the site still serves, ``matrixhockey.health``)."""
    parts, serving = health()
    if not serving:
        overall = "down"
    elif DOWN in parts.values():
        overall = "degraded"
    else:
        overall = "ok"
    return JsonResponse({"status": overall, **parts}, status=200 if serving else 503)


def _speak(response: HttpResponse, user: User) -> HttpResponse:
    """Pages follow the language the person chose in « My account » (when they chose one)."""
    profile = Profile.objects.filter(user=user).first()
    if profile is not None:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            profile.language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,
        )
    return response


class SignInView(SitePathRedirectMixin, LoginView):
    """Django's sign-in, styled, paused by django-axes after too many failures
    (``league.views_accounts.sign_in_paused``). Without a safe ``?next=``, each person lands
    where their work is (``landing_url``), in their own language."""

    template_name = "league/sign_in.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        return landing_url(signed_in_user(self.request))

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        return _speak(super().form_valid(form), form.get_user())


class SignOutView(SitePathRedirectMixin, LogoutView):
    """Django's sign-out, back to a path of this site (``next``) or the home page."""

    next_page = "home"


@login_required
def account(request: SignedInRequest) -> HttpResponse:
    """« My account »: who the person is, their team, the language of their emails, whether
    their coach's page is public (and a link to it)."""
    profile = Profile.objects.filter(user=request.user).first() or Profile(user=request.user)
    form = ProfileForm(request.POST or None, instance=profile)
    if request.method == "POST" and form.is_valid():
        services.profile_settings_set(
            user=request.user,
            language=form.cleaned_data["language"],
            career_public=form.cleaned_data["career_public"],
        )
        with translation.override(form.cleaned_data["language"]):
            messages.success(request, _("Saved. Your emails and pages are in this language now."))
        return _speak(redirect("account"), request.user)
    return _account_page(request, form)


def _account_page(
    request: SignedInRequest, form: ProfileForm, *, new_token: str = ""
) -> HttpResponse:
    team = Team.objects.filter(coach=request.user).first()
    # R12: the team whose coach named them deputy, theirs to play too.
    deputised = None if team else Team.objects.filter(deputy=request.user).first()
    entries = user_waiting_entries(user=request.user)
    waiting = [(entry, waiting_place_path(entry)) for entry in entries]
    context = {
        "form": form,
        "team": team,
        "deputised": deputised,
        "waiting": waiting,
        "has_token": bool(new_token) or user_has_api_token(user=request.user),
        "new_token": new_token,
    }
    return render(request, "league/account.html", context)


@login_required
@require_POST
def api_token(request: SignedInRequest) -> HttpResponse:
    """« My account »'s API token: revoked (then a message, after a redirect), or renewed (the
    new token shown on this answer only: never in a message, which a cookie may carry)."""
    form = ApiTokenForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose to revoke your API token or to get a new one."))
        return redirect("account")
    if form.cleaned_data["action"] == ApiTokenForm.RENEW:
        token = services.api_token_renew(user=request.user)
        messages.success(
            request,
            _(
                "Your old API token is revoked. Here is your new one: copy it now, this page "
                "shows it only once."
            ),
        )
        profile = Profile.objects.filter(user=request.user).first() or Profile(user=request.user)
        return _account_page(request, ProfileForm(instance=profile), new_token=token)
    services.api_token_revoke(user=request.user)
    messages.success(
        request,
        _(
            "Your API token is revoked: programs using it are refused from now on. Ask for a new "
            "one here or with your user name and password (POST /api/token/)."
        ),
    )
    return redirect("account")


def pick_link_signin(request: HttpRequest, token: str) -> HttpResponse:
    """The reminder's one-click link: sign the coach in and open their picks. The session it
    opens sends picks only (``league.picks_only``); a person already signed in keeps theirs."""
    try:
        holder = pick_link_check(token)
    except LinkExpired:
        response = render(request, "league/link_invalid.html", {"expired": True}, status=410)
    except LinkInvalid:
        response = render(request, "league/link_invalid.html", {"expired": False}, status=400)
    else:
        if request.user != holder.user:
            login(request, holder.user, backend="django.contrib.auth.backends.ModelBackend")
            # Opened by a link anyone with the email holds: picks only, until the password.
            picks_only_begin(request)
        response = _speak(redirect("picks"), holder.user)
    # The token is a key: never pass it on to another site.
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response
