"""The Analysis tab's cost as its board grows (issue 34): its uncached request time and the process's peak memory at
two board sizes, for the code of this tree and, as the reference in the same run, for another tree (the code before
the per-submission summaries, e.g. `git archive main | tar -x -C /tmp/base`).

For each benchmark it makes a fresh SQLite database (under a temporary EBH_VAR_DIR) with the benchmark's demo
(`make_demo_<b>`; or copies `--demo-var`, a var folder whose database has the demos already), and for each tree a
copy of it, in which it clones the demo split's scored non-human submissions (their scores and per-sample rows, each
under a model entry of its own) until the split's board has the smaller size's number of entries, then the
larger's; at each size it runs `manage.py analysis_summaries` where the tree has it (what a score's landing does on
the site), then in a fresh process requests the tab uncached (`entries=all`, the cache cleared before each of
`--repeat` requests) and prints the slowest request and the process's peak RSS. The ratio that counts: slowest at the
large size over slowest at the small size, for each tree (issue 34's target: within 2× while the board grows; the
reference's grows with the entries).

The demo splits are small (a few dozen samples a submission, not the papers' 6,661 / 699 / 14,953): the reference's
cost per entry is then far below a real one, so its ratio understates what a real board pays.

    python perf/analysis_scale.py --before /tmp/base --sizes 5,50
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEMOS = {"epic-bench": "make_demo_epic", "plan-bench": "make_demo_plan", "vge-bench": "make_demo_vge"}

CLONE = """
from scoring.models import ModelEntry, SampleScore, Score, Split, Submission
from scoring.selectors import on_boards
slug, entries = {slug!r}, {entries}
split = Split.objects.get(benchmark__slug=slug, name="demo")
board = on_boards(Submission.objects.filter(split=split, status=Submission.Status.SCORED))
templates = [s for s in board.select_related("model_entry").order_by("pk") if s.model_entry.kind != "human"]
first = ModelEntry.objects.count()
for i in range(max(0, entries - board.count())):
    template = templates[i % len(templates)]
    entry = ModelEntry.objects.create(name=f"Perf {{first + i}}", slug=f"perf-{{slug}}-{{first + i}}",
                                      kind="open-source")
    score = Score.objects.get(submission_id=template.pk)
    rows = list(SampleScore.objects.filter(submission_id=template.pk))
    template.pk = template.id = None
    template._state.adding = True
    template.model_entry = entry
    template.save()
    score.pk = score.id = None
    score._state.adding = True
    score.submission = template
    score.save()
    for r in rows:
        r.pk = r.id = None
        r._state.adding = True
        r.submission = template
    SampleScore.objects.bulk_create(rows, batch_size=2000)
print(on_boards(Submission.objects.filter(split=split, status=Submission.Status.SCORED)).count())
"""

MEASURE = """
import json, resource, time
from django.core.cache import cache
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client()
times = []
for _ in range({repeat}):
    cache.clear()
    started = time.perf_counter()
    response = client.get("/leaderboard/{slug}/analysis/?split=demo&entries=all")
    times.append(time.perf_counter() - started)
    assert response.status_code == 200, response.status_code
print("RESULT " + json.dumps({{"times": times, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def _manage(tree: Path, var: Path, *args: str) -> str:
    env = {**os.environ, "EBH_VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DATABASE_URL", None)  # a fresh SQLite database per run
    env.pop("REDIS_URL", None)  # the in-process cache: "uncached" is then what cache.clear() makes
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tree}: manage.py {' '.join(args[:2])} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def demo_database(tree: Path, slug: str, into: Path) -> None:
    """A fresh SQLite database with the benchmark's demo (made once per benchmark, with this tree's schema: the
    reference's code reads it too, ignoring the summaries' table)."""
    _manage(tree, into, "migrate", "-v0")
    _manage(tree, into, DEMOS[slug])


def measure(tree: Path, var: Path, slug: str, entries: int, repeat: int) -> dict:
    """Grow the board of `var`'s database to `entries` and time the tab there in a fresh process."""
    shown = int(_manage(tree, var, "shell", "-c", CLONE.format(slug=slug, entries=entries)).split()[-1])
    if (tree / "leaderboard/management/commands/analysis_summaries.py").exists():
        _manage(tree, var, "analysis_summaries", "--benchmark", slug)
    out = _manage(tree, var, "shell", "-c", MEASURE.format(slug=slug, repeat=repeat))
    result = json.loads(out.split("RESULT ", 1)[1])
    return {"entries": shown, "slowest_s": max(result["times"]), "peak_rss_mb": result["peak_rss_mb"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="the reference tree (the code before the summaries)")
    parser.add_argument("--sizes", default="5,50", help="two board sizes, in entries")
    parser.add_argument("--benchmarks", default=",".join(DEMOS))
    parser.add_argument("--demo-var", type=Path, help="a var folder whose database has the demos (made if absent)")
    parser.add_argument("--repeat", type=int, default=3, help="uncached requests per measurement")
    args = parser.parse_args(argv)
    small, large = (int(x) for x in args.sizes.split(","))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    trees = [("before", args.before)] if args.before else []
    trees.append(("after", Path(__file__).resolve().parent.parent))
    here = trees[-1][1]
    for slug in args.benchmarks.split(","):
        with tempfile.TemporaryDirectory(prefix="analysis-scale-") as tmp:
            demo = Path(tmp, "demo")
            if args.demo_var:
                shutil.copytree(args.demo_var, demo)
            else:
                demo_database(here, slug, demo)
            for name, tree in trees:
                var = Path(tmp, name)
                shutil.copytree(demo, var)
                a, b = measure(tree, var, slug, small, args.repeat), measure(tree, var, slug, large, args.repeat)
                print(f"{slug:11} {name:6} {a['entries']:4} entries: {a['slowest_s']:7.3f} s, {a['peak_rss_mb']:6.0f} MB | "
                      f"{b['entries']:4} entries: {b['slowest_s']:7.3f} s, {b['peak_rss_mb']:6.0f} MB | "
                      f"time ×{b['slowest_s'] / a['slowest_s']:.2f}, memory ×{b['peak_rss_mb'] / a['peak_rss_mb']:.2f}",
                      flush=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
