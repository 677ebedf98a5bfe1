"""Hub runs: the hub's own cost against the endpoint's and the agent API's, measured in the same run.

On a throw-away SQLite database (its own var folder):
1. VGE: the first --vge-tasks tasks of the demo library's split run by the hub against the stand-in model answering instantly; every step is
   one model request and the agent API's calls (the view image, the act) over HTTP to this site served in-process.
   Reported per step: the agent API's cost (time waiting for its answers) and the hub's own overhead (the run's wall
   time less the agent API's time and the model's time: prompts, the answer store, the endpoint's slot, progress). Target (issue 31):
   overhead <= 2x the agent API's per-step cost.
The run is played as the worker plays it: its chunks (EVALUATIONS_CHUNK_UNITS units each), one after another in this
process, as one solo worker takes the chunk tasks; each request holds one of the endpoint's slots (database rows).
2. EPIC: a 1,000-sample split (demo generator, 44 per leaf, the first 1,000) run against the stand-in answering
   after --delay seconds with --concurrency requests open at once. The endpoint's bound is samples x delay /
   concurrency; the hub's run is bounded by the endpoint when its wall time is close to that (ratio near 1).

Usage: .venv/bin/python perf/hub_run.py [--delay 0.05] [--concurrency 8] [--epic-samples 1000]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.05, help="EPIC: the stand-in's seconds per answer")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--epic-samples", type=int, default=1000)
    parser.add_argument("--vge-tasks", type=int, default=20, help="VGE: the first N tasks of the demo split (0: none)")
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="hub-run-perf-")
    os.environ.update(EBH_VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings", MEDIA_ROOT=str(Path(var) / "media"))
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import override_settings

    from evaluations import execution, services
    from evaluations.demo import local_hub
    from evaluations.models import EvaluationRun, RunLine
    from scoring.benchmarks.epic.core import demo as epic_demo
    from scoring.benchmarks.epic.importer import epic_split_import
    from scoring.models import Benchmark, Split
    from scoring.standin import StandInModel
    from simulator.engines import core_task
    from simulator.models import Task
    from simulator.services.library import split_ensure, tasks_into_split

    call_command("migrate", verbosity=0)
    curator = User.objects.create_user("perf", is_staff=True)
    # -- VGE --
    if args.vge_tasks:  # 0: EPIC only
        call_command("make_demo_vge", verbosity=0)
        demo = max(Split.objects.filter(benchmark__scorer="vge-bench"), key=lambda s: s.samples.count())
        keys = list(demo.samples.order_by("position").values_list("key", flat=True)[:args.vge_tasks])
        split = split_ensure(name="perf", public=True)
        tasks_into_split(tasks=[core_task(t) for t in sorted(Task.objects.filter(task_id__in=keys),
                                                             key=lambda t: keys.index(t.task_id))], split=split)
        with StandInModel() as model, local_hub() as hub, override_settings(
                EVALUATIONS_ENDPOINT_ALLOW=["127.0.0.1"], EVALUATIONS_AGENT_API_URL=hub):
            run = services.run_create(user=curator, split=split, model_name="standin", base_url=model.base_url,
                                      concurrency=1)
            stats: dict[str, float] = {}
            started = time.monotonic()
            execution.run_execute(run_id=run.pk, stats=stats)
            stats["wall"] = time.monotonic() - started
        run.refresh_from_db()
        steps = sum(len(line["outputs"]) for line in RunLine.objects.filter(run=run).values_list("line", flat=True))
        agent = stats["agent_seconds"] / steps
        overhead = (stats["wall"] - stats["agent_seconds"] - run.model_seconds) / steps
        print(f"VGE split {split.name}: {run.units_done} episodes, {steps} steps, {run.requests} model requests, "
              f"{stats['agent_calls']:.0f} agent API calls, wall {stats['wall']:.2f} s")
        print(f"  agent API per step {agent * 1000:.2f} ms; model (stand-in) per step {run.model_seconds / steps * 1000:.2f} ms;"
              f" hub overhead per step {overhead * 1000:.2f} ms = {overhead / agent:.2f}x the agent API's (target <= 2x)")

    # -- EPIC --
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    per_leaf = -(-args.epic_samples // 23)
    samples = epic_demo.make_split(5, per_leaf=per_leaf)[:args.epic_samples]
    epic_demo.write_layout(Path(var) / "epic-layout", samples)
    epic, report = epic_split_import(path=Path(var) / "epic-layout", split_name="perf", hidden=False)
    n = epic.samples.count()
    with StandInModel(delay=args.delay) as model, override_settings(EVALUATIONS_ENDPOINT_ALLOW=["127.0.0.1"]):
        run = services.run_create(user=curator, split=epic, model_name="standin", base_url=model.base_url,
                                  concurrency=args.concurrency)
        stats = {}
        started = time.monotonic()
        status = execution.run_execute(run_id=run.pk, stats=stats)
        stats["wall"] = time.monotonic() - started
        peak = model.peak_in_flight
    bound = n * args.delay / args.concurrency
    print(f"EPIC {n} samples, stand-in {args.delay * 1000:.0f} ms per answer, concurrency {args.concurrency}: "
          f"run {stats['wall']:.2f} s ({status}); the endpoint's bound {bound:.2f} s; ratio {stats['wall'] / bound:.2f} "
          f"(1.00: bounded by the endpoint); peak requests open at the stand-in {peak} of {args.concurrency}; "
          f"{n / stats['wall']:.0f} samples/s")
    assert EvaluationRun.objects.get(pk=run.pk).units_done == n


if __name__ == "__main__":
    main()
