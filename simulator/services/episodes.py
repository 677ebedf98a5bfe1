"""Episodes played step by step: start, step (one SELECT, one INSERT, one UPDATE), resume or start for a player,
give up; a finished episode's metrics, and the Human row's refresh when a baseline episode ends."""
from __future__ import annotations

import contextlib
import threading
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models.sql.subqueries import InsertQuery, UpdateQuery
from django.utils import timezone

from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.engine import Engine, EpisodeState, StepOutcome
from scoring.benchmarks.vge.core.episode_options import (
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
    episode_history,
    episode_instruction,
)
from scoring.benchmarks.vge.core.metrics import episode_metrics
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA, LAMBDA_OPTION, episode_lambda
from scoring.benchmarks.vge.core.task_defs import Task as CoreTask
from simulator.engines import (
    EpisodeError,
    device_reach_check,
    engine_cached,
    engine_with_task,
    episode_owner_check,
    episode_reach_check,
    observation,
)
from simulator.models import Episode, Step, Task
from simulator.tasks import human_board_refresh_task


def episode_lambda_check(value: object) -> int | None:
    """An episode's interaction budget λ as asked for (None or "": the task's own), or a refusal naming the field."""
    if value is None or value == "":
        return None
    try:
        return episode_lambda(value)
    except ValueError as exc:
        raise EpisodeError(str(exc), status=400, field=LAMBDA_OPTION) from None


def episode_history_check(value: object) -> int | None:
    """The past turns an agent is shown (None: all), or a refusal naming the field."""
    try:
        return episode_history(value)
    except ValueError as exc:
        raise EpisodeError(str(exc), status=400, field=HISTORY_OPTION) from None


def episode_instruction_check(value: object) -> str:
    """The instruction style ("original" by default), or a refusal naming the field."""
    try:
        return episode_instruction(value)
    except ValueError as exc:
        raise EpisodeError(str(exc), status=400, field=INSTRUCTION_OPTION) from None


def episode_start(*, user: AbstractBaseUser | None, task_id: str, kind: str = Episode.Kind.AGENT,
                  perturbation: str = "", lam: int | None = None, history: object = None,
                  instruction: object = None) -> tuple[Episode, dict]:
    """A new episode; `perturbation` (canonical text, see scoring.benchmarks.vge.core.perturb) is applied to every
    view it serves; `lam` is its interaction budget λ (1..10; None: the task's own), which the engine's budgets
    follow and the episode records (only when it differs from the task's, so None always means the task's);
    `history` (0..1000 or "full", None: full) how many past turns the agent API shows of it while it runs;
    `instruction` ("original", None, or "rephrased") how its goals are worded. The engine sees neither."""
    lam = episode_lambda_check(lam)
    history, instruction = episode_history_check(history), episode_instruction_check(instruction)
    # the definitions are read only when this process's engine does not know the task yet
    row = (Task.objects.filter(task_id=task_id)
           .values_list("pk", "device__digest", "device__device_id", "device__source").first())
    if row is None:
        raise EpisodeError(f"Unknown task '{task_id}'.", status=404)
    task_pk, digest, device_id, source = row
    device_reach_check(device_id=device_id, source=source, user=user, what=f"task '{task_id}'")
    engine, core = engine_with_cached_task(digest=digest, task_id=task_id, task_pk=task_pk)
    state = engine.new_episode(core, lam=lam)
    episode = Episode.objects.create(owner=user if user and user.is_authenticated else None, task_id=task_pk,
                                     kind=kind, state=state.as_dict(), perturbation=perturbation,
                                     lam=None if lam is None or lam == core.lam else lam, history=history,
                                     instruction=instruction)
    return episode, observation(episode=episode, engine=engine, state=state)


