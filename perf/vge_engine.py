"""VGE speed checks; prints figures (targets in brackets).

1. engine step on a 40-state device, pure core (< 1 ms on average)
2. replay of 10,000 episodes of 20 turns, metrics included, one process (< 60 s)
3. 200 concurrent agent episodes through the HTTP API of a daphne server on 127.0.0.1 (no error;
   requests/s and p99 latency). Uses a throw-away var folder (SQLite), never the site's database.

Usage: .venv/bin/python perf/vge_engine.py [--skip-http] [--episodes 10000] [--agents 200]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.metrics import summarise
from scoring.benchmarks.vge.core.replay import Library, replay
from scoring.benchmarks.vge.core.task_defs import Task


def forty_state_device() -> dict:
    """A ring of 40 states over 6 components on two views, with waits, immediates and a dashboard."""
    comps = {f"c{i}": {"boxes": {"front" if i < 4 else "left": [100 + 200 * (i % 4), 100, 180 + 200 * (i % 4), 180]}}
             for i in range(6)}
    comps["c0"]["boxes"]["dashboard"] = [100, 100, 400, 400]
    comps["c0"]["boxes"]["front"] = [710, 710, 760, 760]
    states = {}
    actions = ["press", "rotate", "push", "pull", "grasp"]
    for i in range(40):
        on: dict = {}
        for k in range(3):
            comp = f"c{(i + k) % 6}"
            on.setdefault(comp, []).append({"next_state": f"s{(i + k + 1) % 40}", "atomic_action": actions[(i + k) % 5],
                                             "parameter": [str(k % 3)], "transition_description": f"step {k}"})
        if i % 5 == 0:
            on["timed_wait"] = [{"next_state": f"s{(i + 2) % 40}", "transition_description": "time passes"}]
        if i % 13 == 7:
            on = {"immediate": [{"next_state": f"s{(i + 1) % 40}", "transition_description": "it flips"}]}
        states[f"s{i}"] = {"description": f"state {i}", "error": i % 13 == 7, "on": on}
    views = {v: {"kind": "orthographic"} for v in ("front", "back", "left", "right", "top", "bottom")}
    views.update({"front_top": {"kind": "axonometric"}, "back_bottom": {"kind": "axonometric"},
                  "dashboard": {"kind": "dashboard", "unlock": {"view": "front", "box": [650, 650, 900, 900]}}})
    return {"format": "vge-device/1", "id": "bench40", "category": "Bench", "views": views, "components": comps,
            "initial_state": "s0", "states": states}


def random_outputs(rng: random.Random, engine: Engine, n: int) -> list[str]:
    """Plausible agent turns: clicks on and near boxes with varied actions, waits, switches, junk."""
    boxes = [b for c in engine.device.components.values() for b in c.boxes.values()]
    views = list(engine.device.views)
    names = ["Press", "Rotate", "Push", "Pull", "Grasp"]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.6:
            x1, y1, x2, y2 = rng.choice(boxes)
            x, y = rng.randint(max(0, x1 - 30), min(1000, x2 + 30)), rng.randint(max(0, y1 - 30), min(1000, y2 + 30))
            out.append(f"Thinking: try it.\nAction: {rng.choice(names)}(coord=[{x}, {y}], params=[{rng.randint(0, 2)}])")
        elif r < 0.75:
            out.append("Action: Timed_wait()")
        elif r < 0.95:
            out.append(f"Action: Switch_view(params=[{rng.choice(views)}])")
        else:
            out.append("I am not sure.")
    return out


def bench_step() -> None:
    device = load_device(forty_state_device())
    engine = Engine(device)
    task = Task("bench40/t", "bench40", "s0", "front", ("s21", "s36"), ("a", "b"), 1000)
    rng = random.Random(1)
    outputs = random_outputs(rng, engine, 20000)
    state = engine.new_episode(task)
    start = time.perf_counter()
    steps = 0
    for text in outputs:
        if state.done:
            state = engine.new_episode(task)
        state, _ = engine.step(state, text)
        steps += 1
    elapsed = time.perf_counter() - start
    print(f"[1] engine step, 40-state device: {steps} steps, {1000 * elapsed / steps:.4f} ms/step (target < 1 ms)")


def bench_replay(episodes: int) -> None:
    devices, tasks = build_library(seed=7)
    library = Library([load_device(d) for d in devices])
    # lambda 20 so budgets rarely cut an episode short of its 20 turns
    long_tasks = [Task(t.id, t.device, t.start_state, t.start_view, t.goals, t.instructions, 20) for t in tasks]
    for t in long_tasks:
        library.add_task(t)
    rng = random.Random(2)
    logs = []
    for i in range(episodes):
        task = long_tasks[i % len(long_tasks)]
        logs.append((task, random_outputs(rng, library.engine_for(task.id), 20)))
    start = time.perf_counter()
    results = [replay(library.engine_for(task.id), task, outputs) for task, outputs in logs]
    summary = summarise([r.metrics for r in results])
    elapsed = time.perf_counter() - start
    turns = sum(r.metrics.turns for r in results)
    print(f"[2] replay: {episodes} episodes, {turns} turns ({turns / episodes:.1f}/episode) with metrics in "
          f"{elapsed:.1f} s (target < 60 s); SR {summary['SR']:.1f}, EIR {summary['EIR']:.1f}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _agents(base: str, token: str, task_ids: list[str], agents: int, turns: int) -> tuple[list[float], int, int]:
    import httpx

    latencies: list[float] = []
    samples: list[str] = []
    errors = 0
    requests = 0
    headers = {"Authorization": f"Token {token}"}
    limits = httpx.Limits(max_connections=agents, max_keepalive_connections=agents)
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120, limits=limits) as client:

        async def call(method: str, url: str, **kw):
            nonlocal errors, requests
            t0 = time.perf_counter()
            response = await client.request(method, url, **kw)
            latencies.append(time.perf_counter() - t0)
            requests += 1
            if response.status_code >= 400:
                errors += 1
                if len(samples) < 5:
                    samples.append(f"{method} {url} -> {response.status_code} {response.text[:200]}")
            return response

        async def agent(i: int) -> None:
            rng = random.Random(i)
            r = await call("POST", "/api/vge/episodes/", json={"task": task_ids[i % len(task_ids)]})
            if r.status_code != 201:
                return
            episode = r.json()["episode"]
            for _ in range(turns):
                x, y = rng.randint(0, 1000), rng.randint(0, 1000)
                r = await call("POST", f"/api/vge/episodes/{episode}/act/",
                               json={"output": f"Action: Press(coord=[{x}, {y}], params=[0])"})
                if r.status_code != 200 or r.json()["done"]:
                    break
            await call("GET", f"/api/vge/episodes/{episode}/")

        await asyncio.gather(*(agent(i) for i in range(agents)))
    for line in samples:
        print("    error:", line)
    return latencies, errors, requests


def bench_http(agents: int, turns: int) -> None:
    with tempfile.TemporaryDirectory(prefix="vge-bench-") as var:
        env = dict(os.environ, EBH_VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings")
        env.pop("DATABASE_URL", None)
        py = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable

        def run(*a: str) -> subprocess.CompletedProcess:
            return subprocess.run([py, "manage.py", *a], cwd=ROOT, env=env, check=True, capture_output=True, text=True)

        run("migrate", "--noinput")
        run("make_demo_vge")
        token = run("shell", "-c", (
            "from django.contrib.auth.models import User; from rest_framework.authtoken.models import Token;"
            "u=User.objects.create_user('bench', password='x'); print(Token.objects.create(user=u).key)"
        )).stdout.strip().splitlines()[-1]
        task_ids = run("shell", "-c", "from simulator.models import Task; print(' '.join(Task.objects.values_list('task_id', flat=True)))").stdout.strip().splitlines()[-1].split()
        port = _free_port()
        server = subprocess.Popen([py, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.2)
            start = time.perf_counter()
            latencies, errors, requests = asyncio.run(_agents(f"http://127.0.0.1:{port}", token, task_ids, agents, turns))
            elapsed = time.perf_counter() - start
        finally:
            server.terminate()
            _, stderr = server.communicate(timeout=20)
        if errors:
            tail = [line for line in stderr.decode(errors="replace").splitlines() if "Error" in line or "error" in line]
            print("    server log:", *tail[-8:], sep="\n      ")
        latencies.sort()
        p99 = latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan")
        print(f"[3] HTTP: {agents} concurrent agent episodes, {requests} requests, {errors} errors, "
              f"{requests / elapsed:.1f} requests/s, p50 {1000 * statistics.median(latencies):.0f} ms, "
              f"p99 {1000 * p99:.0f} ms, {elapsed:.1f} s in all (target: no error)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10000)
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--turns", type=int, default=5, help="act calls per agent episode")
    parser.add_argument("--skip-http", action="store_true")
    args = parser.parse_args()
    bench_step()
    bench_replay(args.episodes)
    if not args.skip_http:
        bench_http(args.agents, args.turns)


if __name__ == "__main__":
    main()
