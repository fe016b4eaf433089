"""A person's email choices, and the one-click unsubscribe link of optional emails
(``mail.preferences``, RFC 8058)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from mail.forms import EmailPreferencesForm
from mail.preferences import (
    UnsubscribeInvalid,
    email_preferences_get,
    email_preferences_save,
    email_unsubscribe,
    unsubscribe_check,
)
from matrixhockey.http import SignedInRequest
from matrixhockey.redirects import redirect_back


@login_required
@require_http_methods(["GET", "POST"])
def email_preferences(request: SignedInRequest) -> HttpResponse:
    """Which optional emails the person gets; saved, back to where they came from (« My
    account » shows the same form)."""
    form = EmailPreferencesForm(
        request.POST or None, instance=email_preferences_get(user=request.user)
    )
    if request.method == "POST" and form.is_valid():
        email_preferences_save(user=request.user, **form.cleaned_data)
        messages.success(request, _("Your email choices are saved."))
        return redirect_back(request, "email_preferences")
    return render(request, "mail/preferences.html", {"form": form})


# A mail client's one-click POST (RFC 8058) comes without a session or a CSRF token: the signed
# link is the proof. A GET only asks to confirm, so a scanner opening links unsubscribes nobody.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def email_unsubscribe_link(request: HttpRequest, token: str) -> HttpResponse:
    """GET: confirm stopping one kind of email; POST: stop it (from the page or a mail
    client's List-Unsubscribe-Post)."""
    try:
        asked = unsubscribe_check(token)
    except UnsubscribeInvalid:
        response = render(request, "mail/unsubscribe.html", {"invalid": True}, status=404)
    else:
        done = request.method == "POST"
        if done:
            email_unsubscribe(user=asked.user, kind=asked.kind)
        context = {"kind": asked.kind, "done": done, "email": asked.user.email}
        response = render(request, "mail/unsubscribe.html", context)
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response
