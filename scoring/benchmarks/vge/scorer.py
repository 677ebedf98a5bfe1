"""VGEBench scorer: replays an uploaded `vge-log/1` file through the simulator engine.

Each sample of the split is one task (`ground_truth = {"task": <vge-task/1>, "device": <id>}`). The file
must hold exactly one episode per task: unknown or duplicate tasks reject the file with per-line problems;
a missing task is a failed episode with zero turns. Overall = SR; the breakdown holds the twelve metrics.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from scoring.core.contract import FileProblem, SampleResult, ScorerInput, ScoringResult, SubmissionRejected
from scoring.core.stats import DEFAULT_SEED, resample_indices
from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device
from scoring.benchmarks.vge.core.metrics import METRICS, bootstrap_intervals, summarise
from scoring.benchmarks.vge.core.replay import Library, parse_log, replay, trace
from scoring.benchmarks.vge.core.task_defs import TaskInvalid, load_task

VERSION = "vge-1.0"
DeviceLoader = Callable[[Iterable[str]], Mapping[str, Mapping[str, Any]]]


def _default_loader(ids: Iterable[str]) -> Mapping[str, Mapping[str, Any]]:
    from simulator.selectors import device_definitions  # Django; only where the site scores

    return device_definitions(ids=list(ids))


def score(inp: ScorerInput, *, device_loader: DeviceLoader | None = None) -> ScoringResult:
    loader = device_loader or _default_loader
    samples = list(inp.samples)
    tasks = {}
    for sample in samples:
        try:
            tasks[sample.key] = load_task(sample.ground_truth["task"])
        except (KeyError, TaskInvalid) as exc:  # the split itself is broken: a site error, not the file's
            raise RuntimeError(f"sample {sample.key}: bad VGE ground truth ({exc})") from exc
    definitions = loader({t.device for t in tasks.values()})
    library = Library()
    for device_id in sorted({t.device for t in tasks.values()}):
        if device_id not in definitions:
            raise RuntimeError(f"device '{device_id}' of the split is not in the database")
        try:
            library.add_device(load_device(definitions[device_id], source=device_id))
        except DeviceInvalid as exc:
            raise RuntimeError(str(exc)) from exc
    for task in tasks.values():
        library.add_task(task)

    try:
        text = inp.file_path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionRejected("The file is not UTF-8 text (vge-log/1 is JSON lines).") from exc
    episodes, problems = parse_log(text, library.tasks, allow_duplicates=False)
    if problems:
        raise SubmissionRejected(
            f"The log has {len(problems)} problem(s); nothing was scored.",
            [FileProblem(p.message, line=p.line, field=p.field) for p in problems],
        )
    if not episodes:
        raise SubmissionRejected("The log holds no episodes (one JSON line per task: {\"task\", \"outputs\"}).")
    by_task = {e.task: e for e in episodes}

    results: list[SampleResult] = []
    metrics = []
    for index, sample in enumerate(samples):
        task = tasks[sample.key]
        episode = by_task.get(task.id)
        result = replay(library.engine_for(task.id), task, episode.outputs if episode else ())
        m = result.metrics
        metrics.append(m)
        outcome = "missing" if episode is None else ("success" if m.success else "failed")
        results.append(
            SampleResult(
                index=index,
                key=sample.key,
                score=m.values["SR"],
                task=sample.task or sample.category,
                outcome=outcome,
                error="no episode for this task in the file" if episode is None else "",
                components={**m.values, "goals_reached": m.goals_reached, "turns": m.turns},
                details={
                    "task": task.as_dict(),
                    "line": episode.line if episode else None,
                    "l_opt": m.l_opt,
                    "final": result.final.as_dict(),
                    "trace": trace(result),
                    "ignored_outputs": max(0, len(episode.outputs) - m.turns) if episode else 0,
                },
            )
        )
        if index % 50 == 0:
            inp.progress(index, len(samples))
    inp.progress(len(samples), len(samples))
    breakdown = summarise(metrics)
    intervals = bootstrap_intervals(metrics, resample_indices=resample_indices, seed=DEFAULT_SEED)
    return ScoringResult(
        overall=breakdown["SR"],
        breakdown={name: breakdown[name] for name in METRICS},
        samples=results,
        scorer_version=VERSION,
        intervals=intervals,
        details={"episodes": len(metrics), "missing_tasks": sum(1 for r in results if r.outcome == "missing")},
    )