class _StepStatements:
    """The three statements of a step (SELECT the locked episode, INSERT the step, UPDATE the episode), compiled once
    per process by the ORM's own compilers and run on a plain cursor: building them through the ORM on every step
    cost more CPU than the engine and the database together (perf/agent_step_profile.py). The SQL is the ORM's, so a
    renamed column or table follows the models; values go through the fields' own conversions (JSON, time zones),
    as the compilers put them, so the rows are the ones the ORM writes and reads back.

    The SELECT reads no model instance and never a definition (the engine of a device digest, with its tasks, is
    cached per process; the task row is read in full only when the engine misses). Compiled inside the step's
    transaction: the compiler refuses a locking SELECT outside one."""

    STAND_IN_PK = 0  # compiled with this pk, then run with the episode's

    def __init__(self, conn) -> None:
        locked = Episode.objects.using(conn.alias).filter(pk=self.STAND_IN_PK).order_by().values_list(
            "owner", "finished", "state", "task", "task__task_id", "task__device__digest", "instruction",
            "task__device__device_id", "task__device__source")
        if conn.features.has_select_for_update_of:
            locked = locked.select_for_update(of=("self",))
        self.select, params = locked.query.get_compiler(using=conn.alias).as_sql()
        assert list(params) == [self.STAND_IN_PK], params

        self.insert_fields = [Step._meta.get_field(n) for n in ("episode", "index", "raw_output", "parsed_action",
                                                                 "outcome", "created_at")]
        insert = InsertQuery(Step)
        insert.insert_values(self.insert_fields, [Step(episode_id=self.STAND_IN_PK, index=0, raw_output="",
                                                       parsed_action=None, outcome={})])
        [(self.insert, params)] = insert.get_compiler(using=conn.alias).as_sql()
        assert len(params) == len(self.insert_fields), params

        self.update_fields = [Episode._meta.get_field(n) for n in ("state", "updated_at")]
        update = Episode.objects.using(conn.alias).filter(pk=self.STAND_IN_PK).query.chain(UpdateQuery)
        update.add_update_values({"state": {}, "updated_at": timezone.now()})  # stand-ins: None would compile to NULL
        self.update, params = update.get_compiler(using=conn.alias).as_sql()
        assert len(params) == 3 and params[-1] == self.STAND_IN_PK, params  # SET state, updated_at WHERE pk
        self.state_field = Episode._meta.get_field("state")

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
    """One turn in a transaction of its own: lock the episode, step the engine, store the step (and metrics when it
    ends), answer.

    The database work of a turn is one SELECT (the locked episode), one INSERT (the step) and one UPDATE (the
    episode's state); tests/simulator/test_step_queries.py holds it there. The last turn also reads the steps for
    the episode's metrics."""
    with writes_serialized(), transaction.atomic():
        return episode_step_within(episode_id=episode_id, user=user, output=output)


@contextlib.contextmanager
def writes_serialized():
    """On SQLite, the steps of this process one at a time (see _sqlite_step_lock); nothing on PostgreSQL."""
    with _sqlite_step_lock if connection.vendor == "sqlite" else contextlib.nullcontext():
        yield


def episode_step_within(*, episode_id: int, user: AbstractBaseUser | None,
                        output: str) -> tuple[StepOutcome, dict]:
    """`episode_step` inside the caller's transaction (the agent writer's batch, simulator.agent_writer), which the
    caller opened with `writes_serialized`. A refusal is raised before anything is written, so the caller's
    transaction stays usable for its other work."""
    with connection.cursor() as cursor:
        sql = _statements(connection)
        cursor.execute(sql.select, [episode_id])
        row = cursor.fetchone()
        if row is None:
            raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
        owner_id, finished, state_raw, task_pk, task_id, digest, instruction, device_id, source = row
        device_reach_check(device_id=device_id, source=source, user=user, what=f"episode {episode_id}")
        state_data = sql.state_field.from_db_value(state_raw, None, connection)
        episode = Episode(pk=episode_id, owner_id=owner_id, task_id=task_pk, state=state_data, finished=bool(finished),
                          instruction=instruction)
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


def episode_open_for_player(*, user: AbstractBaseUser, task_id: str, lam: object = None,
                            instruction: object = None) -> Episode:
    """The player's unfinished human episode on the task played with the same options (resumed where it was), or a
    new one with them. `lam`: the interaction budget λ chosen on the page (None: the task's own); `instruction`:
    the goals' wording ("original", None, or "rephrased")."""
    if not (user and user.is_authenticated):
        raise EpisodeError("Sign in to play.", status=401)
    lam, instruction = episode_lambda_check(lam), episode_instruction_check(instruction)
    task = Task.objects.filter(task_id=task_id).only("definition").first()
    if task is not None and lam == task.definition.get("lambda", DEFAULT_LAMBDA):
        lam = None  # the task's own λ, recorded as such
    running = (
        Episode.objects.filter(owner=user, kind=Episode.Kind.HUMAN, finished=False, task__task_id=task_id, lam=lam,
                               instruction=instruction)
        .order_by("-created_at", "-pk")
        .first()
    )
    if running is not None:
        return running
    episode, _ = episode_start(user=user, task_id=task_id, kind=Episode.Kind.HUMAN, lam=lam, instruction=instruction)
    return episode


def episode_open_for_guest(*, task_id: str, guest_episodes: list[int]) -> Episode:
    """An anonymous visitor's practice: their running practice episode (one this browser started), or a new one
    without an owner. Only the practice task is played without an account: it is never scored, in no split and never
    in the Human row; every other task needs an account (issue 32)."""
    if task_id != practice.TASK_ID:
        raise EpisodeError("Scored episodes need an account: sign in to play this task.", status=401)
    running = (Episode.objects.filter(pk__in=guest_episodes, owner__isnull=True, kind=Episode.Kind.HUMAN,
                                      finished=False, task__task_id=task_id)
               .order_by("-created_at", "-pk").first())
    if running is not None:
        return running
    episode, _ = episode_start(user=None, task_id=task_id, kind=Episode.Kind.HUMAN)
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
        episode_reach_check(episode, user)
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
