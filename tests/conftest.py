"""Shared fixtures. Integration tests need the real services named in the environment: without them they skip
with the reason, except under CI (CI=true), where a missing service fails the run."""
from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import pytest
from hypothesis import settings

# Property tests check what holds, not how fast: no per-example deadline (Hypothesis' default, 200 ms, fails a
# correct example on a loaded 2-core machine; speed is measured by the perf/ scripts).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

SERVICE_VARS = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "AMQP_BROKER_URL")
DEFAULT_PORTS = {"postgres": 5432, "postgresql": 5432, "redis": 6379, "amqp": 5672, "pyamqp": 5672}


def _unreachable_services() -> list[str]:
    problems = []
    for var in SERVICE_VARS:
        url = os.environ.get(var, "")
        parsed = urlparse(url)
        if parsed.scheme not in DEFAULT_PORTS:
            continue
        host, port = parsed.hostname or "127.0.0.1", parsed.port or DEFAULT_PORTS[parsed.scheme]
        try:
            socket.create_connection((host, port), timeout=2).close()
        except OSError as exc:
            problems.append(f"{var}={url} ({host}:{port}: {exc})")
    return problems


def _needs_real_services(item: pytest.Item) -> bool:
    """Integration tests and the fault suite run only against the real services."""
    return item.get_closest_marker("integration") is not None or item.get_closest_marker("faults") is not None


def _needs_services(item: pytest.Item) -> bool:
    return _needs_real_services(item) or any(
        urlparse(os.environ.get(var, "")).scheme in DEFAULT_PORTS for var in SERVICE_VARS
    )


@pytest.hookimpl(trylast=True)  # after `-m` has deselected what this run leaves out
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    integration = [item for item in items if _needs_real_services(item)]
    configured = any(urlparse(os.environ.get(var, "")).scheme in DEFAULT_PORTS for var in SERVICE_VARS)
    if not integration and not configured:
        return
    if integration and not configured:
        reason = "integration or fault test: set DATABASE_URL / CELERY_BROKER_URL / REDIS_URL to real services (make test does)"
        problems = [reason]
    else:
        problems = _unreachable_services()
    if not problems:
        return
    message = "services unreachable: " + "; ".join(problems)
    if os.environ.get("CI", "").lower() == "true":
        raise pytest.UsageError(f"CI=true and {message}")
    for item in items:
        if _needs_services(item):
            item.add_marker(pytest.mark.skip(reason=message))


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete():
    """A transactional test ends with a flush of every table. On PostgreSQL Django's is one TRUNCATE of all 73 tables,
    ~3 s however few rows they hold (each table and index gets new files); a DELETE from each takes ~0.05 s for the
    rows a test makes. The end state is the same, every table empty (foreign keys are checked at the commit, so the
    order does not matter); a flush that resets sequences or cascades beyond its tables stays Django's."""
    from django.db import connection

    if connection.vendor != "postgresql":
        yield
        return
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return ["SET CONSTRAINTS ALL DEFERRED"] + [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};" for table in tables
        ]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = truncate


@pytest.fixture(scope="session", autouse=True)
def _site_rows_survive_a_flush():
    """A transactional test ends by flushing every table, the data migration's rows too (the three benchmarks, their
    paper test splits, the roles). Run one at a time, pytest-django puts transactional tests last, so nothing after
    them missed the rows; on pytest-xdist processes a later test in the same process would find no benchmark. A
    flush sends post_migrate: the rows are made again then, by the migration's own (idempotent) function."""
    import importlib

    from django.apps import apps
    from django.db.models.signals import post_migrate

    seed = importlib.import_module("scoring.migrations.0002_benchmarks_and_roles").forwards
    scoring_app = apps.get_app_config("scoring")

    def seed_again(sender, **kwargs):
        seed(apps, None)
        # and what 0011_phases made of the paper test splits' daily quota: a phase each
        from scoring.models import Phase, Split

        for split in Split.objects.filter(name="test", phase__isnull=True).select_related("benchmark"):
            split.phase = Phase.objects.get_or_create(benchmark=split.benchmark, slug="test",
                                                      defaults={"name": "Test", "daily_quota": 5,
                                                                "opens_at": split.created_at})[0]
            split.save(update_fields=["phase"])

    post_migrate.connect(seed_again, sender=scoring_app, weak=False, dispatch_uid="tests-seed-again")
    yield
    post_migrate.disconnect(sender=scoring_app, dispatch_uid="tests-seed-again")


@pytest.fixture(autouse=True)
def _local_board_responses():
    """Each test starts without cached board responses and split lookups, this process's copies and the shared
    cache's (a test's database is not the previous test's: on PostgreSQL a split made again gets a new id, so a
    lookup cached by an earlier test pointed the board at a split of that test)."""
    from django.core.cache import cache

    from leaderboard.selectors import board_local_responses_clear

    cache.clear()
    board_local_responses_clear()
    yield
    board_local_responses_clear()


@pytest.fixture
def register_benchmark():
    """Register benchmark plugins for one test; the registry is as it was afterwards."""
    from scoring import benchmarks

    replaced = []

    def register(plugin):
        replaced.append((plugin.slug, benchmarks.register(plugin)))

    yield register
    for slug, previous in reversed(replaced):
        benchmarks.unregister(slug, restore=previous)


@pytest.fixture
def dummy_benchmark(register_benchmark):
    """The test suite's "dummy" benchmark (tests/dummy_scorer.py), registered for one test."""
    from tests.dummy_scorer import PLUGIN

    register_benchmark(PLUGIN)
    return PLUGIN


