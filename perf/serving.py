"""Serving speed, side by side: the board page, the board API and the VGE agent API at 50 and 200 connections, on
the embedded default (one uvicorn process, SQLite, in-memory channel layer, local-memory cache: what `make run` serves) and on
the production profile (scripts/serve.sh --prod: supervisord.conf's uvicorn workers on PostgreSQL and Redis).

Prints requests/s (agent API: steps/s), p50, p99 and errors per path and set-up (the agent API also through its
batch form, --batch actions a request, and through the agent socket, ws/vge/agent/, one socket per agent), the bare
engine's steps/s in one process, and the ratio
of served agent steps/s to it (the serving overhead). Targets (issue 14), shown as MET / NOT MET:
  board page and board API at 50 connections: p99 < 200 ms (board API >= 1,000 req/s);
  agent API at 200 agents: embedded >= 300 steps/s and p99 < 1 s; production >= 600 steps/s and p99 < 500 ms;
  no errors anywhere.

Each set-up is built fresh in a temporary folder (the EPIC board at 100 rows as perf/board_load.py builds it, the
VGE demo library, one user with an API token). The production profile needs PostgreSQL and Redis: its database
(--pg-url, DROPPED and made again) and Redis databases (--redis-url, --broker-url, flushed) must be ones you own.

    .venv/bin/python perf/serving.py [--setup embedded --setup production] [--seconds 10]
        [--connections 50 --connections 200] [--pg-url postgres://postgres@127.0.0.1:5432/ebh_perf]
        [--redis-url redis://127.0.0.1:6379/2] [--broker-url redis://127.0.0.1:6379/1] [--web-workers 2]
        [--db-pool 6] [--only agent] [--batch 1] [--paced 10]

The load comes from this process: a small asyncio HTTP/1.1 keep-alive client (one connection per simulated
client), which costs far less CPU per request than a general client, since it shares the machine with the server.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg
import redis
import websockets

from perf.board_load import build_site
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.library import build_library

BOARD_PAGE = "/leaderboard/epic-bench/"
BOARD_API = "/api/leaderboards/epic-bench/"
SERVICE_VARS = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")


# --- a minimal HTTP/1.1 keep-alive client ---------------------------------------------------------------------------
class Connection:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
                      ) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        try:
            return await self._response()
        except (asyncio.IncompleteReadError, ConnectionError):
            self.close()
            raise

    async def _response(self) -> tuple[int, bytes]:
        assert self.reader is not None
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("connection closed by the server")
        status = int(status_line.split()[1])
        length, chunked, close = None, False, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readline()
                    break
                parts.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
            body = b"".join(parts)
        elif length is not None:
            body = await self.reader.readexactly(length)
        else:
            body = await self.reader.read()
            close = True
        if close:
            self.close()
        return status, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    samples: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    def add(self, seconds: float, ok: bool, what: str = "") -> None:
        self.latencies.append(seconds)
        if not ok:
            self.errors += 1
            if len(self.samples) < 3:
                self.samples.append(what)

    def summary(self) -> dict[str, float]:
        done = sorted(self.latencies)

        def pick(q: float) -> float:
            return 1000 * done[min(len(done) - 1, int(q * len(done)))] if done else float("nan")

        return {"requests": len(done), "per_s": len(done) / self.elapsed if self.elapsed else 0.0,
                "p50_ms": pick(0.5), "p99_ms": pick(0.99), "errors": self.errors}


async def load_get(host: str, port: int, path: str, connections: int, seconds: float) -> Figures:
    figures = Figures()
    deadline = time.monotonic() + seconds

    async def client() -> None:
        conn = Connection(host, port)
        while time.monotonic() < deadline:
            start = time.perf_counter()
            try:
                status, _ = await conn.request("GET", path, headers={"Accept": "application/json"}
                                               if path.startswith("/api/") else None)
                figures.add(time.perf_counter() - start, status == 200, f"GET {path} -> {status}")
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                figures.add(time.perf_counter() - start, False, f"GET {path}: {exc!r}")
        conn.close()

    began = time.monotonic()
    await asyncio.gather(*(client() for _ in range(connections)))
    figures.elapsed = time.monotonic() - began
    return figures


async def load_agents(host: str, port: int, token: str, task_ids: list[str], agents: int, seconds: float) -> Figures:
    """`agents` harness clients, each stepping one episode after another until time is up; counts act requests."""
    figures = Figures()
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    deadline = time.monotonic() + seconds

    async def agent(i: int) -> None:
        rng = random.Random(i)
        conn = Connection(host, port)
        episode = None
        while time.monotonic() < deadline:
            try:
                if episode is None:
                    body = json.dumps({"task": task_ids[rng.randrange(len(task_ids))]}).encode()
                    status, answer = await conn.request("POST", "/api/vge/episodes/", body, headers)
                    if status != 201:
                        figures.add(0.0, False, f"start -> {status} {answer[:120]!r}")
                        await asyncio.sleep(0.1)
                        continue
                    episode = json.loads(answer)["episode"]
                x, y = rng.randint(0, 1000), rng.randint(0, 1000)
                body = json.dumps({"output": f"Action: Press(coord=[{x}, {y}], params=[0])"}).encode()
                start = time.perf_counter()
                status, answer = await conn.request("POST", f"/api/vge/episodes/{episode}/act/", body, headers)
                ok = status == 200
                figures.add(time.perf_counter() - start, ok, f"act -> {status} {answer[:120]!r}")
                if not ok or json.loads(answer)["done"]:
                    episode = None
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                figures.add(0.0, False, f"agent {i}: {exc!r}")
                episode = None
                await asyncio.sleep(0.1)
        conn.close()

    began = time.monotonic()
    await asyncio.gather(*(agent(i) for i in range(agents)))
    figures.elapsed = time.monotonic() - began
    return figures


async def load_agents_batched(host: str, port: int, token: str, task_ids: list[str], agents: int, batch: int,
                              seconds: float) -> Figures:
    """The same `agents` episodes at once, driven by agents // batch harness clients that each send their episodes'
    actions together (POST /api/vge/episodes/act/). Counts steps (one per answered action); a step's latency is
    its request's."""
    figures = Figures()
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    deadline = time.monotonic() + seconds

    async def harness(i: int) -> None:
        rng = random.Random(1000 + i)
        conn = Connection(host, port)
        episodes: list[int | None] = [None] * batch
        while time.monotonic() < deadline:
            try:
                for slot, episode in enumerate(episodes):
                    if episode is None:
                        body = json.dumps({"task": task_ids[rng.randrange(len(task_ids))]}).encode()
                        status, answer = await conn.request("POST", "/api/vge/episodes/", body, headers)
                        if status != 201:
                            figures.add(0.0, False, f"start -> {status} {answer[:120]!r}")
                            continue
                        episodes[slot] = json.loads(answer)["episode"]
                live = [e for e in episodes if e is not None]
                actions = [{"episode": e, "output": f"Action: Press(coord=[{rng.randint(0, 1000)}, "
                                                    f"{rng.randint(0, 1000)}], params=[0])"} for e in live]
                start = time.perf_counter()
                status, answer = await conn.request("POST", "/api/vge/episodes/act/",
                                                    json.dumps({"actions": actions}).encode(), headers)
                took = time.perf_counter() - start
                if status != 200:
                    figures.add(took, False, f"batch -> {status} {answer[:120]!r}")
                    continue
                finished = set()
                for result in json.loads(answer)["results"]:
                    ok = result["status"] == 200
                    figures.add(took, ok, f"batch action -> {result['status']} {result.get('detail', '')[:80]}")
                    if not ok or result["done"]:
                        finished.add(result["episode"])
                episodes = [None if e in finished else e for e in episodes]
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                figures.add(0.0, False, f"harness {i}: {exc!r}")
                await asyncio.sleep(0.1)
        conn.close()

    began = time.monotonic()
    await asyncio.gather(*(harness(i) for i in range(max(1, agents // batch))))
    figures.elapsed = time.monotonic() - began
    return figures


async def load_agents_socket(host: str, port: int, token: str, task_ids: list[str], agents: int,
                             seconds: float, rate: float | None = None) -> Figures:
    """`agents` harness clients on the agent socket (ws/vge/agent/), one socket each, token sent once on the
    handshake, stepping one episode after another (reset / step) until time is up; counts steps.

    `rate` (steps/s, all agents together): paced agents, each sending its steps on a fixed schedule (rate / agents a
    second, each agent's schedule offset at random and started when its socket is open) instead of the moment it has
    its answer; a step's latency is counted from its scheduled time, so a server that falls behind its schedule shows
    it. None: saturated."""
    figures = Figures()
    deadline = time.monotonic() + seconds
    interval = agents / rate if rate else 0.0

    async def agent(i: int) -> None:
        rng = random.Random(2000 + i)
        try:
            # No per-message compression: the messages are a few hundred bytes, and deflating them cost both ends
            # more CPU than the engine's step (the agent socket's docs say so to harness authors).
            socket = await websockets.connect(f"ws://{host}:{port}/ws/vge/agent/", open_timeout=60,
                                              additional_headers={"Authorization": f"Token {token}"},
                                              max_size=2**22, compression=None)
        except (OSError, asyncio.TimeoutError, websockets.InvalidHandshake) as exc:
            figures.add(0.0, False, f"agent {i} connect: {exc!r}")
            return
        # The schedule starts once this agent's socket is open: the handshakes of 200 sockets opening at once are
        # not a step's latency (they made every latency of the top 1 % at a 3 % pace, all in the first 0.1 s).
        due = time.perf_counter() + rng.random() * interval
        episode_running = False
        try:
            while time.monotonic() < deadline:
                if not episode_running:
                    await socket.send(json.dumps({"type": "reset", "task": task_ids[rng.randrange(len(task_ids))]}))
                    answer = json.loads(await socket.recv())
                    if answer.get("status") != 201:
                        figures.add(0.0, False, f"reset -> {str(answer)[:120]}")
                        await asyncio.sleep(0.1)
                        continue
                    episode_running = True
                x, y = rng.randint(0, 1000), rng.randint(0, 1000)
                start = time.perf_counter()
                if interval:
                    if due > start:
                        await asyncio.sleep(due - start)
                    start, due = due, due + interval
                await socket.send(json.dumps({"type": "step",
                                              "output": f"Action: Press(coord=[{x}, {y}], params=[0])"}))
                answer = json.loads(await socket.recv())
                ok = answer.get("status") == 200
                figures.add(time.perf_counter() - start, ok, f"step -> {str(answer)[:120]}")
                if not ok or answer["done"]:
                    episode_running = False
        except (OSError, websockets.ConnectionClosed) as exc:
            figures.add(0.0, False, f"agent {i}: {exc!r}")
        finally:
            await socket.close()

    began = time.monotonic()
    await asyncio.gather(*(agent(i) for i in range(agents)))
    figures.elapsed = time.monotonic() - began
    return figures


# --- the bare engine ---------------------------------------------------------------------------------------------
BARE_CPU: list[float] = []  # CPU seconds per bare engine step, one per measurement (see server_cpu)


def bare_engine_steps_per_s(seconds: float = 3.0) -> float:
    """Steps/s of the VGE engine alone, one process, on the demo library with the agents' kind of output (and its CPU
    seconds per step, kept in BARE_CPU)."""
    devices, tasks = build_library(seed=7, variants=2)
    engines = {d["id"]: Engine(load_device(d)) for d in devices}
    rng = random.Random(3)
    steps, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        task = tasks[rng.randrange(len(tasks))]
        engine = engines[task.device]
        state = engine.new_episode(task)
        while not state.done:
            x, y = rng.randint(0, 1000), rng.randint(0, 1000)
            state, _ = engine.step(state, f"Action: Press(coord=[{x}, {y}], params=[0])")
            steps += 1
    BARE_CPU.append((time.process_time() - cpu) / max(steps, 1))
    return steps / (time.perf_counter() - start)


def server_cpu(process: subprocess.Popen) -> float:
    """CPU seconds (user and system, every thread) used so far by the server: its process and every process of its
    session. On a loaded machine, served steps per second swing with the other processes' share of the CPUs; the CPU
    a served step costs, against the CPU of a bare engine step, moves far less (Linux /proc; NaN elsewhere)."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return float("nan")
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == process.pid:  # the session id (the server starts a session of its own)
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


# --- the set-ups ---------------------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True).stdout


def prepare(env: dict[str, str], var: Path, board: bool = True) -> tuple[str, list[str]]:
    """Build the site in `env` (the EPIC board at 100 rows unless `board` is false, the VGE demo library, a token);
    (token, task ids)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        if board:
            build_site(var)
        else:
            manage(env, "migrate", "-v0")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    manage(env, "make_demo_vge")
    out = manage(env, "shell", "-c", (
        "from django.contrib.auth.models import User; from rest_framework.authtoken.models import Token;"
        "from simulator.models import Task; u = User.objects.create_user('perf', password='x');"
        "print(Token.objects.create(user=u).key); print(' '.join(Task.objects.values_list('task_id', flat=True)))"))
    token, tasks = out.strip().splitlines()[-2:]
    return token, tasks.split()


def reset_services(args: argparse.Namespace) -> None:
    """A fresh production database and empty Redis databases (they must be this run's own)."""
    url = urlparse(args.pg_url)
    name = url.path.lstrip("/")
    admin = args.pg_url.replace(f"/{name}", "/postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    for redis_url in {args.redis_url, args.broker_url}:
        if redis_url.startswith("redis"):
            redis.Redis.from_url(redis_url).flushdb()


def wait_ready(port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:  # an answer, not only a listening socket (uvicorn's workers start after its parent listens)
            status, _ = asyncio.run(Connection("127.0.0.1", port).request("GET", "/healthz"))
            if status == 200:
                return
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"nothing answered on port {port} within {timeout:.0f} s")


def start(setup: str, env: dict[str, str], port: int, args: argparse.Namespace, log: Path) -> subprocess.Popen:
    out = log.open("wb")
    if setup == "embedded" and args.embedded_server == "uvicorn":
        command = [str(Path(sys.executable).with_name("uvicorn")), "--host", "127.0.0.1", "--port", str(port),
                   "--loop", "uvloop", "--http", "httptools", "--ws", "websockets-sansio", "--no-access-log",
                   "config.asgi:application"]
    elif setup == "embedded":
        command = [str(Path(sys.executable).with_name("daphne")), "-b", "127.0.0.1", "-p", str(port),
                   "config.asgi:application"]
    else:
        env = dict(env, WEB_WORKERS=str(args.web_workers), DB_POOL_MAX_SIZE=str(args.db_pool))
        command = ["bash", "scripts/serve.sh", "--prod", "127.0.0.1", str(port)]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    wait_ready(port, process)
    return process


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


TARGETS = {  # (path, set-up, connections) -> (minimum per_s, maximum p99 ms)
    ("board page", "embedded", 50): (0, 200), ("board page", "production", 50): (0, 200),
    ("board API", "embedded", 50): (1000, 200), ("board API", "production", 50): (1000, 200),
    ("agent API", "embedded", 200): (300, 1000), ("agent API", "production", 200): (600, 500),
}


def report(rows: list[tuple[str, str, int, dict[str, float]]], bare: float, bares: list[float]) -> None:
    print()
    print(f"bare engine: {bare:,.0f} steps/s (one process, no server; the mean of "
          f"{', '.join(f'{b:,.0f}' for b in bares)}, measured before and after the set-ups); 100 engine steps take "
          f"{100_000 / bare:.1f} ms (issue 34: agent socket at 200 agents >= 10 % of the engine, p99 below that; "
          f"agent API >= 3 %)")
    print("(agent rows: req/s counts steps; 'conns' is the number of episodes played at once; agent batchN: the same\n"
          " episodes driven by conns/N harness clients through POST /api/vge/episodes/act/, N actions a request;\n"
          " sock pacedP%: the agent socket with each agent on a fixed schedule, all together P % of the bare engine at\n"
          " the start, latency counted from each step's scheduled time; the other agent rows are saturated: each agent\n"
          " sends its next step the moment it has its answer)")
    print(f"{'set-up':<11} {'path':<13} {'conns':>5} {'requests':>9} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'errors':>6}  {'served/bare':>11}  target")
    for setup, path, conns, f in rows:
        ratio = f"{f['per_s'] / bare:.4f}" if path.startswith(("agent", "sock")) and bare else ""
        target = TARGETS.get((path, setup, conns))
        verdict = ""
        if target:
            met = f["per_s"] >= target[0] and f["p99_ms"] < target[1] and f["errors"] == 0
            verdict = ("MET" if met else "NOT MET") + f" (>= {target[0]}/s, p99 < {target[1]} ms, 0 errors)"
        elif f["errors"]:
            verdict = "errors"
        print(f"{setup:<11} {path:<13} {conns:>5} {f['requests']:>9.0f} {f['per_s']:>9.1f} {f['p50_ms']:>8.1f} "
              f"{f['p99_ms']:>8.1f} {f['errors']:>6.0f}  {ratio:>11}  {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="append", choices=["embedded", "production"])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--embedded-server", choices=["daphne", "uvicorn"], default="uvicorn",
                        help="the embedded set-up's one web process (scripts/serve.sh runs uvicorn; daphne to compare)")
    parser.add_argument("--connections", action="append", type=int)
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432/ebh_perf")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/2")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/1")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--db-pool", type=int, default=6, help="PostgreSQL connections per web process")
    parser.add_argument("--only", action="append", choices=["board", "agent"], help="default: both")
    parser.add_argument("--batch", type=int, default=20, help="also drive the episodes through the batch form, "
                        "this many actions a request (1: not)")
    parser.add_argument("--paced", type=float, default=0, metavar="PERCENT",
                        help="also drive the agent socket with paced agents: together this percentage of the bare "
                        "engine's steps/s (measured at the start), each on a fixed schedule; its own row, beside the "
                        "saturated one (0: not)")
    args = parser.parse_args()
    setups = args.setup or ["embedded", "production"]
    args.only = args.only or ["board", "agent"]
    connections = args.connections or [50, 200]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    bares = [bare_engine_steps_per_s()]
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    rows: list[tuple[str, str, int, dict[str, float]]] = []
    cpu_steps: list[tuple[str, float, int]] = []  # (row, server CPU seconds, steps answered)
    for setup in setups:
        var = Path(tempfile.mkdtemp(prefix=f"serving-{setup}-"))
        env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
        env.update(EBH_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
        if setup == "production":
            reset_services(args)
            env.update(DATABASE_URL=args.pg_url, REDIS_URL=args.redis_url, CELERY_BROKER_URL=args.broker_url)
        print(f"[{setup}] building the site in {var} ...", flush=True)
        token, tasks = prepare(env, var, board="board" in args.only)
        port = free_port()
        process = start(setup, env, port, args, var / "server.log")
        try:
            for path, name in ((BOARD_PAGE, "board page"), (BOARD_API, "board API")) if "board" in args.only else ():
                asyncio.run(load_get("127.0.0.1", port, path, 4, 1.0))  # warm every worker's caches
                for conns in connections:
                    figures = asyncio.run(load_get("127.0.0.1", port, path, conns, args.seconds))
                    rows.append((setup, name, conns, figures.summary()))
                    print(f"[{setup}] {name} x{conns}: {rows[-1][3]}", *figures.samples, flush=True)
            asyncio.run(load_agents("127.0.0.1", port, token, tasks, 8, 2.0))  # warm the engines
            for conns in connections if "agent" in args.only else ():
                cpu = server_cpu(process)
                figures = asyncio.run(load_agents("127.0.0.1", port, token, tasks, conns, args.seconds))
                cpu_steps.append((f"{setup} agent API x{conns}", server_cpu(process) - cpu, len(figures.latencies)))
                rows.append((setup, "agent API", conns, figures.summary()))
                print(f"[{setup}] agent API x{conns}: {rows[-1][3]}", *figures.samples, flush=True)
                cpu = server_cpu(process)
                figures = asyncio.run(load_agents_socket("127.0.0.1", port, token, tasks, conns, args.seconds))
                cpu_steps.append((f"{setup} agent socket x{conns}", server_cpu(process) - cpu, len(figures.latencies)))
                rows.append((setup, "agent socket", conns, figures.summary()))
                print(f"[{setup}] agent socket x{conns}: {rows[-1][3]}", *figures.samples, flush=True)
                if args.paced:
                    rate = args.paced / 100 * bares[0]
                    figures = asyncio.run(load_agents_socket("127.0.0.1", port, token, tasks, conns, args.seconds,
                                                             rate=rate))
                    rows.append((setup, f"sock paced{args.paced:g}%", conns, figures.summary()))
                    print(f"[{setup}] agent socket x{conns}, paced at {rate:,.0f} steps/s in all ({args.paced:g} % of "
                          f"the bare engine at start): {rows[-1][3]}", *figures.samples, flush=True)
                if args.batch > 1:
                    figures = asyncio.run(load_agents_batched("127.0.0.1", port, token, tasks, conns, args.batch,
                                                              args.seconds))
                    rows.append((setup, f"agent batch{args.batch}", conns, figures.summary()))
                    print(f"[{setup}] agent API in batches of {args.batch}, {conns} episodes: {rows[-1][3]}",
                          *figures.samples, flush=True)
        finally:
            stop(process)
            shutil.rmtree(var, ignore_errors=True)
    bares.append(bare_engine_steps_per_s())  # the machine's load moves: the engine measured on both sides
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end")
    report(rows, sum(bares) / len(bares), bares)
    engine_cpu = sum(BARE_CPU) / len(BARE_CPU)
    print(f"\nCPU per step (less moved by the machine's load than steps/s): a bare engine step {1e6 * engine_cpu:.1f} us "
          f"of CPU (mean of {', '.join(f'{1e6 * c:.1f}' for c in BARE_CPU)})")
    for name, cpu, steps in cpu_steps:
        if steps:
            print(f"  {name}: the server spent {1e6 * cpu / steps:,.0f} us of CPU a step ({cpu:.2f} s for {steps} "
                  f"steps): {engine_cpu * steps / cpu:.4f} of the bare engine's steps per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
