"""Browser play speed: websocket action -> feedback round trip with 50 concurrent players (targets: p50 < 30 ms,
p99 < 100 ms on loopback). Prints figures.

A daphne server (HTTP + websockets, the site's config.asgi) runs on a free 127.0.0.1 port against a throw-away
database: SQLite in a temporary var folder by default, or the PostgreSQL database named by --database-url
(it is flushed first, so give it a database of its own, e.g. postgres://postgres@127.0.0.1:5432/ebh_bench).
Each player is signed in (a real session cookie), owns a few human episodes on random demo tasks and plays
them over /ws/vge/episodes/<id>/ with the page's own messages: a click (Press at a random point) or a view
switch, each persisted by the server before it answers. Two loads:

  paced   every player thinks --think-ms (uniform 0.5x..1.5x) between actions, like a fast human;
  burst   no thinking at all: every player sends its next action as soon as the feedback arrives (saturation).

The client is a minimal asyncio websocket client (RFC 6455 text frames, masked), no extra package.

Usage: .venv/bin/python perf/vge_play.py [--players 50] [--seconds 20] [--think-ms 500] [--conn-max-age 60]
                                               [--database-url postgres://postgres@127.0.0.1:5432/ebh_bench]

The round trip depends mostly on whether the server keeps its database connection between messages:
channels' database_sync_to_async closes it after every call when DB_CONN_MAX_AGE is 0 (the site's default),
so compare --conn-max-age 0 and 60 (docs/vge-play.md has the figures).
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable


# -- a minimal websocket client --------------------------------------------------------------------------
class Socket:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, host: str, port: int, path: str, cookie: str) -> "Socket":
        reader, writer = await asyncio.open_connection(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://{host}:{port}\r\n"
                      f"Cookie: {cookie}\r\n\r\n").encode())
        status = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"handshake refused: {status[:200]!r}")
        return cls(reader, writer)

    async def send(self, data: dict) -> None:
        payload = json.dumps(data).encode()
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(header + mask + masked)
        await self.writer.drain()

    async def recv(self) -> dict:
        while True:
            first, second = await self.reader.readexactly(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            payload = await self.reader.readexactly(n)
            opcode = first & 0x0F
            if opcode == 0x1:
                return json.loads(payload)
            if opcode == 0x8:
                raise ConnectionError("closed by the server")

    async def close(self) -> None:
        self.writer.write(bytes([0x88, 0x80]) + os.urandom(4))
        self.writer.close()


# -- setup, in a child process with the benchmark's database -----------------------------------------------
def setup(players: int, episodes: int) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from simulator.models import Episode, Task
    from simulator.services.episodes import episode_start
    from simulator.services.library import demo_library_install

    demo_library_install()
    task_ids = list(Task.objects.values_list("task_id", flat=True))
    rng = random.Random(7)
    out = []
    for i in range(players):
        user = get_user_model().objects.create_user(f"player{i}", password="x")
        client = Client()
        client.force_login(user)
        mine = [episode_start(user=user, task_id=rng.choice(task_ids), kind=Episode.Kind.HUMAN)[0].pk
                for _ in range(episodes)]
        out.append({"cookie": f"sessionid={client.cookies['sessionid'].value}", "episodes": mine})
    print(json.dumps(out))


# -- the load ------------------------------------------------------------------------------------------------
async def player(port: int, who: dict, until: float, think_ms: float, rng: random.Random,
                 latencies: list[float], errors: list[str]) -> None:
    for episode in who["episodes"]:
        sock = await Socket.connect("127.0.0.1", port, f"/ws/vge/episodes/{episode}/", who["cookie"])
        state = await sock.recv()
        if state.get("type") != "state":
            errors.append(str(state)[:200])
            return
        obs = state["observation"]
        while not obs["done"]:
            if time.perf_counter() >= until:
                await sock.close()
                return
            if think_ms:
                await asyncio.sleep(think_ms * rng.uniform(0.5, 1.5) / 1000)
            if rng.random() < 0.25:
                message = {"type": "act", "action": "switch_view", "params": [rng.choice(obs["accessible_views"])]}
            else:
                message = {"type": "act", "action": "press", "coord": [rng.randint(0, 1000), rng.randint(0, 1000)],
                           "params": [0]}
            started = time.perf_counter()
            await sock.send(message)
            answer = await sock.recv()
            latencies.append((time.perf_counter() - started) * 1000)
            if answer.get("type") != "step":
                errors.append(str(answer)[:200])
                break
            obs = answer["observation"]
            if obs["done"]:
                await sock.recv()  # the final state message with the metrics
        await sock.close()
    errors.append("a player ran out of episodes; raise --episodes")


async def run_load(port: int, users: list[dict], seconds: float, think_ms: float, seed: int) -> tuple[list[float], list[str], float]:
    latencies: list[float] = []
    errors: list[str] = []
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    await asyncio.gather(*(player(port, who, until, think_ms, random.Random(seed + i), latencies, errors)
                           for i, who in enumerate(users)))
    return latencies, errors, time.perf_counter() - started


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 10) - 1] if len(values) > 1 else float("nan")


def report(name: str, latencies: list[float], errors: list[str], elapsed: float) -> None:
    print(f"  {name:6s} {len(latencies):6d} actions in {elapsed:5.1f} s = {len(latencies) / elapsed:6.1f}/s   "
          f"p50 {pct(latencies, 50):6.1f} ms   p90 {pct(latencies, 90):6.1f} ms   p99 {pct(latencies, 99):6.1f} ms   "
          f"max {max(latencies):6.1f} ms   errors {len(errors)}")
    for e in errors[:3]:
        print("     error:", e)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--think-ms", type=float, default=500)
    parser.add_argument("--episodes", type=int, default=30, help="episodes prepared per player")
    parser.add_argument("--database-url", default="", help="PostgreSQL URL of a database of its own (flushed)")
    parser.add_argument("--conn-max-age", type=int, default=None,
                        help="DB_CONN_MAX_AGE for the server (default: the environment's, else the site's 0)")
    parser.add_argument("--setup", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.setup:
        setup(args.players, args.episodes)
        return

    with tempfile.TemporaryDirectory(prefix="vge-play-bench-") as var:
        env = dict(os.environ, EBH_VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)  # the embedded default: in-memory channel layer, one server process
        if args.conn_max_age is not None:
            env["DB_CONN_MAX_AGE"] = str(args.conn_max_age)
        if args.database_url:
            env["DATABASE_URL"] = args.database_url
            _ensure_postgres_database(args.database_url)

        def run(*a: str) -> subprocess.CompletedProcess:
            return subprocess.run([PY, *a], cwd=ROOT, env=env, check=True, capture_output=True, text=True)

        run("manage.py", "migrate", "--noinput")
        if args.database_url:
            run("manage.py", "flush", "--noinput")
        users = json.loads(run(__file__, "--setup", "--players", str(args.players), "--episodes", str(args.episodes)).stdout)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        server = subprocess.Popen([PY, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError as exc:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(server.stderr.read().decode()[-2000:] if server.stderr else "daphne died") from exc
                    time.sleep(0.2)
            database = "PostgreSQL" if args.database_url else "SQLite (embedded default)"
            print(f"VGE browser play: {args.players} players over websockets, daphne on 127.0.0.1:{port}, {database}, "
                  f"DB_CONN_MAX_AGE={env.get('DB_CONN_MAX_AGE', '0 (site default)')}, {os.cpu_count()} CPUs shared by "
                  f"client and server, load average {os.getloadavg()[0]:.1f}")
            asyncio.run(run_load(port, users[:5], 2, 0, seed=999))  # warm up: engines, renders, connections
            half = [dict(u, episodes=u["episodes"][len(u["episodes"]) // 2:]) for u in users]
            first = [dict(u, episodes=u["episodes"][1:len(u["episodes"]) // 2]) for u in users]
            report("paced", *asyncio.run(run_load(port, first, args.seconds, args.think_ms, seed=1)))
            report("burst", *asyncio.run(run_load(port, half, args.seconds, 0, seed=2)))
            print(f"  targets: p50 < 30 ms and p99 < 100 ms (paced = {args.think_ms:.0f} ms think time per player; "
                  "burst = no think time, saturation)")
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()


def _ensure_postgres_database(url: str) -> None:
    from urllib.parse import urlparse

    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


if __name__ == "__main__":
    main()
