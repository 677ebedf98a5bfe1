"""Episodes played step by step: start, step (one SELECT, one INSERT, one UPDATE), resume or start for a player,
give up; a finished episode's metrics, and the Human row's refresh when a baseline episode ends."""
from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
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
    owner_check,
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
                  instruction: object = None, cache: EpisodeCache | None = None) -> tuple[Episode, dict]:
    """A new episode; `perturbation` (canonical text, see scoring.benchmarks.vge.core.perturb) is applied to every
    view it serves; `lam` is its interaction budget λ (1..10; None: the task's own), which the engine's budgets
    follow and the episode records (only when it differs from the task's, so None always means the task's);
    `history` (0..1000 or "full", None: full) how many past turns the agent API shows of it while it runs;
    `instruction` ("original", None, or "rephrased") how its goals are worded. The engine sees neither.
    `cache`: the agent writer's (see EpisodeCache), which then knows the new episode and plays its first step
    without reading it."""
    lam = episode_lambda_check(lam)
    history, instruction = episode_history_check(history), episode_instruction_check(instruction)
    sql = _statements(connection)
    with connection.cursor() as cursor:
        cursor.execute(sql.task, [task_id])
        row = cursor.fetchone()
        if row is None:
            raise EpisodeError(f"Unknown task '{task_id}'.", status=404)
        task_pk, digest, device_id, source = row
        device_reach_check(device_id=device_id, source=source, user=user, what=f"task '{task_id}'")
        engine, core = engine_with_cached_task(digest=digest, task_id=task_id, task_pk=task_pk)
        state = engine.new_episode(core, lam=lam)
        episode = Episode(owner=user if user and user.is_authenticated else None, task_id=task_pk, kind=kind,
                          state=state.as_dict(), perturbation=perturbation,
                          lam=None if lam is None or lam == core.lam else lam, history=history, instruction=instruction)
        _inserted(cursor, sql, episode)
    if cache is not None:
        cache.put(episode.pk, CachedEpisode(
            owner_id=episode.owner_id, task_pk=task_pk, task_id=task_id, digest=digest, instruction=instruction,
            device_id=device_id, source=source, state=state,
            version=Episode._meta.get_field("updated_at").get_db_prep_save(episode.updated_at, connection=connection),
            outcomes=[]))
    return episode, observation(episode=episode, engine=engine, state=state)


def _inserted(cursor, sql: _StepStatements, episode: Episode) -> None:
    """INSERT a new episode as Model.save() would (the same fields, pre_save and value preparation; no signals are
    connected to Episode), through the statement compiled once; the instance then has its pk and is saved."""
    db = cursor.db
    cursor.execute(sql.episode_insert, [
        *sql.prepared(sql.episode_fields, [f.pre_save(episode, True) for f in sql.episode_fields], db),
        *sql.returning_params])
    (episode.pk,) = db.ops.fetch_returned_insert_columns(cursor, sql.returning_params)
    episode._state.adding, episode._state.db = False, db.alias


