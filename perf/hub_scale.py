"""How the hub's pages and the worker's cost grow with the hub (issue 34): 1×, 10×, 100× today's data.

For each scale S it builds (or, with --reuse, keeps) a PostgreSQL database `ebh_scale_<S>` with the demo and
`manage.py make_large_hub --scale S` (20·S model entries and one scored submission each per benchmark, at the papers'
split sizes; 2,000·S VGE episodes with steps; 200·S annotation items through review), starts the site as `make run`
serves it (one uvicorn process), and requests each page --requests times, one after another (after one warm-up
request), timing each: board first page, a filtered and sorted board page, the board API, a model page, a
drill-down page, the Analysis tab, the CSV export, the pre-check API, the heavy user's submission list. Then, in a
process of its own like the worker's, one new score: a submission of the demo's example file scored by the pipeline
(`submission_score`) and its board comparisons (`board_comparisons_update`).

Prints p50/p99 per page and scale, each page's p99 ratio to its 1× figure (target: ≤ 2 at 100×), the server's
resident memory after the run, and the worker's time and peak memory for the new score with its ratio to 1×.

    .venv/bin/python perf/hub_scale.py [--scales 1,10,100] [--requests 20] [--reuse]
        [--pg postgres://postgres@127.0.0.1:5432]

Building takes a while: about 1 minute at 1× and 10 minutes at 10× on a 2-core machine (per-sample rows dominate:
EPIC 6,661, PLAN 699 and VGE 14,953 per submission).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SIZES = ["epic-bench=6661", "plan-bench=699", "vge-bench=14953"]  # the papers' split sizes
HEAVY_USER = "scale-user-0000"

WORKER_CODE = """
import json, resource, time
from django.core.files.base import ContentFile
from scoring.models import Split, Submission
from scoring.pipeline import submission_score
from leaderboard.services import board_comparisons_update
out = {}
for split in Split.objects.filter(name="scale").select_related("benchmark").order_by("benchmark__order"):
    template = (Submission.objects.filter(split__benchmark=split.benchmark, split__name="demo", source="upload",
                                          status="scored").exclude(file="").order_by("pk").first())
    if template is None:
        continue
    sub = Submission.objects.create(model_entry=template.model_entry, split=split, options=template.options,
                                    original_filename=template.original_filename)
    with template.file.open("rb") as fh:
        sub.file.save(template.original_filename or "upload.jsonl", ContentFile(fh.read()))
    t = time.perf_counter()
    state = submission_score(submission_id=sub.pk, worker="perf")
    scored = time.perf_counter() - t
    t = time.perf_counter()
    board_comparisons_update(submission_id=sub.pk)
    out[split.benchmark.slug] = {"state": state, "score_s": scored, "comparisons_s": time.perf_counter() - t}
