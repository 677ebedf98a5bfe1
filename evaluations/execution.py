"""Playing a run: the hub's side of the runner (scoring.core.runner). A run's units are cut into chunks
(`RunChunk`), each played by a Celery task any worker may take (`chunk_play`, through the runner's `run_units` as the
command line plays a split); every request holds one of its endpoint's slots (evaluations.limits). The answers go to
the database as they come (`DbStore`: one row per answered request, so a chunk resumed after a killed worker replays
them and asks only what is missing); each finished unit's line is stored once; progress and cost are counted on the
run's row. When every chunk is done the files (one per repeat) become ordinary submissions (source hub-run), once,
scored by the normal pipeline.
"""
from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any, Mapping

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, close_old_connections, connections, transaction
from django.db.models import F, Q
from django.utils import timezone
from rest_framework.authtoken.models import Token

from evaluations.endpoints import endpoint_address
from evaluations.limits import EndpointGate, effective_limits, endpoint_for, write_lock
from evaluations.models import EvaluationRun, RunAnswer, RunChunk, RunLine
from evaluations.secrets import unseal
from scoring import services as scoring_services
from scoring.benchmarks import plugin_for
from scoring.core.agent_client import HttpAgentApi
from scoring.core.chat_client import OpenAIChatClient
from scoring.core.contract import SampleRecord
from scoring.core.runner import (
    Answer,
    Context,
    ModelFailed,
    RunError,
    Unit,
    file_text,
    request_params,
    run_units,
    units,
)
from scoring.errors import ServiceRefusal
from scoring.models import Submission
from scoring.selectors import split_inputs

STOP_CHECK_SECONDS = 0.5


class DbStore:
    """A run's answered requests in `RunAnswer`; the first answer given a key stands, and its cost is counted on the
    run. Keys stored before this call began are known up front (one query), so a fresh request costs no read.
    `buffered` (single-request units): a thread's answers wait for its unit's line and are written with it, in one
    transaction (the answer and the line come together anyway); otherwise (episodes) each is written as it comes."""

    def __init__(self, run_id: int, *, buffered: bool = False):
        self.run_id = run_id
        self.buffered = buffered
        self.known = set(RunAnswer.objects.filter(run_id=run_id).values_list("key", flat=True))
        self.pending = threading.local()

    def get(self, key: str) -> Answer | None:
        for pending_key, answer in getattr(self.pending, "answers", ()):
            if pending_key == key:
                return answer
        if key not in self.known:
            return None
        row = RunAnswer.objects.filter(run_id=self.run_id, key=key).values("content", "usage", "seconds",
                                                                          "attempts").first()
        return Answer.from_json(row) if row else None

    def put(self, key: str, answer: Answer) -> None:
        if self.buffered:
            if not hasattr(self.pending, "answers"):
                self.pending.answers = []
            self.pending.answers.append((key, answer))
            return
        with write_lock, transaction.atomic():
            self.write([(key, answer)])

    def take_pending(self) -> list[tuple[str, Answer]]:
        answers = getattr(self.pending, "answers", [])
        self.pending.answers = []
        return answers

    def write(self, answers: list[tuple[str, Answer]]) -> None:
        """Inside the caller's transaction: the answers not stored yet, and their cost on the run."""
        if not answers:
            return
        stored = set(RunAnswer.objects.filter(run_id=self.run_id, key__in=[k for k, _ in answers])
                     .values_list("key", flat=True))
        fresh = [(k, a) for k, a in answers if k not in stored]  # another worker's answer stands
        RunAnswer.objects.bulk_create([RunAnswer(run_id=self.run_id, key=k, content=a.content, usage=dict(a.usage),
                                                 seconds=a.seconds, attempts=a.attempts) for k, a in fresh])
        if fresh:
            EvaluationRun.objects.filter(pk=self.run_id).update(
                requests=F("requests") + len(fresh), attempts=F("attempts") + sum(a.attempts for _, a in fresh),
                prompt_tokens=F("prompt_tokens") + sum(int(a.usage.get("prompt_tokens", 0)) for _, a in fresh),
                completion_tokens=F("completion_tokens") + sum(int(a.usage.get("completion_tokens", 0))
                                                               for _, a in fresh),
                model_seconds=F("model_seconds") + sum(a.seconds for _, a in fresh))
        self.known.update(k for k, _ in fresh)


