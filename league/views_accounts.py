"""People's own access: where signing in lands, the pause after too many failed sign-ins
(django-axes), a forgotten password, changing one's password, the password asked again of a
one-click link's session (``league.picks_only``), and the header's language switch.

Django's own auth views do the work; these subclasses give them the league's templates, its
emails (in each person's language, through the outbox: ``league.signals``) and its limits.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm
from django.contrib.auth.models import User
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from league import services
from league.forms import PasswordConfirmForm, PasswordResetRequestForm
from league.models import Language, Team
from league.picks_only import picks_only, picks_only_end
from league.sign_in import Pause, PauseScope, sign_in_pause
from matrixhockey.api import client_address
from matrixhockey.cache import rate_exceeded
from matrixhockey.french import date_format
from matrixhockey.http import SignedInRequest
from matrixhockey.redirects import site_path

RESET_RATE_SECONDS = 3600
RESET_RATE_PER_ADDRESS = 10
"""A forgotten password's form sends at most this many emails an hour from one address (and at
most ``PASSWORD_RESET_RATE_PER_EMAIL`` to one email address, whoever asks)."""


def landing_url(user: User) -> str:
    """Where ``user`` lands after signing in: staff on the season desk, a referee on the
    referee desk, a coach or a deputy on their team's picks (R12), anyone else on the home
    page."""
    if user.is_staff:
        return reverse("season_desk")
    # The referees' pools point at users from the competitions (the header reads it too).
    if user.refereed_pools.exists():
        return reverse("referee")
    if Team.objects.filter(Q(coach=user) | Q(deputy=user)).exists():
        return reverse("picks")
    return reverse("home")


def pause_message(pause: Pause, *, username: str) -> str:
    """What ``pause`` refuses and until when, in the league's time (``TIME_ZONE``)."""
    values = {
        "username": username,
        "until": date_format(timezone.localtime(pause.until), "DATETIME_FORMAT"),
        "zone": settings.TIME_ZONE,
    }
    if pause.scope is PauseScope.ADDRESS:
        return (
            _(
                "Too many failed sign-ins from your address, whatever the user name: signing in "
                "from your address is paused until %(until)s (%(zone)s time)."
            )
            % values
        )
    return (
        _(
            "Too many failed sign-ins to « %(username)s » from your address: signing in to this "
            "account from your address is paused until %(until)s (%(zone)s time). From another "
            "address, or once you have chosen a new password with « Forgot your password? », "
            "you can sign in at once."
        )
        % values
    )


def sign_in_paused(
    request: HttpRequest,
    original_response: HttpResponseBase | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """django-axes's answer to a paused sign-in (``AXES_LOCKOUT_CALLABLE``): 429 with
    ``Retry-After``, the sign-in page saying what is paused and until when (in the league's
    time and the visitor's), or for the API ``{"detail": …, "paused": "account"|"address",
    "paused_until": ISO 8601}``."""
    username = str((credentials or {}).get("username") or "")
    pause = sign_in_pause(request, credentials) or Pause(
        # Refused by axes, yet no longer paused a moment later: the last failure just expired.
        scope=PauseScope.ACCOUNT_FROM_ADDRESS,
        until=timezone.now(),
    )
    message = pause_message(pause, username=username)
    if request.path_info.startswith("/api/"):
        body = {
            "detail": message,
            "paused": pause.scope.value,
            "paused_until": pause.until.isoformat(),
        }
        response: HttpResponse = JsonResponse(body, status=429)
    else:
        form = AuthenticationForm(request, initial={"username": username})
        context = {
            "form": form,
            "paused": message,
            "paused_until": pause.until,
            "zone": settings.TIME_ZONE,
            "next": request.POST.get("next", ""),
        }
        response = render(request, "league/sign_in.html", context, status=429)
    seconds = math.ceil((pause.until - timezone.now()).total_seconds())
    response["Retry-After"] = str(max(seconds, 1))
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
        email = form.cleaned_data["email"]
        # Per recipient too, whoever asks: past the limit no email goes, and the asker is
        # answered as always (nothing says whether the address has an account).
        recipient = hashlib.sha256(email.strip().lower().encode()).hexdigest()
        if not rate_exceeded(
            key=f"password-reset-to:{recipient}",
            limit=settings.PASSWORD_RESET_RATE_PER_EMAIL,
            seconds=RESET_RATE_SECONDS,
        ):
            services.password_reset_request(email=email)
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
