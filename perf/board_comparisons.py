"""The worker's cost of one new score on a growing board: the comparisons behind the significance marks (issue 34).

Builds a board in a temporary site (SQLite by default; PostgreSQL when DATABASE_URL is set), grows it to each size
(1× = --rows rows of --samples per-sample scores each, then ×10, ×100 as --factors says), and at each size lands
--repeat new scores and times, per new score:

- `board_comparisons_update` as the worker runs it now (the comparisons of the default views' neighbours), and
- the reference, in the same run and on the same data: the old rule, a paired bootstrap against every other scored
  row of the split (`board_comparisons_compute` over all pairs with the new score, rolled back after timing).

Prints the median of each, and each size's ratio to the 1× figure (target: the new rule's cost at 100× within 2× of
its cost at 1×).

    .venv/bin/python perf/board_comparisons.py [--rows 100] [--samples 400] [--factors 1,10] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100, help="scored rows at 1×")
    parser.add_argument("--samples", type=int, default=400, help="per-sample scores of each row")
    parser.add_argument("--factors", default="1,10", help="board sizes to measure, as multiples of --rows")
    parser.add_argument("--repeat", type=int, default=3, help="new scores landed (and timed) at each size")
    parser.add_argument("--reference-max", type=int, default=2000,
                        help="skip the all-pairs reference above this many rows (it is O(rows) bootstraps)")
    args = parser.parse_args()
    factors = [int(f) for f in args.factors.split(",")]

    os.environ.setdefault("EBH_VAR_DIR", tempfile.mkdtemp(prefix="ebh-boardcmp-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from leaderboard.models import BoardComparison
    from leaderboard.services import board_comparisons_compute, board_comparisons_update
    from scoring.models import Benchmark, ModelEntry, Sample, SampleScore, Score, Split, Submission

    call_command("migrate", verbosity=0)
    benchmark = Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC", "scorer": "epic"})[0]
    split = Split.objects.create(benchmark=benchmark, name=f"perf-{int(time.time())}", hidden_ground_truth=False)
    leaves = ["Navigation/FeasiblePath/FeasiblePath_Ego", "Navigation/GroundDetection",
              "Manipulation/AffordanceRegion", "TargetLocalization/BA"]
    samples = Sample.objects.bulk_create([Sample(split=split, key=f"p{i:05d}", position=i, task=leaves[i % 4])
                                          for i in range(args.samples)])
    rng = random.Random(34)
    made = 0

    def add_row(tag: str) -> Submission:
        nonlocal made
        made += 1
        entry = ModelEntry.objects.create(name=f"Perf-{tag}-{made}", slug=f"perf-{tag}-{made}-{split.pk}",
                                          kind="open-source")
        p = rng.uniform(0.1, 0.9)
        scores = [float(rng.random() < p) for _ in samples]
        sub = Submission.objects.create(model_entry=entry, split=split, status="scored", scorer_version="perf-1",
                                        finished_at=timezone.now())
        overall = 100 * sum(scores) / len(scores)
        Score.objects.create(submission=sub, overall=overall, scorer_version="perf-1",
                             intervals={"overall": [overall - 4, overall + 4]})
        SampleScore.objects.bulk_create([SampleScore(submission=sub, sample=s, index=i, key=s.key, task=s.task,
                                                     score=v) for i, (s, v) in enumerate(zip(samples, scores))],
                                        batch_size=5000)
        return sub

    results: list[tuple[int, int, float, float | None]] = []
    for factor in factors:
        target = args.rows * factor
        started = time.monotonic()
        with transaction.atomic():
            while made < target:
                add_row("board")
        # The board's history: each row's comparisons as the worker stored them when it landed.
        rows = Submission.objects.filter(split=split, status="scored").order_by("pk").values_list("pk", flat=True)
        for pk in rows:
            board_comparisons_update(submission_id=pk)
        print(f"built {target} rows x {args.samples} samples in {time.monotonic() - started:.1f} s", flush=True)
        now_costs, ref_costs = [], []
        for _ in range(args.repeat):
            sub = add_row("new")
            t = time.perf_counter()
            board_comparisons_update(submission_id=sub.pk)
            now_costs.append(time.perf_counter() - t)
            if made <= args.reference_max:
                others = Submission.objects.filter(split=split, status="scored").exclude(pk=sub.pk)
                pairs = [(sub.pk, o) for o in others.values_list("pk", flat=True)]
                with transaction.atomic():
                    t = time.perf_counter()
                    board_comparisons_compute(split_id=split.pk, pairs=pairs)
                    ref_costs.append(time.perf_counter() - t)
                    transaction.set_rollback(True)
        results.append((factor, made, statistics.median(now_costs),
                        statistics.median(ref_costs) if ref_costs else None))
    print(f"\nworker cost of one new score (median of {args.repeat}), {os.environ.get('DATABASE_URL') and 'PostgreSQL' or 'SQLite'}:")
    print(f"{'size':>6} {'rows':>6} {'neighbours (now)':>17} {'ratio to 1x':>12} {'all pairs (reference)':>22}"
          f" {'ratio to 1x':>12}")
    base_now, base_ref = results[0][2], results[0][3]
    for factor, rows_n, now, ref in results:
        ref_text = f"{ref * 1000:>19.1f} ms" if ref is not None else f"{'skipped':>22}"
        ref_ratio = f"{ref / base_ref:>11.2f}x" if ref is not None and base_ref else f"{'':>12}"
        print(f"{factor:>5}x {rows_n:>6} {now * 1000:>14.1f} ms {now / base_now:>11.2f}x {ref_text} {ref_ratio}")
    print(f"comparisons stored: {BoardComparison.objects.filter(split=split).count()} for {made} rows")


if __name__ == "__main__":
    main()
