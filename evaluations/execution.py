"""Playing a run: the hub's side of the runner (scoring.core.runner). The answers go to the database as they come
(`DbStore`: one row per answered request, so a run resumed after a killed worker replays them and asks only what is
missing); each finished unit's line is stored once; progress and cost are counted on the run's row. When every unit
has its line the files (one per repeat) become ordinary submissions (source hub-run) scored by the normal pipeline.
"""
from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Mapping

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, close_old_connections, connections, transaction
from django.db.models import F, Q
from django.utils import timezone
from rest_framework.authtoken.models import Token

from evaluations.models import EvaluationRun, RunAnswer, RunLine
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
    units,
)
from scoring.errors import ServiceRefusal
from scoring.models import Submission
from scoring.selectors import split_inputs

_write_lock = threading.Lock()  # one writer at a time from a run's threads (SQLite takes one anyway)
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
        with _write_lock, transaction.atomic():
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


class RateLimit:
    """At most `per_minute` requests a minute from this process's run (evenly spaced)."""

    def __init__(self, per_minute: int | None):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.next = 0.0
        self.lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self.lock:
            now = time.monotonic()
            slot = max(now, self.next)
            self.next = slot + self.interval
        if slot > now:
            time.sleep(slot - now)


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
    def __init__(self, run_id: int):
        self.run_id = run_id
        self.checked = 0.0
        self.stopped = False

    def __call__(self) -> bool:
        if not self.stopped and time.monotonic() - self.checked > STOP_CHECK_SECONDS:
            self.checked = time.monotonic()
            status = EvaluationRun.objects.filter(pk=self.run_id).values_list("status", flat=True).first()
            self.stopped = status != EvaluationRun.Status.RUNNING
        return self.stopped


BUSY = "busy"  # run_execute's answer when another worker is playing the run (its heartbeat is fresh)


