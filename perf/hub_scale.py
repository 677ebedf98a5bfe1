"""How the hub's pages and the worker's cost grow with the hub (issue 34): 1×, 10×, 100× today's data.

For each scale S it builds (or, with --reuse, keeps) a PostgreSQL database `<prefix><S>` (--prefix, default
`ebh_scale_`): a copy of the demo hub (`<prefix>demo`, built once with `make_demo`: CREATE DATABASE ... TEMPLATE)
plus `manage.py make_large_hub --scale S` (20·S model entries and one scored submission each per benchmark, at the
papers' split sizes, their per-sample rows written inside the database; 2,000·S VGE episodes with steps; 200·S
annotation items through review; the neighbours' comparisons and Analysis summaries the worker writes when a score
lands). It starts the site as `make run` serves it, one uvicorn process per scale side by side (the cache in Redis:
REDIS_URL's database for the first scale, the next numbers for the others), and requests each page: board first
page, a filtered and sorted board page, the board API, the CSV export, the Analysis tab, a drill-down page, the
pre-check API, a model page, the heavy user's submission list. Per page: the first request after the server started
with the board caches emptied, --uncached requests each after one score of every scale board changed and the caches
were emptied again (`CacheBuster`: the board's cache hides what a page costs when a score has just landed), then
--requests on the cache's path; the scales are asked in turn, request by request (`measure`: this machine's speed
drifts by a third within minutes, and a ratio of figures taken minutes apart measured the drift). Then, in a
process of its own like the worker's, one new score: a submission of the demo's example file scored by the pipeline
(`submission_score`) and its board comparisons (`board_comparisons_update`), then a curator's forced re-score of that
one submission (`rescore_item_run`, a run of one item).

Prints p50/p99 per page and scale, uncached and cached, each p99's ratio to the first scale's (target: ≤ 2 at
100×), the first requests, the server's resident and peak memory, the database's size and build time, and the
worker's time and peak memory for the new score and the re-score with their ratios.

    REDIS_URL=redis://127.0.0.1:6379/N .venv/bin/python perf/hub_scale.py [--scales 1,10,100] [--requests 20]
        [--uncached 5] [--reuse] [--pg postgres://postgres@127.0.0.1:5432] [--prefix ebh_scale_] [--port 0]
        [--skip LABEL,...] [--pages-only | --worker-only] [--entries SLUG=N] [--no-summaries SLUG]
        [--samples SLUG=N] [--without COMMAND]

The wide hub (6 December, third session): every entry, few samples, no episodes, built in ~2 minutes at 100x
(1.24 GiB), for the pages that read rows, not samples (boards, API, CSV, Analysis tab):
    --prefix ebh_wide_ --samples epic-bench=300 --samples plan-bench=200 --samples vge-bench=100
    --without make_large_episodes

Building on a 2-core machine shared with other work (load average about 16): the demo template about 8 minutes;
then 1× about 3 minutes and 5× about 7 (per-sample rows: EPIC 6,661, PLAN 699 and VGE 14,953 per submission, some
35,000 rows/s with the table's indexes made after the load; the board comparisons of each split's neighbours, which
read every per-sample row once, 2.5 minutes at 5×). 0.72 GiB at 1×. 100× (6 December, load 2-7 with other work): its
per-sample rows in 14 minutes and their indexes and keys in 13, but 2,000 VGE entries take 54 GB (27 MB an entry:
their 6 kB replay traces, 1.7 kB compressed), more than the ~75 GB this disk had free with its indexes, so VGE got
1,800 (`--entries vge-bench=1800`): 61.8 GiB in all. The neighbours' comparisons take ~0.5 s (EPIC) and ~0.7 s (VGE)
of CPU a pair, about 40 minutes for 100×; the Analysis summaries ~0.4 s each for EPIC (15 minutes) and ~4 s for VGE
(2+ hours for 1,800: `--no-summaries vge-bench`, then `--skip 'vge-bench analysis'`, which would make them all).
The 200,000 episodes of `make_large_episodes` were not made at 100× (no page measured here reads them).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import redis

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SIZES = ["epic-bench=6661", "plan-bench=699", "vge-bench=14953"]  # the papers' split sizes
HEAVY_USER = "scale-user-0000"

WORKER_CODE = """
import json, resource, time
from django.core.files.base import ContentFile
from scoring.models import RescoreItem, RescoreRun, Split, Submission
from scoring.pipeline import submission_score
from scoring.rescore import rescore_item_run
from leaderboard.services import board_comparisons_update
from leaderboard.models import AnalysisSummary
from leaderboard.services_analysis import analysis_span_fill
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
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
    compared = time.perf_counter() - t
    # the Analysis span's refresh, the task the scores landing within a few seconds of each other share; not where
    # summaries were left unmade (make_large_hub --no-summaries: it would make them all, hours for VGE at 100x)
    spanned = None
    summarised = AnalysisSummary.objects.filter(submission__split=split).values("submission_id")
    if not Submission.objects.filter(split=split, status="scored").exclude(pk__in=summarised).exists():
        t = time.perf_counter()
        analysis_span_fill(split_id=split.pk)
        spanned = time.perf_counter() - t
    # a curator's forced re-score of that one submission: a run of one item, as a worker runs it
    run = RescoreRun.objects.create(benchmark=split.benchmark, split=split, force=True)
    item = RescoreItem.objects.create(run=run, submission=sub)
    t = time.perf_counter()
    rescored = rescore_item_run(item_id=item.pk, worker="perf")
    out[split.benchmark.slug] = {"state": state, "score_s": scored, "comparisons_s": compared, "span_s": spanned,
                                 "rescore": rescored, "rescore_s": time.perf_counter() - t, "peak_mib": peak()}
