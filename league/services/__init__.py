"""The registry's writes, one module per concern, all importable from here."""

from league.services.accounts import (
    api_token_obtain,
)
from league.services.audit import (
    audit_record,
)
from league.services.news import (
    NEWS_EMAIL_TASK,
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
    team_create,
)

__all__ = [
    "NEWS_EMAIL_TASK",
    "STANDARD_DIVISIONS",
    "NewsNotReady",
    "api_token_obtain",
    "audit_record",
    "divisions_create_standard",
    "news_email_request",
    "news_emailed_mark",
    "season_create",
    "season_make_current",
    "team_create",
]