def media_image(record: SampleRecord, name: str) -> bytes:
    """A sample's image by the name its inputs give it: a path under MEDIA_ROOT (or MEDIA_ROOT/public), or a
    {"name", "url"} entry whose url is under MEDIA_URL. Never a file under MEDIA_ROOT/private."""
    media = Path(settings.MEDIA_ROOT).resolve()
    relative = name
    for image in (record.inputs or {}).get("images") or ():
        if isinstance(image, Mapping) and image.get("name") == name and str(image.get("url", "")).startswith(
                settings.MEDIA_URL):
            relative = str(image["url"])[len(settings.MEDIA_URL):]
    for base in (media, media / "public"):
        path = (base / relative.lstrip("/")).resolve()
        if path.is_relative_to(media) and not path.is_relative_to(media / "private") and path.is_file():
            return path.read_bytes()
    raise OSError("not among the site's media")


class StopCheck:
    """Asked between units and turns: true once the run is no longer running (paused, cancelled) or this attempt
    lost its chunk (its heartbeat went stale and another worker took it over)."""

    def __init__(self, run_id: int, chunk_id: int, holder: str):
        self.run_id = run_id
        self.chunk_id = chunk_id
        self.holder = holder
        self.checked = 0.0
        self.stopped = False
        self.lock = threading.Lock()

    def __call__(self) -> bool:
        with self.lock:
            if not self.stopped and time.monotonic() - self.checked > STOP_CHECK_SECONDS:
                self.checked = time.monotonic()
                running = EvaluationRun.objects.filter(pk=self.run_id, status=EvaluationRun.Status.RUNNING).exists()
                mine = RunChunk.objects.filter(pk=self.chunk_id, holder=self.holder).exists()
                self.stopped = not (running and mine)
            return self.stopped


BUSY = "busy"  # chunk_play's answer when another worker is playing the chunk (its heartbeat is fresh)
KILLED = "killed"  # chunk_play's answer when `stop_after` ended it as a killed worker would end
DONE = "done"


def run_start(*, run_id: int) -> list[int]:
    """Mark a queued run running, make its chunks (once: the same chunks however often this is called) and count
    its units; the ids of its chunks not done yet, to be played. [] when the run is paused, cancelled or over.
    Called again for a running run (a starting worker, a resumed run) it answers the chunks still to play."""
    now = timezone.now()
    EvaluationRun.objects.filter(pk=run_id, status=EvaluationRun.Status.QUEUED).update(
        status=EvaluationRun.Status.RUNNING, error_message="", heartbeat_at=now)
    run = EvaluationRun.objects.select_related("split").get(pk=run_id)
    if run.status != EvaluationRun.Status.RUNNING:
        return []
    if run.started_at is None:
        EvaluationRun.objects.filter(pk=run_id, started_at__isnull=True).update(started_at=now)
    if not RunChunk.objects.filter(run_id=run_id).exists():
        keys = [u.key for u in units(split_inputs(split=run.split), run.k)]
        size = max(1, settings.EVALUATIONS_CHUNK_UNITS)
        RunChunk.objects.bulk_create([RunChunk(run_id=run_id, index=n, units=keys[at:at + size])
                                      for n, at in enumerate(range(0, len(keys), size))], ignore_conflicts=True)
        EvaluationRun.objects.filter(pk=run_id).update(units_total=len(keys))
    EvaluationRun.objects.filter(pk=run_id).update(units_done=RunLine.objects.filter(run_id=run_id).count())
    return list(RunChunk.objects.filter(run_id=run_id).exclude(status=RunChunk.Status.DONE)
                .order_by("index").values_list("pk", flat=True))


