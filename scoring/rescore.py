"""Re-scoring when a scorer changes (issue 29): a run re-scores a benchmark's scored submissions with the scorer the
code has now, keeping each replaced score as a `ScoreVersion`.

A run is one `RescoreItem` per submission. An item is claimed like a submission's scoring (`scoring.pipeline`): a
conditional update takes it (queued, or running with an expired lease), a heartbeat keeps the lease, and only the
attempt that still owns the item publishes, under the row locks of the item and the submission. So each submission
is re-scored once per run even when a worker dies mid-job or a message is delivered twice; and a submission whose
score already bears the run's version is left alone (`unchanged`), so two runs to one version score it once. A
failure (the file refused by the new scorer, a crash) marks that item failed and leaves the old score; the run
goes on. A split-version run (`target_split`) scores the previous version's submissions on a new split version, each
as a new submission there made in the transaction that publishes its score. `scoring.tasks` wraps these functions
in Celery tasks; docs/rescoring.md says who starts a run.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Callable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from accounts.roles import is_curator
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.contract import ScorerInput, ScoringResult, SubmissionRejected
from scoring.errors import ServiceRefusal
from scoring.events import score_rescored_event
from scoring.models import Benchmark, RescoreItem, RescoreRun, Score, ScoreVersion, Split, Submission
from scoring.pipeline import ERROR_MESSAGE_KEPT, score_publish
from scoring.selectors import split_samples

log = logging.getLogger(__name__)
FINAL = (RescoreItem.State.RESCORED, RescoreItem.State.UNCHANGED, RescoreItem.State.FAILED)


def declared_version(benchmark: Benchmark) -> str:
    """The scorer version the benchmark's plugin says a score made now bears ("" when it declares none, or cannot
    say: PLAN's judge prompt file unusable, which its own pages report; a board never fails for it)."""
    try:
        return plugin_for(benchmark.scorer).current_scorer_version()
    except UnknownBenchmark:
        return ""
    except Exception:  # a site-side version read of a plugin's (settings, files): logged, the version unknown
        log.warning("the %s plugin could not say its scorer version", benchmark.slug, exc_info=True)
        return ""


def rescorable(*, benchmark: Benchmark, split: Split | None = None) -> "Q":
    """The submissions a re-score covers: scored ones with a score and a file of their own (a paper's reported
    rows are figures, not files: they are never re-scored), public or not (owners see their private ones)."""
    query = Q(split__benchmark=benchmark, status=Submission.Status.SCORED, score__isnull=False) & ~Q(
        source=Submission.Source.REPORTED) & ~Q(file="")
    return query & Q(split=split) if split is not None else query


def out_of_date_count(*, benchmark: Benchmark, version: str) -> int:
    """How many of the benchmark's scored submissions bear another version than `version`."""
    if not version:
        return 0
    return Submission.objects.filter(rescorable(benchmark=benchmark)).exclude(score__scorer_version=version).count()


def open_run(*, benchmark: Benchmark, split: Split | None = None, target_split: Split | None = None
             ) -> RescoreRun | None:
    return RescoreRun.objects.filter(benchmark=benchmark, split=split, target_split=target_split,
                                     finished_at__isnull=True).first()


def previous_version(split: Split) -> Split | None:
    return Split.objects.filter(benchmark_id=split.benchmark_id, name=split.name, version__lt=split.version).order_by(
        "-version").first()


def to_carry(*, split: Split) -> "Q":
    """The submissions a split-version run scores on `split`: those of its previous version a re-score covers, and
    not yet carried onto it."""
    previous = previous_version(split)
    if previous is None:
        return Q(pk__in=[])
    carried = RescoreItem.objects.filter(run__target_split=split, state=RescoreItem.State.RESCORED).values(
        "submission_id")
    return rescorable(benchmark=split.benchmark, split=previous) & ~Q(pk__in=carried)


def rescore_split_version_start(*, split: Split, user: AbstractBaseUser | None = None,
                                reason: str = RescoreRun.Reason.SPLIT,
                                enqueue: Callable[[int], None] | None = None) -> RescoreRun:
    """A new split version (annotation publishing makes one): score each scored submission of the previous version on
    it, as a new submission of its own (source: reproduced by the hub), so the new version's board has them and the
    old board keeps its own. Check, then make the run and its items; send them once committed."""
    if user is not None and not is_curator(user):
        raise ServiceRefusal("Only curators start a re-score.", status=403)
    previous = previous_version(split)
    if previous is None:
        raise ServiceRefusal(f"{split} has no earlier version to re-score onto it.", status=409, field="split")
    running = open_run(benchmark=split.benchmark, target_split=split)
    if running is not None:
        raise ServiceRefusal(f"Re-score #{running.pk} onto {split} is still under way; wait for it to finish.",
                             status=409, field="split", extra={"run": running.pk})
    with transaction.atomic():
        Benchmark.objects.select_for_update().filter(pk=split.benchmark_id).first()
        run = RescoreRun.objects.create(benchmark=split.benchmark, target_split=split, reason=reason,
                                        scorer_version=declared_version(split.benchmark),
                                        started_by=user if user is not None and user.pk else None)
        ids = list(Submission.objects.filter(to_carry(split=split)).order_by("pk").values_list("pk", flat=True))
        RescoreItem.objects.bulk_create([RescoreItem(run=run, submission_id=pk) for pk in ids], batch_size=1000)
        _start_or_finish(run, ids, enqueue)
    return run