class _StepStatements:
    """The three statements of a step (SELECT the locked episode, INSERT the step, UPDATE the episode), compiled once
    per process by the ORM's own compilers and run on a plain cursor: building them through the ORM on every step
    cost more CPU than the engine and the database together (perf/agent_step_profile.py). The SQL is the ORM's, so a
    renamed column or table follows the models; values go through the fields' own conversions (JSON, time zones),
    as the compilers put them, so the rows are the ones the ORM writes and reads back.

    The SELECT reads no model instance and never a definition (the engine of a device digest, with its tasks, is
    cached per process; the task row is read in full only when the engine misses). Also a start's and a last step's
    statements (see below)."""

    STAND_IN_PK = 0  # compiled with this pk, then run with the episode's
    STAND_IN_TASK = "stand-in"

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
        # The same UPDATE when the episode's state comes from the agent writer's cache (EpisodeCache): it writes only
        # while the row is still the one cached (its updated_at unchanged) and running.
        stand_in_time = timezone.now()
        guarded = (Episode.objects.using(conn.alias).filter(pk=self.STAND_IN_PK).filter(updated_at=stand_in_time)
                   .filter(finished=False).query.chain(UpdateQuery))
        guarded.add_update_values({"state": {}, "updated_at": stand_in_time})
        self.update_guarded, params = guarded.get_compiler(using=conn.alias).as_sql()
        # SET state, updated_at WHERE pk AND updated_at AND NOT finished (a parameter or none, as the backend writes it)
        assert len(params) in (4, 5) and params[2] == self.STAND_IN_PK and list(params[4:]) in ([], [False]), params
        self.guard_tail = list(params[4:])
        self.state_field = Episode._meta.get_field("state")
        self.time_field = Episode._meta.get_field("updated_at")

        # The last step's: what its end needs of the episode (its kind, its task's baseline rank: the Human row's
        # refresh), its steps' outcomes (the metrics), and the UPDATE that ends it. Through the ORM these cost a
        # finished episode more CPU than all its steps' statements (perf/agent_serve_profile.py).
        ending = Episode.objects.using(conn.alias).filter(pk=self.STAND_IN_PK).order_by().values_list(
            "kind", "task__baseline_rank")
        self.ending, params = ending.query.get_compiler(using=conn.alias).as_sql()
        assert list(params) == [self.STAND_IN_PK], params
        outcomes = Step.objects.using(conn.alias).filter(episode_id=self.STAND_IN_PK).order_by("index").values_list(
            "outcome")
        self.outcomes, params = outcomes.query.get_compiler(using=conn.alias).as_sql()
        assert list(params) == [self.STAND_IN_PK], params
        self.outcome_field = Step._meta.get_field("outcome")
        self.finish_fields = [Episode._meta.get_field(n) for n in ("state", "updated_at", "metrics", "finished",
                                                                    "success")]
        finish = Episode.objects.using(conn.alias).filter(pk=self.STAND_IN_PK).query.chain(UpdateQuery)
        finish.add_update_values({"state": {}, "updated_at": stand_in_time, "metrics": {}, "finished": True,
                                  "success": True})
        self.finish, params = finish.get_compiler(using=conn.alias).as_sql()
        assert len(params) == 6 and params[-1] == self.STAND_IN_PK, params  # SET the five WHERE pk

        # A start's: its task (the definitions are read only when this process's engine does not know the task yet)
        # and the new episode's INSERT, the fields and values the ORM's save() writes (pre_save: auto_now), its pk
        # read back as there.
        task = Task.objects.using(conn.alias).filter(task_id=self.STAND_IN_TASK).order_by().values_list(
            "pk", "device__digest", "device__device_id", "device__source")
        self.task, params = task.query.get_compiler(using=conn.alias).as_sql()
        assert list(params) == [self.STAND_IN_TASK], params
        meta = Episode._meta
        self.episode_fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field and not f.generated]
        assert list(meta.db_returning_fields) == [meta.pk] and conn.features.can_return_columns_from_insert
        insert = InsertQuery(Episode)
        insert.insert_values(self.episode_fields, [Episode(task_id=self.STAND_IN_PK, state={})])
        compiler = insert.get_compiler(using=conn.alias)
        compiler.returning_fields = [meta.pk]
        [(self.episode_insert, params)] = compiler.as_sql()
        self.returning_params = compiler.returning_params
        assert len(params) == len(self.episode_fields) + len(self.returning_params), params

    @staticmethod
    def prepared(fields, values, conn) -> list:
        """The values as the ORM's compilers put them. `conn`: the thread's own connection (a cursor's .db), not the
        `connection` proxy, whose every attribute read looks the thread's up again (most of this call's cost)."""
        return [field.get_db_prep_save(value, connection=conn) for field, value in zip(fields, values)]


_step_statements: dict[str, _StepStatements] = {}


def _statements(conn) -> _StepStatements:
    found = _step_statements.get(conn.alias)
    if found is None:
        with transaction.atomic(using=conn.alias):  # the compiler refuses a locking SELECT outside a transaction
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


def episode_step_within(*, episode_id: int, user: AbstractBaseUser | None, output: str,
                        cache: EpisodeCache | None = None) -> tuple[StepOutcome, dict]:
    """`episode_step` inside the caller's transaction (the agent writer's batch, simulator.agent_writer), which the
    caller opened with `writes_serialized`. A refusal is raised before anything is written, so the caller's
    transaction stays usable for its other work.

    `cache`: the agent writer's (EpisodeCache). An episode it holds is stepped without its SELECT: its UPDATE writes
    only if the row is still the one cached, and when it is not (another path stepped or ended the episode, or the
    batch that wrote the cached state rolled back) the step is played from the row as without a cache."""
    if cache is not None:
        cached = cache.get(episode_id)
        if cached is not None:
            played = _step_cached(episode_id=episode_id, user=user, output=output, cached=cached, cache=cache)
            if played is not None:
                return played
            cache.drop(episode_id)
    with connection.cursor() as cursor:
        sql = _statements(connection)
        cursor.execute(sql.select, [episode_id])
        row = cursor.fetchone()
        if row is None:
            raise EpisodeError(f"Unknown episode {episode_id}.", status=404)
        owner_id, finished, state_raw, task_pk, task_id, digest, instruction, device_id, source = row
        device_reach_check(device_id=device_id, source=source, user=user, what=f"episode {episode_id}")
        owner_check(owner_id, user)
        if finished:
            raise EpisodeError("The episode is over; start a new one.", status=409)
        state = EpisodeState.from_dict(sql.state_field.from_db_value(state_raw, None, cursor.db))
        engine, core = engine_with_cached_task(digest=digest, task_id=task_id, task_pk=task_pk)
        new_state, outcome = engine.step(state, output)
        version = _stored(cursor, sql, episode_id=episode_id, engine=engine, core=core, new_state=new_state,
                          outcome=outcome, guard=None, cache=cache)
    if cache is not None and version is not None:
        cache.put(episode_id, CachedEpisode(owner_id=owner_id, task_pk=task_pk, task_id=task_id, digest=digest,
                                            instruction=instruction, device_id=device_id, source=source,
                                            state=new_state, version=version))
    return outcome, observation(episode=Seen(episode_id, instruction), engine=engine, state=new_state)


