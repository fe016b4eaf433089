"""The registry's model-free enums: what an audit entry is about."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditKind(models.TextChoices):
    """What an audit entry is about, so the league's history can be read one concern at a time."""

    SEASON = "season", _("season")
    TEAM = "team", _("team")
    ENTRY = "entry", _("team entry")
    ROUND = "round", _("round and deadline")
    MATRIX = "matrix", _("matrix")
    POOL = "pool", _("pool and games")
    RESULT = "result", _("arbitration and results")
    PICK = "pick", _("pick")
    STOCK = "stock", _("stock")
    REPLACEMENT = "replacement", _("replacement")
    WITHDRAWAL = "withdrawal", _("withdrawal")
    WAITING_LIST = "waiting_list", _("waiting list")
    ACCOUNT = "account", _("account")
    NEWS = "news", _("news and rulings")
    MAIL = "mail", _("email")
    OTHER = "other", _("other")
