"""The cache of public reads: whole pages for anonymous visitors, the data of the public API
reads for everyone, kept behind one version (docs/ARCHITECTURE.md, "The cache of public reads").

What the public sees changes only when a referee publishes or voids a round, when a season moves
(imported, prepared, started, closed, made current) or when a round's public status moves (its
deadline passed, its arbitration done). The services that do those call
:func:`public_version_bump` or :func:`public_statuses_bump` inside their transaction: the
:class:`~league.models.PublicVersion` row moves with the data it stands for, and once the
transaction commits the cache's copy of the version moves too, so the next request reads under a
new key and nothing cached under the old one is served again. Nothing about a round is public
before its publication, and every cached read is computed by the same public selectors, so a
cached copy never holds more than the page itself did.

Where the version is read from: with a shared cache (Redis, ``PUBLIC_CACHE_SHARED``) from the
cache, filled from the database on a miss; with a per-process cache (``LocMemCache``, no Redis)
from the database on every request (one query), since a bump in one process cannot reach the
others' memory. Redis down: every read is a miss and every write is dropped (django-redis's
``IGNORE_EXCEPTIONS``, :mod:`matrixhockey.cache`), so pages are computed as if nothing were
cached.

Each process also keeps what it served last in its own memory, for the current version only
(:data:`LOCAL_ENTRIES` at most), and trusts the version it read for ``PUBLIC_VERSION_SECONDS``
(default 1; 0: read on every request): a page read again costs no round trip at all. A process
that bumps the version reads it again at once; the others within that second. Nothing secret
hangs on it: the cache only ever holds published data, so a page a second late shows the
results as they were, never a result before its publication.

A cached entry also expires after ``PUBLIC_CACHE_SECONDS`` (0: nothing is cached): that bounds
what no service moves, the clock (a round shows « picks open » until its deadline, then « to be
played »), and an edit in the admin. ``shared/`` rulings: R23 (nothing of a round before
publication).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeGuard

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from league.models import PublicVersion

P = ParamSpec("P")

VERSION_KEY = "public:version"
VERSION_KEY_SECONDS = 10
"""How long the cache's copy of the version lives before it is read from the row again: two
bumps committing at the same moment may copy their versions out of order, never for longer."""
CACHEABLE_QUERY = re.compile(r"\A(?:season=[1-9][0-9]{0,5})?\Z")
"""Only these query strings are cached (nothing, or a season's number): any other parameter is
computed afresh, so nobody can fill the cache with variants or put text of theirs in a shared
page (the header's links repeat the page's address)."""
CSRF_INPUT = re.compile(rb'(name="csrfmiddlewaretoken" value=")[^"]*(")')
CSRF_PLACEHOLDER = b"\x00csrf-token\x00"
"""A cached page holds this instead of its first visitor's CSRF token; each visitor gets their
own (NUL never appears in a page)."""
KEPT_STATUSES = frozenset({200, 301, 302})
LOCAL_ENTRIES = 256
"""Entries a process keeps in its own memory, all under one version."""

_local: dict[str, tuple[float, Any]] = {}
_local_version = ""
_version_memo: tuple[float, str] | None = None
"""Until when this process trusts the version it read last, and that version."""


# --- The version ---------------------------------------------------------------------------------


def _version_from_database() -> str:
    row = PublicVersion.objects.filter(pk=1).values_list("published", "statuses").first()
    return "0.0" if row is None else f"{row[0]}.{row[1]}"


def public_version() -> str:
    """The version every cached public read is keyed on, ``"<published>.<statuses>"``; read
    again at most every ``PUBLIC_VERSION_SECONDS`` by a process, at once after its own bump."""
    global _version_memo
    now = time.monotonic()
    if _version_memo is not None and _version_memo[0] > now:
        return _version_memo[1]
    if settings.PUBLIC_CACHE_SHARED:
        version = cache.get(VERSION_KEY)
        if version is None:
            version = _version_from_database()
            # add, not set: a bump that committed meanwhile has set the newer version; keep it.
            cache.add(VERSION_KEY, version, VERSION_KEY_SECONDS)
    else:
        version = _version_from_database()
    if settings.PUBLIC_VERSION_SECONDS:
        _version_memo = (now + settings.PUBLIC_VERSION_SECONDS, version)
    return version


def _bump(field: str) -> None:
    updated = PublicVersion.objects.filter(pk=1).update(**{field: F(field) + 1})
    if not updated:
        PublicVersion.objects.get_or_create(pk=1, defaults={field: 1})
    transaction.on_commit(_version_copy)


def _version_copy() -> None:
    """Once the bump is committed, the cache's copy of the version follows the database's, and
    this process reads it again at once."""
    global _version_memo
    _version_memo = None
    if settings.PUBLIC_CACHE_SHARED:
        cache.set(VERSION_KEY, _version_from_database(), VERSION_KEY_SECONDS)


def public_version_bump() -> None:
    """Published results or a season moved: call inside the service's transaction (last, as it
    locks the version's row until the commit)."""
    _bump("published")


def public_statuses_bump() -> None:
    """A round's public status moved (closed, arbitrated) though nothing was published."""
    _bump("statuses")


def _timeout() -> int:
    return settings.PUBLIC_CACHE_SECONDS


# --- Pages ---------------------------------------------------------------------------------------


def _anonymous(request: HttpRequest) -> bool:
    """Nothing of the visitor's own can be on the page: no session (so nobody signed in, no
    message waiting in it), no message waiting in a cookie, no credentials."""
    cookies = request.COOKIES
    return (
        settings.SESSION_COOKIE_NAME not in cookies
        and CookieStorage.cookie_name not in cookies
        and "HTTP_AUTHORIZATION" not in request.META
    )


def _key(kind: str, request: HttpRequest) -> str | None:
    global _local_version
    if (
        not _timeout()
        or request.method not in ("GET", "HEAD")
        or not CACHEABLE_QUERY.match(request.META.get("QUERY_STRING", ""))
    ):
        return None
    version = public_version()
    if version != _local_version:
        _local.clear()  # what this process kept is of an older version
        _local_version = version
    return f"public:{kind}:{version}:{get_language()}:{request.get_full_path()}"


def _get(key: str) -> Any:
    """What is kept under ``key``: from this process's memory, else from the shared cache."""
    kept = _local.get(key)
    if kept is not None and kept[0] > time.monotonic():
        return kept[1]
    value = cache.get(key) if settings.PUBLIC_CACHE_SHARED else None
    if value is not None:
        _keep_locally(key, value)
    return value


def _set(key: str, value: Any) -> None:
    _keep_locally(key, value)
    if settings.PUBLIC_CACHE_SHARED:
        cache.set(key, value, _timeout())


def _keep_locally(key: str, value: Any) -> None:
    if len(_local) >= LOCAL_ENTRIES:
        _local.clear()
    _local[key] = (time.monotonic() + _timeout(), value)


def public_cache_forget() -> None:
    """Forget what this process keeps in its own memory (tests start from nothing)."""
    global _version_memo
    _local.clear()
    _version_memo = None


def _stored(response: HttpResponse) -> tuple[int, dict[str, str], bytes]:
    content = CSRF_INPUT.sub(rb"\1" + CSRF_PLACEHOLDER + rb"\2", response.content)
    return response.status_code, dict(response.headers), content


def _restored(request: HttpRequest, stored: tuple[int, dict[str, str], bytes]) -> HttpResponse:
    status, headers, content = stored
    if CSRF_PLACEHOLDER in content:
        content = content.replace(CSRF_PLACEHOLDER, get_token(request).encode())
    response = HttpResponse(content, status=status)
    for name, value in headers.items():
        response.headers[name] = value
    return response


def _keepable(response: HttpResponseBase) -> TypeGuard[HttpResponse]:
    return (
        isinstance(response, HttpResponse)
        and response.status_code in KEPT_STATUSES
        and not response.cookies
    )


def public_page(
    view: Callable[Concatenate[HttpRequest, P], HttpResponseBase],
) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
    """A public page, kept whole for anonymous visitors under the version, the language and the
    address; signed-in visitors get it computed (their name, their team highlighted).
    Redirects are kept too; errors (404…) never."""

    @wraps(view)
    def cached(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
        key = _key("page", request) if _anonymous(request) else None
        stored = _get(key) if key is not None else None
        if stored is not None:
            response: HttpResponseBase = _restored(request, stored)
        else:
            response = view(request, *args, **kwargs)
            if key is not None and _keepable(response):
                _set(key, _stored(response))
        # Anyone signed in sees another page at this address (proxies must not share it).
        patch_vary_headers(response, ("Cookie",))
        return response

    return cached


def public_fragment(
    request: HttpRequest, name: str, render: Callable[[], Any], *, variant: object = ""
) -> Any:
    """The public part ``name`` of the page ``request`` asks for — what ``render`` computes
    (pickled: the markup, and any public value the page needs beside it) — kept under the same
    version, language and address as :func:`public_page`'s whole pages, so every bump that
    retires a page retires its fragments with it: nothing unpublished is ever shown from here.
    For everyone, signed in or not: the view adds the viewer's own part around it (their header,
    their games), computed every time and never kept. ``variant`` tells apart the copies of a
    public part that differ by a public fact (a division's table with one team's row
    highlighted, by that entry's id). ``render`` must read published data only and nothing of
    the viewer; with the cache off or another query string, it runs every time."""
    key = _key(f"fragment:{name}:{variant}", request)
    if key is None:
        return render()
    kept = _get(key)
    if kept is None:
        kept = render()
        _set(key, kept)
    return kept


@dataclass(frozen=True)
class PublicParts:
    """A page's blocks rendered as a public fragment (:func:`public_parts_render`), to be
    shown inside the viewer's own header by :data:`PUBLIC_PARTS_PAGE`."""

    title: str
    description: str
    """Empty: the site's own."""
    head: str
    content: str
    scripts: str

    def filled(self, parts: dict[str, str]) -> PublicParts:
        """These parts with the viewer's own in the content's slots (:func:`slots_fill`)."""
        return replace(self, content=mark_safe(slots_fill(self.content, parts)))


PUBLIC_PARTS_PAGE = "public_page.html"
"""The page around a :class:`PublicParts`: the site's header (the viewer's), the parts inside."""
PARTS_BASE = "public_parts.html"
PART_BREAK = "\x00part\x00"


def public_parts_render(template: str, context: Mapping[str, object]) -> PublicParts:
    """``template``, a page extending ``{{ base|default:"base.html" }}``, rendered without the
    request — so without the viewer: no user, no messages, no CSRF token — over a base that
    keeps only its blocks (title, description, head, content, scripts), for
    :func:`public_fragment`; ``context["slots"]`` marks where the viewer's parts go."""
    markup = render_to_string(
        template,
        {
            **context,
            "base": PARTS_BASE,
            "part_break": PART_BREAK,
            "league_name": settings.LEAGUE_NAME,
        },
    )
    title, description, head, content, scripts = (
        mark_safe(part) for part in markup.split(PART_BREAK)
    )
    return PublicParts(
        title=title, description=description, head=head, content=content, scripts=scripts
    )


def slots_fill(markup: str, parts: Mapping[str, str]) -> str:
    """``markup`` (a fragment rendered with :func:`slot` marks) with each mark replaced by the
    viewer's part of that name (nothing for a part not given)."""
    return SLOT.sub(lambda found: parts.get(found.group(1), ""), markup)


def slot(name: str) -> str:
    """The mark a public fragment holds where the viewer's part ``name`` goes (NUL never
    appears in a page, as :data:`CSRF_PLACEHOLDER`)."""
    return f"\x00slot:{name}\x00"


SLOT = re.compile("\x00slot:([a-z_]+)\x00")


# --- API reads -----------------------------------------------------------------------------------


if TYPE_CHECKING:
    _ViewBase = APIView
else:
    _ViewBase = object  # a mixin: APIView comes after it in the view's bases


class PublicRead(_ViewBase):
    """For a DRF ``APIView`` whose GET answer is the same for everyone (a public read): with
    :func:`public_read` on its ``get``, its serialized data is kept under the version, the
    language and the address, and the answer rendered from it each time (JSON, or the browsable
    API). DRF still authenticates (a bad token is still a 401) and checks permissions.

    Only reads that are computed are throttled: an answer from the cache costs the server less
    than counting it would (the throttles' two round trips to Redis each), and throttling is
    there to protect the server."""

    public_key: str | None = None
    public_hit: Any = None

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # The renderer first, as DRF's own initial() does: an error reading the version (the
        # database out of reach) must reach the exception handling with a renderer to answer.
        self.format_kwarg = self.get_format_suffix(**kwargs)
        negotiated = self.perform_content_negotiation(request)
        request.accepted_renderer, request.accepted_media_type = negotiated
        self.public_key = _key("api", request._request)
        self.public_hit = _get(self.public_key) if self.public_key is not None else None
        super().initial(request, *args, **kwargs)

    def check_throttles(self, request: Request) -> None:
        if self.public_hit is None:
            super().check_throttles(request)


def public_read(
    method: Callable[Concatenate[Any, Request, P], Response],
) -> Callable[Concatenate[Any, Request, P], HttpResponseBase]:
    """A :class:`PublicRead` view's ``get``: answered from the cache, else computed and kept
    (a 200 only). Kept: the data, and its plain JSON rendering, served as it is to a caller
    asking for plain JSON (any other rendering is made from the data)."""

    @wraps(method)
    def cached(
        view: PublicRead, request: Request, *args: P.args, **kwargs: P.kwargs
    ) -> HttpResponseBase:
        if view.public_hit is not None:
            data, body = view.public_hit
            if _plain_json(request):
                return HttpResponse(body, content_type=JSON)
            return Response(data)
        response = method(view, request, *args, **kwargs)
        if view.public_key is not None and response.status_code == 200:
            data = response.data
            _set(view.public_key, (data, JSONRenderer().render(data)))
        return response

    return cached


JSON = "application/json"


def _plain_json(request: Request) -> bool:
    return (
        isinstance(request.accepted_renderer, JSONRenderer) and request.accepted_media_type == JSON
    )