def chunk_claim(*, chunk_id: int, holder: str) -> bool:
    """Take the chunk for this attempt: pending, or running with a stale heartbeat (a killed worker's), of a running
    run. One claim wins (a conditional update)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.EVALUATIONS_LEASE_SECONDS)
    return bool(RunChunk.objects.filter(pk=chunk_id, run__status=EvaluationRun.Status.RUNNING).filter(
        Q(status=RunChunk.Status.PENDING) | Q(status=RunChunk.Status.RUNNING, heartbeat_at__isnull=True)
        | Q(status=RunChunk.Status.RUNNING, heartbeat_at__lt=stale)).update(
        status=RunChunk.Status.RUNNING, holder=holder, heartbeat_at=now))


def chunk_play(*, chunk_id: int, stop_after: int | None = None, stats: dict[str, float] | None = None,
               finish: bool = True) -> str:
    """Play a chunk's units that have no line yet (the runner's `run_units`, as the command line plays a split),
    then finish the run if it was the last chunk. `stop_after`: end (as a killed worker would) once that many units
    finished, for the fault tests; `finish=False` leaves finishing to the caller (the race test). `stats`, when
    given, gets this call's wall time and agent API time added (perf/hub_run.py). Returns DONE, BUSY, KILLED or the
    run's status when it stopped (paused, cancelled)."""
    started = time.monotonic()
    holder = uuid.uuid4().hex
    if not chunk_claim(chunk_id=chunk_id, holder=holder):
        chunk = RunChunk.objects.select_related("run").get(pk=chunk_id)
        if chunk.status == RunChunk.Status.DONE:
            return DONE
        if chunk.run.status != EvaluationRun.Status.RUNNING:
            return chunk.run.status
        return BUSY
    chunk = RunChunk.objects.select_related("run__split__benchmark", "run__owner").get(pk=chunk_id)
    run = chunk.run
    protocol = plugin_for(run.split.benchmark.scorer).runner_protocol()
    done = set(RunLine.objects.filter(run=run, unit__in=chunk.units).values_list("unit", flat=True))
    wanted = [key for key in chunk.units if key not in done]
    by_key = {r.key: r for r in split_inputs(split=run.split, keys={k.split("/", 1)[1] for k in wanted})}
    todo = [Unit(int(key.split("/", 1)[0][1:]), by_key[key.split("/", 1)[1]]) for key in wanted
            if key.split("/", 1)[1] in by_key]
    try:  # checked again now, and asked at the address checked: the host's answer may have changed since
        _, address = endpoint_address(run.base_url)
    except ServiceRefusal as refusal:
        return _chunk_paused(run, chunk, holder, f"The endpoint was checked again and refused: {refusal}")
    endpoint = endpoint_for(base_url=run.base_url, model=run.model_name)
    slots, rate = effective_limits(endpoint, concurrency=run.concurrency, rate_per_minute=run.rate_per_minute)
    gate = EndpointGate(endpoint, slots=slots, rate_per_minute=rate, timeout=settings.EVALUATIONS_REQUEST_TIMEOUT)
    client = OpenAIChatClient(base_url=run.base_url, model=run.model_name, api_key=unseal(run.api_key_sealed),
                              max_in_flight=slots, who="the model", gate=gate, address=address,
                              timeout=settings.EVALUATIONS_REQUEST_TIMEOUT)
    agent = None
    if protocol.uses_agent:
        token, _ = Token.objects.get_or_create(user=run.owner)
        agent = HttpAgentApi(base_url=settings.EVALUATIONS_AGENT_API_URL, token=token.key)
    store = DbStore(run.pk, buffered=not protocol.uses_agent)
    stop = StopCheck(run.pk, chunk.pk, holder)
    extra = protocol.request_extra(run.options)
    finished = 0
    count_lock = threading.Lock()

    def killed() -> bool:
        return stop_after is not None and finished >= stop_after

    def context(unit: Unit) -> Context:
        params = {**request_params(max_tokens=run.max_tokens, temperature=run.temperature, seed=run.seed,
                                   repeat=unit.repeat), **extra}
        return Context(model=client, store=store, options=run.options, params=params, images=media_image,
                       agent=agent, stop=stop)

    def unit_done(unit: Unit, ctx: Context, line: dict[str, Any] | None) -> None:
        nonlocal finished
        with write_lock, transaction.atomic():  # the unit's answers and its line, together
            store.write(store.take_pending())
            if line is None:
                return
            try:
                with transaction.atomic():
                    RunLine.objects.create(run_id=run.pk, unit=unit.key, repeat=unit.repeat,
                                           position=unit.record.position, line=line)
                    EvaluationRun.objects.filter(pk=run.pk).update(units_done=F("units_done") + 1)
            except IntegrityError:
                pass  # another worker finished this unit first
        with count_lock:
            finished += 1

    beating = threading.Event()

    def heartbeat() -> None:
        while not beating.wait(settings.EVALUATIONS_LEASE_SECONDS / 3):
            RunChunk.objects.filter(pk=chunk.pk, holder=holder).update(heartbeat_at=timezone.now())
            EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.RUNNING).update(
                heartbeat_at=timezone.now())
        connections.close_all()

    beat = threading.Thread(target=heartbeat, name=f"chunk-{chunk.pk}-heartbeat", daemon=True)
    beat.start()
    try:
        with client:
            _, progress = run_units(protocol, todo, context, concurrency=slots, on_done=unit_done,
                                    stop=lambda: killed() or stop(),
                                    unit_errors=(ModelFailed, RunError, RuntimeError),
                                    on_thread_end=connections.close_all)
    finally:
        beating.set()
        beat.join()
        if agent is not None:
            agent.close()
    if stats is not None:
        for name, value in (("wall", time.monotonic() - started), ("agent_seconds", agent.seconds if agent else 0.0),
                            ("agent_calls", agent.calls if agent else 0)):
            stats[name] = stats.get(name, 0.0) + value
    close_old_connections()
    if killed():
        return KILLED  # the chunk still says running, its heartbeat goes stale: another worker takes it over
    mine = RunChunk.objects.filter(pk=chunk.pk, holder=holder)
    if stop():  # paused or cancelled meanwhile (or the chunk was taken over): back to pending for a resume
        mine.update(status=RunChunk.Status.PENDING, holder="")
        return EvaluationRun.objects.get(pk=run.pk).status
    if progress.errors:
        return _chunk_paused(run, chunk, holder, f"{len(progress.errors)} unit(s) got no answer; resume to ask them "
                                                 f"again. First: {progress.errors[0]}")
    mine.update(status=RunChunk.Status.DONE, holder="", error_message="")
    if finish:
        run_finish(run_id=run.pk)
    return DONE


