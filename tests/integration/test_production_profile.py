"""The production profile (`make serve` = scripts/serve.sh --prod: supervisord.conf run by supervisord), started
the way `make serve` starts it, on PostgreSQL and Redis:

- a short smoke: the board page and the board API, an upload scored by the scoring worker, and one websocket episode
  across several uvicorn worker processes; then everything stops with one Ctrl+C;
- a smoke that kills things: the scoring worker, the embeddings worker and one web process are SIGKILLed in turn;
  each comes back, /healthz answers all along, and an upload made while each is down is scored exactly once
  (issue 26, 7: under honcho one dead worker stopped the whole site)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token
from websockets.sync.client import connect

from scoring.models import SampleScore, Score, Submission
from simulator.services.episodes import episode_open_for_player
from tests.conftest import subprocess_database_url
from tests.scoring.factories import SampleFactory, SplitFactory
from tests.simulator.conftest import tiny_split  # noqa: F401 - the tiny VGE device and its tasks

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
SERVICES = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")
WEB_WORKERS = 2
PROGRAMS = {"scoring", "embeddings", "beat"} | {f"web:web-{n}" for n in range(WEB_WORKERS)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except (httpx.HTTPError, OSError):
            value = None
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def process_group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    # members that exited but wait to be reaped by their (gone) parent are zombies, not running
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(") ", 1)[1][0] != "Z"


def supervisorctl(env: dict[str, str], *args: str) -> str:
    return subprocess.run([str(ROOT / ".venv" / "bin" / "supervisorctl"), "-c", str(ROOT / "supervisord.conf"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=30).stdout


def program_pids(env: dict[str, str]) -> dict[str, int]:
    """Each running program of the profile (web:web-0, web:web-1, scoring, embeddings, beat) and its pid."""
    pids = {}
    for line in supervisorctl(env, "status").splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[1] == "RUNNING" and fields[2] == "pid":
            pids[fields[0]] = int(fields[3].rstrip(","))
    return pids


class HealthWatch(threading.Thread):
    """Asks /healthz every 0.2 s on a new connection each time, recording every answer that is not a 200.

    A GET whose connection closed without an answer is asked once more at once, on a new connection, as browsers and
    proxies retry an idempotent request (RFC 9110, 9.2.2): it was accepted by the web process that was killed and died
    with it. Such requests are kept in `retried`; only the retry's answer counts. A refused connection (nobody
    listening) is not retried."""

    def __init__(self, base: str):
        super().__init__(daemon=True)
        self.base, self.answers, self.failures, self.retried = base, 0, [], []
        self.stopped = threading.Event()

    def ask(self) -> int | str:
        try:
            return httpx.get(f"{self.base}/healthz", timeout=5).status_code
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}"

    def run(self) -> None:
        while not self.stopped.is_set():
            status = self.ask()
            if isinstance(status, str) and status.startswith(("RemoteProtocolError", "ReadError")):
                self.retried.append((time.strftime("%H:%M:%S"), status))
                status = self.ask()
            self.answers += 1
            if status != 200:
                self.failures.append((time.strftime("%H:%M:%S"), status))
            self.stopped.wait(0.2)


@pytest.fixture
def production_site(settings, tmp_path):
    missing = [v for v in SERVICES if not os.environ.get(v)]
    if missing or connection.vendor != "postgresql":
        message = f"the production profile needs PostgreSQL and {', '.join(SERVICES)} (missing: {missing or 'PostgreSQL'})"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    port = free_port()
    env = dict(os.environ, DATABASE_URL=subprocess_database_url(), MEDIA_ROOT=str(settings.MEDIA_ROOT),
               EBH_VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT), EXTRA_BENCHMARKS="tests.dummy_scorer:PLUGIN",
               WEB_WORKERS=str(WEB_WORKERS), SCORING_CONCURRENCY="2", SCORING_LEASE_SECONDS="300")
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(["bash", "scripts/serve.sh", "--prod", "127.0.0.1", str(port)], cwd=ROOT, env=env,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    seen: set[int] = set()
    try:
        wait_for(lambda: process.poll() is None and httpx.get(f"{base}/healthz", timeout=5).status_code == 200,
                 timeout=120, what="the production profile to answer /healthz")
        wait_for(lambda: set(program_pids(env)) == PROGRAMS, timeout=60, what="every program to be running")
        seen.update(program_pids(env).values())
        yield base, process, env
    finally:
        seen.update(program_pids(env).values())
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        for pid in seen:  # supervisord's programs run in process groups of their own
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        print((tmp_path / "serve.log").read_text(errors="replace")[-4000:])
        for log in sorted((tmp_path / "log").glob("*.log")):
            print(f"--- {log.name} ---\n{log.read_text(errors='replace')[-1500:]}")


def test_production_profile_serves_the_board_scores_an_upload_and_plays_an_episode(
    production_site, tiny_split, user
):
    base, process, env = production_site
    programs = program_pids(env)
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy")
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    token = Token.objects.create(user=user).key
    web = httpx.Client(base_url=base, timeout=20)

    # The board page and the board API (several web processes answer; each reads the shared Redis cache).
    for _ in range(4):
        assert web.get("/leaderboard/vge-bench/?split=dev").status_code == 200
        api = web.get("/api/leaderboards/vge-bench/?split=dev")
        assert api.status_code == 200 and api.json()["split"] == "dev"

    # An upload through the API is scored by the scoring worker.
    response = web.post("/api/submissions/", headers={"Authorization": f"Token {token}"},
                        data={"benchmark": "dummy-bench", "split": split.name, "model": "Prod-VL-1B"},
                        files={"file": ("pred.txt", b"1\n1\n0\n0\n")})
    assert response.status_code == 201, response.text
    submission = response.json()["id"]
    scored = wait_for(lambda: (r := web.get(f"/api/submissions/{submission}/",
                                            headers={"Authorization": f"Token {token}"}).json())["status"] == "scored"
                      and r, timeout=40, what="the upload to be scored")
    assert scored["score"]["overall"] == 50.0

    # One websocket episode on the play socket, signed in with a session cookie.
    episode = episode_open_for_player(user=user, task_id="tiny/t2")
    browser = Client()
    browser.force_login(user)
    headers = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}", "Origin": base}
    with connect(f"ws://127.0.0.1:{base.rsplit(':', 1)[1]}/ws/vge/episodes/{episode.pk}/",
                 additional_headers=headers, open_timeout=10) as ws:
        state = json.loads(ws.recv(timeout=10))
        assert state["type"] == "state" and state["observation"]["turn"] == 0
        ws.send(json.dumps({"type": "act", "action": "switch_view", "coord": [800, 200]}))
        step = json.loads(ws.recv(timeout=10))
        assert step["type"] == "step" and step["step"]["kind"] == "switched"
        ws.send(json.dumps({"type": "act", "action": "press", "coord": [200, 300], "params": [0]}))
        step = json.loads(ws.recv(timeout=10))
        assert step["step"]["kind"] == "success" and step["observation"]["turn"] == 2
    episode.refresh_from_db()
    assert episode.state["turns"] == 2

    # One Ctrl+C stops every process of the profile (supervisord and each program, in groups of their own).
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=60)
    assert wait_for(lambda: not process_group_alive(process.pid), timeout=20, what="supervisord to stop")
    assert wait_for(lambda: not any(alive(pid) for pid in programs.values()), timeout=20,
                    what=f"every program to stop: {programs}")


def upload(base: str, token: str, split, model: str) -> int:
    """An upload on a connection of its own (a kept-alive one may be to the web process just killed)."""
    response = httpx.post(f"{base}/api/submissions/", timeout=20, headers={"Authorization": f"Token {token}"},
                        data={"benchmark": "dummy-bench", "split": split.name, "model": model},
                        files={"file": ("pred.txt", b"1\n1\n0\n0\n")})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def kill_and_wait_back(env: dict[str, str], program: str, meanwhile) -> int:
    """SIGKILL one program, call `meanwhile()` at once, and wait for supervisord to run it again; returns its new
    pid."""
    old = program_pids(env)[program]
    os.kill(old, signal.SIGKILL)
    meanwhile()
    return wait_for(lambda: (new := program_pids(env).get(program)) not in (None, old) and alive(new) and new,
                    timeout=30, what=f"{program} to be started again")


def test_killed_workers_and_web_process_come_back_and_the_site_keeps_answering(
    production_site, user, tmp_path
):
    base, process, env = production_site
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy")
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    token = Token.objects.create(user=user).key

    def ready_lines(program: str) -> int:
        return (tmp_path / "log" / f"{program}.log").read_text(errors="replace").count(" ready.")

    wait_for(lambda: ready_lines("scoring") and ready_lines("embeddings"), timeout=60, what="the workers to be ready")
    health = HealthWatch(base)
    health.start()
    uploads = []
    try:
        # The scoring worker dies; an upload made while it is down waits in the broker for the new one.
        kill_and_wait_back(env, "scoring", lambda: uploads.append(upload(base, token, split, "Kill-Scoring")))
        wait_for(lambda: ready_lines("scoring") >= 2, timeout=60, what="the new scoring worker to be ready")

        # The embeddings worker dies and comes back; scoring carries on meanwhile.
        kill_and_wait_back(env, "embeddings", lambda: uploads.append(upload(base, token, split, "Kill-Embeddings")))
        wait_for(lambda: ready_lines("embeddings") >= 2, timeout=60, what="the new embeddings worker to be ready")

        # One web process dies; the other answers on the same port until it is back.
        kill_and_wait_back(env, "web:web-0", lambda: uploads.append(upload(base, token, split, "Kill-Web")))
        wait_for(lambda: all(httpx.get(f"{base}/healthz", timeout=5).status_code == 200 for _ in range(6)),
                 timeout=30, what="both web processes to answer")

        # Every upload made meanwhile is scored, once.
        wait_for(lambda: Submission.objects.filter(pk__in=uploads, status="scored").count() == len(uploads),
                 timeout=90, what="the uploads to be scored")
    finally:
        health.stopped.set()
        health.join(timeout=10)
    for submission in Submission.objects.filter(pk__in=uploads):
        assert submission.attempts == 1, (submission.pk, submission.attempts)
        assert Score.objects.filter(submission=submission).count() == 1
        assert SampleScore.objects.filter(submission=submission).count() == 4
    assert set(program_pids(env)) == PROGRAMS, supervisorctl(env, "status")
    print(f"/healthz asked {health.answers} times while killing; not 200: {health.failures}; "
          f"lost with the killed web process and asked again: {health.retried}")
    assert health.answers > 20 and not health.failures, health.failures
    # The watcher asks one request at a time, so the killed web process can have held at most one of them.
    assert len(health.retried) <= 1, health.retried
