"""A signed-in person's pages speak their account's language (``Profile.language``, the
language of their emails too), whatever their browser asks for."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest, HttpResponseBase
from django.utils import translation

from league.picks_only import picks_only


class ProfileModelBackend(ModelBackend):
    """Django's ``ModelBackend`` whose signed-in user comes with their profile, in the same
    query: every page of a signed-in person reads their language."""

    def get_user(self, user_id: int) -> User | None:
        user_model = User
        try:
            user = user_model._default_manager.select_related("profile").get(pk=user_id)
        except user_model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None


class AccountLanguageMiddleware:
    """After ``LocaleMiddleware`` and ``AuthenticationMiddleware``: a signed-in person's profile
    language wins over ``Accept-Language`` and the language cookie. A one-click link's session
    keeps the page language its switch chose (the switch changes no account there), and follows
    the profile until it does. The user comes with their profile (``ProfileModelBackend``):
    no query of its own. A visitor's request reads no user (no session cookie, no query)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        language = _account_language(request)
        if language is not None:
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


def _account_language(request: HttpRequest) -> str | None:
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return None
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    if picks_only(request) and settings.LANGUAGE_COOKIE_NAME in request.COOKIES:
        return None
    try:
        language: str = user.profile.language
    except ObjectDoesNotExist:
        return None
    return language if translation.check_for_language(language) else None