@pytest.fixture
def celery_eager():
    """Run Celery tasks in the calling process (the app's own config, whatever order tests ran in)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = previous


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-123")


def user_in_group(django_user_model, username: str, group: str):
    """A user named `username` (password pw-<username>-123) in the group `group` (made if missing)."""
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(username, password=f"pw-{username}-123")
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture
def curator(django_user_model):
    """carol, in the curator group."""
    return user_in_group(django_user_model, "carol", "curator")


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def token_client(api_client, user):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return api_client


# --- real browser and a real ASGI server ------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server, its static files served as the site serves them (WhiteNoise, with its headers:
    the annotation editor is cross-origin isolated, and its decoder's worker script must say so) instead of by
    Django's test static handler."""
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer(request.config.getvalue("liveserver") or "localhost", start=False)
    server.thread.static_handler = lambda handler: handler  # the site's own middleware stack, WhiteNoise included
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chromium():
    """The system Chromium driven by Playwright (never a downloaded browser)."""
    if not os.path.exists(CHROMIUM):
        message = f"browser test: {CHROMIUM} is missing (make test installs Debian's chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


def login_page(page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("form.form button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def subprocess_database_url() -> str:
    """DATABASE_URL of the test database, for processes a test starts (workers, servers)."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


# The tests that ask for `asgi_server` share one daphne process per flavour (eager or queueing) for the whole run,
# started at the first such test: starting one per test cost a Django import and an application start each time. Its
# media folder is the one those tests' MEDIA_ROOT points at (emptied before each of them); before the test's database
# is flushed, the server waits until the test's pages and requests are gone and forgets what it keeps in memory
# (tests/asgi_app.py). A server that cannot get quiet, or that died, is replaced by a fresh one.
ASGI_SERVER_FIXTURES = frozenset({"asgi_server", "asgi_server_queueing"})


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory, request):
    """Every test writes files under its own folder, never into var/media (a test served by the shared ASGI server:
    the server's media folder, emptied first)."""
    if ASGI_SERVER_FIXTURES.isdisjoint(request.fixturenames):
        settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")
        return
    import shutil

    media = _shared_media_root(tmp_path_factory)
    shutil.rmtree(media, ignore_errors=True)
    media.mkdir(parents=True)
    settings.MEDIA_ROOT = media


def _shared_media_root(tmp_path_factory):
    return tmp_path_factory.getbasetemp() / "asgi-server-media"


@pytest.fixture
def asgi_server(transactional_db, _asgi_servers, request):
    """A daphne process (HTTP + websockets) on the test database, on a free loopback port; it scores uploads
    itself (Celery tasks run eagerly).

    Use with data committed by the test (this fixture implies a transactional database). Shared with the other
    tests that use it: the test's media folder is the server's, and what the server keeps in memory is forgotten
    after the test."""
    yield from _asgi_servers.serve(request, eager=True)


@pytest.fixture
def asgi_server_queueing(transactional_db, _asgi_servers, request):
    """As `asgi_server`, but uploads go to the configured broker for a worker process to score (the embedded
    default: the filesystem broker and the in-memory channel layer, so the worker cannot reach the server's
    websockets through the layer)."""
    yield from _asgi_servers.serve(request, eager=False)


@pytest.fixture(scope="session")
def _asgi_servers(django_db_setup, tmp_path_factory):
    servers = _AsgiServers(tmp_path_factory)
    yield servers
    servers.stop()


class _AsgiServers:
    def __init__(self, tmp_path_factory):
        self.media = _shared_media_root(tmp_path_factory)
        self.logs = tmp_path_factory.mktemp("asgi-server-logs")
        self.running: dict[bool, tuple] = {}  # eager -> (process, url)
        self.started = 0

    def serve(self, request, *, eager: bool):
        import json
        import urllib.request

        from tests.asgi_app import RESET_PATH

        process, url = self.running.get(eager) or (None, None)
        if process is None or process.poll() is not None:
            process, url = self.running[eager] = self._start(eager=eager)
        yield url
        if "chromium" in request.fixturenames:  # the test's pages close before the server forgets what it kept
            for context in request.getfixturevalue("chromium").contexts:
                context.close()
        quiet = False
        if process.poll() is None:
            try:
                with urllib.request.urlopen(url + RESET_PATH, timeout=60) as answer:
                    quiet = json.loads(answer.read())["open"] == 0
            except OSError:
                quiet = False
        if not quiet:  # still serving something of this test, or dead: the next test gets a fresh server
            self._stop(process)
            del self.running[eager]

    def _start(self, *, eager: bool):
        import subprocess
        import sys
        import time
        from pathlib import Path

        root = Path(__file__).resolve().parent.parent
        env = dict(os.environ, DATABASE_URL=subprocess_database_url())
        env.update(
            MEDIA_ROOT=str(self.media),
            PYTHONPATH=str(root),
            CELERY_TASK_ALWAYS_EAGER="true" if eager else "false",
            EXTRA_BENCHMARKS="tests.dummy_scorer:PLUGIN",
        )
        self.media.mkdir(parents=True, exist_ok=True)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        self.started += 1
        log_path = self.logs / f"daphne-{self.started}.log"
        log = log_path.open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "tests.asgi_app:application"],
            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError as exc:
                if process.poll() is not None:
                    raise RuntimeError(log_path.read_text()) from exc
                time.sleep(0.2)
        return process, f"http://127.0.0.1:{port}"

    @staticmethod
    def _stop(process) -> None:
        import subprocess

        # daphne's graceful stop waits for open connections: give it a few seconds, then end it
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def stop(self) -> None:
        for process, _url in self.running.values():
            self._stop(process)
        self.running.clear()
