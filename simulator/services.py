"""Writes for VGE: devices and tasks in, the demo library, episodes played step by step, bundles to submissions.

Every episode (agent API, browser play, replay) goes through `episode_start` / `episode_step`, which call the
one engine of simulator.core and persist each step (the episode row locked) before answering.
"""
from __future__ import annotations

import json
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from scoring.models import Benchmark, ModelEntry, Sample, Split, Submission
from simulator.core.device import Device as CoreDevice
from simulator.core.device import DeviceInvalid, load_device
from simulator.core.engine import Engine, EpisodeState, StepOutcome
from simulator.core.library import build_library
from simulator.core.metrics import episode_metrics
from simulator.core.render import cached_render
from simulator.core.tasks import Task as CoreTask
from simulator.core.tasks import TaskInvalid, load_task
from simulator.models import Device, Episode, Step, Task

BENCHMARK_SLUG = "vge-bench"
DEMO_SPLIT = "demo"


class EpisodeError(Exception):
    """A request about an episode that cannot be served; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# -- engines: one per device definition, per process -------------------------------------------------
_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def engine_for(device: Device) -> Engine:
    """The process-wide engine of a stored device (graphs built once per definition digest)."""
    engine = _engines.get(device.digest)
    if engine is None:
        with _engines_lock:
            engine = _engines.get(device.digest)
            if engine is None:
                engine = Engine(load_device(device.definition, source=device.device_id))
                _engines[device.digest] = engine
    return engine


def core_task(task: Task) -> CoreTask:
    return load_task(task.definition)


def _engine_with_task(task: Task) -> tuple[Engine, CoreTask]:
    engine = engine_for(task.device)
    core = core_task(task)
    if not engine.has_task(core.id):
        engine.add_task(core)
    return engine, core


# -- devices and tasks ----------------------------------------------------------------------------
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
        from simulator.core.tasks import TaskProblem

        raise TaskInvalid([TaskProblem("device", f"unknown device '{task.device}'")], task.id)
    engine_for(device).add_task(task)  # checks the task against the device
    row, _ = Task.objects.update_or_create(
        task_id=task.id, defaults={"device": device, "definition": task.as_dict(), "sample": sample}
    )
    return row


def _split(split_name: str, *, public: bool) -> Split:
    benchmark, _ = Benchmark.objects.get_or_create(
        slug=BENCHMARK_SLUG, defaults={"name": "VGEBench", "scorer": BENCHMARK_SLUG, "order": 3}
    )
    split, _ = Split.objects.get_or_create(
        benchmark=benchmark,
        name=split_name,
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
    split = _split(DEMO_SPLIT, public=True)
    count = tasks_into_split(tasks=tasks, split=split)
    keep = {t.id for t in tasks}
    Sample.objects.filter(split=split).exclude(key__in=keep).delete()
    return InstallReport(len(devices), count, str(split))


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
            if images:
                images_dir = f"public/vge/devices/{data['id']}"
                target = Path(settings.MEDIA_ROOT) / images_dir
                target.mkdir(parents=True, exist_ok=True)
                for name in images:
                    shutil.copyfile(f.parent / name, target / Path(name).name)
            device_upsert(data=data, source="import", images_dir=images_dir)
        if split_name:
            tasks_into_split(tasks=tasks, split=_split(split_name, public=public))
        else:
            for task in tasks:
                task_upsert(task=task)
    return InstallReport(len(parsed), len(tasks), split_name or "")


# -- episodes -----------------------------------------------------------------------------------
def observation(*, episode: Episode, engine: Engine, state: EpisodeState) -> dict[str, Any]:
    """What a player or agent sees now. Never names states or components."""
    core = engine.task(state.task)
    return {
        "episode": episode.pk,
        "turn": state.turns,
        "view": state.view,
        "image_url": f"/api/vge/episodes/{episode.pk}/view.png?turn={state.turns}",
        "accessible_views": engine.accessible_views(state),
        "instruction": engine.instruction(state),
        "goal_index": state.goal_index,
        "goals_total": len(core.goals),
        "budgets": {"global": state.global_left, "local": state.local_left},
        "done": state.done,
        "success": state.success,
    }


def episode_start(*, user: AbstractBaseUser | None, task_id: str, kind: str = Episode.Kind.AGENT) -> tuple[Episode, dict]:
    task = Task.objects.select_related("device").filter(task_id=task_id).first()
    if task is None:
        raise EpisodeError(f"Unknown task '{task_id}'.", status=404)
    engine, core = _engine_with_task(task)
    state = engine.new_episode(core)
    episode = Episode.objects.create(owner=user if user and user.is_authenticated else None, task=task, kind=kind,
                                     state=state.as_dict())
    return episode, observation(episode=episode, engine=engine, state=state)


def _check_owner(episode: Episode, user: AbstractBaseUser | None) -> None:
    if episode.owner_id is not None and (user is None or (episode.owner_id != user.pk and not user.is_staff)):
        raise EpisodeError("This episode belongs to someone else.", status=403)


def episode_step(*, episode_id: int, user: AbstractBaseUser | None, output: str) -> tuple[StepOutcome, dict]:
    """One turn: lock the episode, step the engine, store the step (and metrics when it ends), answer."""
    with transaction.atomic():
        episode = Episode.objects.select_for_update().select_related("task__device").filter(pk=episode_id).first()
        if episode is None:
            raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
        _check_owner(episode, user)
        if episode.finished:
            raise EpisodeError("The episode is over; start a new one.", status=409)
        engine, core = _engine_with_task(episode.task)
        state = EpisodeState.from_dict(episode.state)
        new_state, outcome = engine.step(state, output)
        Step.objects.create(
            episode=episode,
            index=outcome.turn,
            raw_output=outcome.raw_output,
            parsed_action=outcome.action.as_dict() if outcome.action else None,
            outcome=outcome.as_dict(),
        )
        episode.state = new_state.as_dict()
        fields = ["state", "updated_at"]
        if new_state.done:
            outcomes = [StepOutcome.from_dict(s) for s in episode.steps.order_by("index").values_list("outcome", flat=True)]
            metrics = episode_metrics(engine, core, outcomes)
            episode.finished, episode.success = True, metrics.success
            episode.metrics = {**metrics.values, "goals_reached": metrics.goals_reached, "turns": metrics.turns,
                               "l_opt": metrics.l_opt}
            fields += ["finished", "success", "metrics"]
        episode.save(update_fields=fields)
    return outcome, observation(episode=episode, engine=engine, state=new_state)


def episode_view_image(*, episode_id: int, user: AbstractBaseUser | None, turn: int | None = None) -> Path:
    """The PNG of the view the episode showed after `turn` (default: now): a device image or a cached render."""
    episode = Episode.objects.select_related("task__device").filter(pk=episode_id).first()
    if episode is None:
        raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
    _check_owner(episode, user)
    state = EpisodeState.from_dict(episode.state)
    name, view = state.state, state.view
    if turn is not None and turn != state.turns:
        if turn == 0:
            core = core_task(episode.task)
            name, view = engine_for(episode.task.device).graphs.chain[core.start_state][0], core.start_view
        else:
            step = episode.steps.filter(index=turn).values_list("outcome", flat=True).first()
            if step is None:
                raise EpisodeError(f"The episode has no turn {turn}.", status=404)
            name, view = step["state_after"], step["view_after"]
    device_row = episode.task.device
    device: CoreDevice = engine_for(device_row).device
    image = device.views[view].image
    if image and device_row.images_dir:
        return Path(settings.MEDIA_ROOT) / device_row.images_dir / Path(image).name
    cache = Path(getattr(settings, "VGE_RENDER_CACHE", Path(settings.MEDIA_ROOT) / "vge-renders"))
    return cached_render(device, view, name, cache)


# -- bundles ------------------------------------------------------------------------------------
def episodes_log_text(*, episodes: Iterable[Episode]) -> str:
    """A vge-log/1 file of episodes: one line each, the raw outputs in turn order."""
    lines = []
    for episode in episodes:
        outputs = list(episode.steps.order_by("index").values_list("raw_output", flat=True))
        lines.append(json.dumps({"task": episode.task.task_id, "outputs": outputs}))
    return "\n".join(lines) + "\n"


def episodes_submission_create(
    *, user: AbstractBaseUser, split: Split, model_entry: ModelEntry, note: str = ""
) -> Submission:
    """Bundle the user's finished agent episodes on the split's tasks (the latest per task) into a submission."""
    keys = set(Sample.objects.filter(split=split).values_list("key", flat=True))
    latest: dict[str, Episode] = {}
    for episode in (
        Episode.objects.filter(owner=user, kind=Episode.Kind.AGENT, finished=True, task__task_id__in=keys)
        .select_related("task")
        .order_by("created_at", "pk")
    ):
        latest[episode.task.task_id] = episode
    if not latest:
        raise EpisodeError("You have no finished agent episodes on the tasks of this split.", status=400)
    text = episodes_log_text(episodes=latest.values())
    upload = SimpleUploadedFile(f"vge-episodes-{split.name}.jsonl", text.encode(), content_type="application/jsonl")
    from scoring.services import submission_create

    return submission_create(user=user, split=split, model_entry=model_entry, uploaded_file=upload,
                             note=note or f"{len(latest)} agent episodes played through the API")
