"""Settings from the environment: typed helpers that fail loudly, naming the variable."""

from __future__ import annotations

import subprocess

import pytest
from django.core.exceptions import ImproperlyConfigured

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
from tests.matrixhockey.conftest import PRODUCTION, ROOT, run_python, settings_in


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", True), ("TRUE", True), ("yes", True), ("on", True), ("0", False), ("Off", False)],
)
def test_booleans_are_read_in_any_usual_spelling(value: str, expected: bool) -> None:
    assert env_bool("FLAG", not expected, environ={"FLAG": value}) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2048", 2048),
        ("512K", 512 * 1024),
        ("10M", 10 * 1024**2),
        ("10 MiB", 10 * 1024**2),
        ("1gb", 1024**3),
        ("3kib", 3 * 1024),
    ],
)
def test_sizes_are_read_in_bytes_or_with_a_unit_of_1024(value: str, expected: int) -> None:
    assert env_bytes("MAIL_MAX_BYTES", 1, environ={"MAIL_MAX_BYTES": value}) == expected


def test_an_unset_or_blank_variable_gives_the_default() -> None:
    assert env_int("N", 7, environ={}) == 7
    assert env_str("S", "x", environ={"S": "  "}) == "x"
    assert env_list("L", ["a"], environ={}) == ["a"]
    assert env_url("U", None, schemes=["redis"], environ={}) is None


def test_a_required_variable_that_is_missing_is_named() -> None:
    with pytest.raises(ImproperlyConfigured, match=r"^DJANGO_SECRET_KEY is not set"):
        env_str("DJANGO_SECRET_KEY", REQUIRED, environ={})


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (
            lambda: env_bool("DJANGO_DEBUG", False, environ={"DJANGO_DEBUG": "maybe"}),
            "DJANGO_DEBUG='maybe' is not valid: expected a boolean",
        ),
        (
            lambda: env_int(
                "EMAIL_PORT", 25, minimum=1, maximum=65535, environ={"EMAIL_PORT": "x"}
            ),
            "EMAIL_PORT='x' is not valid: expected a whole number from 1 to 65535",
        ),
        (
            lambda: env_int(
                "EMAIL_PORT", 25, minimum=1, maximum=65535, environ={"EMAIL_PORT": "0"}
            ),
            "EMAIL_PORT='0' is not valid",
        ),
        (
            lambda: env_float(
                "REDIS_SOCKET_TIMEOUT",
                1,
                minimum=0.05,
                maximum=30,
                environ={"REDIS_SOCKET_TIMEOUT": "soon"},
            ),
            "REDIS_SOCKET_TIMEOUT='soon' is not valid: expected a number from 0.05 to 30",
        ),
        (
            lambda: env_float(
                "REDIS_SOCKET_TIMEOUT",
                1,
                minimum=0.05,
                maximum=30,
                environ={"REDIS_SOCKET_TIMEOUT": "0"},
            ),
            "REDIS_SOCKET_TIMEOUT='0' is not valid",
        ),
        (
            lambda: env_float(
                "REDIS_SOCKET_TIMEOUT",
                1,
                minimum=0.05,
                maximum=30,
                environ={"REDIS_SOCKET_TIMEOUT": "nan"},
            ),
            "REDIS_SOCKET_TIMEOUT='nan' is not valid",
        ),
        (
            lambda: env_bytes("MAIL_MAX_BYTES", 1, environ={"MAIL_MAX_BYTES": "10 apples"}),
            "MAIL_MAX_BYTES='10 apples' is not valid: expected a size in bytes",
        ),
        (
            lambda: env_bytes(
                "MAIL_MAX_BYTES", 1, minimum=1024, environ={"MAIL_MAX_BYTES": "1000"}
            ),
            "MAIL_MAX_BYTES='1000' is not valid: expected a size in bytes from 1024",
        ),
        (
            lambda: env_choice(
                "EMAIL_BACKEND",
                "console",
                ["console", "file", "smtp"],
                environ={"EMAIL_BACKEND": "pigeon"},
            ),
            "EMAIL_BACKEND='pigeon' is not valid: expected one of console, file, smtp",
        ),
        (
            lambda: env_url(
                "REDIS_URL",
                None,
                schemes=["redis", "rediss"],
                environ={"REDIS_URL": "localhost:6379"},
            ),
            "REDIS_URL='localhost:6379' is not valid: expected a URL starting with redis:// or rediss://",
        ),
        (
            lambda: env_url(
                "SITE_URL", None, schemes=["http"], environ={"SITE_URL": "http://h:99999"}
            ),
            "SITE_URL='http://h:99999' is not valid",
        ),
        (
            lambda: env_url_list(
                "CSRF_TRUSTED_ORIGINS",
                [],
                schemes=["https"],
                environ={"CSRF_TRUSTED_ORIGINS": "https://a.org, b.org"},
            ),
            "CSRF_TRUSTED_ORIGINS='https://a.org, b.org' is not valid",
        ),
        (
            lambda: env_rate(
                "API_THROTTLE_ANON", "60/minute", environ={"API_THROTTLE_ANON": "lots"}
            ),
            "API_THROTTLE_ANON='lots' is not valid: expected a rate such as 60/minute",
        ),
    ],
)
def test_a_bad_value_names_the_variable_the_value_and_what_is_expected(
    read: object, message: str
) -> None:
    with pytest.raises(ImproperlyConfigured) as error:
        read()
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DJANGO_DEBUG": "0"}, "DJANGO_SECRET_KEY is not set"),
        ({**PRODUCTION, "DJANGO_ALLOWED_HOSTS": ""}, "DJANGO_ALLOWED_HOSTS is not set"),
        ({"DJANGO_DEBUG": "maybe"}, "DJANGO_DEBUG='maybe' is not valid"),
        ({"DATABASE_URL": "mysql://db/x"}, "DATABASE_URL='mysql://db/x' is not valid"),
        ({"REDIS_URL": "127.0.0.1"}, "REDIS_URL='127.0.0.1' is not valid"),
        ({"EMAIL_BACKEND": "pigeon"}, "EMAIL_BACKEND='pigeon' is not valid"),
        ({"EMAIL_PORT": "smtp"}, "EMAIL_PORT='smtp' is not valid"),
        ({"IMAP_SSL": "perhaps"}, "IMAP_SSL='perhaps' is not valid"),
        ({"MAIL_MAX_BYTES": "huge"}, "MAIL_MAX_BYTES='huge' is not valid"),
        ({"MAIL_FETCH_MAX_ATTEMPTS": "0"}, "MAIL_FETCH_MAX_ATTEMPTS='0' is not valid"),
        ({"DJANGO_HSTS_SECONDS": "-1"}, "DJANGO_HSTS_SECONDS='-1' is not valid"),
    ],
)
def test_the_site_refuses_to_start_on_a_bad_environment(env: dict[str, str], message: str) -> None:
    done = run_python("import django; django.setup()", env)
    assert done.returncode != 0
    assert "ImproperlyConfigured: " + message in done.stderr


