"""Replay of `vge-log/1` action logs through the engine, and loading of device folders and task files.

A log line is one episode: its outputs are fed to the engine in order until the episode ends; outputs past
the end are ignored and a short log ends the episode as it stands. Bad lines (not JSON, unknown task, a
duplicate task where duplicates are refused) are reported per line, never raised one at a time.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from scoring.benchmarks.vge.core.device import Device, DeviceInvalid, Problem, load_device
from scoring.benchmarks.vge.core.engine import Engine, EpisodeState, StepOutcome
from scoring.benchmarks.vge.core.metrics import EpisodeMetrics, episode_metrics
from scoring.benchmarks.vge.core.task_defs import Task, TaskInvalid, load_task
from scoring.core.jsonl import json_lines

LOG_FORMAT = "vge-log/1"


@dataclass(frozen=True)
class LineProblem:
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = [f"line {self.line}"] if self.line is not None else []
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


@dataclass(frozen=True)
class LogEpisode:
    line: int
    task: str
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class ReplayResult:
    task: Task
    outcomes: tuple[StepOutcome, ...]
    final: EpisodeState
    metrics: EpisodeMetrics


class Library:
    """Devices and tasks by id, with one engine per device (graphs computed once)."""

    def __init__(self, devices: Iterable[Device] = (), tasks: Iterable[Task] = ()):
        self.devices: dict[str, Device] = {}
        self.engines: dict[str, Engine] = {}
        self.tasks: dict[str, Task] = {}
        for device in devices:
            self.add_device(device)
        for task in tasks:
            self.add_task(task)

    def add_device(self, device: Device) -> Engine:
        self.devices[device.id] = device
        engine = Engine(device)
        self.engines[device.id] = engine
        return engine

    def add_task(self, task: Task) -> None:
        engine = self.engines.get(task.device)
        if engine is None:
            raise TaskInvalid([Problem("device", f"unknown device '{task.device}'")], task.id)
        engine.add_task(task)
        self.tasks[task.id] = task

    def engine_for(self, task_id: str) -> Engine:
        return self.engines[self.tasks[task_id].device]


def load_devices_dir(folder: Path) -> list[Device]:
    """Every `*.json` device in a folder (recursively); raises DeviceInvalid naming the file."""
    devices = []
    for path in sorted(Path(folder).rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DeviceInvalid([], f"{path}: not JSON ({exc})") from exc
        if isinstance(data, Mapping) and data.get("format") != "vge-device/1" and "format" in data:
            continue  # other JSON files (e.g. a manifest) may sit next to devices
        devices.append(load_device(data, source=str(path)))
    return devices


def read_jsonl(source: str | Iterable[str | bytes], *, samples: int | None = None) -> Iterator[tuple[int, Any, str]]:
    """(line number, parsed value or None, error) for each non-blank line of a text or an open (binary) file, one
    at a time; with `samples`, the split's task count, a file past its line bound is refused (scoring.core.jsonl)."""
    lines = io.StringIO(source) if isinstance(source, str) else source
    for line in json_lines(lines, samples=samples):
        yield line.number, line.value, line.error


def load_tasks_text(text: str) -> tuple[list[Task], list[LineProblem]]:
    tasks, problems = [], []
    for number, data, error in read_jsonl(text):
        if error:
            problems.append(LineProblem(number, None, error))
            continue
        try:
            tasks.append(load_task(data))
        except TaskInvalid as exc:
            problems += [LineProblem(number, p.path or None, p.message) for p in exc.problems]
    return tasks, problems


def example_episode(sample: Any) -> dict[str, Any]:
    """One vge-log/1 line for a task (a `SampleRecord`): no outputs, a failed episode. For the format page's example
    file, which scores (0)."""
    return {"task": sample.key, "outputs": []}


def parse_log(
    text: str | Iterable[str | bytes], known_tasks: Mapping[str, Any], *, allow_duplicates: bool,
    samples: int | None = None,
) -> tuple[list[LogEpisode], list[LineProblem]]:
    """Episodes of a `vge-log/1` text or open file; problems per line (bad JSON, fields, unknown or duplicate
    tasks). With `samples`, the split's task count, a file past its line bound raises `SubmissionRejected`."""
    episodes: list[LogEpisode] = []
    problems: list[LineProblem] = []
    first_line: dict[str, int] = {}
    for number, data, error in read_jsonl(text, samples=samples):
        if error:
            problems.append(LineProblem(number, None, error))
            continue
        if not isinstance(data, Mapping):
            problems.append(LineProblem(number, None, 'each line must be an object {"task": ..., "outputs": [...]}'))
            continue
        task = data.get("task")
        outputs = data.get("outputs")
        if not isinstance(task, str) or not task:
            problems.append(LineProblem(number, "task", "must be a task id string"))
            continue
        if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
            problems.append(LineProblem(number, "outputs", "must be a list of strings (one model output per turn)"))
            continue
        if task not in known_tasks:
            problems.append(LineProblem(number, "task", f"unknown task '{task}'"))
            continue
        if task in first_line and not allow_duplicates:
            problems.append(LineProblem(number, "task", f"duplicate task '{task}' (first on line {first_line[task]})"))
            continue
        first_line.setdefault(task, number)
        episodes.append(LogEpisode(number, task, tuple(outputs)))
    return episodes, problems


def replay(engine: Engine, task: Task, outputs: Sequence[str], *, lam: float | None = None) -> ReplayResult:
    """The episode the outputs play, with the task's λ or with `lam` (the λ the episodes were played with)."""
    state = engine.new_episode(task, lam=lam)
    outcomes = []
    for output in outputs:
        if state.done:
            break
        state, outcome = engine.step(state, output)
        outcomes.append(outcome)
    return ReplayResult(task, tuple(outcomes), state, episode_metrics(engine, task, outcomes))


def trace(result: ReplayResult) -> list[dict[str, Any]]:
    """The per-step trace stored with a scored episode."""
    return [o.as_dict() for o in result.outcomes]