out["maxrss_mib"] = peak()
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
                                               "version": split.version, "split": split.pk,
                                               "entries": Submission.objects.filter(split=split).count()}
print("RESULT " + json.dumps(out))
""" % HEAVY_USER


PEAK_WRAPPER = ("import atexit, resource, runpy, sys; atexit.register(lambda: print('PEAK_MIB %.0f' % "
                "(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))); sys.argv = ['manage.py', *sys.argv[1:]]; "
                "runpy.run_path('manage.py', run_name='__main__')")


def manage(env: dict, *args: str, code: str | None = None, peak: bool = False) -> str:
    """`manage.py ARGS` in a process of its own; `peak`: its output ends with a line `PEAK_MIB n`, its peak memory."""
    cmd = [PYTHON, *(["-c", PEAK_WRAPPER] if peak else ["manage.py"]), *args] + (["-c", code] if code else [])
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def result_of(text: str) -> dict:
    return json.loads(next(line for line in text.splitlines() if line.startswith("RESULT "))[7:])


PREFIX = "ebh_scale_"  # databases `<prefix>demo`, `<prefix><S>` (--prefix: a second run beside this one's)


def _database_fresh(pg: str, name: str, *, template: str | None = None) -> None:
    with psycopg.connect(f"{pg}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


def _database_exists(pg: str, name: str) -> bool:
    with psycopg.connect(f"{pg}/postgres", autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def _var_dir(name: str) -> Path:
    """The files' folder of a database `<prefix><name>`: /tmp/ebh-scale-<name> for the default prefix."""
    return Path(tempfile.gettempdir()) / (PREFIX.rstrip("_").replace("_", "-") + f"-{name}")