def _start_or_finish(run: RescoreRun, ids: list[int], enqueue: Callable[[int], None] | None) -> None:
    if not ids:
        run.finished_at = timezone.now()
        run.save(update_fields=["finished_at"])
    elif enqueue is not None:
        item_ids = list(run.items.values_list("pk", flat=True))
        transaction.on_commit(lambda: [enqueue(item_id) for item_id in item_ids])


def rescore_run_check(*, user: AbstractBaseUser | None, benchmark: Benchmark, split: Split | None,
                      force: bool) -> str:
    """Refuse a re-score that may not start; returns the version it re-scores to."""
    if user is not None and not is_curator(user):
        raise ServiceRefusal("Only curators start a re-score.", status=403)
    if split is not None and split.benchmark_id != benchmark.pk:
        raise ServiceRefusal(f"Split {split} is not a split of {benchmark.slug}.", field="split")
    try:
        plugin_for(benchmark.scorer)
    except UnknownBenchmark as exc:
        raise ServiceRefusal(str(exc), status=409, field="benchmark") from exc
    running = open_run(benchmark=benchmark, split=split)
    if running is not None:
        raise ServiceRefusal(f"Re-score #{running.pk} of {benchmark.slug} is still under way; wait for it to finish.",
                             status=409, field="benchmark", extra={"run": running.pk})
    version = declared_version(benchmark)
    if not version and not force:
        raise ServiceRefusal(f"The {benchmark.slug} scorer declares no version, so which scores are out of date "
                             "cannot be told: force the re-score to re-score every submission.", status=409,
                             field="force")
    return version


def rescore_run_start(*, benchmark: Benchmark, split: Split | None = None, user: AbstractBaseUser | None = None,
                      reason: str = RescoreRun.Reason.CURATOR, force: bool = False,
                      enqueue: Callable[[int], None] | None = None) -> RescoreRun:
    """Check, then make the run and one item per submission out of date (every one when forced), and send the items
    to the workers once committed (`enqueue(item_id)`; none: the caller runs them)."""
    version = rescore_run_check(user=user, benchmark=benchmark, split=split, force=force)
    with transaction.atomic():
        Benchmark.objects.select_for_update().filter(pk=benchmark.pk).first()  # one run starts at a time
        if open_run(benchmark=benchmark, split=split) is not None:
            raise ServiceRefusal(f"A re-score of {benchmark.slug} is already under way.", status=409,
                                 field="benchmark")
        run = RescoreRun.objects.create(benchmark=benchmark, split=split, scorer_version=version, force=force,
                                        reason=reason, started_by=user if user is not None and user.pk else None)
        subs = Submission.objects.filter(rescorable(benchmark=benchmark, split=split))
        if version and not force:
            subs = subs.exclude(score__scorer_version=version)
        ids = list(subs.order_by("pk").values_list("pk", flat=True))
        RescoreItem.objects.bulk_create([RescoreItem(run=run, submission_id=pk) for pk in ids], batch_size=1000)
        _start_or_finish(run, ids, enqueue)
    return run


def rescore_runs_start_for_changes(*, reason: str = RescoreRun.Reason.DEPLOY,
                                   enqueue: Callable[[int], None] | None = None) -> list[RescoreRun]:
    """At deploy (the worker's start, `manage.py rescore --changed`): a run for each benchmark whose plugin now
    declares a version that some of its scored submissions do not bear, unless one is under way."""
    runs = []
    for benchmark in Benchmark.objects.order_by("order", "slug"):
        version = declared_version(benchmark)
        if not version or open_run(benchmark=benchmark) is not None:
            continue
        if not out_of_date_count(benchmark=benchmark, version=version):
            continue
        try:
            runs.append(rescore_run_start(benchmark=benchmark, reason=reason, enqueue=enqueue))
        except ServiceRefusal:  # another process started it a moment ago
            continue
    # A split version no run has scored the previous version's submissions onto yet (published while no worker ran).
    for split in Split.objects.filter(version__gt=1).select_related("benchmark").order_by("pk"):
        if RescoreRun.objects.filter(target_split=split).exists():
            continue
        if not Submission.objects.filter(to_carry(split=split)).exists():
            continue
        try:
            runs.append(rescore_split_version_start(split=split, reason=RescoreRun.Reason.SPLIT, enqueue=enqueue))
        except ServiceRefusal:
            continue
    return runs


