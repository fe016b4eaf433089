"""People's own access: where signing in lands, the pause after too many failed sign-ins
(django-axes), a forgotten password, changing one's password, the password asked again of a
one-click link's session (``league.picks_only``), and the header's language switch.

Django's own auth views do the work; these subclasses give them the league's templates, its
emails (in each person's language, through the outbox: ``league.signals``) and its limits.
"""

from __future__ import annotations

from typing import Any

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from league import services
from league.forms import PasswordConfirmForm, PasswordResetRequestForm
from league.models import Language, Team
from league.picks_only import picks_only, picks_only_end
from matrixhockey.api import client_address
from matrixhockey.cache import rate_exceeded
from matrixhockey.http import SignedInRequest
from matrixhockey.redirects import site_path

RESET_RATE_SECONDS = 3600
RESET_RATE_PER_ADDRESS = 10
"""A forgotten password's form sends at most this many emails an hour from one address."""


def landing_url(user: User) -> str:
    """Where ``user`` lands after signing in: staff on the season desk, a referee on the
    referee desk, a coach on their picks, anyone else on the home page."""
    if user.is_staff:
        return reverse("season_desk")
    # The referees' pools point at users from the competitions (the header reads it too).
    if user.refereed_pools.exists():
        return reverse("referee")
    if Team.objects.filter(coach=user).exists():
        return reverse("picks")
    return reverse("home")


def pause_message() -> str:
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return _(
        "Too many failed sign-ins for this user name or from your address: signing in is "
        "paused for %(minutes)d minutes. Try again then, or choose a new password with "
        "« Forgot your password? »."
    ) % {"minutes": minutes}


def sign_in_paused(
    request: HttpRequest,
    original_response: HttpResponseBase | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """django-axes's answer to a paused sign-in (``AXES_LOCKOUT_CALLABLE``): 429, the sign-in
    page with the reason, or ``{"detail": …}`` for the API; with ``Retry-After``."""
    message = pause_message()
    if request.path_info.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": message}, status=429)
    else:
        username = (credentials or {}).get("username") or ""
        form = AuthenticationForm(request, initial={"username": username})
        context = {"form": form, "paused": message, "next": request.POST.get("next", "")}
        response = render(request, "league/sign_in.html", context, status=429)
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response


class PasswordResetView(auth_views.PasswordResetView):
    """« Forgot your password? »: a link to choose a new one, emailed in the owner's language.
    The answer is the same whether the address has an account or not."""

    template_name = "league/password_reset_form.html"
    form_class = PasswordResetRequestForm
    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form: PasswordResetRequestForm) -> HttpResponse:
        address = client_address(self.request)
        if rate_exceeded(
            key=f"password-reset:{address}",
            limit=RESET_RATE_PER_ADDRESS,
            seconds=RESET_RATE_SECONDS,
        ):
            form.add_error(None, _("Too many requests from your address: try again in an hour."))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        services.password_reset_request(email=form.cleaned_data["email"])
        return super(auth_views.PasswordResetView, self).form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "league/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link of an invitation or of a forgotten password's email: choose a password. Saving
    it also lifts a sign-in pause on the account (whoever holds the link holds the mailbox)."""

    template_name = "league/password_reset_confirm.html"
    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form: SetPasswordForm) -> HttpResponse:
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "league/password_reset_complete.html"


class PasswordChangeView(auth_views.PasswordChangeView):
    """« Change my password », signed in: the current one, then the new one twice."""

    template_name = "league/password_change_form.html"
    success_url = reverse_lazy("account")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(self.request, _("Your password is changed."))
        return response


@login_required
@require_http_methods(["GET", "POST"])
def password_confirm(request: SignedInRequest) -> HttpResponse:
    """The password asked again of a session a one-click link opened, which sends picks only
    (``league.picks_only``): once confirmed, the session is a full one (Django's ``login``,
    which also renews the session's key), and the person goes where they were going."""
    back = site_path(request, request.POST.get("next") or request.GET.get("next"))
    back = back or landing_url(request.user)
    if not picks_only(request):
        return redirect(back)
    form = PasswordConfirmForm(request.POST or None, request=request, user=request.user)
    if request.method == "POST" and form.is_valid():
        login(request, form.user)
        picks_only_end(request)
        messages.success(request, _("Password confirmed: your whole account is open."))
        return redirect(back)
    context = {"form": form, "next": back}
    return render(request, "league/password_confirm.html", context)


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """The header's language switch (Django's ``set_language``); for a signed-in person it is
    also the language of their emails, saved in their profile as « My account » does — unless
    a one-click link opened the session, which changes the page's language only."""
    response = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and not picks_only(request) and language in Language.values:
        services.profile_language_set(user=request.user, language=language)
        with translation.override(language):
            messages.success(request, _("Your emails and pages are in this language now."))
    return response