def demo_template(pg: str) -> Path:
    """The demo hub every scale starts from, built once (`make_demo` takes minutes) into `ebh_scale_demo` and its
    files' folder; each scale's database is a copy of it (CREATE DATABASE ... TEMPLATE)."""
    var_dir = _var_dir("demo")
    demo_db = f"{PREFIX}demo"
    if _database_exists(pg, demo_db) and (var_dir / ".complete").exists():
        return var_dir
    _database_fresh(pg, demo_db)
    shutil.rmtree(var_dir, ignore_errors=True)
    env = {**os.environ, "DATABASE_URL": f"{pg}/{demo_db}", "EBH_VAR_DIR": str(var_dir)}
    started = time.monotonic()
    manage(env, "migrate", "-v0")
    manage(env, "seed_published")
    manage(env, "make_demo")
    (var_dir / ".complete").write_text("")
    print(f"  demo template built in {time.monotonic() - started:.0f} s", flush=True)
    return var_dir


def build(scale: int, pg: str, reuse: bool, generator_args: tuple[str, ...] = ()
          ) -> tuple[dict, float | None, float | None]:
    """The scale's database, its build time and the generator's peak memory (MiB; None when reused);
    `generator_args`: more of make_large_hub's options (--entries, --no-summaries, --samples after the papers' sizes,
    so that they win, --without)."""
    name = f"{PREFIX}{scale}"
    var_dir = _var_dir(str(scale))
    env = {**os.environ, "DATABASE_URL": f"{pg}/{name}", "EBH_VAR_DIR": str(var_dir)}
    if reuse and _database_exists(pg, name):
        manage(env, "migrate", "-v0")  # a migration added since the hub was built
        return env, None, None
    demo_var = demo_template(pg)
    started = time.monotonic()
    _database_fresh(pg, name, template=f"{PREFIX}demo")
    shutil.rmtree(var_dir, ignore_errors=True)
    shutil.copytree(demo_var, var_dir)
    manage(env, "migrate", "-v0")  # a migration added since the template was built
    out = manage(env, "make_large_hub", "--scale", str(scale), *[a for s in SIZES for a in ("--samples", s)],
                 *generator_args, peak=True)
    print("".join(line for line in out.splitlines(keepends=True) if not line.startswith("PEAK_MIB ")), end="",
          flush=True)
    peak = next(float(line.split()[1]) for line in out.splitlines() if line.startswith("PEAK_MIB "))
    return env, time.monotonic() - started, peak


def stop(proc: subprocess.Popen) -> None:
    """The server and its children: SIGTERM, then SIGKILL when a request still holds it after 30 s (a page that makes
    the Analysis summaries of a whole benchmark takes minutes in a worker thread that SIGTERM does not interrupt)."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def database_size(env: dict) -> float:
    """The scale's database on disk, in GiB."""
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        return conn.execute("SELECT pg_database_size(current_database())").fetchone()[0] / 2 ** 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(env: dict, port: int = 0) -> tuple[subprocess.Popen, str]:
    port = port or free_port()
    # Its errors to a file (a pipe nobody reads fills up, and the server then hangs in its first error's log line)
    log = Path(env["EBH_VAR_DIR"]) / "server.log"
    with log.open("wb") as errors:
        proc = subprocess.Popen([str(Path(PYTHON).with_name("uvicorn")), "config.asgi:application", "--host",
                                 "127.0.0.1", "--port", str(port), "--log-level", "warning"], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True)
    print(f"  server on port {port}, its errors in {log}", flush=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"uvicorn exited: {log.read_text(errors='replace')[-2000:]}") from None
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


def percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]


class CacheBuster:
    """Makes the next request find the board as a score landing leaves it: one score of each scale split changed
    (its `updated_at`, as a re-score writes it: that row's columns differ, so a process's kept rows and what it made
    from them no longer hold) and each scale split's board version bumped in the shared cache (Redis, REDIS_URL), the
    key every cached board row set, page, export and analysis is stored under. The server re-reads and re-renders as
    on a board's first request after a score lands."""

    def __init__(self, url: str, split_ids: list[int], database_url: str, submission_ids: list[int]):
        self.client = redis.Redis.from_url(url)
        self.keys = [f":1:board-version-{i}" for i in split_ids]
        self.database = psycopg.connect(database_url, autocommit=True)
        self.submission_ids = submission_ids

    def __call__(self) -> None:
        self.database.execute("UPDATE scoring_score SET updated_at = clock_timestamp() WHERE submission_id = ANY(%s)",
                              [self.submission_ids])
        for key in self.keys:
            if self.client.exists(key):
                self.client.incr(key)


