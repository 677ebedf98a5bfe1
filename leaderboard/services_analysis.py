"""Writes for the Analysis tab: each scored submission's summary (issue 34).

A benchmark whose plugin names `analysis_summaries` has its figures in two steps: `summarise` one submission's
per-sample rows into a small JSON summary (counts and sums per task, leaf, bucket, ...), and `combine` the figures
from the summaries of the board's entries. A summary is written when a score lands, is re-scored or its verdicts
change (`scoring.events`), so a page combines the stored summaries of its rows (one query) and reads no per-sample row
however large the board grows. A summary is made under the split's disclosure (`public`: ground truth keys and
site reads as the figures need; `hidden`: only what a hidden split discloses), and bears its version (the
summaries' own and the plugin's context stamp): a missing or stale one is made when a page needs it, once, and
`manage.py analysis_summaries` makes them all.
"""
from __future__ import annotations

from typing import Any, Sequence

from leaderboard import selectors
from leaderboard.core.board import BoardRow
from leaderboard.models import AnalysisSummary
from scoring import access
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.analysis import ModelSamples, ModelSummary
from scoring.core.plugin import BenchmarkPlugin
from scoring.models import Split, Submission

# Submissions whose samples are read at once while summaries are made: memory stays that of a few submissions
# (a VGE submission is some 15,000 episodes with their traces) however many are missing.
CHUNK = 4


def disclosure_of(split: Split) -> str:
    public = access.ground_truth_figures_public(split=split)
    return AnalysisSummary.Disclosure.PUBLIC if public else AnalysisSummary.Disclosure.HIDDEN


def analysis_summaries_compute(*, split: Split, plugin: BenchmarkPlugin, kinds: dict[int, str]) -> dict[int, Any]:
    """Make and store the summaries of these submissions of `split` (id -> model kind) under the split's
    disclosure and the current version. Returns id -> summary."""
    spec = plugin.analysis_summaries_spec()
    if spec is None or not kinds:
        return {}
    disclosure = disclosure_of(split)
    public = disclosure == AnalysisSummary.Disclosure.PUBLIC
    version = plugin.analysis_summary_version(split)
    extra = plugin.analysis_summary_context_of(split, public=public)
    read: dict[str, Any] = ({"truth_keys": plugin.analysis_truth_keys} if public
                            else {"detail_keys": plugin.hidden_split_detail_keys})
    out: dict[int, Any] = {}
    ids = list(kinds)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        samples = selectors.analysis_samples(submission_ids=chunk, **read)
        made = [AnalysisSummary(submission_id=i, disclosure=disclosure, version=version,
                                summary=spec.summarise(ModelSamples(label="", model_name="", kind=kinds[i],
                                                                    submission_id=i, samples=samples[i]), extra))
                for i in chunk]
        del samples
        AnalysisSummary.objects.bulk_create(made, update_conflicts=True, unique_fields=["submission", "disclosure"],
                                            update_fields=["version", "summary", "computed_at"])
        out.update((m.submission_id, m.summary) for m in made)
    return out


def analysis_summaries_of(*, split: Split, plugin: BenchmarkPlugin, kinds: dict[int, str]) -> dict[int, Any]:
    """The summaries of these submissions of `split` (id -> model kind), by id: the stored ones of the current
    version (one query), the others made now and stored."""
    found = selectors.analysis_summaries_stored(submission_ids=list(kinds), disclosure=disclosure_of(split),
                                                version=plugin.analysis_summary_version(split))
    missing = {i: kind for i, kind in kinds.items() if i not in found}
    found.update(analysis_summaries_compute(split=split, plugin=plugin, kinds=missing))
    return found


def analysis_summaries_for(*, split: Split, plugin: BenchmarkPlugin, rows: Sequence[BoardRow],
                           also: Sequence[BoardRow] = ()) -> tuple[list[ModelSummary], dict[int, Any]]:
    """The summaries of the board's scored rows, in order and labelled as `selectors.analysis_labels`, and by id
    those of these rows and of every submission of the rows `also` (each run of a repeated run): what the figures
    comparing a model's submissions read (AnalysisContext.summaries)."""
    labelled = selectors.analysis_labels(rows=rows)
    kinds = {r.submission_id: r.kind for r, _ in labelled}
    for r in also:
        if r.source == "scored":
            kinds.update((i, r.kind) for i in (r.run_ids or (r.submission_id,)))
    found = analysis_summaries_of(split=split, plugin=plugin, kinds=kinds)
    return [ModelSummary(label=label, model_name=r.model_name, kind=r.kind, thinking=r.thinking,
                         submission_id=r.submission_id, summary=found[r.submission_id])
            for r, label in labelled], found


def analysis_summary_update(*, submission_id: int) -> bool:
    """When a score lands or is re-scored: make the submission's summary (its benchmark declaring summaries).
    Returns whether one was written."""
    submission = (Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORED)
                  .select_related("split__benchmark", "model_entry").first())
    if submission is None:
        return False
    try:
        plugin = plugin_for(submission.split.benchmark.scorer)
    except UnknownBenchmark:
        return False
    return bool(analysis_summaries_compute(split=submission.split, plugin=plugin,
                                           kinds={submission.pk: submission.model_entry.kind}))


def analysis_summary_on_score(sender: object, *, submission_id: int, **kwargs: object) -> None:
    """Receiver of `scoring.events.score_landed`, `score_rescored` and `score_updated`."""
    analysis_summary_update(submission_id=submission_id)
