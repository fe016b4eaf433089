"""Django settings for the Matrix Hockey league server.

Everything that differs between a laptop and production comes from the environment, read through
the typed helpers of :mod:`matrixhockey.env` (README.md lists every variable). With nothing set
this is the embedded default: debug on, SQLite in ``var/``, Celery tasks run eagerly, emails to
the console.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from matrixhockey.beat import SCHEDULE
from matrixhockey.env import (
    REQUIRED,
    env_bool,
    env_bytes,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_rate,
    env_str,
    env_url,
    env_url_list,
)
from matrixhockey.redis_breaker import connection_class

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core -------------------------------------------------------------------------------------

DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = env_str(
    "DJANGO_SECRET_KEY",
    "django-insecure-matrix-hockey-development-key-never-use-in-production" if DEBUG else REQUIRED,
)
ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else REQUIRED
)
CSRF_TRUSTED_ORIGINS = env_url_list("CSRF_TRUSTED_ORIGINS", [], schemes=["http", "https"])
# The site's address for links that leave a page (emails, calendar feeds): SITE_URL, or else
# the local address on SITE_PORT, the port `make run PORT=…` serves on (runserver's default 8000).
SITE_PORT = env_int("SITE_PORT", 8000, minimum=1, maximum=65535)
SITE_URL = env_url("SITE_URL", f"http://127.0.0.1:{SITE_PORT}", schemes=["http", "https"])
LEAGUE_NAME = env_str("LEAGUE_NAME", "Matrix Hockey")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "axes",
    "league",
    "competitions",
    "mail",
]

MIDDLEWARE = [
    # First: every answer carries the Permissions-Policy (PERMISSIONS_POLICY), errors included.
    "django_permissions_policy.PermissionsPolicyMiddleware",
    # Debug only: an API error answered by Django's technical page becomes the API's JSON; it
    # sees every answer but the Permissions-Policy's and keeps the headers set inside it.
    "matrixhockey.middleware.ApiDebugErrorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "matrixhockey.middleware.RejectNulBytesMiddleware",
    # The database out of reach: a 503 with Retry-After, not a 500 (matrixhockey.errors).
    "matrixhockey.middleware.DatabaseUnavailableMiddleware",
    "matrixhockey.middleware.ContentSecurityPolicyMiddleware",
    # WhiteNoise serves collected static files in production; runserver serves them in debug.
    *([] if DEBUG else ["whitenoise.middleware.WhiteNoiseMiddleware"]),
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in person's pages speak their account's language, not their browser's.
    "league.account_language.AccountLanguageMiddleware",
    # A signed-in person's answers: Cache-Control: private, no-store.
    "matrixhockey.middleware.PrivateAnswersMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A one-click pick link's session sends picks only; the rest asks for the password.
    "league.picks_only.PicksOnlyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a sign-in refused by django-axes into the lockout page (AXES_LOCKOUT_CALLABLE).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "matrixhockey.urls"
WSGI_APPLICATION = "matrixhockey.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "matrixhockey.context_processors.league",
                "competitions.context_processors.person",
            ],
            # In every template: dates with « 1er janvier » (its ``date`` filter replaces
            # Django's), names after « de » / « à », places in words (matrixhockey.french).
            "builtins": ["matrixhockey.template_words"],
        },
    },
]

# --- Database and cache -----------------------------------------------------------------------

_SQLITE_DEFAULT = f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}"
_database_url = env_url(
    "DATABASE_URL",
    _SQLITE_DEFAULT,
    schemes=["sqlite", "postgres", "postgresql", "pgsql", "postgis"],
)
try:
    DATABASES = {
        "default": dj_database_url.parse(
            _database_url,
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
            conn_health_checks=True,
        )
    }
except ValueError as error:
    raise ImproperlyConfigured(f"DATABASE_URL={_database_url!r} is not valid: {error}") from None
if _database_url == _SQLITE_DEFAULT:
    (BASE_DIR / "var").mkdir(exist_ok=True)

REDIS_URL = env_url("REDIS_URL", None, schemes=["redis", "rediss"])
# Every call to Redis — the cache, the throttles, the health check, a task published, a result
# read — waits REDIS_CONNECT_TIMEOUT seconds at most for a connection and REDIS_SOCKET_TIMEOUT
# for an answer (a Redis that hangs is a Redis that is down), and a process whose call failed
# leaves Redis alone for REDIS_RETRY_SECONDS (matrixhockey.redis_breaker): a request meets a
# Redis down or hung once, briefly, and goes on without it.
REDIS_CONNECT_TIMEOUT = env_float("REDIS_CONNECT_TIMEOUT", 0.5, minimum=0.05, maximum=30)
REDIS_SOCKET_TIMEOUT = env_float("REDIS_SOCKET_TIMEOUT", 0.5, minimum=0.05, maximum=30)
REDIS_RETRY_SECONDS = env_float("REDIS_RETRY_SECONDS", 5, minimum=0.1, maximum=300)
# Redis down or hung: a miss, a dropped write, a warning; never an error (django-redis's
# IGNORE_EXCEPTIONS; matrixhockey.cache), its connections through the breaker.
REDIS_CACHE_OPTIONS = {
    "IGNORE_EXCEPTIONS": True,
    "SOCKET_CONNECT_TIMEOUT": REDIS_CONNECT_TIMEOUT,
    "SOCKET_TIMEOUT": REDIS_SOCKET_TIMEOUT,
    "CONNECTION_POOL_KWARGS": {"connection_class": connection_class(REDIS_URL or "")},
}
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "matrixhockey",
            "OPTIONS": REDIS_CACHE_OPTIONS,
        }
    }
else:
    # Without Redis each process keeps its own cache (the throttles' counters, public reads).
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# django-redis logs each error it ignores there; LOGGING thins them to one now and then.
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
DJANGO_REDIS_LOGGER = "matrixhockey.cache.ignored"
# The cache of public reads (league.public_cache): kept PUBLIC_CACHE_SECONDS at most (0: off)
# behind a version the publishing services move. With Redis every process shares the version
# there; without, each request reads it from the database (a bump must reach every process).
PUBLIC_CACHE_SECONDS = env_int("PUBLIC_CACHE_SECONDS", 60, minimum=0, maximum=86_400)
PUBLIC_CACHE_SHARED = REDIS_URL is not None
# How long a process trusts the version it read (0: it reads it on every request, one round trip
# to Redis or one query): another process's publication shows within that time.
PUBLIC_VERSION_SECONDS = env_int("PUBLIC_VERSION_SECONDS", 1, minimum=0, maximum=60)

# --- Celery: a real broker when REDIS_URL is set, tasks run in-process otherwise ----------------

CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL
# No result is stored unless a task says it is read back (``ignore_result=False``: the ping, the
# arbitration and the season start, followed by `celery result` and the fault tests); every
# other task's work is in the database.
CELERY_TASK_IGNORE_RESULT = True
# A worker that loses Redis reconnects, however long it takes (Celery's default gives up after
# 100 tries), and hands back the tasks it was running: they cannot be acknowledged on the lost
# connection, so they run again, which each tolerates (its work is claimed by a status).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Celery's consumer, surviving a Redis lost while it holds tasks (matrixhockey.worker).
CELERY_WORKER_CONSUMER = "matrixhockey.worker:Consumer"
# Publishing a task: REDIS_CONNECT_TIMEOUT to connect, REDIS_SOCKET_TIMEOUT for each command,
# one more try at once (a connection in the pool that Redis closed), then the error: the caller
# has its work in a row (the outbox, a request) that a sweep or a person takes up again.
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0,
    "interval_max": 0,
}
_REDIS_TRANSPORT_TIMEOUTS = {
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    # How often a connection that is made again may be tried before a publish gives up.
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0,
    "interval_max": 0,
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_REDIS_SOCKET_TIMEOUT = REDIS_SOCKET_TIMEOUT
# A task is acknowledged once it has run, and one whose worker process died is handed back to
# the queue: a worker killed mid-arbitration loses nothing (the arbitration's claim makes the
# second run the only one).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# On Redis, a task taken by a worker that vanished (the whole machine, SIGKILL) goes back to the
# queue after the visibility timeout: Redis's default is an hour, the league's ten minutes.
# A task held longer than that (a retry's countdown) is handed out again too, which every task
# here tolerates: its work is claimed by a status only one run moves forward.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 600, minimum=5, maximum=86_400)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # Each worker looks for such tasks every 10 s (kombu's default: every 100 s).
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
    **_REDIS_TRANSPORT_TIMEOUTS,
}
# The result store (the arbitration's and the season start's answers) tries once more at once,
# not 20 times a second apart (Celery's default), before it says Redis is unreachable.
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0, "interval_max": 0},
}
CELERY_TIMEZONE = "Europe/Paris"
CELERY_BEAT_SCHEDULE = SCHEDULE
# How long the arbitration API waits for its task before answering 202 (competitions/api.py).
ARBITRATION_WAIT_SECONDS = env_int("ARBITRATION_WAIT_SECONDS", 5, minimum=0, maximum=60)

# --- Email ------------------------------------------------------------------------------------

EMAIL_BACKEND = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}[env_choice("EMAIL_BACKEND", "console", ["console", "file", "smtp"])]
EMAIL_FILE_PATH = env_str("EMAIL_FILE_PATH", str(BASE_DIR / "var" / "mail"))
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = 30
# How long a worker holds an outbox email it claimed (``mail.outbox.email_deliver``): one that
# died holding it leaves it due again after this, for beat's sweep. Longer than a send can take.
EMAIL_CLAIM_SECONDS = env_int("EMAIL_CLAIM_SECONDS", 600, minimum=1, maximum=86_400)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Matrix Hockey <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Picks by email (the coaches' mailbox, read by the email-picks command).
IMAP_HOST = env_str("IMAP_HOST", "")
IMAP_SSL = env_bool("IMAP_SSL", True)
IMAP_PORT = env_int("IMAP_PORT", 993 if IMAP_SSL else 143, minimum=1, maximum=65535)
IMAP_USER = env_str("IMAP_USER", "")
IMAP_PASSWORD = env_str("IMAP_PASSWORD", "")
IMAP_FOLDER = env_str("IMAP_FOLDER", "INBOX")
IMAP_STARTTLS = env_bool("IMAP_STARTTLS", True)
IMAP_PROCESSED_FOLDER = env_str("IMAP_PROCESSED_FOLDER", "")
# A message whose ingestion fails MAIL_FETCH_MAX_ATTEMPTS times in a row (default 3, one try per
# fetch) is set aside: marked seen and flagged, moved to IMAP_FAILED_FOLDER when one is set
# (default empty: it stays in IMAP_FOLDER), and recorded (mail.InboundFailure).
IMAP_FAILED_FOLDER = env_str("IMAP_FAILED_FOLDER", "")
MAIL_FETCH_MAX_ATTEMPTS = env_int("MAIL_FETCH_MAX_ATTEMPTS", 3, minimum=1, maximum=100)
# Limits of a message of picks (mail.inbound.message_read); over one, the message is refused and
# recorded, read for its headers only. Size: 10 MiB by default (sizes take K, M or G, e.g. 25M).
# MIME parts: nested 10 deep at most, 200 in all. Pick lines: a message's first 50 are read,
# the others reported as not read.
MAIL_MAX_BYTES = env_bytes("MAIL_MAX_BYTES", 10 * 1024**2, minimum=1024)
MAIL_MAX_MIME_DEPTH = env_int("MAIL_MAX_MIME_DEPTH", 10, minimum=1, maximum=100)
MAIL_MAX_MIME_PARTS = env_int("MAIL_MAX_MIME_PARTS", 200, minimum=1)
MAIL_MAX_PICK_LINES = env_int("MAIL_MAX_PICK_LINES", 50, minimum=1)
# Messages with commands (HELP, STANDINGS…) answered per address an hour (mail.limits).
MAIL_MAX_COMMAND_MESSAGES = env_int("MAIL_MAX_COMMAND_MESSAGES", 10, minimum=1)
# A coach's From is trusted only when the league's own mail server (its authserv-id) vouches for
# it in Authentication-Results (mail.authentication.authentication_verdict), a header read only
# above the Received header that server added: MAIL_AUTH_RECEIVED_ABOVE is how many Received
# headers the league's own servers add above it after the check (0: it is on top).
MAIL_AUTH_REQUIRED = env_bool("MAIL_AUTH_REQUIRED", True)
MAIL_AUTHSERV_ID = env_list("MAIL_AUTHSERV_ID", [])
MAIL_AUTH_RECEIVED_ABOVE = env_int("MAIL_AUTH_RECEIVED_ABOVE", 0, minimum=0, maximum=10)

# --- Security: strict unless debugging (manage.py check --deploy is clean with DEBUG off) --------

SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", not DEBUG)
# Behind the league's TLS-terminating proxy: its X-Forwarded-Proto is believed, and it must be
# counted in TRUSTED_PROXY_COUNT (matrixhockey.checks refuses to start otherwise).
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY", False)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "matrixhockey.errors.csrf_failure"
# django-csp: no inline script anywhere (the pages' scripts are files in static/js); inline
# styles only on Django's admin and the Swagger UI (matrixhockey.middleware).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# django-permissions-policy: the browser features no page of the site uses, refused to the site
# and to anything it could ever embed. Only features Chromium knows: it warns on every page about
# one it does not (ambient-light-sensor, bluetooth, web-share in Chromium 156).
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "interest-cohort",
        "local-fonts",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "screen-wake-lock",
        "serial",
        "usb",
        "window-management",
        "xr-spatial-tracking",
    )
}
# How many proxies of the league's own stand in front of the site, each appending the address it
# got the request from to X-Forwarded-For. The API's throttles key on the address the nearest
# trusted proxy saw (DRF's NUM_PROXIES); 0: X-Forwarded-For is ignored, REMOTE_ADDR counts.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0, maximum=10)

# --- Accounts: sign-in throttling (django-axes), password links, the waiting list's form ------

# django-axes checks every sign-in (the site's form, the admin's, POST /api/token/) before the
# password, through the league's handler (league.sign_in, as OWASP's authentication guidance
# has it): SIGN_IN_FAILURE_LIMIT failures for one user name from one address pause signing in
# to that account from that address; SIGN_IN_ADDRESS_FAILURE_LIMIT failures from one address,
# whatever the user names, pause that address; a user name alone is never paused, only slowed
# (SIGN_IN_SLOWDOWN_MILLISECONDS before each sign-in to it, past SIGN_IN_SLOWDOWN_AFTER failures
# from every address). A pause lasts AXES_COOLOFF_TIME from the last failure that counts. The
# attempts live in the database (the admin's "Access attempts": deleting one lifts the pause at
# once). The address is the one every limit of the site reads (matrixhockey.api.client_address,
# TRUSTED_PROXY_COUNT; django-ipware, which axes would otherwise ask, is not installed).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # ModelBackend reading the profile with the user (the pages' language, in one query).
    "league.account_language.ProfileModelBackend",
    # The sessions opened before ProfileModelBackend name this one.
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("SIGN_IN_FAILURE_LIMIT", 5, minimum=1, maximum=1000)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SIGN_IN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "league.sign_in.SignInHandler"
SIGN_IN_ADDRESS_FAILURE_LIMIT = env_int("SIGN_IN_ADDRESS_FAILURE_LIMIT", 30, minimum=1)
SIGN_IN_SLOWDOWN_AFTER = env_int("SIGN_IN_SLOWDOWN_AFTER", 10, minimum=1)
SIGN_IN_SLOWDOWN_MILLISECONDS = env_int(
    "SIGN_IN_SLOWDOWN_MILLISECONDS", 1000, minimum=0, maximum=10_000
)
AXES_CLIENT_IP_CALLABLE = "matrixhockey.api.client_address"
AXES_LOCKOUT_CALLABLE = "league.views_accounts.sign_in_paused"
# A failure while paused does not restart the pause: "try again in 15 minutes" stays true.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success does not wipe the failures: it would wipe those of the address too, and one account
# of one's own would then buy endless guesses at another's.
AXES_RESET_ON_SUCCESS = False
# Failures only; successful sign-ins are not logged (nothing to keep about them).
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False

# How long a password link (an invitation, a reset) works: Django's reset token.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_LINK_DAYS", 3, minimum=1, maximum=90) * 86400
# A forgotten password's form: at most this many emails an hour to one email address, whoever
# asks (besides its limit per client address); the asker's answer is the same either way.
PASSWORD_RESET_RATE_PER_EMAIL = env_int("PASSWORD_RESET_RATE_PER_EMAIL", 3, minimum=1)
# « Join the league »: the confirmation link works this many days; the form takes at most this
# many registrations per client address an hour, and per email address a day.
WAITING_LIST_CONFIRM_DAYS = env_int("WAITING_LIST_CONFIRM_DAYS", 3, minimum=1, maximum=30)
WAITING_LIST_RATE_PER_ADDRESS = env_int("WAITING_LIST_RATE_PER_ADDRESS", 5, minimum=1)
WAITING_LIST_RATE_PER_EMAIL = env_int("WAITING_LIST_RATE_PER_EMAIL", 3, minimum=1)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Refuses nothing: a password set (by any path) revokes the account's API token.
    {"NAME": "league.passwords.ApiTokenRotation"},
]

# --- Languages and time -----------------------------------------------------------------------

LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", _("French")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Paris"
USE_TZ = True
# One shape for a date and a moment per language (matrixhockey/formats/).
FORMAT_MODULE_PATH = ["matrixhockey.formats"]

# --- Static files -----------------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed names need collectstatic first: production (the Dockerfile) runs it.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- API --------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # DRF's, its token and user read in one written-out query (matrixhockey.api).
        "matrixhockey.api.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Bounded in size (413) and depth (400): matrixhockey.api.
    "DEFAULT_PARSER_CLASSES": [
        "matrixhockey.api.JSONBodyParser",
        "matrixhockey.api.FormBodyParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Keyed on the real client address (NUM_PROXIES); a cache that is down lets requests through.
    "DEFAULT_THROTTLE_CLASSES": [
        "matrixhockey.api.AnonThrottle",
        "matrixhockey.api.UserThrottle",
    ],
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    # Every error in the shape of shared/API.md: {"detail": …} or {"field": [messages]}.
    "EXCEPTION_HANDLER": "matrixhockey.errors.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("API_THROTTLE_ANON", "60/minute"),
        "user": env_rate("API_THROTTLE_USER", "600/minute"),
        "token": env_rate("API_THROTTLE_TOKEN", "20/minute"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Matrix Hockey API",
    "DESCRIPTION": "Picks, arbitrations, results and standings of the Matrix Hockey league.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get their own components, so a required text says minLength 1 as the
    # server does (an empty pick is refused).
    "COMPONENT_SPLIT_REQUEST": True,
    # <num:…> (matrixhockey.converters): a number of up to nine digits.
    "PATH_CONVERTER_OVERRIDES": {
        "num": {"type": "integer", "minimum": 0, "maximum": 999_999_999},
    },
    # The error answers every operation may give (matrixhockey.schema).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "matrixhockey.schema.error_responses",
    ],
    # One schema name per choice set, however a serializer spells its choices.
    "ENUM_NAME_OVERRIDES": {
        "CompetitionEnum": "competitions.models.Competition",
        "RoundStatusEnum": "competitions.models.RoundStatus",
    },
}

# --- Logging ----------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {
        "handlers": ["console"],
        "level": env_choice(
            "LOG_LEVEL", "info", ["debug", "info", "warning", "error", "critical"]
        ).upper(),
    },
    # Django's own loggers print to the console already: no second copy through the root.
    "loggers": {
        "django": {"level": "INFO", "propagate": False},
        # django-axes: each failure and pause is a warning; its routine steps are not worth a line.
        "axes": {"level": "WARNING"},
        # django-redis's ignored errors (Redis down): one line now and then, not one per call.
        "matrixhockey.cache.ignored": {"filters": ["once_per_interval"]},
    },
    "filters": {"once_per_interval": {"()": "matrixhockey.cache.OncePerInterval"}},
}
