"""Profile agent API steps end to end in one process (pyinstrument), and count their queries.

Runs on a throw-away SQLite database (its own var folder): the demo VGE library, one user with a token, N episodes
stepped, by default as the ASGI act fast path plays them (simulator.asgi: token check, step, answer, JSON; no
network, no ASGI plumbing), with `--path drf` through Django's test client (the middleware and DRF stack).

Usage: .venv/bin/python perf/agent_step_profile.py [--steps 2000] [--path fast|drf] [--html out.html]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--html", help="also write pyinstrument's HTML report here")
    parser.add_argument("--all", action="store_true", help="show library frames too")
    parser.add_argument("--path", choices=["fast", "drf"], default="fast")
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="agent-profile-")
    os.environ.update(EBH_VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from pyinstrument import Profiler
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from simulator.models import Task

    call_command("migrate", verbosity=0)
    call_command("make_demo_vge", verbosity=0)
    user = User.objects.create_user("prof", password="x")
    from simulator.asgi import fast_operation, fast_played, fast_route

    key = Token.objects.create(user=user).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    task_ids = list(Task.objects.values_list("task_id", flat=True))
    rng = random.Random(1)

    def episode() -> int:
        return client.post("/api/vge/episodes/", {"task": rng.choice(task_ids)}, format="json").json()["episode"]

    def act(pk: int) -> tuple[int, dict]:
        x, y = rng.randint(0, 1000), rng.randint(0, 1000)
        output = f"Action: Press(coord=[{x}, {y}], params=[0])"
        if args.path == "fast":
            operation = fast_operation(fast_route(f"/api/vge/episodes/{pk}/act/"), {"output": output})
            status, answer, _ = fast_played(key, operation)
            json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
            return status, answer
        response = client.post(f"/api/vge/episodes/{pk}/act/", {"output": output}, format="json")
        return response.status_code, response.json()

    current = episode()
    act(current)  # warm the engine caches
    with CaptureQueriesContext(connection) as queries:
        act(current)
    print(f"queries in one step: {len(queries.captured_queries)}")
    for q in queries.captured_queries:
        print("   ", q["sql"][:160])
    profiler = Profiler(interval=0.0005)
    start, cpu = time.perf_counter(), time.process_time()
    profiler.start()
    for _ in range(args.steps):
        status, answer = act(current)
        if status != 200 or answer["done"]:
            current = episode()
    profiler.stop()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{args.steps} steps in {elapsed:.2f} s wall, {cpu:.2f} s CPU: {1000 * cpu / args.steps:.3f} ms CPU/step "
          f"in-process, profiler on ({args.steps / cpu:.0f} steps per CPU second, no network)")
    print(profiler.output_text(unicode=False, color=False, show_all=args.all))
    if args.html:
        Path(args.html).write_text(profiler.output_html())


if __name__ == "__main__":
    main()
