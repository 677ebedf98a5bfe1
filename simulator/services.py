"""Writes for VGE: devices and tasks in, the demo library, episodes played step by step, bundles to submissions.

Every episode (agent API, browser play, replay) goes through `episode_start` / `episode_step`, which call the
one engine of scoring.benchmarks.vge.core and persist each step (the episode row locked) before answering.
"""
from __future__ import annotations

import contextlib
import copy
import json
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.utils import timezone

from accounts.roles import is_curator
from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.baseline import Candidate, stratified_pick
from scoring.benchmarks.vge.core.demo_agents import DEMO_AGENTS, demo_log
from scoring.benchmarks.vge.core.device import Device as CoreDevice
from scoring.benchmarks.vge.core.device import DeviceInvalid, Problem, load_device
from scoring.benchmarks.vge.core.engine import Engine, EpisodeState, StepOutcome
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core import perturb
from scoring.benchmarks.vge.core.metrics import episode_metrics
from scoring.benchmarks.vge.core.render import cached_render
from scoring.benchmarks.vge.core.task_defs import Task as CoreTask
from scoring.benchmarks.vge.core.task_defs import TaskInvalid, load_task
from scoring.benchmarks.vge.plugin import SLUG as VGE_SLUG
from scoring.models import Benchmark, ModelEntry, Sample, Split, Submission
from scoring.services import demo_submission_ensure, submission_create
from simulator.engines import (
    EpisodeError, core_task, engine_cached, engine_for, engine_with_task, episode_owner_check, observation,
)
from simulator.human_board import DEMO_SPLIT, demo_split
from simulator.models import Device, Episode, Step, Task
from simulator.tasks import human_board_refresh_task

BENCHMARK_SLUG = VGE_SLUG


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


def practice_install() -> Task:
    """The practice panel and its task (idempotent). In no split: practice episodes are never scored and never
    enter the Human row, which counts baseline tasks of the demo split only."""
    device_upsert(data=copy.deepcopy(practice.DEVICE), source="demo")
    return task_upsert(task=practice.task())


def demo_agents_submit(*, split: Split, seed: int = 7) -> list[tuple[str, Submission, str]]:
    """The demo agents' logs for every task of the split, submitted and replayed by the same scorer (idempotent)."""
    tasks = Task.objects.filter(sample__split=split).select_related("device", "sample").order_by("sample__position")
    episodes = [engine_with_task(task) for task in tasks]
    results = []
    for slug, (name, description, agent) in DEMO_AGENTS.items():
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
            tasks_into_split(tasks=tasks, split=split_ensure(name=split_name, public=public))
        else:
            for task in tasks:
                task_upsert(task=task)
    return InstallReport(len(parsed), len(tasks), split_name or "")


# -- episodes -----------------------------------------------------------------------------------
def episode_start(*, user: AbstractBaseUser | None, task_id: str, kind: str = Episode.Kind.AGENT,
                  perturbation: str = "") -> tuple[Episode, dict]:
    """A new episode; `perturbation` (canonical text, see scoring.benchmarks.vge.core.perturb) is applied to every
    view it serves."""
    # the definitions are read only when this process's engine does not know the task yet
    row = Task.objects.filter(task_id=task_id).values_list("pk", "device__digest").first()
    if row is None:
        raise EpisodeError(f"Unknown task '{task_id}'.", status=404)
    task_pk, digest = row
    engine, core = engine_with_cached_task(digest=digest, task_id=task_id, task_pk=task_pk)
    state = engine.new_episode(core)
    episode = Episode.objects.create(owner=user if user and user.is_authenticated else None, task_id=task_pk,
                                     kind=kind, state=state.as_dict(), perturbation=perturbation)
    return episode, observation(episode=episode, engine=engine, state=state)