def _chunk_paused(run: EvaluationRun, chunk: RunChunk, holder: str, message: str) -> str:
    """The chunk back to pending with `message`, and the run paused with it: a resume asks what is left again."""
    message = message[:2000]
    RunChunk.objects.filter(pk=chunk.pk, holder=holder).update(status=RunChunk.Status.PENDING, holder="",
                                                               error_message=message)
    EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.RUNNING).update(
        status=EvaluationRun.Status.PAUSED, error_message=message)
    return EvaluationRun.Status.PAUSED


def run_execute(*, run_id: int, stop_after: int | None = None, stats: dict[str, float] | None = None) -> str:
    """Start a run and play all its chunks in this process, one after another (what the Celery tasks do spread over
    workers): the tests' and the speed script's way. Returns the run's status, BUSY when a chunk is another
    worker's, or RUNNING when `stop_after` "killed" it."""
    busy = False
    for chunk_id in run_start(run_id=run_id):
        outcome = chunk_play(chunk_id=chunk_id, stop_after=stop_after, stats=stats)
        if outcome == KILLED:
            return EvaluationRun.Status.RUNNING
        busy = busy or outcome == BUSY
        if outcome not in (DONE, BUSY):
            return outcome
    return BUSY if busy else EvaluationRun.objects.get(pk=run_id).status