@dataclass
class Served:
    """One scale's server as the pages are measured: its address, its hub's facts and its cache buster."""

    scale: int
    base: str
    facts: dict
    bust: CacheBuster


def measure(served: list[Served], requests: int, uncached: int, skip: tuple[str, ...] = ()) -> dict[int, dict]:
    """Per page and scale: the first request (after the servers started and the board caches were emptied),
    `uncached` requests each after emptying them, then `requests` as they come (the cache's path). The scales'
    servers run side by side and are asked in turn, request by request, so that the machine's speed, which drifts by
    a third within minutes here, weighs on every scale alike: their ratios are of one stretch of time."""
    figures: dict[int, dict] = {one.scale: {} for one in served}
    clients = [httpx.Client(base_url=one.base, headers={"Authorization": f"Token {one.facts['token']}"}, timeout=600)
               for one in served]
    try:
        pages_of = [pages(one.facts) for one in served]
        for index, (label, *_rest) in enumerate(pages_of[0]):
            if label in skip:
                continue
            timers = []
            for client, own in zip(clients, pages_of):
                _, method, path, extra = own[index]
                files = None
                if "example" in extra:
                    files = {"file": ("example.jsonl", client.get(extra["example"]).content)}

                data = extra.get("data")

                def timed(client=client, method=method, path=path, data=data, files=files) -> tuple[float, int]:
                    t = time.perf_counter()
                    response = client.request(method, path, data=data, files=files)
                    return (time.perf_counter() - t) * 1000, response.status_code

                timers.append(timed)
            first, status = {}, {}
            for one, timed in zip(served, timers):
                one.bust()
                first[one.scale], status[one.scale] = timed()
            cold: dict[int, list[float]] = {one.scale: [] for one in served}
            warm: dict[int, list[float]] = {one.scale: [] for one in served}
            for _ in range(uncached):
                for one, timed in zip(served, timers):
                    one.bust()
                    cold[one.scale].append(timed()[0])
            for _ in range(requests):
                for one, timed in zip(served, timers):
                    warm[one.scale].append(timed()[0])
            for one in served:
                f = {"first": first[one.scale], "status": status[one.scale], "uncached": percentiles(cold[one.scale]),
                     "cached": percentiles(warm[one.scale])}
                figures[one.scale][label] = f
                print(f"  {one.scale:>4}x {label:<34} first {f['first']:>8.1f} ms  uncached p50 "
                      f"{f['uncached'][0]:>8.1f} p99 {f['uncached'][1]:>8.1f} ms  cached p50 {f['cached'][0]:>7.1f} "
                      f"p99 {f['cached'][1]:>7.1f} ms  HTTP {f['status']}", flush=True)
    finally:
        for client in clients:
            client.close()
    return figures


def redis_url_of(url: str, index: int) -> str:
    """The Redis database of the `index`-th scale's server: REDIS_URL's own number plus `index`, so that servers side
    by side never read each other's cached pages (their hubs' splits have the same ids)."""
    head, _, number = url.rpartition("/")
    return f"{head}/{(int(number) if number.isdigit() else 0) + index}"


# make_large_hub's options this script passes on when it builds a scale (each may be given more than once)
GENERATOR_OPTIONS = {
    "--entries": ("SLUG=N", "make_large_hub's cap on a benchmark's entries, for a disk that cannot hold 100x: "
                            "--entries vge-bench=1800 (VGE's rows take 27 MB an entry)"),
    "--no-summaries": ("SLUG", "make_large_hub leaves this benchmark's Analysis summaries unmade (VGE: ~4 s of CPU "
                               "each); skip its Analysis tab then, which would make them all"),
    "--samples": ("SLUG=N", "a benchmark's samples instead of its paper's split size: a wide hub (every entry, few "
                            "samples: --samples epic-bench=300) for the pages that read rows, not samples"),
    "--without": ("COMMAND", "make_large_hub leaves out one of its other generators (make_large_episodes: 200,000 "
                             "episodes at 100x that no page measured here reads)"),
}


