"""VGE render speed: one 512 px view of a library device in one state, PNG encoding included (target < 20 ms).

Renders every view of every state of the demo devices named (default: one device per category, first layout),
uncached, and prints the mean and 95th percentile per view kind and overall: CPU time of this process (what
the render costs, steady on a shared machine) and wall time (what a request waits, inflated when others run).

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

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.render import render_view


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", default="", help="comma-separated device ids (default: every *-01 device)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    wanted = {d for d in args.devices.split(",") if d}
    data, _ = build_library(seed=7)
    devices = [load_device(d) for d in data if (d["id"] in wanted if wanted else d["id"].endswith("-01"))]
    render_view(devices[0], "front", devices[0].initial_state)  # warm up fonts and imports
    cpu: dict[str, list[float]] = defaultdict(list)
    wall: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.repeat):
        for device in devices:
            for state in device.states:
                for view, spec in device.views.items():
                    start, start_cpu = time.perf_counter(), time.process_time()
                    render_view(device, view, state)
                    cpu[spec.kind].append(1000 * (time.process_time() - start_cpu))
                    wall[spec.kind].append(1000 * (time.perf_counter() - start))
    for kind in sorted(cpu) + ["all"]:
        c = [t for k in cpu for t in cpu[k]] if kind == "all" else cpu[kind]
        w = [t for k in wall for t in wall[k]] if kind == "all" else wall[kind]
        print(f"{kind:13s} {len(c):5d} renders: CPU mean {statistics.mean(c):6.2f} ms, p95 {_p95(c):6.2f} ms; "
              f"wall mean {statistics.mean(w):6.2f} ms, p95 {_p95(w):6.2f} ms (target < 20 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
