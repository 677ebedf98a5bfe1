"""The agent writer: one thread per process plays the agent paths' writes (the agent socket's resets and steps, the
HTTP fast path's starts and acts) in batches, each batch one transaction.

Why: a served step cost ~25 engine steps of CPU before its engine step ran (perf/agent_serve_profile.py): a thread
hop, Django's connection care, BEGIN and COMMIT, and on SQLite writers taking turns at the file's lock. Here every
job waiting when the thread comes free runs in one transaction, in arrival order, and the thread goes back to the
event loop once per batch.

Durability rule: a job's answer is released only after its batch has committed, so an acknowledged step is stored;
a connection that drops loses no acknowledged step, and a step it did not see acknowledged either is stored
(its batch committed) or is not (nothing of it). A refusal (ServiceRefusal: unknown episode, someone else's, over)
is decided before its job writes anything, so the batch goes on. Anything else raised rolls the batch back, and
each of its jobs is played again alone in a transaction of its own, so one failure fails only its own job.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any

from django.db import close_old_connections, connections, transaction

from scoring.errors import ServiceRefusal
from simulator.services.episodes import writer_cache, writes_serialized

MAX_BATCH = 256  # jobs in one transaction: enough to take all that 200+ agents leave waiting
_STOP = object()

Job = tuple[Callable[[], Any], asyncio.AbstractEventLoop, asyncio.Future]


class AgentWriter:
    def __init__(self) -> None:
        self._jobs: SimpleQueue = SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    async def run(self, call: Callable[[], Any], loop: asyncio.AbstractEventLoop | None = None) -> Any:
        """`call()` on the writer thread inside its batch's transaction; its value (or its exception) once the batch
        has committed. `call` must not open a transaction of its own (a savepoint each) nor commit. `loop`: the
        running loop, when the caller holds it (asyncio.get_running_loop makes a getpid system call each time: 8 %
        of the event loop's samples under 200 agent sockets)."""
        loop = loop or asyncio.get_running_loop()
        future = loop.create_future()
        self._started()
        self._jobs.put((call, loop, future))
        return await future

    def stop(self) -> None:
        """Finish the waiting jobs, close the thread's database connections and end it (a test's end; the next job
        starts a new thread)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(_STOP)
            thread.join(timeout=30)

    def _started(self) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._serve, name="agent-writer", daemon=True)
                    self._thread.start()

    def _serve(self) -> None:
        try:
            while True:
                batch, stop = self._batch()
                if batch:
                    _settle(batch, _played(batch))
                if stop:
                    return
        finally:
            writer_cache.clear()
            connections.close_all()

    def _batch(self) -> tuple[list[Job], bool]:
        first = self._jobs.get()
        if first is _STOP:
            return [], True
        batch = [first]
        while len(batch) < MAX_BATCH and not self._jobs.empty():
            job = self._jobs.get()
            if job is _STOP:
                return batch, True
            batch.append(job)
        return batch, False


Outcome = tuple[bool, Any]  # (True, value) or (False, exception)


def _played(batch: list[Job]) -> list[Outcome]:
    close_old_connections()  # as Django does around a request: a broken or too old connection is replaced
    try:
        with writes_serialized():
            try:
                with transaction.atomic(), writer_cache.steps_collected():  # its steps' rows: one INSERT
                    return [_one(call) for call, _, _ in batch]
            except Exception:  # rolled back: each job alone, so that only the failing one fails
                writer_cache.clear()  # it held what the batch wrote (its versions would refuse it all the same)
                if len(batch) == 1:
                    raise
                outcomes = []
                for call, _, _ in batch:
                    try:
                        with transaction.atomic(), writer_cache.steps_collected():
                            outcomes.append(_one(call))
                    except Exception as exc:  # noqa: BLE001 - raised to its own waiter, as run() promises
                        outcomes.append((False, exc))
                return outcomes
    except Exception as exc:  # noqa: BLE001 - the connection failed, nothing was played: raised to every waiter
        return [(False, exc)] * len(batch)
    finally:
        close_old_connections()


def _one(call: Callable[[], Any]) -> Outcome:
    try:
        return True, call()
    except ServiceRefusal as exc:
        return False, exc


def _settle(batch: list[Job], outcomes: list[Outcome]) -> None:
    """Hand each job its outcome on its own event loop: one wake-up per loop and batch."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future, Outcome]]] = {}
    for (_, loop, future), outcome in zip(batch, outcomes):
        by_loop.setdefault(loop, []).append((future, outcome))
    for loop, settled in by_loop.items():
        try:
            loop.call_soon_threadsafe(_resolve, settled)
        except RuntimeError:  # that loop has closed: nobody waits for these answers any more
            pass


def _resolve(settled: list[tuple[asyncio.Future, Outcome]]) -> None:
    for future, (ok, value) in settled:
        if future.done():  # the waiter was cancelled (its connection closed): the job was played all the same
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


writer = AgentWriter()