def main() -> None:
    global PREFIX
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="1,10", help="comma-separated scales (the first is the reference)")
    parser.add_argument("--requests", type=int, default=20, help="requests per page on the cache's path")
    parser.add_argument("--uncached", type=int, default=5, help="requests per page, each after emptying the cache")
    parser.add_argument("--reuse", action="store_true", help="keep an existing ebh_scale_<S> database")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: any free one)")
    parser.add_argument("--prefix", default=PREFIX, help=f"database names' prefix (default {PREFIX}: "
                                                          f"{PREFIX}demo, {PREFIX}1, ...)")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--pages-only", action="store_true",
                      help="measure the pages only, not the worker's new score and re-score (which also add a "
                           "submission per benchmark)")
    parser.add_argument("--skip", default="", help="comma-separated page labels not to measure, e.g. "
                                                   "'vge-bench analysis' (minutes a request at any scale)")
    only.add_argument("--worker-only", action="store_true", help="measure the worker only: no server, no page")
    for option, (metavar, text) in GENERATOR_OPTIONS.items():
        parser.add_argument(option, action="append", default=[], metavar=metavar, help=text)
    args = parser.parse_args()
    PREFIX = args.prefix
    skip = tuple(s.strip() for s in args.skip.split(",") if s.strip())
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("set REDIS_URL: the server's cache must be one this script can empty between requests")
    scales = [int(s) for s in args.scales.split(",")]
    results = {}
    generator_args = tuple(a for option in GENERATOR_OPTIONS
                           for value in getattr(args, option[2:].replace("-", "_")) for a in (option, value))
    built_scales = {}
    for scale in scales:
        print(f"== {scale}x", flush=True)
        env, built, build_peak = build(scale, args.pg, args.reuse, generator_args)
        size = database_size(env)
        print(f"  database {size:.2f} GiB" + (f", built in {built:.0f} s" if built is not None else ""), flush=True)
        built_scales[scale] = env
        results[scale] = {"pages": {}, "rss": float("nan"), "peak": float("nan"), "worker": None, "built": built,
                          "size": size, "build_peak": build_peak}
    if not args.worker_only:
        print(f"== pages: {', '.join(f'{s}x' for s in scales)} served side by side, asked in turn", flush=True)
        served, procs = [], []
        try:
            for index, scale in enumerate(scales):
                env = {**built_scales[scale], "REDIS_URL": redis_url_of(os.environ["REDIS_URL"], index)}
                facts = result_of(manage(env, "shell", code=SETUP_CODE))
                print(f"  {scale}x entries: " + ", ".join(f"{slug} {f['entries']}"
                                                           for slug, f in facts["benchmarks"].items()), flush=True)
                bust = CacheBuster(env["REDIS_URL"], [f["split"] for f in facts["benchmarks"].values()],
                                   env["DATABASE_URL"], [f["submission"] for f in facts["benchmarks"].values()])
                bust.client.flushdb()  # what an earlier run left in this scale's cache
                proc, base = serve(env, args.port + index if args.port else 0)
                procs.append(proc)
                served.append(Served(scale, base, facts, bust))
            figures = measure(served, args.requests, args.uncached, skip)
            for scale, proc in zip(scales, procs):
                results[scale]["pages"] = figures[scale]
                results[scale]["rss"], results[scale]["peak"] = rss_mib(proc.pid)
        finally:
            for proc in procs:
                stop(proc)
        for scale in scales:
            print(f"  {scale}x server memory: {results[scale]['rss']:.0f} MiB resident, peak "
                  f"{results[scale]['peak']:.0f} MiB", flush=True)
    if not args.pages_only:
        for scale in scales:
            print(f"  {scale}x load average before the worker: {os.getloadavg()[0]:.1f}", flush=True)
            results[scale]["worker"] = result_of(manage(built_scales[scale], "shell", code=WORKER_CODE))
            print(f"  {scale}x worker: {json.dumps(results[scale]['worker'])}", flush=True)
    report(scales, results)


