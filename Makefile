# Matrix Hockey league server. On a fresh machine:
#   make run    serve the league at http://127.0.0.1:8000 (SQLite, eager Celery, console email)
#   make test   install Chromium, Dovecot and the Node tools (Lighthouse) when missing, run every
#               test (PostgreSQL and Redis on 127.0.0.1 unless DATABASE_URL/REDIS_URL)
#   make lint   ruff check, ruff format --check and mypy (strict on engine/)

SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
MANAGE := $(PY) manage.py
STAMP := $(VENV)/.installed
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

TEST_DATABASE_URL := postgresql://postgres@127.0.0.1:5432/matrixhockey
TEST_REDIS_URL := redis://127.0.0.1:6379/15
# The site's tests run on TEST_WORKERS processes (pytest-xdist), each on a PostgreSQL test
# database of its own (pytest-django: test_<name>_gw0, _gw1…) and a Redis database of its own:
# gw0 REDIS_URL's, gw1… those of TEST_REDIS_WORKER_DBS (tests/redis_per_worker.py).
TEST_WORKERS ?= 2
TEST_REDIS_WORKER_DBS_DEFAULT := 5

.PHONY: help install messages run test-packages node-packages test lint

help:
	@echo "make run    serve the demo league at http://127.0.0.1:8000"
	@echo "make test   run every test"
	@echo "make lint   ruff check, format check and mypy"

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml changed.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(STAMP)

# Compiled catalogues (.mo) are built here, not committed; msgfmt comes with gettext.
messages: install
	@command -v msgfmt >/dev/null 2>&1 || { \
		echo "Installing gettext (msgfmt) to compile the translation catalogues"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y gettext; }
	$(MANAGE) compilemessages --ignore=.venv --ignore=var --ignore=staticfiles -v 0

# The demo league is loaded only into an empty database; otherwise load_demo says so.
# make run PORT=8123 serves on another port, and the site's links (emails, calendar feeds) point
# to it (SITE_PORT) unless SITE_URL names another address.
PORT ?= 8000
run: messages
	$(MANAGE) migrate --noinput
	$(MANAGE) load_demo --if-empty
	SITE_PORT=$(PORT) $(MANAGE) runserver 127.0.0.1:$(PORT)

# Besides PostgreSQL and Redis, the tests drive Debian's headless Chromium (tests/browser) and
# Dovecot's IMAP server (tests/mail/test_fetch_email_picks.py starts its own on 127.0.0.1) and
# nginx as the reverse proxy in front of the site (tests/league/test_sign_in_behind_proxy.py);
# each is looked for where its tests look.
test-packages:
	@missing=(); \
	[ -x "$${CHROMIUM_PATH:-/usr/bin/chromium}" ] || { \
		echo "Installing chromium for the browser tests (tests/browser)"; \
		missing+=(chromium); }; \
	command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ] || { \
		echo "Installing dovecot-imapd for the IMAP tests (tests/mail/test_fetch_email_picks.py)"; \
		missing+=(dovecot-imapd); }; \
	command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
		echo "Installing nginx-light for the sign-in tests behind a proxy (tests/league/test_sign_in_behind_proxy.py)"; \
		missing+=(nginx-light); }; \
	if (( $${#missing[@]} )); then \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y "$${missing[@]}"; \
	fi

# Lighthouse (tests/browser/test_lighthouse.py) is a Node package pinned in package.json, installed
# from package-lock.json by `npm ci` when node_modules is missing or older than the lock. The
# lock keeps no registry addresses (.npmrc: omit-lockfile-registry-resolved), so npm fetches
# from whichever registry it is configured for. package.json's overrides pin the two packages
# that Lighthouse's trace engine asks for as "latest": otherwise `npm ci` refuses the lock as
# soon as a newer one is published.
NODE_STAMP := node_modules/.installed

$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "Installing Node.js and npm for Lighthouse (tests/browser/test_lighthouse.py)"; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y nodejs npm; }
	npm ci --no-audit --no-fund
	touch $@

node-packages: $(NODE_STAMP)

# The engine's branch coverage is a gate of its own; the rest of the suite runs either way, a
# module's tests on one worker (--dist loadgroup: they share its fixtures), the heaviest modules
# handed out first (tests/conftest.py orders them; --no-loadscope-reorder keeps that order), and
# prints its 20 slowest tests.
test: export DATABASE_URL ?= $(TEST_DATABASE_URL)
test: export REDIS_URL ?= $(TEST_REDIS_URL)
test: export TEST_REDIS_WORKER_DBS ?= $(TEST_REDIS_WORKER_DBS_DEFAULT)
test: messages test-packages node-packages
	@status=0; \
	$(PY) -m pytest tests/engine --cov=engine --cov-branch --cov-fail-under=100 || status=1; \
	$(PY) -m pytest tests --ignore=tests/engine -n $(TEST_WORKERS) --dist loadgroup \
		--no-loadscope-reorder --durations=20 || status=1; \
	exit $$status

# mypy reads its settings from pyproject.toml and keeps its cache in .mypy_cache/ (git ignores it),
# or in MYPY_CACHE_DIR when set (.ci/run keeps it outside the clone): a run after a small change
# takes seconds.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
