"""Load check of the EPIC-Bench board: 100 rows, 50 concurrent connections, against daphne on loopback.

Target (issue 9): at least 300 requests/s with p99 under 200 ms. By default the script builds its own site in a
temporary folder (migrate, the papers' 89 rows, 11 rows scored here with per-sample scores and precomputed
comparisons), starts daphne on 127.0.0.1 for each ASGI application named by --app (default: the baseline,
Django alone without the board fast path, `config.asgi:django_asgi_app`, then the site as `make run` serves it,
`config.asgi:application`, with the fast path in front), loads each with wrk (Debian's package) or, without wrk, an asyncio httpx client,
prints the figures and stops the server.

    .venv/bin/python perf/board_load.py [--url http://127.0.0.1:8000] [--seconds 15] [--connections 50]
        [--app config.asgi:django_asgi_app --app config.asgi:application]

With --url it loads a server you started (e.g. `make run`) and builds nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = "/leaderboard/epic-bench/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_site(var_dir: Path, extra_rows: int = 11) -> None:
    """A fresh database with the EPIC board at 100 rows (89 from the paper + scored ones)."""
    env = {**os.environ, "EBH_VAR_DIR": str(var_dir)}
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "seed_published"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    code = f"""
import random
from django.utils import timezone
from scoring.models import Benchmark, ModelEntry, Sample, SampleScore, Score, Submission
from leaderboard.services import board_comparisons_update
split = Benchmark.objects.get(slug="epic-bench").splits.get(name="test")
leaves = ["Navigation/FeasiblePath/FeasiblePath_Ego", "Navigation/FeasiblePath/FeasiblePath_Exo",
          "Manipulation/AffordanceRegion", "Navigation/GroundDetection"]
samples = [Sample.objects.create(split=split, key=f"load{{i:04d}}", position=i, task=leaves[i % 4]) for i in range(400)]
rng = random.Random(7)
subs = []
for m in range({extra_rows}):
    entry = ModelEntry.objects.create(name=f"Load-VLM-{{m}}", slug=f"load-vlm-{{m}}", kind="open-source",
                                      parameters_b=float(2 ** (m % 7)))
    p = 0.2 + 0.05 * m
    scores = [float(rng.random() < p) for _ in samples]
    sub = Submission.objects.create(model_entry=entry, split=split, status="scored", scorer_version="load-1",
                                    finished_at=timezone.now())
    overall = 100 * sum(scores) / len(scores)
    Score.objects.create(submission=sub, overall=overall, scorer_version="load-1",
                         breakdown={{"FP": overall, "GD": overall - 3, leaves[0]: overall + 2, leaves[1]: overall - 2}},
                         intervals={{"overall": [overall - 4, overall + 4]}})
    SampleScore.objects.bulk_create([SampleScore(submission=sub, sample=s, index=i, key=s.key, task=s.task, score=v)
                                     for i, (s, v) in enumerate(zip(samples, scores))])
    subs.append(sub)
for sub in subs:
    board_comparisons_update(submission_id=sub.pk)
print(Submission.objects.filter(split=split, status="scored").count(), "rows on the EPIC board")
"""
    subprocess.run([python, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, check=True)


def start_daphne(var_dir: Path, port: int, app: str) -> subprocess.Popen:
    env = {**os.environ, "EBH_VAR_DIR": str(var_dir), "DJANGO_SETTINGS_MODULE": "config.settings"}
    daphne = Path(sys.executable).with_name("daphne")
    proc = subprocess.Popen([str(daphne), "-b", "127.0.0.1", "-p", str(port), app],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            proc.port = port  # type: ignore[attr-defined]
            return proc
        except OSError as exc:
            if proc.poll() is not None:
                raise RuntimeError(f"daphne exited: {proc.stderr.read().decode()[-2000:]}") from exc
            time.sleep(0.2)
    raise RuntimeError("daphne did not start within 30 s")


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(url: str, seconds: int, connections: int) -> dict[str, float]:
    threads = min(2, connections)
    out = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    figures = {
        "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50_ms": _ms(re.search(r"50%\s+([\d.]+\w+)", out).group(1)),
        "p99_ms": _ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1)),
        "requests": float(re.search(r"(\d+) requests in", out).group(1)),
    }
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    figures["non_2xx"] = float(errors.group(1)) if errors else 0.0
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    figures["socket_errors"] = float(sum(int(g) for g in socket_errors.groups())) if socket_errors else 0.0
    return figures


async def _httpx_load(url: str, seconds: int, connections: int) -> dict[str, float]:
    import httpx

    latencies: list[float] = []
    bad = 0
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(limits=limits, timeout=10) as client:
        async def worker() -> None:
            nonlocal bad
            while time.monotonic() < deadline:
                start = time.perf_counter()
                response = await client.get(url)
                latencies.append((time.perf_counter() - start) * 1000)
                bad += response.status_code != 200

        began = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(connections)))
        elapsed = time.monotonic() - began
    latencies.sort()
    return {
        "requests_per_s": len(latencies) / elapsed,
        "p50_ms": latencies[len(latencies) // 2],
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "requests": float(len(latencies)),
        "non_2xx": float(bad),
        "socket_errors": 0.0,
    }


def measure(base: str, args: argparse.Namespace, label: str) -> bool:
    import httpx

    url = base + PATH
    warm = httpx.get(url, timeout=30)
    rows = warm.text.count('data-submission="')
    print(f"[{label}] GET {PATH}: {warm.status_code}, {len(warm.content)} bytes, {rows} rows")
    tool = args.tool if args.tool != "auto" else ("wrk" if shutil.which("wrk") else "httpx")
    if tool == "wrk":
        figures = run_wrk(url, args.seconds, args.connections)
    else:
        figures = asyncio.run(_httpx_load(url, args.seconds, args.connections))
    ok = figures["requests_per_s"] >= 300 and figures["p99_ms"] < 200 and figures["non_2xx"] == 0
    load = os.getloadavg()[0]
    print(f"[{label}] tool={tool} connections={args.connections} duration={args.seconds}s "
          f"load_average_1min={load:.2f} cpus={os.cpu_count()}")
    print(f"[{label}] requests={figures['requests']:.0f} non_2xx={figures['non_2xx']:.0f} "
          f"socket_errors={figures['socket_errors']:.0f}")
    print(f"[{label}] throughput={figures['requests_per_s']:.1f} req/s  p50={figures['p50_ms']:.1f} ms  "
          f"p99={figures['p99_ms']:.1f} ms")
    print(f"[{label}] target (>= 300 req/s, p99 < 200 ms, no errors):", "MET" if ok else "NOT MET")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="load this server instead of starting one")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--tool", choices=["auto", "wrk", "httpx"], default="auto")
    parser.add_argument("--app", action="append", help="ASGI application(s) to start daphne with")
    args = parser.parse_args()
    if args.url:
        return 0 if measure(args.url.rstrip("/"), args, args.url) else 1
    apps = args.app or ["config.asgi:django_asgi_app", "config.asgi:application"]
    tmp = Path(tempfile.mkdtemp(prefix="board-load-"))
    results = []
    try:
        build_site(tmp)
        for app in apps:
            proc = start_daphne(tmp, _free_port(), app)
            try:
                results.append(measure(f"http://127.0.0.1:{proc.port}", args, app))  # type: ignore[attr-defined]
            finally:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if results and results[-1] else 1


if __name__ == "__main__":
    raise SystemExit(main())