def report_pages(scales: list[int], results: dict) -> None:
    ref_scale = scales[0]
    ref = results[ref_scale]
    for kind in ("uncached", "cached"):
        print(f"\n{kind}: p50 / p99 per page (ms), p99's ratio to {ref_scale}x (target at 100x: at most 2)")
        print(f"{'page':<34}" + "".join(f"{f'{s}x p50/p99':>22}{'ratio':>8}" for s in scales))
        for label, base in ref["pages"].items():
            row = f"{label:<34}"
            for s in scales:
                p50, p99 = results[s]["pages"].get(label, {}).get(kind, (float("nan"), float("nan")))
                row += f"{p50:>10.1f} /{p99:>9.1f}{p99 / base[kind][1]:>7.2f}x"
            print(row)
    print(f"\nfirst request after start, caches empty (ms), ratio to {ref_scale}x")
    for label, base in ref["pages"].items():
        print(f"{label:<34}" + "".join(
            f"{results[s]['pages'][label]['first']:>12.1f}{results[s]['pages'][label]['first'] / base['first']:>7.2f}x"
            for s in scales))
    print(f"{'server resident memory (MiB)':<34}" + "".join(
        f"{results[s]['rss']:>12.0f}{results[s]['rss'] / ref['rss']:>7.2f}x" for s in scales))
    print(f"{'server peak memory (MiB)':<34}" + "".join(
        f"{results[s]['peak']:>12.0f}{results[s]['peak'] / ref['peak']:>7.2f}x" for s in scales))


def report(scales: list[int], results: dict) -> None:
    ref_scale = scales[0]
    ref = results[ref_scale]
    if ref["pages"]:  # not --worker-only
        report_pages(scales, results)
    print(f"{'database (GiB)':<34}" + "".join(f"{results[s]['size']:>12.2f}{'':>8}" for s in scales))
    print(f"{'generator peak memory (MiB)':<34}" + "".join(
        f"{results[s]['build_peak'] or float('nan'):>12.0f}{'':>8}" for s in scales))
    print(f"{'build (s)':<34}" + "".join(
        f"{results[s]['built'] or float('nan'):>12.0f}{'':>8}" for s in scales))
    if ref["worker"] is None:  # --pages-only
        return
    print(f"\nworker: one new score (the demo's example file) and its comparisons, ratio to {ref_scale}x")
    for slug, base in ref["worker"].items():
        if slug == "maxrss_mib":
            continue
        ref_total = base["score_s"] + base["comparisons_s"]
        cells = []
        for s in scales:
            w = results[s]["worker"].get(slug, {})
            total = w.get("score_s", 0) + w.get("comparisons_s", 0)
            rescore = w.get("rescore_s", float("nan"))
            span = w.get("span_s") or float("nan")  # None: summaries left unmade, not measured
            cells.append(f"{s}x {total * 1000:.0f} ms ({total / ref_total:.2f}x; comparisons "
                         f"{w.get('comparisons_s', 0) * 1000:.0f} ms; re-score {rescore * 1000:.0f} ms, "
                         f"{rescore / base.get('rescore_s', float('nan')):.2f}x; the span's shared refresh "
                         f"{span * 1000:.0f} ms, {span / (base.get('span_s') or float('nan')):.2f}x)")
        print(f"  {slug:<12} " + "  ".join(cells))
    print("  worker peak memory: " + ", ".join(
        f"{s}x {results[s]['worker']['maxrss_mib']:.0f} MiB ({results[s]['worker']['maxrss_mib'] / ref['worker']['maxrss_mib']:.2f}x)"
        for s in scales))


if __name__ == "__main__":
    main()