def test_with_nothing_set_the_site_runs_the_embedded_default() -> None:
    values = settings_in(
        {}, "DEBUG", "DATABASES", "CELERY_TASK_ALWAYS_EAGER", "EMAIL_BACKEND", "LANGUAGE_CODE"
    )
    assert values["DEBUG"] is True
    assert values["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert values["DATABASES"]["default"]["NAME"].endswith("var/db.sqlite3")
    assert values["CELERY_TASK_ALWAYS_EAGER"] is True
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert values["LANGUAGE_CODE"] == "fr"


def test_redis_url_gives_celery_its_broker_and_result_backend() -> None:
    url = "redis://cache.internal:6379/2"
    values = settings_in(
        {"REDIS_URL": url},
        "CELERY_TASK_ALWAYS_EAGER",
        "CELERY_BROKER_URL",
        "CELERY_RESULT_BACKEND",
        "CACHES",
    )
    assert values["CELERY_TASK_ALWAYS_EAGER"] is False
    assert values["CELERY_BROKER_URL"] == values["CELERY_RESULT_BACKEND"] == url
    assert values["CACHES"]["default"]["LOCATION"] == url


def test_the_cache_of_public_reads_is_shared_on_redis_and_per_process_without() -> None:
    names = ("CACHES", "PUBLIC_CACHE_SECONDS", "PUBLIC_CACHE_SHARED", "PUBLIC_VERSION_SECONDS")
    alone = settings_in({}, *names)
    assert alone["CACHES"]["default"]["BACKEND"].endswith("LocMemCache")
    assert (alone["PUBLIC_CACHE_SECONDS"], alone["PUBLIC_VERSION_SECONDS"]) == (60, 1)
    assert alone["PUBLIC_CACHE_SHARED"] is False
    shared = settings_in(
        {"REDIS_URL": "redis://cache.internal:6379/2", "PUBLIC_CACHE_SECONDS": "0"}, *names
    )
    assert shared["CACHES"]["default"]["BACKEND"] == "django_redis.cache.RedisCache"
    assert (shared["PUBLIC_CACHE_SHARED"], shared["PUBLIC_CACHE_SECONDS"]) == (True, 0)


def test_smtp_email_is_configured_from_the_environment() -> None:
    values = settings_in(
        {
            "EMAIL_BACKEND": "smtp",
            "EMAIL_HOST": "mail.example.org",
            "EMAIL_PORT": "587",
            "EMAIL_HOST_USER": "league",
            "EMAIL_USE_TLS": "1",
        },
        "EMAIL_BACKEND",
        "EMAIL_HOST",
        "EMAIL_PORT",
        "EMAIL_HOST_USER",
        "EMAIL_USE_TLS",
    )
    assert values == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "mail.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "league",
        "EMAIL_USE_TLS": True,
    }


