"""Teams of the league, from one season to the next."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.text import slugify

from league.models import Team
from matrixhockey.db import save_valid


@transaction.atomic
def team_create(
    *,
    name: str,
    slug: str = "",
    coach: AbstractBaseUser | None = None,
    is_dummy: bool = False,
) -> Team:
    """A new team; its slug defaults to the slugified name. A user coaches one team at most."""
    return save_valid(Team(name=name, slug=slug or slugify(name), coach=coach, is_dummy=is_dummy))