class _StepStatements:
    """The three statements of a step (SELECT the locked episode, INSERT the step, UPDATE the episode), written once
    per process from the models' metadata and run on a plain cursor: building them through the ORM on every step
    cost more CPU than the engine and the database together (perf/agent_step_profile.py). Values go through the
    fields' own conversions (JSON, time zones), so the rows are the ones the ORM writes and reads back.

    The SELECT reads no model instance and never a definition (the engine of a device digest, with its tasks, is
    cached per process; the task row is read in full only when the engine misses)."""

    def __init__(self, conn) -> None:
        qn = conn.ops.quote_name
        episode, step, task, device = (m._meta for m in (Episode, Step, Task, Device))

        def col(meta, name: str) -> str:
            return qn(meta.get_field(name).column)

        lock = " FOR UPDATE OF e" if conn.features.has_select_for_update_of else ""
        self.select = (
            f"SELECT e.{col(episode, 'owner')}, e.{col(episode, 'finished')}, e.{col(episode, 'state')}, "
            f"e.{col(episode, 'task')}, t.{col(task, 'task_id')}, d.{col(device, 'digest')} "
            f"FROM {qn(episode.db_table)} e "
            f"JOIN {qn(task.db_table)} t ON t.{qn(task.pk.column)} = e.{col(episode, 'task')} "
            f"JOIN {qn(device.db_table)} d ON d.{qn(device.pk.column)} = t.{col(task, 'device')} "
            f"WHERE e.{qn(episode.pk.column)} = %s{lock}"
        )
        self.insert_fields = [step.get_field(n) for n in ("episode", "index", "raw_output", "parsed_action", "outcome",
                                                           "created_at")]
        self.insert = (f"INSERT INTO {qn(step.db_table)} ({', '.join(qn(f.column) for f in self.insert_fields)}) "
                       f"VALUES ({', '.join(['%s'] * len(self.insert_fields))})")
        self.update_fields = [episode.get_field(n) for n in ("state", "updated_at")]
        assignments = ", ".join(f"{qn(f.column)} = %s" for f in self.update_fields)
        self.update = f"UPDATE {qn(episode.db_table)} SET {assignments} WHERE {qn(episode.pk.column)} = %s"
        self.state_field = episode.get_field("state")

    @staticmethod
    def prepared(fields, values, conn) -> list:
        return [field.get_db_prep_save(value, connection=conn) for field, value in zip(fields, values)]


_step_statements: dict[str, _StepStatements] = {}


def _statements(conn) -> _StepStatements:
    found = _step_statements.get(conn.alias)
    if found is None:
        found = _step_statements[conn.alias] = _StepStatements(conn)
    return found


# SQLite lets one writer in at a time, and a writer waiting for the lock polls it with growing sleeps (up to 100 ms
# each): with a hundred agents stepping through one web process (a thread per request under ASGI), most of the time
# went to those sleeps. On SQLite the steps of one process queue on this lock instead; PostgreSQL locks the episode
# row and needs nothing more.
_sqlite_step_lock = threading.Lock()


def episode_step(*, episode_id: int, user: AbstractBaseUser | None, output: str) -> tuple[StepOutcome, dict]:
    """One turn: lock the episode, step the engine, store the step (and metrics when it ends), answer.

    The database work of a turn is one SELECT (the locked episode), one INSERT (the step) and one UPDATE (the
    episode's state); tests/simulator/test_step_queries.py holds it there. The last turn also reads the steps for
    the episode's metrics."""
    with _sqlite_step_lock if connection.vendor == "sqlite" else contextlib.nullcontext():
        return _episode_step(episode_id=episode_id, user=user, output=output)


def _episode_step(*, episode_id: int, user: AbstractBaseUser | None, output: str) -> tuple[StepOutcome, dict]:
    sql = _statements(connection)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql.select, [episode_id])
        row = cursor.fetchone()
        if row is None:
            raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
        owner_id, finished, state_raw, task_pk, task_id, digest = row
        state_data = sql.state_field.from_db_value(state_raw, None, connection)
        episode = Episode(pk=episode_id, owner_id=owner_id, task_id=task_pk, state=state_data, finished=bool(finished))
        episode_owner_check(episode, user)
        if finished:
            raise EpisodeError("The episode is over; start a new one.", status=409)
        engine, core = engine_with_cached_task(digest=digest, task_id=task_id, task_pk=task_pk)
        new_state, outcome = engine.step(EpisodeState.from_dict(state_data), output)
        now = timezone.now()
        cursor.execute(sql.insert, sql.prepared(sql.insert_fields, [
            episode_id, outcome.turn, outcome.raw_output, outcome.action.as_dict() if outcome.action else None,
            outcome.as_dict(), now], connection))
        if new_state.done:
            episode = Episode.objects.select_related("task").defer("task__definition").get(pk=episode_id)
            Episode.objects.filter(pk=episode_id).update(
                state=new_state.as_dict(), updated_at=now, metrics=_finish_metrics(episode, engine, core),
                finished=True, success=episode.success)
            _after_finish(episode)
        else:
            cursor.execute(sql.update, [*sql.prepared(sql.update_fields, [new_state.as_dict(), now], connection),
                                        episode_id])
    return outcome, observation(episode=episode, engine=engine, state=new_state)


