"""Devices and tasks in: upserts, VGE splits and their samples, the generated demo library, the practice panel,
the demo agents' submissions, imports of devices and tasks made elsewhere."""
from __future__ import annotations

import copy
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from django.conf import settings
from django.db import transaction

from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.demo_agents import DEMO_AGENTS, demo_log
from scoring.benchmarks.vge.core.device import DeviceInvalid, Problem, load_device
from scoring.benchmarks.vge.core.library import build_library, build_test_tasks
from scoring.benchmarks.vge.core.task_defs import Task as CoreTask
from scoring.benchmarks.vge.core.task_defs import TaskInvalid, load_task
from scoring.benchmarks.vge.plugin import SLUG as VGE_SLUG
from scoring.models import Benchmark, Sample, Split, Submission
from scoring.services import demo_phases_ensure, demo_submission_ensure
from simulator.engines import engine_for, engine_with_task
from simulator.human_board import DEMO_SPLIT
from simulator.models import Device, Task

BENCHMARK_SLUG = VGE_SLUG


def device_upsert(*, data: dict[str, Any], source: str = "import", images_dir: str = "") -> Device:
    """Validate and store a device definition (replacing one with the same id)."""
    device = load_device(data, source=str(data.get("id", "")))
    row, _ = Device.objects.update_or_create(
        device_id=device.id,
        defaults={
            "category": device.category,
            "definition": data,
            "digest": device.digest,
            "source": source,
            "images_dir": images_dir,
        },
    )
    return row


def task_upsert(*, task: CoreTask, sample: Sample | None = None) -> Task:
    device = Device.objects.filter(device_id=task.device).first()
    if device is None:
        raise TaskInvalid([Problem("device", f"unknown device '{task.device}'")], task.id)
    engine_for(device).add_task(task)  # checks the task against the device
    row, _ = Task.objects.update_or_create(
        task_id=task.id, defaults={"device": device, "definition": task.as_dict(), "sample": sample}
    )
    return row


def split_ensure(*, name: str, public: bool) -> Split:
    """Version 1 of the named VGE split (and the benchmark), made when missing."""
    benchmark, _ = Benchmark.objects.get_or_create(
        slug=BENCHMARK_SLUG, defaults={"name": "VGEBench", "scorer": BENCHMARK_SLUG, "order": 3}
    )
    split, _ = Split.objects.get_or_create(
        benchmark=benchmark,
        name=name,
        version=1,
        defaults={"hidden_ground_truth": not public, "description": "Generated VGE devices and tasks."},
    )
    return split


def tasks_into_split(*, tasks: Iterable[CoreTask], split: Split) -> int:
    """One Sample per task (key = task id; ground truth = the task and its device id); links Task rows."""
    count = 0
    for position, task in enumerate(tasks):
        device = Device.objects.get(device_id=task.device)
        sample, _ = Sample.objects.update_or_create(
            split=split,
            key=task.id,
            defaults={
                "position": position,
                "category": device.category,
                "group": task.device,
                "task": "multi-goal" if len(task.goals) > 1 else "single-goal",
                "inputs": {"device": task.device, "start_view": task.start_view, "instruction": task.instructions[0]},
                "ground_truth": {"task": task.as_dict(), "device": task.device},
            },
        )
        task_upsert(task=task, sample=sample)
        count += 1
    return count


@dataclass(frozen=True)
class InstallReport:
    devices: int
    tasks: int
    split: str


@transaction.atomic
def demo_library_install(*, seed: int = 7, variants: int = 2) -> InstallReport:
    """Write the generated library (devices, tasks, split `demo` with public ground truth). Idempotent."""
    devices, tasks = build_library(seed=seed, variants=variants)
    for data in devices:
        device_upsert(data=data, source="demo")
    split = split_ensure(name=DEMO_SPLIT, public=True)
    count = tasks_into_split(tasks=tasks, split=split)
    keep = {t.id for t in tasks}
    Sample.objects.filter(split=split).exclude(key__in=keep).delete()
    return InstallReport(len(devices), count, str(split))


TEST_SPLIT = "demo-test"