def _step_cached(*, episode_id: int, user: AbstractBaseUser | None, output: str, cached: CachedEpisode,
                 cache: EpisodeCache) -> tuple[StepOutcome, dict] | None:
    """A step from the cached episode (the same checks, the same engine step, the same rows); None when the row is
    no longer the one cached (nothing written)."""
    device_reach_check(device_id=cached.device_id, source=cached.source, user=user, what=f"episode {episode_id}")
    owner_check(cached.owner_id, user)
    engine, core = engine_with_cached_task(digest=cached.digest, task_id=cached.task_id, task_pk=cached.task_pk)
    new_state, outcome = engine.step(cached.state, output)
    store = partial(_stored, episode_id=episode_id, engine=engine, core=core, new_state=new_state, outcome=outcome,
                    guard=cached.version, cache=cache, played=cached.outcomes)
    if cache.block is not None:  # the batch's cursor and statements (EpisodeCache.steps_collected)
        version = store(*cache.block)
    else:
        with connection.cursor() as cursor:
            version = store(cursor, _statements(connection))
    if version is False:
        return None
    if version is None:
        cache.drop(episode_id)  # over
    else:
        cached.state, cached.version = new_state, version
        if cached.outcomes is not None:
            cached.outcomes.append(outcome)
    return outcome, observation(episode=Seen(episode_id, cached.instruction), engine=engine, state=new_state)


def _stored(cursor, sql: _StepStatements, *, episode_id: int, engine: Engine, core: CoreTask,
            new_state: EpisodeState, outcome: StepOutcome, guard: Any, cache: EpisodeCache | None = None,
            played: list[StepOutcome] | None = None) -> Any:
    """Write a played step: the step's row, the episode's new state (and its metrics when it is over). `guard`: the
    cached version (updated_at) the row must still have, else nothing is written and False comes back. Returns the
    row's new version (None: the episode is over). `cache`: the agent writer's, which may hold the step's row for
    its batch's one INSERT (EpisodeCache.steps_collected). `played`: the episode's earlier outcomes, every one, when
    the cache holds them (CachedEpisode.outcomes); the metrics then need no read of its steps."""
    now, db = timezone.now(), cursor.db
    state_value, now_value = sql.prepared(sql.update_fields, [new_state.as_dict(), now], db)
    if guard is not None:
        cursor.execute(sql.update_guarded, [state_value, now_value, episode_id, guard, *sql.guard_tail])
        if cursor.rowcount != 1:
            return False
    row = [*sql.prepared(sql.insert_fields[:-1], [
        episode_id, outcome.turn, outcome.raw_output, outcome.action.as_dict() if outcome.action else None,
        outcome.as_dict()], db), now_value]
    if cache is None or not cache.step_row_kept(row):
        cursor.execute(sql.insert, row)
    if new_state.done:
        cursor.execute(sql.ending, [episode_id])
        kind, baseline_rank = cursor.fetchone()
        if played is not None:
            outcomes = [*played, outcome]
        else:
            if cache is not None:
                cache.steps_flush()  # the metrics read every step of the episode
            cursor.execute(sql.outcomes, [episode_id])
            outcomes = [StepOutcome.from_dict(sql.outcome_field.from_db_value(raw, None, db))
                        for (raw,) in cursor.fetchall()]
        metrics, success = _metrics(outcomes, engine, core)
        cursor.execute(sql.finish, [*sql.prepared(sql.finish_fields, [new_state.as_dict(), now, metrics, True, success],
                                                  db), episode_id])
        _after_finish(kind, baseline_rank)
        return None
    if guard is None:
        cursor.execute(sql.update, [state_value, now_value, episode_id])
    return now_value