def run_card(run: EvaluationRun) -> dict[str, Any]:
    """What a run's rows say of how they were made: the model and its options, k, seeds, dates. Never the key or
    the endpoint's address."""
    return {"model": run.model_name, "options": run.options, "k": run.k,
            "seeds": [run.seed + r for r in range(run.k)], "temperature": run.temperature,
            "max_tokens": run.max_tokens, "split": f"{run.split.name} v{run.split.version}",
            "started": run.started_at.isoformat() if run.started_at else None,
            "finished": run.finished_at.isoformat() if run.finished_at else None, "run": run.pk}


def repeat_texts(run: EvaluationRun) -> list[str]:
    rows = list(RunLine.objects.filter(run=run).order_by("repeat", "position").values_list("repeat", "line"))
    return [file_text(line for repeat, line in rows if repeat == r) for r in range(1, run.k + 1)]


def run_fail(*, run: EvaluationRun, message: str) -> str:
    EvaluationRun.objects.filter(pk=run.pk).update(status=EvaluationRun.Status.FAILED, error_message=message[:2000],
                                                   api_key_sealed="", finished_at=timezone.now())
    return EvaluationRun.Status.FAILED


def run_finish(*, run_id: int) -> bool:
    """Submit the run once every chunk is done: its files (one per repeat) become submissions of source hub-run in
    the transaction that marks it submitted, so of workers finishing at once exactly one submits (the status'
    conditional update is the claim: PostgreSQL makes the others wait for its row, SQLite for its write lock, and
    then finds it no longer running). True for the call that submitted (or failed it)."""
    run = EvaluationRun.objects.select_related("split__benchmark", "owner").get(pk=run_id)
    protocol = plugin_for(run.split.benchmark.scorer).runner_protocol()
    try:
        with transaction.atomic():
            if RunChunk.objects.filter(run_id=run_id).exclude(status=RunChunk.Status.DONE).exists():
                return False
            finished_at = timezone.now()
            if not EvaluationRun.objects.filter(pk=run_id, status=EvaluationRun.Status.RUNNING).update(
                    status=EvaluationRun.Status.SUBMITTED, api_key_sealed="", finished_at=finished_at):
                return False
            run.refresh_from_db()
            _submit(run, protocol)
    except ServiceRefusal as exc:
        run_fail(run=run, message=f"The run's answers could not be submitted: {exc.message}")
    return True


def _submit(run: EvaluationRun, protocol: Any) -> None:
    entry = scoring_services.model_entry_for_upload(user=run.owner, name=run.entry_name)
    card = run_card(run)
    created = []
    for repeat, text in enumerate(repeat_texts(run), 1):
        note = (f"Run by the hub (run #{run.pk}, repeat {repeat} of {run.k}): model {run.model_name}, options "
                f"{card['options']}, seed {run.seed + repeat - 1}, temperature {run.temperature}, "
                f"started {card['started']}, finished {card['finished']}.")
        submission = scoring_services.submission_create(
            user=run.owner, split=run.split, model_entry=entry, options=protocol.upload_options(run.options),
            uploaded_file=SimpleUploadedFile(f"hub-run-{run.pk}-r{repeat}{protocol.file_suffix}", text.encode(),
                                             "application/jsonl"),
            note=note, run_set=f"hub-run-{run.pk}" if run.k > 1 else "", source=Submission.Source.HUB_RUN)
        entry = submission.model_entry
        created.append(submission)
    run.submissions.add(*created)
