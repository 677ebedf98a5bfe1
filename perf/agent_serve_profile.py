"""Profile served agent steps: uvicorn in this process (as `make run` serves: SQLite, in-memory channel layer), loaded
by N agents from a second process, with cProfile in every thread (the event loop's and the worker threads that
play steps), merged into one table. Where perf/agent_step_profile.py profiles a step's functions without a server,
this one includes the socket or HTTP framing, the consumer, the thread hops and the answer's encoding.

Usage: .venv/bin/python perf/agent_serve_profile.py [--path socket|http] [--agents 200] [--seconds 10]
           [--sort tottime|cumulative] [--top 45] [--no-profile]

Prints the served steps/s and p50/p99 (profiler on, so lower than perf/serving.py's), the profile, and the CPU time of
the server's threads per step.
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import sqlite3
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOAD = """
import asyncio, json, sys
from perf.serving import load_agents, load_agents_socket
path, port, token, agents, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
tasks = sys.argv[6].split()
load = load_agents_socket if path == "socket" else load_agents
print(json.dumps(asyncio.run(load("127.0.0.1", port, token, tasks, agents, seconds)).summary()))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", choices=["socket", "http"], default="socket")
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="agent-serve-profile-")
    os.environ.update(EBH_VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings")
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()
    import uvicorn
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connections
    from rest_framework.authtoken.models import Token

    from config.asgi import application
    from perf.serving import free_port, load_agents_socket
    from simulator import agent_socket
    from simulator.models import Task

    call_command("migrate", verbosity=0)
    call_command("make_demo_vge", verbosity=0)
    key = Token.objects.create(user=User.objects.create_user("prof", password="x")).key
    tasks = " ".join(Task.objects.values_list("task_id", flat=True))
    connections.close_all()

    database = settings.DATABASES["default"]["NAME"]

    def stored() -> int:
        """Steps stored so far (read beside the server, not through it)."""
        with closing(sqlite3.connect(database)) as db:
            return db.execute("SELECT COUNT(*) FROM simulator_step").fetchone()[0]

    window: list[float] = []
    profiles: list[cProfile.Profile] = []
    thread_cpu: dict[int, float] = {}
    profiling = threading.Event()

    def profiled_threads() -> None:
        """Every thread the server starts from now on runs under its own cProfile (threading.setprofile)."""
        def start(*_: object) -> None:
            if not profiling.is_set():
                return
            profile = cProfile.Profile()
            profiles.append(profile)
            sys.setprofile(None)
            profile.enable()
        threading.setprofile(start)

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=port, loop="uvloop", http="httptools",
                                           ws="websockets-sansio", log_level="warning", access_log=False))

    async def run() -> dict:
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        # warm the engines and the worker threads, then profile a fresh run
        await load_agents_socket("127.0.0.1", port, key, tasks.split(), 8, 1.0)
        load = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LOAD, args.path, str(port), key, str(args.agents), str(args.seconds), tasks,
            cwd=ROOT, stdout=asyncio.subprocess.PIPE)
        # the steady state only: after every agent has connected and started, before they stop
        await asyncio.sleep(args.seconds / 3)
        if not args.no_profile:
            profiling.set()
            profiled_threads()
            agent_socket.pool_shutdown()  # its threads and the writer's start again, under the profiler
            loop_profile = cProfile.Profile()
            profiles.append(loop_profile)
            loop_profile.enable()
        cpu_start, process_cpu, steps_start, began = time.thread_time(), time.process_time(), stored(), time.monotonic()
        await asyncio.sleep(args.seconds / 2)
        thread_cpu[0] = time.thread_time() - cpu_start
        thread_cpu[1] = time.process_time() - process_cpu
        window[:] = [stored() - steps_start, time.monotonic() - began]
        if not args.no_profile:
            loop_profile.disable()  # the worker threads' profiles run on to the load's end (a thread's own to stop)
            profiling.clear()
        out, _ = await load.communicate()
        server.should_exit = True
        await serving
        return json.loads(out.decode().strip().splitlines()[-1])

    summary = uvloop_run(run)
    engine_cpu = bare_engine_cpu_per_step()
    steps = window[0] or 1
    print(f"{args.path}, {args.agents} agents, {args.seconds:.0f} s, profiler {'off' if args.no_profile else 'on'}: "
          f"{summary['per_s']:.1f} steps/s, p50 {summary['p50_ms']:.1f} ms, p99 {summary['p99_ms']:.1f} ms, "
          f"{summary['errors']} errors; steady state (the middle half): {window[0] / window[1]:.1f} steps/s")
    print(f"server CPU per step in the steady state: {1000 * thread_cpu[1] / steps:.3f} ms (event loop thread "
          f"{1000 * thread_cpu[0] / steps:.3f} ms); a bare engine step: {1000 * engine_cpu:.4f} ms of CPU, so a "
          f"served step costs {thread_cpu[1] / steps / engine_cpu:.1f} engine steps")
    if args.no_profile:
        return
    stats = None
    for profile in profiles:
        profile.disable()
        if stats is None:
            stats = pstats.Stats(profile, stream=io.StringIO())
        else:
            stats.add(profile)
    out = io.StringIO()
    stats.stream = out
    stats.sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())


def bare_engine_cpu_per_step(seconds: float = 2.0) -> float:
    """CPU seconds of one bare engine step (perf/serving.py's loop), measured after the load: CPU time, not wall
    time, so that other processes on the machine count less."""
    from perf.serving import bare_engine_steps_per_s

    cpu, wall = time.process_time(), time.perf_counter()
    rate = bare_engine_steps_per_s(seconds)
    steps = rate * (time.perf_counter() - wall)
    return (time.process_time() - cpu) / steps


def uvloop_run(main):
    import uvloop

    return uvloop.run(main())


if __name__ == "__main__":
    main()