@dataclass
class CachedEpisode:
    """What a step reads of its episode, as the agent writer last wrote it. `version`: the row's updated_at as
    stored (the database's own value), which every write of an episode changes (auto_now, and the step's UPDATE).
    `outcomes`: its steps' outcomes in order when the cache has seen every one (it started the episode: reading
    them back for the last step's metrics was a tenth of a served step's CPU); None when it has not. They are as
    trustworthy as `state`: the same version guard stands for both."""

    owner_id: int | None
    task_pk: int
    task_id: str
    digest: str
    instruction: str
    device_id: str
    source: str
    state: EpisodeState
    version: Any
    outcomes: list[StepOutcome] | None = None


class EpisodeCache:
    """The running episodes the agent writer started or stepped, so that their next step needs no SELECT (a served
    step's largest database cost after the writes). Used by one thread only (the writer's), and never trusted
    alone: a cached step's UPDATE is conditional on the row's version (updated_at) and on it running, so a step
    played by another path (the DRF view, the play page, another process), a give-up, or the rollback of the batch
    that wrote the cached state makes the next cached step fall back to reading the row. The access checks (owner,
    play-test device) run at every step on the cached owner and device, which no path changes on a running episode.
    Bounded: the least recently stepped are forgotten first."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._rows: OrderedDict[int, CachedEpisode] = OrderedDict()
        self._steps: list[list] | None = None  # the step rows held for one INSERT (steps_collected)
        # The block's one cursor and its connection's statements (steps_collected).
        self.block: tuple[Any, _StepStatements] | None = None

    @contextlib.contextmanager
    def steps_collected(self):
        """Within: the rows of the steps played with this cache are held, and INSERTed together (one executemany)
        when the block ends without an error, so inside the caller's transaction and before it commits (the agent
        writer's batch: one statement for its steps instead of one each). An error drops them with the rest of
        the rolled-back transaction. Outside such a block every step INSERTs its row at once.

        The block's cached steps also share one cursor (`block`, with the statements), opened here: a cursor and the
        statements' lookup per step, through the `connection` proxy, were ~3 % of a served step's CPU. Rows are held
        only while that cursor is open (a cursor that fails to open leaves every step INSERTing its own row)."""
        with connection.cursor() as cursor:
            self._steps, self.block = [], (cursor, _statements(connection))
            try:
                yield
                self.steps_flush()
            finally:
                self._steps = self.block = None

    def step_row_kept(self, row: list) -> bool:
        """Hold a step's INSERT values for the block's one INSERT; False outside a steps_collected block."""
        if self._steps is None:
            return False
        self._steps.append(row)
        return True

    def steps_flush(self) -> None:
        """INSERT the held step rows now (before a read of the steps)."""
        if self._steps and self.block is not None:  # rows are held only inside the block, which holds its cursor
            rows, self._steps = self._steps, []
            cursor, sql = self.block
            cursor.executemany(sql.insert, rows)

    def get(self, episode_id: int) -> CachedEpisode | None:
        row = self._rows.get(episode_id)
        if row is not None:
            self._rows.move_to_end(episode_id)
        return row

    def put(self, episode_id: int, row: CachedEpisode) -> None:
        self._rows[episode_id] = row
        self._rows.move_to_end(episode_id)
        while len(self._rows) > self.size:
            self._rows.popitem(last=False)

    def drop(self, episode_id: int) -> None:
        self._rows.pop(episode_id, None)

    def clear(self) -> None:
        self._rows.clear()

    def __len__(self) -> int:
        return len(self._rows)


writer_cache = EpisodeCache()
"""The agent writer's (simulator.agent_writer): only its thread reads or writes it."""


@dataclass(frozen=True)
class Seen:
    """What an observation shows of its episode (simulator.engines.observation), without a model instance."""

    pk: int
    instruction: str


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


def _metrics(outcomes: list[StepOutcome], engine: Engine, core: CoreTask) -> tuple[dict[str, Any], bool]:
    """A finished episode's metrics (as stored) and success, from its steps' outcomes in order."""
    metrics = episode_metrics(engine, core, outcomes)
    return ({**metrics.values, "goals_reached": metrics.goals_reached, "turns": metrics.turns, "l_opt": metrics.l_opt},
            metrics.success)


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
        outcomes = [StepOutcome.from_dict(s) for s in episode.steps.order_by("index").values_list("outcome", flat=True)]
        episode.metrics, episode.success = _metrics(outcomes, engine, core)
        episode.finished, episode.gave_up = True, True
        episode.save(update_fields=["finished", "gave_up", "success", "metrics", "updated_at"])
        _after_finish(episode.kind, episode.task.baseline_rank)
    return episode


def _after_finish(kind: str, baseline_rank: int | None) -> None:
    """A finished human episode on a baseline task changes the Human row: recompute it after the commit."""
    if kind == Episode.Kind.HUMAN and baseline_rank is not None:
        transaction.on_commit(human_board_refresh_enqueue)


def human_board_refresh_enqueue() -> None:
    human_board_refresh_task.delay()