def run_claim(*, run_id: int) -> EvaluationRun | None:
    """Mark a queued run, or a running one whose worker stopped beating (a killed worker), running here; None when
    it is paused, cancelled, over, or another worker plays it. One claim wins (a conditional update)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.EVALUATIONS_LEASE_SECONDS)
    claimed = EvaluationRun.objects.filter(pk=run_id).filter(
        Q(status=EvaluationRun.Status.QUEUED) | Q(status=EvaluationRun.Status.RUNNING, heartbeat_at__isnull=True)
        | Q(status=EvaluationRun.Status.RUNNING, heartbeat_at__lt=stale)).update(
        status=EvaluationRun.Status.RUNNING, error_message="", heartbeat_at=now)
    if not claimed:
        return None
    run = EvaluationRun.objects.select_related("split__benchmark", "owner").get(pk=run_id)
    if run.started_at is None:
        run.started_at = timezone.now()
        run.save(update_fields=["started_at"])
    return run


def run_execute(*, run_id: int, stop_after: int | None = None, stats: dict[str, float] | None = None) -> str:
    """Play what is left of a run, then submit it when every unit has its line. `stop_after`: end (as a killed
    worker would) once that many units finished in this call, for the fault tests. `stats`, when given, gets this
    call's wall time and the time spent waiting for the agent API (perf/hub_run.py). Returns the run's status."""
    started = time.monotonic()
    run = run_claim(run_id=run_id)
    if run is None:
        status = EvaluationRun.objects.get(pk=run_id).status
        return BUSY if status == EvaluationRun.Status.RUNNING else status
    protocol = plugin_for(run.split.benchmark.scorer).runner_protocol()
    records = split_inputs(split=run.split)
    positions = {r.key: r.position for r in records}
    done = set(RunLine.objects.filter(run=run).values_list("unit", flat=True))
    todo = [u for u in units(records, run.k) if u.key not in done]
    EvaluationRun.objects.filter(pk=run.pk).update(units_total=len(records) * run.k, units_done=len(done))
    limit = RateLimit(run.rate_per_minute)
    concurrency = max(1, min(run.concurrency, settings.EVALUATIONS_MAX_CONCURRENCY))
    client = OpenAIChatClient(base_url=run.base_url, model=run.model_name, api_key=unseal(run.api_key_sealed),
                              max_in_flight=concurrency, who="the model", on_request=limit.wait,
                              timeout=settings.EVALUATIONS_REQUEST_TIMEOUT)
    agent = None
    if protocol.uses_agent:
        token, _ = Token.objects.get_or_create(user=run.owner)
        agent = HttpAgentApi(base_url=settings.EVALUATIONS_AGENT_API_URL, token=token.key)
    store = DbStore(run.pk, buffered=not protocol.uses_agent)
    stop = StopCheck(run.pk)
    extra = protocol.request_extra(run.options)
    finished = 0
    errors: list[str] = []
    lock = threading.Lock()

    def play(unit: Unit) -> None:
        nonlocal finished
        try:
            if stop() or (stop_after is not None and finished >= stop_after):
                return
            params = {**request_params(max_tokens=run.max_tokens, temperature=run.temperature, seed=run.seed,
                                       repeat=unit.repeat), **extra}
            ctx = Context(model=client, store=store, options=run.options, params=params, images=media_image,
                          agent=agent, stop=stop)
            try:
                line = protocol.play(unit, ctx)
            except (ModelFailed, RunError, RuntimeError) as exc:
                with lock:
                    errors.append(f"{unit.key}: {exc}")
                with _write_lock, transaction.atomic():
                    store.write(store.take_pending())
                return
            with _write_lock, transaction.atomic():  # the unit's answers and its line, together
                store.write(store.take_pending())
                try:
                    with transaction.atomic():
                        RunLine.objects.create(run_id=run.pk, unit=unit.key, repeat=unit.repeat,
                                               position=positions[unit.record.key], line=line)
                        EvaluationRun.objects.filter(pk=run.pk).update(units_done=F("units_done") + 1)
                except IntegrityError:
                    pass  # another worker finished this unit first
            with lock:
                finished += 1
        finally:
            connections.close_all()  # this thread's connections

    threads = []
    queue = list(reversed(todo))
    queue_lock = threading.Lock()

    def worker() -> None:
        while True:
            with queue_lock:
                if not queue:
                    return
                unit = queue.pop()
            play(unit)

    beating = threading.Event()

    def heartbeat() -> None:
        while not beating.wait(settings.EVALUATIONS_LEASE_SECONDS / 3):
            EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.RUNNING).update(
                heartbeat_at=timezone.now())
        connections.close_all()

    beat = threading.Thread(target=heartbeat, name=f"run-{run.pk}-heartbeat", daemon=True)
    beat.start()
    with client:
        for _ in range(min(concurrency, len(todo)) or 0):
            thread = threading.Thread(target=worker, name=f"run-{run.pk}")
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
    beating.set()
    beat.join()
    if agent is not None:
        agent.close()
    if stats is not None:
        stats.update(wall=time.monotonic() - started, agent_seconds=agent.seconds if agent else 0.0,
                     agent_calls=agent.calls if agent else 0, peak_in_flight=client.peak_in_flight)
    close_old_connections()
    if stop_after is not None and finished >= stop_after:
        return EvaluationRun.Status.RUNNING  # "killed": the row still says running
    run.refresh_from_db()
    if run.status != EvaluationRun.Status.RUNNING:
        return run.status  # paused or cancelled meanwhile
    if errors:
        EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.RUNNING).update(
            status=EvaluationRun.Status.PAUSED,
            error_message=f"{len(errors)} unit(s) got no answer; resume to ask them again. First: {errors[0]}"[:2000])
        return EvaluationRun.Status.PAUSED
    return run_submit(run=run)


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


def run_submit(*, run: EvaluationRun) -> str:
    """The run's files (one per repeat) as submissions of source hub-run, in one transaction: all or none."""
    protocol = plugin_for(run.split.benchmark.scorer).runner_protocol()
    run.finished_at = timezone.now()
    try:
        with transaction.atomic():
            return _submit(run, protocol)
    except ServiceRefusal as exc:
        return run_fail(run=run, message=f"The run's answers could not be submitted: {exc.message}")


def _submit(run: EvaluationRun, protocol: Any) -> str:
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
    run.status = EvaluationRun.Status.SUBMITTED
    run.api_key_sealed = ""  # the key lived for the run only
    run.save(update_fields=["status", "api_key_sealed", "finished_at"])
    run.submissions.add(*created)
    return run.status