def engine_with_cached_task(*, digest: str, task_id: str, task_pk: int) -> tuple[Engine, CoreTask]:
    """`engine_with_task` from what a step read: the cached engine when it knows the task, else the task's row."""
    engine = engine_cached(digest)
    if engine is not None and engine.has_task(task_id):
        return engine, engine.task(task_id)
    return engine_with_task(Task.objects.select_related("device").get(pk=task_pk))


def episode_view_image(*, episode_id: int, user: AbstractBaseUser | None, turn: int | None = None) -> Path:
    """The PNG of the view the episode showed after `turn` (default: now): a device image or a cached render."""
    return _episode_view(episode_id=episode_id, user=user, turn=turn)[0]


def episode_view_png(*, episode_id: int, user: AbstractBaseUser | None, turn: int | None = None) -> Path | bytes:
    """What the agent API serves: the view's file, or, for an episode with a perturbation, the perturbed PNG
    (deterministic per episode and turn; a post-processing step on the renderer's image)."""
    path, episode, shown_turn = _episode_view(episode_id=episode_id, user=user, turn=turn)
    found = perturb.parse(episode.perturbation) if episode.perturbation else None
    if found is None:
        return path
    return perturb.apply_png(path.read_bytes(), found, key=f"{episode.pk}:{shown_turn}")


def _episode_view(*, episode_id: int, user: AbstractBaseUser | None, turn: int | None) -> tuple[Path, Episode, int]:
    episode = Episode.objects.select_related("task__device").filter(pk=episode_id).first()
    if episode is None:
        raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
    episode_owner_check(episode, user)
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
    shown = state.turns if turn is None else turn
    return device_view_image(device_row=episode.task.device, view=view, state=name), episode, shown


def device_view_image(*, device_row: Device, view: str, state: str) -> Path:
    """The PNG of one view of a stored device in one state: its own image file, else a cached render."""
    device: CoreDevice = engine_for(device_row).device
    if view not in device.views or state not in device.states:
        raise EpisodeError(f"Device {device_row.device_id} has no view '{view}' or state '{state}'.", status=404)
    image = device.views[view].image
    if image and device_row.images_dir:
        return Path(settings.MEDIA_ROOT) / device_row.images_dir / Path(image).name
    cache = Path(getattr(settings, "VGE_RENDER_CACHE", Path(settings.MEDIA_ROOT) / "vge-renders"))
    return cached_render(device, view, state, cache)


# -- bundles ------------------------------------------------------------------------------------
def episodes_log_text(*, episodes: Iterable[Episode]) -> str:
    """A vge-log/1 file of episodes: one line each, the raw outputs in turn order."""
    lines = []
    for episode in episodes:
        outputs = list(episode.steps.order_by("index").values_list("raw_output", flat=True))
        lines.append(json.dumps({"task": episode.task.task_id, "outputs": outputs}))
    return "\n".join(lines) + "\n"


def episodes_submission_create(
    *, user: AbstractBaseUser, split: Split, model_entry: ModelEntry, note: str = "", perturbation: str = ""
) -> Submission:
    """Bundle the user's finished agent episodes on the split's tasks played with `perturbation` ("" for none;
    the latest per task) into a submission; the submission's options record the perturbation."""
    keys = set(Sample.objects.filter(split=split).values_list("key", flat=True))
    latest: dict[str, Episode] = {}
    for episode in (
        Episode.objects.filter(owner=user, kind=Episode.Kind.AGENT, finished=True, task__task_id__in=keys,
                               perturbation=perturbation)
        .select_related("task")
        .order_by("created_at", "pk")
    ):
        latest[episode.task.task_id] = episode
    if not latest:
        played = f" with perturbation {perturbation}" if perturbation else " without a perturbation"
        raise EpisodeError(f"You have no finished agent episodes{played} on the tasks of this split.", status=400)
    text = episodes_log_text(episodes=latest.values())
    upload = SimpleUploadedFile(f"vge-episodes-{split.name}.jsonl", text.encode(), content_type="application/jsonl")
    default_note = f"{len(latest)} agent episodes played through the API" + (
        f" with perturbation {perturbation}" if perturbation else "")
    return submission_create(user=user, split=split, model_entry=model_entry, uploaded_file=upload,
                             note=note or default_note, options={"perturbation": perturbation} if perturbation else {})


