"""The registry's writes, one module per concern, all importable from here."""

from league.services.accounts import (
    api_token_obtain,
    api_token_renew,
    api_token_revoke,
    password_reset_request,
    profile_language_set,
    profile_settings_set,
)
from league.services.audit import (
    audit_record,
)
from league.services.news import (
    NewsNotReady,
    news_email_request,
    news_emailed_mark,
)
from league.services.seasons import (
    STANDARD_DIVISIONS,
    divisions_create_standard,
    season_create,
    season_make_current,
)
from league.services.teams import (
    DeputyRefused,
    coach_deputyship_end,
    team_create,
    team_deputy_check,
    team_deputy_remove,
    team_deputy_set,
)
from league.services.waiting_list import (
    WaitingRegistration,
    waiting_list_confirm,
    waiting_list_leave,
    waiting_list_register,
)

__all__ = [
    "STANDARD_DIVISIONS",
    "DeputyRefused",
    "NewsNotReady",
    "WaitingRegistration",
    "api_token_obtain",
    "api_token_renew",
    "api_token_revoke",
    "audit_record",
    "coach_deputyship_end",
    "divisions_create_standard",
    "news_email_request",
    "news_emailed_mark",
    "password_reset_request",
    "profile_language_set",
    "profile_settings_set",
    "season_create",
    "season_make_current",
    "team_create",
    "team_deputy_check",
    "team_deputy_remove",
    "team_deputy_set",
    "waiting_list_confirm",
    "waiting_list_leave",
    "waiting_list_register",
]