out["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(out))
"""

SETUP_CODE = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from scoring.models import Split, Submission
user = get_user_model().objects.get(username="%s")
token, _ = Token.objects.get_or_create(user=user)
out = {"token": token.key, "benchmarks": {}}
for split in Split.objects.filter(name="scale").select_related("benchmark"):
    sub = Submission.objects.filter(split=split, status="scored").order_by("pk").first()
    out["benchmarks"][split.benchmark.slug] = {"submission": sub.pk, "model": sub.model_entry.slug,
                                               "version": split.version}
print("RESULT " + json.dumps(out))
""" % HEAVY_USER


def manage(env: dict, *args: str, code: str | None = None) -> str:
    cmd = [PYTHON, "manage.py", *args] + (["-c", code] if code else [])
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def result_of(text: str) -> dict:
    return json.loads(next(line for line in text.splitlines() if line.startswith("RESULT "))[7:])


def build(scale: int, pg: str, reuse: bool) -> tuple[dict, float | None]:
    name = f"ebh_scale_{scale}"
    with psycopg.connect(f"{pg}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and not reuse:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        if not exists or not reuse:
            conn.execute(f'CREATE DATABASE "{name}"')
    var_dir = Path(tempfile.gettempdir()) / f"ebh-scale-{scale}"
    env = {**os.environ, "DATABASE_URL": f"{pg}/{name}", "EBH_VAR_DIR": str(var_dir)}
    built = None
    if not (exists and reuse):
        started = time.monotonic()
        manage(env, "migrate", "-v0")
        manage(env, "seed_published")
        manage(env, "make_demo")
        print(manage(env, "make_large_hub", "--scale", str(scale), *[a for s in SIZES for a in ("--samples", s)]),
              end="", flush=True)
        built = time.monotonic() - started
    return env, built


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(env: dict) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([str(Path(PYTHON).with_name("uvicorn")), "config.asgi:application", "--host", "127.0.0.1",
                             "--port", str(port), "--log-level", "warning"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"uvicorn exited: {proc.stderr.read().decode()[-2000:]}") from None
            time.sleep(0.3)
    raise SystemExit("uvicorn did not start within 60 s")


def rss_mib(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    field = {line.split(":")[0]: line.split()[1] for line in status.splitlines() if line.startswith("Vm")}
    return int(field["VmRSS"]) / 1024, int(field["VmHWM"]) / 1024


def pages(facts: dict) -> list[tuple[str, str, str, dict]]:
    """(label, method, path, request arguments) for each page measured."""
    out = []
    for slug, f in facts["benchmarks"].items():
        board = f"/leaderboard/{slug}/"
        out += [
            (f"{slug} board", "GET", f"{board}?split=scale", {}),
            (f"{slug} board filtered+sorted", "GET", f"{board}?split=scale&q=Scale-VLM-0&order=asc&kind=open-source",
             {}),
            (f"{slug} board API", "GET", f"/api/leaderboards/{slug}/?split=scale&q=Scale-VLM-0&order=asc", {}),
            (f"{slug} CSV export", "GET", f"{board}export.csv?split=scale", {}),
            (f"{slug} analysis", "GET", f"{board}analysis/?split=scale", {}),
            (f"{slug} drill-down", "GET", f"/submissions/{f['submission']}/samples/", {}),
            (f"{slug} pre-check", "POST", "/api/submissions/precheck/",
             {"example": f"{board}format/scale-v{f['version']}-example.jsonl", "data": {"benchmark": slug,
                                                                                    "split": "scale"}}),
        ]
    first = next(iter(facts["benchmarks"].values()))
    out += [("model page", "GET", f"/models/{first['model']}/", {}),
            ("heavy user's submissions (API)", "GET", "/api/submissions/mine/", {})]
    return out


def measure(base: str, facts: dict, requests: int) -> dict[str, tuple[float, float, int]]:
    headers = {"Authorization": f"Token {facts['token']}"}
    figures = {}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
        for label, method, path, extra in pages(facts):
            files = None
            if "example" in extra:
                files = {"file": ("example.jsonl", client.get(extra["example"]).content)}
            times, status = [], 0
            for i in range(requests + 1):
                t = time.perf_counter()
                response = client.request(method, path, data=extra.get("data"), files=files)
                elapsed = time.perf_counter() - t
                status = response.status_code
                if i:  # the first request warms caches and imports
                    times.append(elapsed * 1000)
            times.sort()
            p99 = times[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]
            figures[label] = (statistics.median(times), p99, status)
            print(f"  {label:<40} p50 {figures[label][0]:>8.1f} ms  p99 {p99:>8.1f} ms  HTTP {status}", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="1,10", help="comma-separated scales (1 must come first)")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--reuse", action="store_true", help="keep an existing ebh_scale_<S> database")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    scales = [int(s) for s in args.scales.split(",")]
    results = {}
    for scale in scales:
        print(f"== {scale}x", flush=True)
        env, built = build(scale, args.pg, args.reuse)
        if built is not None:
            print(f"  built in {built:.0f} s", flush=True)
        facts = result_of(manage(env, "shell", code=SETUP_CODE))
        proc, base = serve(env)
        try:
            figures = measure(base, facts, args.requests)
            rss, peak = rss_mib(proc.pid)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        worker = result_of(manage(env, "shell", code=WORKER_CODE))
        print(f"  server memory: {rss:.0f} MiB resident, peak {peak:.0f} MiB; worker: {json.dumps(worker)}", flush=True)
        results[scale] = (figures, rss, peak, worker)

    base_scale = scales[0]
    print(f"\np99 per page, and its ratio to the {base_scale}x figure (target at 100x: at most 2x)")
    print(f"{'page':<40}" + "".join(f"{f'{s}x p99':>12}{'ratio':>8}" for s in scales))
    for label in results[base_scale][0]:
        row = f"{label:<40}"
        ref = results[base_scale][0][label][1]
        for s in scales:
            p99 = results[s][0].get(label, (0, float("nan"), 0))[1]
            row += f"{p99:>9.1f} ms{p99 / ref:>7.2f}x"
        print(row)
    print(f"{'server resident memory (MiB)':<40}" + "".join(
        f"{results[s][1]:>12.0f}{results[s][1] / results[base_scale][1]:>7.2f}x" for s in scales))
    print("\nworker: one new score (the demo's example file) and its comparisons, ratio to the first scale")
    for slug in results[base_scale][3]:
        if slug == "maxrss_mib":
            continue
        ref = results[base_scale][3][slug]
        cells = []
        for s in scales:
            w = results[s][3].get(slug, {})
            total = w.get("score_s", 0) + w.get("comparisons_s", 0)
            ref_total = ref["score_s"] + ref["comparisons_s"]
            cells.append(f"{s}x {total * 1000:.0f} ms ({total / ref_total:.2f}x; comparisons "
                         f"{w.get('comparisons_s', 0) * 1000:.0f} ms)")
        print(f"  {slug:<12} " + "  ".join(cells))
    print("  worker peak memory: " + ", ".join(f"{s}x {results[s][3]['maxrss_mib']:.0f} MiB" for s in scales))


if __name__ == "__main__":
    main()