def test_production_settings_are_secure_by_default(production_env: dict[str, str]) -> None:
    values = settings_in(
        production_env,
        "DEBUG",
        "SECURE_SSL_REDIRECT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "ALLOWED_HOSTS",
    )
    assert values == {
        "DEBUG": False,
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31_536_000,
        "ALLOWED_HOSTS": ["hockey.example.org"],
    }


def test_the_deployment_check_is_clean_in_production(production_env: dict[str, str]) -> None:
    done = run_python(
        "", production_env, "manage.py", "check", "--deploy", "--fail-level", "WARNING"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_the_deployment_check_catches_a_weak_secret_key(production_env: dict[str, str]) -> None:
    production_env["DJANGO_SECRET_KEY"] = "short"
    done = run_python(
        "", production_env, "manage.py", "check", "--deploy", "--fail-level", "WARNING"
    )
    assert done.returncode != 0
    assert "security.W009" in done.stderr


def test_a_lost_workers_tasks_come_back_within_minutes_not_redis_hour() -> None:
    """Redis's visibility timeout (an hour by default) bounds how long a task taken by a worker
    that died waits before another worker gets it: ten minutes here, set by
    CELERY_VISIBILITY_TIMEOUT; a task whose worker process dies is handed back at once."""
    names = (
        "CELERY_BROKER_TRANSPORT_OPTIONS",
        "CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS",
        "CELERY_TASK_ACKS_LATE",
        "CELERY_TASK_REJECT_ON_WORKER_LOST",
    )
    values = settings_in({}, *names)
    assert values["CELERY_BROKER_TRANSPORT_OPTIONS"]["visibility_timeout"] == 600
    assert values["CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS"]["visibility_timeout"] == 600
    assert values["CELERY_TASK_ACKS_LATE"] is True
    assert values["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True
    shorter = settings_in({"CELERY_VISIBILITY_TIMEOUT": "120"}, names[0])
    assert shorter[names[0]]["visibility_timeout"] == 120


@pytest.mark.parametrize("value", ["ten", "0", "4", "86401"])
def test_a_bad_visibility_timeout_stops_the_start(value: str) -> None:
    done = run_python("import django; django.setup()", {"CELERY_VISIBILITY_TIMEOUT": value})
    assert done.returncode != 0
    assert "ImproperlyConfigured: CELERY_VISIBILITY_TIMEOUT=" in done.stderr


def test_the_sites_address_follows_the_port_it_is_served_on_unless_site_url_says() -> None:
    assert settings_in({}, "SITE_URL") == {"SITE_URL": "http://127.0.0.1:8000"}
    assert settings_in({"SITE_PORT": "8123"}, "SITE_URL") == {"SITE_URL": "http://127.0.0.1:8123"}
    named = settings_in({"SITE_PORT": "8123", "SITE_URL": "https://hockey.example"}, "SITE_URL")
    assert named == {"SITE_URL": "https://hockey.example"}


def test_make_run_on_another_port_serves_links_to_that_port() -> None:
    # `make -n` prints the recipe without running it: runserver gets the port as SITE_PORT.
    done = subprocess.run(
        ["make", "-n", "run", "PORT=8123"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    runserver = [line for line in done.stdout.splitlines() if " runserver " in line]
    assert runserver == ["SITE_PORT=8123 .venv/bin/python manage.py runserver 127.0.0.1:8123"]
