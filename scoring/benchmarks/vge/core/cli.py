"""`python -m scoring vge-bench --devices DIR --tasks TASKS.jsonl LOGS.jsonl --output OUT.json`.

Replays every log line (several episodes of one task are allowed here) and writes the summary and the
per-episode metrics; lists the tasks of the tasks file that have no episode. No Django.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scoring.benchmarks.vge.core.device import DeviceInvalid
from scoring.benchmarks.vge.core.metrics import EPISODE_METRICS, summarise
from scoring.benchmarks.vge.core.replay import Library, load_devices_dir, load_tasks_text, parse_log, replay
from scoring.benchmarks.vge.core.task_defs import TaskInvalid


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring vge-bench", description=__doc__.splitlines()[0])
    parser.add_argument("--devices", required=True, type=Path, help="folder of vge-device/1 JSON files")
    parser.add_argument("--tasks", required=True, type=Path, help="vge-task/1 JSONL file")
    parser.add_argument("logs", type=Path, help="vge-log/1 JSONL file")
    parser.add_argument("--output", type=Path, help="where to write the result JSON (default: stdout)")
    args = parser.parse_args(argv)
    try:
        library = Library(load_devices_dir(args.devices))
    except DeviceInvalid as exc:
        print(f"bad device: {exc}", file=sys.stderr)
        return 2
    tasks, problems = load_tasks_text(args.tasks.read_text(encoding="utf-8"))
    for task in tasks:
        try:
            library.add_task(task)
        except TaskInvalid as exc:
            problems.append(f"{args.tasks}: {exc}")  # type: ignore[arg-type]
    if problems:
        for p in problems:
            print(f"{args.tasks}: {p}" if not str(p).startswith(str(args.tasks)) else p, file=sys.stderr)
        return 2
    episodes, log_problems = parse_log(args.logs.read_text(encoding="utf-8"), library.tasks, allow_duplicates=True)
    for p in log_problems:
        print(f"{args.logs}: {p}", file=sys.stderr)
    results = [replay(library.engine_for(e.task), library.tasks[e.task], e.outputs) for e in episodes]
    metrics = [r.metrics for r in results]
    played = {e.task for e in episodes}
    out: dict[str, Any] = {
        "summary": summarise(metrics),
        "episodes": [
            {
                "task": m.task,
                "success": m.success,
                "goals_reached": m.goals_reached,
                "turns": m.turns,
                **{name: m.values[name] for name in EPISODE_METRICS},
            }
            for m in metrics
        ],
        "tasks_without_episode": [t for t in library.tasks if t not in played],
        "problems": [str(p) for p in log_problems],
    }
    text = json.dumps(out, indent=1)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
        s = out["summary"]
        print(f"{len(metrics)} episodes; SR {s['SR']}, SSR {s['SSR']}, SPL {s['SPL']}; written to {args.output}")
    else:
        print(text)
    return 1 if log_problems and not episodes else 0