def _claim(*, item_id: int, worker: str) -> int | None:
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    claimable = Q(state=RescoreItem.State.QUEUED) | Q(state=RescoreItem.State.RUNNING, heartbeat_at__lt=stale)
    claimed = RescoreItem.objects.filter(claimable, pk=item_id).update(
        state=RescoreItem.State.RUNNING, attempts=F("attempts") + 1, worker=worker, heartbeat_at=now)
    if not claimed:
        return None
    return RescoreItem.objects.values_list("attempts", flat=True).get(pk=item_id)


class _Heartbeat:
    """Keeps the item's lease alive while the scorer runs, at most every half second."""

    def __init__(self, item_id: int, attempt: int):
        self.item_id, self.attempt, self.last = item_id, attempt, 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        RescoreItem.objects.filter(pk=self.item_id, attempts=self.attempt).update(heartbeat_at=timezone.now())


def rescore_item_run(*, item_id: int, worker: str) -> str:
    """Re-score one item's submission exactly once. Returns what happened: rescored, unchanged, failed or skipped
    (not ours: done, or another worker holds it)."""
    attempt = _claim(item_id=item_id, worker=worker)
    if attempt is None:
        return "skipped"
    item = RescoreItem.objects.select_related("run__target_split", "submission__split__benchmark",
                                              "submission__model_entry", "submission__score").get(pk=item_id)
    submission, run = item.submission, item.run
    current = getattr(submission, "score", None)
    if current is None or submission.status != Submission.Status.SCORED:
        return _finish(item, attempt, RescoreItem.State.FAILED, error="It has no score to replace any more.")
    if run.target_split_id is None and run.scorer_version and not run.force \
            and current.scorer_version == run.scorer_version:
        return _finish(item, attempt, RescoreItem.State.UNCHANGED, old=current)
    split = run.target_split if run.target_split_id else submission.split
    try:
        result = plugin_for(submission.split.benchmark.scorer).score_function()(ScorerInput(
            file_path=Path(submission.file.path),
            samples=split_samples(split=split),
            options=submission.options,
            progress=_Heartbeat(item_id, attempt),
            model=submission.model_entry.name,
        ))
    except (UnknownBenchmark, SubmissionRejected, OSError) as exc:
        message = exc.message if isinstance(exc, SubmissionRejected) else str(exc)
        return _finish(item, attempt, RescoreItem.State.FAILED, old=current,
                       error=f"The scorer refused it: {message}"[:ERROR_MESSAGE_KEPT])
    return _publish(item, attempt, result)


def rescore_item_fail(*, item_id: int, message: str) -> None:
    """An unexpected error (a scorer crash) after the task's retries: this item failed, the run goes on."""
    item = RescoreItem.objects.select_related("run", "submission__score").get(pk=item_id)
    if item.state in FINAL:
        return
    _finish(item, item.attempts, RescoreItem.State.FAILED, old=getattr(item.submission, "score", None),
            error=f"Re-scoring failed because of an error on our side: {message}"[:ERROR_MESSAGE_KEPT], owned=False)


def rescore_item_release(*, item_id: int) -> None:
    """Put a running item back in the queue (before a retry of the task)."""
    RescoreItem.objects.filter(pk=item_id, state=RescoreItem.State.RUNNING).update(state=RescoreItem.State.QUEUED)


def _owned(item: RescoreItem, attempt: int) -> bool:
    return RescoreItem.objects.select_for_update().filter(
        pk=item.pk, attempts=attempt, state=RescoreItem.State.RUNNING).exists()


def _finish(item: RescoreItem, attempt: int, state: str, *, old: Score | None = None, error: str = "",
            owned: bool = True) -> str:
    with transaction.atomic():
        if owned and not _owned(item, attempt):
            return "skipped"
        RescoreItem.objects.filter(pk=item.pk).update(
            state=state, error_message=error, finished_at=timezone.now(),
            old_overall=old.overall if old is not None else None,
            old_scorer_version=old.scorer_version if old is not None else "",
            new_overall=old.overall if state == RescoreItem.State.UNCHANGED and old is not None else None,
            new_scorer_version=old.scorer_version if state == RescoreItem.State.UNCHANGED and old else "")
    _run_finish_if_done(item.run_id)
    return state


