# Two commands do everything on a fresh machine: `make run` (the site with demo data) and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements-installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The services this machine runs, used by the integration part of `make test`.
PG_URL ?= postgres://postgres@127.0.0.1:5432/ebh
REDIS_BROKER_URL ?= redis://127.0.0.1:6379/14
REDIS_LAYER_URL ?= redis://127.0.0.1:6379/13
AMQP_URL ?= amqp://guest:guest@127.0.0.1:5672//
# Stages 7 and 8 of `make test` run beside stages 5 and 6, on a database and Redis databases of their own.
PG_FAULTS_URL ?= postgres://postgres@127.0.0.1:5432/ebh_faults
REDIS_FAULTS_BROKER_URL ?= redis://127.0.0.1:6379/12
REDIS_FAULTS_LAYER_URL ?= redis://127.0.0.1:6379/11

.PHONY: run serve test test-workers-redis test-rabbitmq-faults lint setup venv browser demo check-core clean static-vendor

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

venv: $(STAMP)

# Browser packages from the npm registry (package-lock.json), never a CDN: onnxruntime-web runs SAM's decoder in
# the editor. Only the files the editor loads are copied into static/vendor/ (git-ignored), for collectstatic.
NPM_STAMP := node_modules/.package-lock.json
ORT_DIST := node_modules/onnxruntime-web/dist
ORT_STATIC := static/vendor/onnxruntime-web
$(NPM_STAMP): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

static-vendor: $(NPM_STAMP)
	mkdir -p $(ORT_STATIC)
	cp $(ORT_DIST)/ort.wasm.bundle.min.mjs $(ORT_DIST)/ort-wasm-simd-threaded.wasm $(ORT_STATIC)/

# Chromium for the browser tests: Debian's package, never a browser download.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "note: /usr/bin/chromium is missing and this is not root; browser tests will skip"; fi; \
	fi

setup: venv static-vendor
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_published
	$(BIN)/python manage.py collectstatic --noinput -v 0

demo: setup
	$(BIN)/python manage.py make_demo

run: demo
	@scripts/serve.sh $(HOST) $(PORT)

# The production profile (supervisord.conf, run by supervisord in the foreground; each program that dies is started
# again) on the services DATABASE_URL, REDIS_URL and CELERY_BROKER_URL name: several ASGI workers, scoring workers
# with concurrency, the embeddings worker, beat. Logs in var/log. docs/deploy.md.
serve: setup
	@scripts/serve.sh --prod $(HOST) $(PORT)

# The lint and type gate (pyproject.toml): ruff on the whole tree, mypy on every pure core/ package, the registry
# and the plugins. A few seconds; `make test` runs it first.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

# Tests keep their files (SQLite test database, broker folder) in var/test, away from the running site's.
# The suite runs twice: on the embedded default (SQLite) and on PostgreSQL, so a query or a column that only
# SQLite accepts fails here and not in production. Tests that start no processes of their own run on
# TEST_WORKERS pytest-xdist processes (each with its own test database). Browser, worker, integration and fault
# tests start servers, workers or Chromium and run one at a time within their stage: worker tests share the broker
# (a worker takes any test's job, a purge drops them all), and browser tests run beside nothing, because some bound
# a duration (`timing`) and page loads time out when two Chromiums share 2 cores under load. Every worker test runs
# on the embedded default and on Redis; on RabbitMQ, those marked `broker`, whose outcome hangs on how the broker
# delivers.
TEST_WORKERS ?= 2
PARALLEL := not browser and not worker and not integration and not faults and not timing
test: export EBH_VAR_DIR = $(CURDIR)/var/test
test: setup browser
	@echo "== 1/8 lint: ruff, and mypy on the cores and plugins (make lint) =="
	@$(MAKE) --no-print-directory lint
	@echo "== 2/8 the suite on the embedded default (SQLite), $(TEST_WORKERS) processes =="
	$(BIN)/python -m pytest -m "$(PARALLEL)" -n $(TEST_WORKERS) --dist loadfile
	@echo "== 3/8 browser tests on the embedded default (SQLite, filesystem broker, real Chromium), beside nothing =="
	$(BIN)/python -m pytest -m "browser and not integration and not faults"
	@echo "== 4/8 the suite on PostgreSQL, $(TEST_WORKERS) processes (tests/**/core/ aside: pure, no database) =="
	DATABASE_URL=$(PG_URL) $(BIN)/python -m pytest -m "$(PARALLEL)" -n $(TEST_WORKERS) --dist loadfile \
	  --ignore-glob='tests/*/core/*'
	@echo "== 5/8 and 6/8 beside 7/8 and 8/8 (each side printed whole when it ends) =="
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-workers-redis test-rabbitmq-faults

# Stages 5 to 8 wait on the processes they start (workers, servers, brokers), not on the CPU, so they run on two
# sides at once: the worker tests on the embedded default then on Redis, beside the RabbitMQ ones then the fault
# suite (those two share RabbitMQ). Each side has its own PostgreSQL database, Redis databases and var folder (the
# filesystem broker's), so no worker of one side takes the other's jobs and no purge or flush reaches it.
test-workers-redis: export EBH_VAR_DIR = $(CURDIR)/var/test
test-workers-redis:
	@echo "== 5/8 worker tests on the embedded default (SQLite, filesystem broker) =="
	$(BIN)/python -m pytest -m "worker and not browser and not integration and not faults"
	@echo "== 6/8 integration and worker tests: PostgreSQL, Redis (broker and channel layer) =="
	DATABASE_URL=$(PG_URL) CELERY_BROKER_URL=$(REDIS_BROKER_URL) REDIS_URL=$(REDIS_LAYER_URL) \
	  $(BIN)/python -m pytest -m "(integration or worker) and not faults"

test-rabbitmq-faults: export EBH_VAR_DIR = $(CURDIR)/var/test-faults
test-rabbitmq-faults:
	@echo "== 7/8 worker tests whose outcome hangs on the broker: PostgreSQL, RabbitMQ =="
	DATABASE_URL=$(PG_FAULTS_URL) CELERY_BROKER_URL=$(AMQP_URL) \
	  $(BIN)/python -m pytest -m "worker and broker and not faults"
	@echo "== 8/8 fault suite and schema fuzz (tests/faults/): PostgreSQL, Redis, RabbitMQ =="
	DATABASE_URL=$(PG_FAULTS_URL) CELERY_BROKER_URL=$(REDIS_FAULTS_BROKER_URL) REDIS_URL=$(REDIS_FAULTS_LAYER_URL) \
	  AMQP_BROKER_URL=$(AMQP_URL) $(BIN)/python -m pytest -m "faults" -s

clean:
	rm -rf var
