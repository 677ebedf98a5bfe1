"""How a board read's cost grows with the board's rows (issue 34): a board of ~20 rows and one of ~2,000, in one run.

Builds both boards on the EPIC-Bench benchmark in a database of its own (a temporary SQLite file by default; with
DATABASE_URL, that database, where it adds two splits named `rows-<N>-<stamp>`): N model entries, each with one
scored public upload whose score has a figure and a 95% interval in every column of the board, a provenance and a
readings-free details; a quarter proprietary, the rest open-source; the default view's neighbour comparisons stored
(as the worker stores them when scores land). Then, in this process through Django's test
client (the site's middleware, no server), it reads each page after bumping the board's cache version (as a score
landing does: every cached row, fragment and page is missed) — `--uncached` times — and prints p50/p99 per page and
size, and each 2,000-row p99's ratio to the 20-row one (target: ≤ 2). Pages: the board's first page, a filtered and
sorted board page, the board API, the CSV export, a model page (of an entry on that board), and the memory the
process grew by while reading the large board.

    .venv/bin/python perf/board_scale.py [--small 20] [--large 2000] [--uncached 30] [--profile]

--profile prints a cProfile of the large board's uncached first page (top 30 by cumulative time).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup() -> None:
    if not os.environ.get("DATABASE_URL"):
        os.environ["EBH_VAR_DIR"] = tempfile.mkdtemp(prefix="board-scale-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)


def build(n: int, stamp: str) -> tuple[int, str, str]:
    """A split of epic-bench with n scored rows; returns (split id, split name, a model slug on it)."""
    import random

    from django.utils import timezone

    from scoring.benchmarks import board_for
    from scoring.models import Benchmark, ModelEntry, Score, Split, Submission

    bench = Benchmark.objects.get(slug="epic-bench")
    spec = board_for(bench.slug)
    name = f"rows-{n}-{stamp}"
    split = Split.objects.create(benchmark=bench, name=name)
    rng = random.Random(n)
    entries = ModelEntry.objects.bulk_create([
        ModelEntry(name=f"Scale-{stamp}-VLM-{n}-{i}", slug=f"scale-{stamp}-vlm-{n}-{i}",
                   kind="proprietary" if i % 4 == 0 else "open-source", organisation=f"Org {i % 37}",
                   parameters_b=float(2 ** (i % 8)) if i % 3 else None, thinking="yes" if i % 5 == 0 else "no")
        for i in range(n)])
    now = timezone.now()
    subs = Submission.objects.bulk_create([
        Submission(model_entry=e, split=split, status="scored", scorer_version="scale-1", finished_at=now,
                   sha256=f"{i:064x}", note="generated")
        for i, e in enumerate(entries)])
    keys = [c.key for c in spec.columns]
    scores = []
    for sub in subs:
        values = {k: round(rng.uniform(5, 95), 2) for k in keys}
        scores.append(Score(
            submission=sub, overall=values["overall"], breakdown=values, scorer_version="scale-1",
            intervals={k: [v - 3, v + 3] for k, v in values.items()},
            details={"parsed": 100, "invalid": 0, "coordinate_mode": "normalized_0_1000"},
            provenance={"file_sha256": sub.sha256, "split_version": 1, "scorer_version": "scale-1",
                        "ground_truth_sha256": "0" * 64, "options": {}, "hub_version": "perf"}))
    Score.objects.bulk_create(scores)
    # The comparisons of the default view's neighbours, as the worker stores them when scores land (no per-sample
    # rows here: each is stored with 0 shared units), so that a read does not compute or enqueue them.
    from leaderboard import selectors, services
    from leaderboard.core.board import BoardQuery, board_build

    view = board_build(selectors._load_rows(split.pk), spec, BoardQuery())
    services.board_comparisons_compute(split_id=split.pk, pairs=view.compared)
    return split.pk, name, entries[0].slug


def _ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def measure(client, split_id: int, split: str, model: str, uncached: int) -> dict[str, tuple[float, float]]:
    from scoring.selectors import board_cache_invalidate

    pages = {
        "board first page": f"/leaderboard/epic-bench/?split={split}",
        "board filtered+sorted": f"/leaderboard/epic-bench/?split={split}&kind=open-source&sort=SRA&order=asc"
                                 f"&min_params=2",
        "board API": f"/api/leaderboards/epic-bench/?split={split}",
        "CSV export": f"/leaderboard/epic-bench/export.csv?split={split}",
        "model page": f"/models/{model}/",
    }
    out = {}
    for label, path in pages.items():
        times = []
        for _ in range(uncached + 1):
            board_cache_invalidate(split_id=split_id)

            def get(path=path):
                response = client.get(path)
                assert response.status_code == 200, (path, response.status_code)
                if response.streaming:
                    b"".join(response.streaming_content)
                else:
                    _ = response.content

            times.append(_ms(get))
        times = sorted(times[1:])  # the first warms the process (imports, templates)
        out[label] = (statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--large", type=int, default=2000)
    parser.add_argument("--uncached", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    setup()
    from django.test import Client

    stamp = f"{int(time.time()) % 100000}"
    started = time.monotonic()
    small = build(args.small, stamp)
    large = build(args.large, stamp)
    print(f"built boards of {args.small} and {args.large} rows in {time.monotonic() - started:.1f} s")
    client = Client()
    # Check the API's path before measuring
    from django.urls import reverse

    assert reverse("api-leaderboard", args=["epic-bench"]) == "/api/leaderboards/epic-bench/"
    results = {}
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    results["small"] = measure(client, *small, args.uncached)
    rss_small = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    results["large"] = measure(client, *large, args.uncached)
    rss_large = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), cpus {os.cpu_count()}; uncached requests per page "
          f"{args.uncached}; database {os.environ.get('DATABASE_URL', 'sqlite').split('@')[-1]}")
    print(f"{'page':<24} {args.small:>6}-row p50/p99 ms   {args.large:>6}-row p50/p99 ms   p99 ratio (target <= 2)"
          "   p50 ratio")
    for label in results["small"]:
        s, b = results["small"][label], results["large"][label]
        print(f"{label:<24} {s[0]:>9.1f} {s[1]:>9.1f}      {b[0]:>9.1f} {b[1]:>9.1f}      {b[1] / s[1]:>6.2f}"
              f"                 {b[0] / s[0]:>6.2f}")
    print(f"peak RSS: {rss_before / 1024:.0f} MiB before, {rss_small / 1024:.0f} after the small board, "
          f"{rss_large / 1024:.0f} after the large board")
    if args.profile:
        import cProfile
        import pstats

        from scoring.selectors import board_cache_invalidate

        board_cache_invalidate(split_id=large[0])
        profiler = cProfile.Profile()
        profiler.enable()
        client.get(f"/leaderboard/epic-bench/?split={large[1]}")
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
