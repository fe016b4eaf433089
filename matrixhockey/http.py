"""The request type of the views only signed-in people reach, for type checking."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.request import Request


class SignedInRequest(HttpRequest):
    """A request past ``login_required`` (or the admin's or the season desk's staff check):
    its user is a ``User``, never an ``AnonymousUser``. Only annotations name it: Django still
    hands the views its own ``HttpRequest``."""

    user: User


class SignedInApiRequest(Request):
    """The API's request past ``IsAuthenticated``: its user is a ``User``."""

    user: User


def signed_in_user(request: HttpRequest) -> User:
    """The user of a request already known to be signed in where its type cannot say so: the
    admin site's actions and views (staff only), ``LoginView`` once the person is signed in."""
    return cast(User, request.user)
