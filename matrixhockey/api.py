"""The API's shared machinery (``REST_FRAMEWORK`` in the settings names these classes).

- Parsers that refuse a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413) before reading it, and a
  JSON body nested too deep for Python's parser (``RecursionError``: 400, not a 500).
- Throttles keyed on the client's real address: DRF's ``NUM_PROXIES`` is the
  ``TRUSTED_PROXY_COUNT`` setting, so ``X-Forwarded-For`` is read only as far as the league's own
  proxies wrote it (0: not at all) and rotating it does not buy new requests. The site's pages
  read the same address through :func:`client_address` (django-axes's sign-in pauses, the
  waiting list's form). Their rates are
  read when a request comes (not when the module is imported), and when the cache that holds
  their counters is down they let the request through, logged: a throttle must not take the
  API down with Redis.
"""

from __future__ import annotations

import logging
import math
import secrets
from typing import IO, TYPE_CHECKING, Any, cast

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.authentication import TokenAuthentication as DRFTokenAuthentication
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import FormParser, JSONParser
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import (
    AnonRateThrottle,
    BaseThrottle,
    SimpleRateThrottle,
    UserRateThrottle,
)

from matrixhockey.cache import CACHE_ERRORS, redis_client

if TYPE_CHECKING:  # rest_framework.views imports this module (its parsers): no cycle at run time
    from rest_framework.views import APIView

logger = logging.getLogger(__name__)


class PayloadTooLarge(APIException):
    """413: the request's body is over ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request's body is too large."
    default_code = "payload_too_large"

    def __init__(self) -> None:
        super().__init__(
            _("The request's body is larger than %(limit)d bytes.")
            % {"limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}
        )


def _check_length(parser_context: dict[str, Any] | None) -> None:
    request = (parser_context or {}).get("request")
    if request is None:
        return
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is not None and length > limit:
        raise PayloadTooLarge()


class JSONBodyParser(JSONParser):
    """DRF's JSON parser, bounded in size and depth."""

    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Any = None
    ) -> Any:
        _check_length(parser_context)
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("JSON parse error - the body is nested too deep.")) from None


class FormBodyParser(FormParser):
    """DRF's form parser, bounded in size."""

    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Any = None
    ) -> Any:
        _check_length(parser_context)
        return super().parse(stream, media_type, parser_context)


def client_address(request: HttpRequest) -> str:
    """The client's real address, exactly as the API's throttles key on it (``NUM_PROXIES``):
    for django-axes (``AXES_CLIENT_IP_CALLABLE``) and the site's own rate limits."""
    # get_ident reads only ``request.META``, which a Django request has; the stubs ask for DRF's.
    return BaseThrottle().get_ident(cast(Request, request))


class TokenAuthentication(DRFTokenAuthentication):
    """DRF's token authentication, as the settings name it for the API: the token and its user
    read in one query (``select_related``), an unknown token or an inactive user refused in
    DRF's words."""


class _Resilient(SimpleRateThrottle):
    """Rates read at each request; a cache that is down lets the request through (logged).

    On Redis (the production cache) the counter is a sorted set of the request times, read and
    written in one round trip (:meth:`_allow_on_redis`) instead of DRF's two (a read of the
    pickled list of times, then its write); another cache gets DRF's own way.
    """

    num_requests: int | None
    duration: int | None
    """Both set from the rate by SimpleRateThrottle.__init__ (the stubs leave them out)."""

    def get_rate(self) -> str | None:
        # The rates are texts ("100/min"); the stubs type them as numbers.
        rates = cast("dict[str | None, str | None]", api_settings.DEFAULT_THROTTLE_RATES)
        return rates.get(self.scope)

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            client = redis_client() if self.cache is cache else None
            if client is not None and self.rate is not None:
                return self._allow_on_redis(client, request, view)
            return super().allow_request(request, view)
        except CACHE_ERRORS as error:
            logger.warning(
                "API throttle %s not applied: its cache is unreachable (%s)", self.scope, error
            )
            return True

    def _allow_on_redis(self, client: redis.Redis, request: Request, view: APIView) -> bool:
        """DRF's sliding window (at most ``num_requests`` in the last ``duration`` seconds) as
        one ``MULTI``: drop the times out of the window, add this one, count, read the oldest.
        Over the rate, this request's time is taken back out (a second round trip, refusals
        only) and the request refused, as DRF would."""
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        assert self.num_requests is not None and self.duration is not None  # a rate is set
        self.now = self.timer()
        key = cache.make_and_validate_key(f"{self.key}:times")
        member = f"{self.now!r}:{secrets.token_hex(4)}"
        pipe = client.pipeline(transaction=True)
        pipe.zremrangebyscore(key, "-inf", self.now - self.duration)
        pipe.zadd(key, {member: self.now})
        pipe.zcard(key)
        pipe.zrange(key, 0, 0, withscores=True)
        pipe.expire(key, math.ceil(self.duration))
        _dropped, _added, count, oldest, _expiry = pipe.execute()
        # What DRF's wait() reads: the times before this request, the oldest last.
        before = count - 1
        self.history = [self.now] * max(before - 1, 0) + [oldest[0][1]] * min(before, 1)
        if count > self.num_requests:
            client.zrem(key, member)
            return self.throttle_failure()
        return True


class AnonThrottle(_Resilient, AnonRateThrottle):
    """Anonymous callers, by real client address."""


class UserThrottle(_Resilient, UserRateThrottle):
    """Signed-in callers by user, anonymous ones by real client address."""


class TokenThrottle(_Resilient, AnonRateThrottle):
    """``POST /api/token/``: user names and passwords, by real client address (besides the
    sign-in pauses of django-axes, which count failures per user name and per address)."""

    scope = "token"