# -- browser play: resume or start, give up -----------------------------------------------------
def episode_open_for_player(*, user: AbstractBaseUser, task_id: str) -> Episode:
    """The player's unfinished human episode on the task (resumed where it was), or a new one."""
    if not (user and user.is_authenticated):
        raise EpisodeError("Sign in to play.", status=401)
    running = (
        Episode.objects.filter(owner=user, kind=Episode.Kind.HUMAN, finished=False, task__task_id=task_id)
        .order_by("-created_at", "-pk")
        .first()
    )
    if running is not None:
        return running
    episode, _ = episode_start(user=user, task_id=task_id, kind=Episode.Kind.HUMAN)
    return episode


def _finish_metrics(episode: Episode, engine: Engine, core: CoreTask) -> dict[str, Any]:
    outcomes = [StepOutcome.from_dict(s) for s in episode.steps.order_by("index").values_list("outcome", flat=True)]
    metrics = episode_metrics(engine, core, outcomes)
    episode.success = metrics.success
    return {**metrics.values, "goals_reached": metrics.goals_reached, "turns": metrics.turns, "l_opt": metrics.l_opt}


def episode_give_up(*, episode_id: int, user: AbstractBaseUser | None) -> Episode:
    """End a running episode on the player's word: kept, and scored as played up to its last turn."""
    with transaction.atomic():
        episode = Episode.objects.select_for_update().select_related("task__device").filter(pk=episode_id).first()
        if episode is None:
            raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
        episode_owner_check(episode, user)
        if episode.finished:
            raise EpisodeError("The episode is already over.", status=409)
        engine, core = engine_with_task(episode.task)
        episode.metrics = _finish_metrics(episode, engine, core)
        episode.finished, episode.gave_up = True, True
        episode.save(update_fields=["finished", "gave_up", "success", "metrics", "updated_at"])
        _after_finish(episode)
    return episode


def _after_finish(episode: Episode) -> None:
    """A finished human episode on a baseline task changes the Human row: recompute it after the commit."""
    if episode.kind == Episode.Kind.HUMAN and episode.task.baseline_rank is not None:
        transaction.on_commit(human_board_refresh_enqueue)


def human_board_refresh_enqueue() -> None:
    human_board_refresh_task.delay()


# -- the human baseline set (its row: simulator.human_board) --------------------------------------
def baseline_mark(*, user: AbstractBaseUser, per_stratum: int = 1, seed: int = 0) -> list[Task]:
    """Curators only: make the stratified pick of the demo split's tasks the baseline set (replacing the old one)."""
    if not is_curator(user):
        raise EpisodeError("Only curators choose the baseline set.", status=403)
    if not 1 <= per_stratum <= 20:
        raise EpisodeError("per_stratum: choose 1 to 20 tasks per stratum.", status=400)
    split = demo_split()
    if split is None:
        raise EpisodeError("There is no vge-bench demo split yet (python manage.py make_demo_vge).", status=400)
    tasks = list(Task.objects.filter(sample__split=split).select_related("device"))
    order = stratified_pick(
        [Candidate(t.task_id, t.device.category, t.goals_count) for t in tasks], per_stratum=per_stratum, seed=seed
    )
    rank = {task_id: i for i, task_id in enumerate(order, start=1)}
    with transaction.atomic():
        Task.objects.filter(baseline_rank__isnull=False).update(baseline_rank=None)
        changed = []
        for t in tasks:
            if t.task_id in rank:
                t.baseline_rank = rank[t.task_id]
                changed.append(t)
        Task.objects.bulk_update(changed, ["baseline_rank"])
        transaction.on_commit(human_board_refresh_enqueue)
    return sorted(changed, key=lambda t: t.baseline_rank or 0)


def baseline_next_episode(*, user: AbstractBaseUser) -> Episode | None:
    """The player's running baseline episode, else a new one on the first baseline task they have not played
    (finished or given up); None when they have played them all."""
    if not (user and user.is_authenticated):
        raise EpisodeError("Sign in to play the baseline.", status=401)
    mine = Episode.objects.filter(owner=user, kind=Episode.Kind.HUMAN, task__baseline_rank__isnull=False)
    running = mine.filter(finished=False).order_by("task__baseline_rank", "pk").first()
    if running is not None:
        return running
    played = mine.filter(finished=True).values_list("task_id", flat=True)
    task = Task.objects.filter(baseline_rank__isnull=False).exclude(pk__in=played).order_by("baseline_rank").first()
    if task is None:
        return None
    episode, _ = episode_start(user=user, task_id=task.task_id, kind=Episode.Kind.HUMAN)
    return episode


