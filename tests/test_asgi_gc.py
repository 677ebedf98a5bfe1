"""The served process's start-up objects are out of the garbage collector's way: config.asgi freezes what importing
it made (modules, settings, the URLconf's views), so a full collection walks only what serving made since. Before,
every full collection walked ~200,000 start-up objects, 100-250 ms holding the GIL every few seconds under 200
agents: the agent socket's latency tail (perf/serving.py --paced)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