def _publish(item: RescoreItem, attempt: int, result: ScoringResult) -> str:
    if item.run.target_split_id:
        return _publish_carried(item, attempt, result)
    with transaction.atomic():
        # Lock the item, then the submission: only the attempt that still owns the item replaces the score.
        if not _owned(item, attempt):
            return "skipped"
        submission = Submission.objects.select_for_update().select_related("split").get(pk=item.submission_id)
        old = Score.objects.filter(submission=submission).first()
        if old is not None:
            ScoreVersion.objects.create(
                submission=submission, overall=old.overall, breakdown=old.breakdown, intervals=old.intervals,
                details=old.details, readings=old.readings, scorer_version=old.scorer_version,
                split_version=submission.split.version, scored_at=old.created_at, run=item.run)
        score_publish(submission=submission, result=result)
        RescoreItem.objects.filter(pk=item.pk).update(
            state=RescoreItem.State.RESCORED, finished_at=timezone.now(), error_message="",
            old_overall=old.overall if old else None, old_scorer_version=old.scorer_version if old else "",
            new_overall=result.overall, new_scorer_version=result.scorer_version)
        submission_id, run_id = submission.pk, item.run_id
        transaction.on_commit(lambda: score_rescored_event(submission_id=submission_id, run_id=run_id))
    _run_finish_if_done(item.run_id)
    return "rescored"


def _publish_carried(item: RescoreItem, attempt: int, result: ScoringResult) -> str:
    """A split-version item: the submission scored on the new version becomes a submission of its own there, made in
    the transaction that publishes its score (so a killed attempt leaves none behind)."""
    with transaction.atomic():
        if not _owned(item, attempt):
            return "skipped"
        old = Submission.objects.select_related("score").get(pk=item.submission_id)
        carried = Submission.objects.create(
            model_entry_id=old.model_entry_id, split_id=item.run.target_split_id, submitter_id=old.submitter_id,
            source=Submission.Source.REPRODUCED, visibility=old.visibility, file=old.file.name,
            original_filename=old.original_filename, size_bytes=old.size_bytes, sha256=old.sha256,
            options=old.options, run_set=old.run_set, status=Submission.Status.RUNNING, started_at=timezone.now(),
            note=(f"Re-scored by the hub from submission #{old.pk} on {old.split} when version "
                  f"{item.run.target_split.version} was published." + (f" {old.note}" if old.note else ""))[:2000])
        score_publish(submission=carried, result=result)
        previous = getattr(old, "score", None)
        RescoreItem.objects.filter(pk=item.pk).update(
            state=RescoreItem.State.RESCORED, finished_at=timezone.now(), error_message="", result=carried,
            old_overall=previous.overall if previous else None,
            old_scorer_version=previous.scorer_version if previous else "",
            new_overall=result.overall, new_scorer_version=result.scorer_version)
        submission_id, run_id = old.pk, item.run_id
        transaction.on_commit(lambda: score_rescored_event(submission_id=submission_id, run_id=run_id))
    _run_finish_if_done(item.run_id)
    return "rescored"


def _run_finish_if_done(run_id: int) -> None:
    if not RescoreItem.objects.filter(run_id=run_id).exclude(state__in=FINAL).exists():
        RescoreRun.objects.filter(pk=run_id, finished_at__isnull=True).update(finished_at=timezone.now())


def rescore_items_requeue(*, worker: str | None = None) -> list[int]:
    """The items of unfinished runs to send again (the caller, a task, sends them): queued ones (their message may
    be lost with a dead worker or a forgetful broker; a duplicate is harmless, the claim lets one attempt score),
    and running ones with a stale lease or on this very (restarted) worker, put back in the queue."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    lost = Q(state=RescoreItem.State.RUNNING, heartbeat_at__lt=stale)
    if worker:
        lost |= Q(state=RescoreItem.State.RUNNING, worker=worker)
    RescoreItem.objects.filter(lost, run__finished_at__isnull=True).update(state=RescoreItem.State.QUEUED)
    return list(RescoreItem.objects.filter(state=RescoreItem.State.QUEUED, run__finished_at__isnull=True)
                .order_by("pk").values_list("pk", flat=True))


@dataclass(frozen=True)
class RunProgress:
    run: RescoreRun
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> int:
        return sum(n for state, n in self.counts.items() if state in FINAL)


def run_progress(*, run: RescoreRun) -> RunProgress:
    counts = {state: 0 for state in RescoreItem.State.values}
    for row in run.items.values("state").annotate(n=Count("id")).order_by():
        counts[row["state"]] = row["n"]
    return RunProgress(run, counts)
