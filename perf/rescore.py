"""Re-score time (issue 29): the demo's submissions, and a generated board of 1,000 submissions after a scorer
version bump.

In a temporary site (SQLite by default; PostgreSQL when DATABASE_URL is set), one process doing a worker's job
(`scoring.rescore.rescore_item_run` per item, as the Celery task calls it; more workers divide the wall time):

- the demo (`make_demo`: every benchmark's demo submissions): a forced re-score of every one (same code, so same
  version), against the reference measured in the same run: scoring each the first time (`scoring.pipeline`,
  what an upload costs), the same submissions, same files;
- the generated board: --board submissions of the test suite's dummy benchmark on a split of --samples samples,
  first scored under dummy-1 (the reference), then re-scored after the bump to dummy-2 (every figure moves), and
  the diff page's read of what moved.

Prints seconds, per-submission milliseconds and the ratio re-score / first scoring.

    .venv/bin/python perf/rescore.py [--board 1000] [--samples 50] [--skip-demo]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", type=int, default=1000, help="submissions of the generated board")
    parser.add_argument("--samples", type=int, default=50, help="samples of the generated board's split")
    parser.add_argument("--skip-demo", action="store_true", help="only the generated board")
    args = parser.parse_args()

    os.environ.setdefault("EBH_VAR_DIR", tempfile.mkdtemp(prefix="ebh-rescore-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["EXTRA_BENCHMARKS"] = "tests.dummy_scorer:PLUGIN"
    os.environ["DUMMY_SCORER_VERSION"] = "dummy-1"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
    import django

    django.setup()
    from django.core.files.base import ContentFile
    from django.core.management import call_command

    from leaderboard.versions import board_diff
    from scoring import pipeline, rescore
    from scoring.models import Benchmark, ModelEntry, Sample, Split, Submission

    call_command("migrate", verbosity=0)
    database = "PostgreSQL" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "SQLite"
    print(f"database: {database}; one process doing a worker's job", flush=True)

    def run_items(run) -> tuple[float, dict[str, int]]:
        started = time.perf_counter()
        for item_id in run.items.order_by("pk").values_list("pk", flat=True):
            rescore.rescore_item_run(item_id=item_id, worker="perf")
        elapsed = time.perf_counter() - started
        return elapsed, rescore.run_progress(run=run).counts

    def first_scoring(ids: list[int]) -> float:
        """The reference: score these submissions as an upload is scored (queued again, then the pipeline)."""
        Submission.objects.filter(pk__in=ids).update(status=Submission.Status.QUEUED)
        started = time.perf_counter()
        for pk in ids:
            pipeline.submission_score(submission_id=pk, worker="perf")
        return time.perf_counter() - started

    rows = []
    if not args.skip_demo:
        started = time.perf_counter()
        call_command("make_demo", verbosity=0)
        print(f"make_demo: {time.perf_counter() - started:.1f} s", flush=True)
        for benchmark in Benchmark.objects.order_by("order", "slug"):
            ids = list(Submission.objects.filter(rescore.rescorable(benchmark=benchmark)).values_list("pk", flat=True))
            if not ids:
                continue
            reference = first_scoring(ids)
            run = rescore.rescore_run_start(benchmark=benchmark, force=True)
            elapsed, counts = run_items(run)
            rows.append((f"demo {benchmark.slug}", len(ids), reference, elapsed, counts))

    benchmark = Benchmark.objects.get_or_create(slug="dummy", defaults={"name": "Dummy", "scorer": "dummy"})[0]
    split = Split.objects.create(benchmark=benchmark, name=f"perf-{int(time.time())}", hidden_ground_truth=False)
    Sample.objects.bulk_create([Sample(split=split, key=f"k{i}", position=i) for i in range(args.samples)])
    ids = []
    for n in range(args.board):
        entry = ModelEntry.objects.create(name=f"Perf-{n}", slug=f"perf-{n}-{split.pk}")
        sub = Submission.objects.create(model_entry=entry, split=split, status=Submission.Status.QUEUED)
        sub.file.save(f"perf-{n}.txt", ContentFile("\n".join(
            str(((n * 7 + i * 13) % 10) / 10) for i in range(args.samples)).encode()), save=True)
        ids.append(sub.pk)
    reference = first_scoring(ids)
    os.environ["DUMMY_SCORER_VERSION"] = "dummy-2"
    started = time.perf_counter()
    (run,) = rescore.rescore_runs_start_for_changes()
    start_cost = time.perf_counter() - started
    elapsed, counts = run_items(run)
    rows.append((f"board of {args.board} (bump)", len(ids), reference, elapsed, counts))
    started = time.perf_counter()
    diff = board_diff(split=split, old="dummy-1", new="dummy-2")
    diff_cost = time.perf_counter() - started

    print(f"\n{'what':<28} {'subs':>6} {'first scoring':>14} {'re-score':>10} {'per sub':>9} {'ratio':>7}  items")
    for name, n, ref, took, item_counts in rows:
        states = ", ".join(f"{v} {k}" for k, v in item_counts.items() if v)
        print(f"{name:<28} {n:>6} {ref:>12.2f} s {took:>8.2f} s {1000 * took / max(n, 1):>6.1f} ms "
              f"{took / ref if ref else float('nan'):>6.2f}x  {states}")
    print(f"starting the run (finding {len(ids)} out-of-date scores, making the items): {start_cost * 1000:.0f} ms")
    print(f"the diff page's read ({len(diff)} rows, {sum(r.status == 'moved' for r in diff)} moved): "
          f"{diff_cost * 1000:.0f} ms")


if __name__ == "__main__":
    main()
