"""The production profile (`make serve` = scripts/serve.sh --prod: the Procfile run by honcho) started once, with a
short smoke: the board page and the board API, an upload scored by the scoring worker, and one websocket episode
across several uvicorn worker processes on PostgreSQL and Redis. Then everything stops with one Ctrl+C."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token
from websockets.sync.client import connect

from simulator import services as vge_services
from tests.conftest import subprocess_database_url
from tests.scoring.factories import SampleFactory, SplitFactory
from tests.simulator.conftest import tiny_split  # noqa: F401 - the tiny VGE device and its tasks

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
SERVICES = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")


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
               WEB_WORKERS="2", SCORING_CONCURRENCY="2", SCORING_LEASE_SECONDS="300")
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(["bash", "scripts/serve.sh", "--prod", "127.0.0.1", str(port)], cwd=ROOT, env=env,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: process.poll() is None and httpx.get(f"{base}/healthz", timeout=5).status_code == 200,
                 timeout=45, what="the production profile to answer /healthz")
        yield base, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        print((tmp_path / "serve.log").read_text(errors="replace")[-4000:])


def test_production_profile_serves_the_board_scores_an_upload_and_plays_an_episode(
    production_site, tiny_split, user  # noqa: F811
):
    base, process = production_site
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
    episode = vge_services.episode_open_for_player(user=user, task_id="tiny/t2")
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

    # One Ctrl+C stops every process of the profile.
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=30)
    assert wait_for(lambda: not process_group_alive(process.pid), timeout=20, what="every process to stop")