@transaction.atomic
def demo_test_install(*, seed: int = 7, variants: int = 2) -> InstallReport:
    """The demo's test phase: split `demo-test` with hidden ground truth, one task on the first device of each
    category (`build_test_tasks`), and the demo's Development (split `demo`) and Test phases. Idempotent; after
    `demo_library_install`."""
    devices, _ = build_library(seed=seed, variants=variants)
    tasks = build_test_tasks(devices, seed=seed, every=variants)
    split = split_ensure(name=TEST_SPLIT, public=False)
    if split.description == "Generated VGE devices and tasks.":
        split.description = "Generated VGE tasks, one per device category, hidden ground truth: the demo's test phase."
        split.save(update_fields=["description"])
    count = tasks_into_split(tasks=tasks, split=split)
    Sample.objects.filter(split=split).exclude(key__in={t.id for t in tasks}).delete()
    dev = split_ensure(name=DEMO_SPLIT, public=True)
    demo_phases_ensure(benchmark=split.benchmark, dev=dev, test=split)
    return InstallReport(len(devices), count, str(split))


def practice_install() -> Task:
    """The practice panel and its task (idempotent). In no split: practice episodes are never scored and never
    enter the Human row, which counts baseline tasks of the demo split only."""
    device_upsert(data=copy.deepcopy(practice.DEVICE), source="demo")
    return task_upsert(task=practice.task())


def demo_agents_submit(*, split: Split, seed: int = 7, first_only: bool = False) -> list[tuple[str, Submission, str]]:
    """The demo agents' logs for every task of the split, submitted and replayed by the same scorer (idempotent).
    `first_only`: the first demo agent only."""
    tasks = Task.objects.filter(sample__split=split).select_related("device", "sample").order_by("sample__position")
    episodes = [engine_with_task(task) for task in tasks]
    results = []
    for slug, (name, description, agent) in list(DEMO_AGENTS.items())[:1 if first_only else None]:
        submission, outcome = demo_submission_ensure(
            split=split, owner_username="vge-demo", slug=slug, name=name, description=description,
            content=lambda agent=agent: "".join(json.dumps(r) + "\n" for r in demo_log(agent, episodes, seed=seed)),
        )
        results.append((name, submission, outcome))
    return results


def vge_import(*, path: Path, split_name: str | None = None, public: bool = False) -> InstallReport:
    """Load device JSON (+ view images next to each file) and tasks (*.jsonl) made elsewhere.

    Raises DeviceInvalid / TaskInvalid naming the file and field; nothing is stored when one fails.
    """
    path = Path(path)
    files = [path] if path.is_file() else sorted(path.rglob("*"))
    device_files = [f for f in files if f.suffix == ".json"]
    task_files = [f for f in files if f.suffix == ".jsonl"]
    parsed: list[tuple[dict[str, Any], Path]] = []
    for f in device_files:
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DeviceInvalid([], f"{f}: not JSON ({exc})") from exc
        device = load_device(data, source=str(f))
        for view in device.views.values():
            if view.image and not (f.parent / view.image).is_file():
                raise DeviceInvalid([], f"{f}: views.{view.name}.image: file '{view.image}' not found next to it")
        for state in device.states.values():  # photos of a view in a state (the device lab's state looks)
            photos = state.look.get("photos")
            for view_name, image in (photos.items() if isinstance(photos, dict) else []):
                if not isinstance(image, str) or not (f.parent / image).is_file():
                    raise DeviceInvalid([], f"{f}: states.{state.name}.look.photos.{view_name}: file {image!r} not "
                                            "found next to it")
        parsed.append((data, f))
    tasks: list[CoreTask] = []
    for f in task_files:
        for number, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    tasks.append(load_task(json.loads(line)))
                except (json.JSONDecodeError, TaskInvalid) as exc:
                    raise TaskInvalid([], f"{f} line {number}: {exc}") from exc
    with transaction.atomic():
        for data, f in parsed:
            images_dir = ""
            images = [v.get("image") for v in data["views"].values() if isinstance(v, dict) and v.get("image")]
            images += [name for spec in data["states"].values()
                       for name in ((spec.get("look") or {}).get("photos") or {}).values()]
            if images:
                images_dir = f"public/vge/devices/{data['id']}"
                target = Path(settings.MEDIA_ROOT) / images_dir
                target.mkdir(parents=True, exist_ok=True)
                for name in images:
                    shutil.copyfile(f.parent / name, target / Path(name).name)
            device_upsert(data=data, source="import", images_dir=images_dir)
        if split_name:
            tasks_into_split(tasks=tasks, split=split_ensure(name=split_name, public=public))
        else:
            for task in tasks:
                task_upsert(task=task)
    return InstallReport(len(parsed), len(tasks), split_name or "")
