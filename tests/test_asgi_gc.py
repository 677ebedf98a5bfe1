"""The served process's start-up objects are out of the garbage collector's way: config.asgi freezes what importing
it made (modules, settings, the URLconf's views), so a full collection walks only what serving made since. Before,
every full collection walked ~200,000 start-up objects, 100-250 ms holding the GIL every few seconds under 200
agents: the agent socket's latency tail (perf/serving.py --paced)."""
from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from config.warm_up import frozen_after_warm_up

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import gc, json
import config.asgi
from django.urls import get_resolver
get_resolver().url_patterns  # what the first request imports: already there
gc.collect()
print(json.dumps({"frozen": gc.get_freeze_count(), "walked": len(gc.get_objects())}))
"""


def test_importing_the_asgi_application_freezes_the_start_up_objects(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(EBH_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    # nearly every object is frozen; a full collection walks a small remainder
    assert found["frozen"] > 50_000
    assert found["walked"] < found["frozen"] / 10


def test_what_the_first_requests_leave_is_frozen_once():
    # Given an application wrapped as the served one is, its first requests leaving objects behind
    kept = []

    async def app(scope, receive, send):
        kept.append([{"request": len(kept)}])  # lives on, as a compiled template or a board's kept rows do

    served = frozen_after_warm_up(app, requests=3)

    def frozen(obj) -> bool:  # the collector's generations hold every tracked object but the frozen ones
        return not any(o is obj for o in gc.get_objects())

    # (Counts of frozen objects are no witness: an object frozen before, by config.asgi's import in another test of
    # this process, may be freed meanwhile.)
    try:
        # When two requests were served (and a websocket, which does not count), nothing they left is frozen
        for scope in ({"type": "http"}, {"type": "websocket"}, {"type": "http"}):
            asyncio.run(served(scope, None, None))
        assert not frozen(kept[0]) and not frozen(kept[2])
        # When the third was, what they left is frozen: out of every later collection's walk
        asyncio.run(served({"type": "http"}, None, None))
        assert all(frozen(k) for k in kept)
        # and never again after
        asyncio.run(served({"type": "http"}, None, None))
        assert not frozen(kept[-1])
    finally:
        gc.unfreeze()
