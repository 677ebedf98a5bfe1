"""VGE render speed: one 512 px view of a library device in one state, PNG encoding included (target < 20 ms).

Renders every view of every state of the demo devices named (default: one device per category, first layout),
uncached, and prints the mean and 95th percentile per view kind and overall.

Usage: .venv/bin/python perf/vge_render.py [--devices microwave-01,air-fryer-01] [--repeat 1]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring.benchmarks.vge.core.device import load_device  # noqa: E402
from scoring.benchmarks.vge.core.library import build_library  # noqa: E402
from scoring.benchmarks.vge.core.render import render_view  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", default="", help="comma-separated device ids (default: every *-01 device)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    wanted = {d for d in args.devices.split(",") if d}
    data, _ = build_library(seed=7)
    devices = [load_device(d) for d in data if (d["id"] in wanted if wanted else d["id"].endswith("-01"))]
    render_view(devices[0], "front", devices[0].initial_state)  # warm up fonts and imports
    times: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.repeat):
        for device in devices:
            for state in device.states:
                for view, spec in device.views.items():
                    start = time.perf_counter()
                    render_view(device, view, state)
                    times[spec.kind].append(1000 * (time.perf_counter() - start))
    every = [t for ts in times.values() for t in ts]
    for kind, ts in sorted(times.items()) + [("all", every)]:
        p95 = statistics.quantiles(ts, n=20)[-1] if len(ts) > 1 else ts[0]
        print(f"{kind:13s} {len(ts):5d} renders: mean {statistics.mean(ts):6.2f} ms, p95 {p95:6.2f} ms (target < 20 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
