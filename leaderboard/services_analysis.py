"""Writes for the Analysis tab: each scored submission's summary (issue 34).

A benchmark whose plugin names `analysis_summaries` has its figures in two steps: `summarise` one submission's
per-sample rows into a small JSON summary (counts and sums per task, leaf, bucket, ...), and `combine` the figures
from the summaries of the board's entries. A summary is written when a score lands, is re-scored or its verdicts
change (`scoring.events`), so a page combines the stored summaries of its rows (one query) and reads no per-sample row
however large the board grows. A summary is made under the split's disclosure (`public`: ground truth keys and
site reads as the figures need; `hidden`: only what a hidden split discloses), and bears its version (the
summaries' own and the plugin's context stamp): a missing or stale one is made when a page needs it, once, and
`manage.py analysis_summaries` makes them all. A page of the tab reads the summaries of its own models only, and what
spans every entry from their span (`AnalysisSummaries.span`), cached under the digest of what it is made of: exact
for as long as it is found, made again from every summary when not. When scores land the worker stores the board's
span as it opens, in a task of its own that the scores landing within SPAN_REFRESH_DELAY of each other share
(`leaderboard.tasks.analysis_summary_on_score`): it reads every entry's summary (about a second at 100x), which
a score's own work does not, so one new score costs the same however many entries the board has.
"""
from __future__ import annotations

import hashlib
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max

from leaderboard import selectors
from leaderboard.core import analysis_svg
from leaderboard.core.board import BoardQuery, BoardRow, BoardSpec, filter_rows, parse_query
from leaderboard.core.board_kept import view_kept, view_updated
from leaderboard.models import AnalysisSummary
from scoring import access
from scoring.benchmarks import UnknownBenchmark, board_for, plugin_for
from scoring.core.analysis import AnalysisContext, Figure, ModelSamples, ModelSummary
from scoring.core.plugin import BenchmarkPlugin
from scoring.core.published import read_deltas, read_table
from scoring.models import Split, Submission

# Submissions whose samples are read at once while summaries are made: memory stays that of a few submissions
# (a VGE submission is some 15,000 episodes with their traces) however many are missing.
CHUNK = 4
# A span is found under the digest of what it is made of (`analysis_span_key`): kept until evicted, never stale.
SPAN_TIMEOUT = 7 * 24 * 3600


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
    kinds = _kinds_of(rows, also)
    found = analysis_summaries_of(split=split, plugin=plugin, kinds=kinds)
    return [ModelSummary(label=label, model_name=r.model_name, kind=r.kind, thinking=r.thinking,
                         submission_id=r.submission_id, summary=found[r.submission_id])
            for r, label in labelled], found


def _kinds_of(rows: Sequence[BoardRow], also: Sequence[BoardRow]) -> dict[int, str]:
    """id -> model kind of the rows' submissions and of every submission of the rows `also` (each run)."""
    kinds = {r.submission_id: r.kind for r in rows if r.source == "scored"}
    for r in also:
        if r.source == "scored":
            kinds.update((i, r.kind) for i in (r.run_ids or (r.submission_id,)))
    return kinds


def analysis_page_summaries(*, split: Split, plugin: BenchmarkPlugin, labelled: Sequence[tuple[BoardRow, str]],
                            also: Sequence[BoardRow] = (),
                            shown: Collection[str]) -> tuple[list[ModelSummary], dict[int, Any]]:
    """`analysis_summaries_for` of what a page of the tab combines with the stored span (AnalysisContext.span): the
    entries labelled `shown` and every entry and submission of the same models (a thinking pair, a model's runs),
    in the board's order; the summaries of no other entry are read. `labelled`: the board's scored rows with their
    labels (`selectors.analysis_labels`)."""
    models = {r.model_name for r, label in labelled if label in shown}
    related = [r for r, _ in labelled if r.model_name in models]
    return analysis_summaries_for(split=split, plugin=plugin, rows=related,
                                  also=[r for r in also if r.model_name in models])


def _summaries_state(split: Split, disclosure: str, version: str) -> tuple[int, str]:
    """How many summaries of the split are stored under this disclosure and version, and when the last was written:
    changes whenever one is written (a score lands, is re-scored) or goes (its submission deleted). One aggregate."""
    found = (AnalysisSummary.objects.filter(submission__split=split, disclosure=disclosure, version=version)
             .aggregate(n=Count("id"), last=Max("computed_at")))
    return found["n"], str(found["last"])


def analysis_span_key(*, split: Split, plugin: BenchmarkPlugin, labelled: Sequence[tuple[BoardRow, str]],
                      also: Sequence[BoardRow], context: AnalysisContext) -> str:
    """The cache key of the span (`AnalysisSummaries.span`) of these board rows: a digest of everything it is made
    of (the entries in order with their labels and kinds, the filtered rows' submissions, the summaries' version,
    disclosure and stored state, the site's reads), so a stored span is exact for as long as it is found."""
    disclosure = disclosure_of(split)
    version = plugin.analysis_summary_version(split)
    made_of = {
        "entries": [(r.submission_id, label, r.kind, r.thinking, r.model_name) for r, label in labelled],
        "also": sorted(_kinds_of((), also).items()), "disclosure": disclosure, "version": version,
        "summaries": _summaries_state(split, disclosure, version), "extra": context.extra,
        "submissions": sorted(context.submissions or ()),
    }
    return f"analysis-span:{split.pk}:{_digest(made_of)}"


def _digest(made_of: Any) -> str:
    """A cache key's digest of what a stored value is made of. Pickle, not JSON: the site's reads of 2,000 VGE uploads
    were 60 ms as sorted JSON. Equal pickles are equal inputs; inputs built in another order (a set of strings in
    another process) give another key: a miss, never a wrong value."""
    return hashlib.sha256(pickle.dumps(made_of, protocol=pickle.HIGHEST_PROTOCOL)).hexdigest()


def analysis_span(*, split: Split, plugin: BenchmarkPlugin, labelled: Sequence[tuple[BoardRow, str]],
                  also: Sequence[BoardRow], context: AnalysisContext) -> Mapping[str, Any]:
    """The span of the summaries of these labelled board rows (`selectors.analysis_labels`) and of every submission of
    the rows `also` (what the figures read of every entry): stored under its digest (`analysis_span_key`), else made
    from every summary and stored."""
    spec = plugin.analysis_summaries_spec()
    assert spec is not None and spec.span is not None, "analysis_span: a benchmark without a span"
    key = analysis_span_key(split=split, plugin=plugin, labelled=labelled, also=also, context=context)
    found = cache.get(key)
    if found is None:
        summaries, by_id = analysis_summaries_for(split=split, plugin=plugin, rows=[r for r, _ in labelled],
                                                  also=also)
        found = spec.span(summaries, replace(context, summaries=by_id, page=None))
        cache.set(key, found, SPAN_TIMEOUT)
    return found


def _site_reads(plugin: BenchmarkPlugin, hook: Callable[[Split], Mapping[str, Any]], split: Split,
                board_rows: Sequence[BoardRow] | None) -> Mapping[str, Any]:
    """The plugin's own reads for the figures (`analysis_context`): for a plugin whose reads follow the board's rows
    alone (`analysis_context_of_rows`: VGE lists every upload's options, ~20 ms a read at 2,000, issue 34), kept in
    this process while the rows are the same submissions of the same entries (`selectors.board_members_kept`)."""
    if not plugin.analysis_context_of_rows or board_rows is None:
        return hook(split)
    return selectors.board_members_kept("analysis-context", split.pk, board_rows, lambda: hook(split))


def figure_context(plugin: BenchmarkPlugin, split: Split, rows: Sequence[BoardRow],
                   filtered: Sequence[BoardRow], *, site_reads: bool = True,
                   board_rows: Sequence[BoardRow] | None = None) -> AnalysisContext:
    """The paper's rows of the reported entries the filters keep, its stated deltas, the plugin's own reads (unless
    `site_reads` is false; `board_rows`: every row of the board, which those reads may follow, `_site_reads`), and
    the scored submissions of `filtered` (the rows the filters keep, every entry of a model)."""
    published, deltas = [], []
    if plugin.published is not None:
        directory = Path(settings.PUBLISHED_DATA_DIR)
        kept = {r.model_name for r in rows if r.source == "reported"}
        published = [p for p in read_table(directory, plugin.published) if p.model in kept]
        # The paper's stated differences belong with its rows: only on a board that shows some of them.
        deltas = read_deltas(directory, plugin.published) if kept else []
    hook = plugin.analysis_context_function() if site_reads else None
    submissions = frozenset(i for r in filtered if r.source == "scored" for i in (r.run_ids or (r.submission_id,)))
    return AnalysisContext(published=published, deltas=deltas,
                           extra=_site_reads(plugin, hook, split, board_rows) if hook else {}, submissions=submissions)


def analysis_entries(data: selectors.BoardData, spec: BoardSpec, query: BoardQuery
                     ) -> tuple[list[BoardRow], list[BoardRow]]:
    """The rows the tab shows, in the board's order (the view `board_build` makes, without marks: the tab shows
    none), and the rows the filters keep (every entry of a kept model). The view is kept in this process and brought
    up to date with the rows that changed, as the board's own views are (`selectors.board_view_kept`), so that a page
    after a score landed does not order every row again; no comparison is read for it (the tab shows none)."""
    kept = selectors.board_view_kept(
        data, ("analysis", query.canonical()), lambda: view_kept(data.rows, spec, query, marks=False),
        lambda held, gone, came: view_updated(held, gone, came, None, len(data.rows)))
    return list(kept.view.rows), filter_rows(data.rows, query)


def analysis_span_refresh(*, split: Split, plugin: BenchmarkPlugin) -> bool:
    """When a score lands or is re-scored: store the span of the split's board as it opens (no filter), so the tab's
    first page after it reads no summary but its own entries'. Returns whether one was made."""
    spec = plugin.analysis_summaries_spec()
    if spec is None or spec.span is None:
        return False
    board = board_for(split.benchmark.slug)
    query = parse_query({}, board, tuple(r.key for r in selectors.benchmark_readings(split.benchmark.slug)))
    data = selectors.board_data(split=split)
    rows, filtered = analysis_entries(data, board, query)
    context = figure_context(plugin, split, rows, filtered, site_reads=access.ground_truth_figures_public(split=split),
                             board_rows=data.rows)
    analysis_span(split=split, plugin=plugin, labelled=selectors.analysis_labels(rows=rows), also=filtered,
                  context=context)
    return True


SPAN_REFRESH_DELAY = 5  # seconds a span refresh waits for the scores landing after the one that asked for it
SPAN_PENDING_TIMEOUT = 120  # a refresh that never ran (its worker died) is asked for again after this


def _span_pending_key(split_id: int) -> str:
    return f"analysis-span-pending-{split_id}"


def analysis_span_refresh_wanted(*, split_id: int) -> bool:
    """Whether a score that landed should ask the worker for the split's span (`leaderboard.tasks.analysis_span_fill`,
    in SPAN_REFRESH_DELAY seconds): not when a refresh is already waiting, which the scores landing meanwhile share.
    Marks it waiting. (Asked in a transaction that rolls back, the mark stays until SPAN_PENDING_TIMEOUT: meanwhile
    the tab's next page makes the span itself, once.)"""
    return bool(cache.add(_span_pending_key(split_id), 1, SPAN_PENDING_TIMEOUT))


def analysis_span_fill(*, split_id: int) -> bool:
    """The worker's span refresh: the waiting mark cleared first (a score landing during the refresh asks for the
    next one), then the span of the split's board stored. Returns whether one was made."""
    cache.delete(_span_pending_key(split_id))
    split = Split.objects.select_related("benchmark").filter(pk=split_id).first()
    if split is None:
        return False
    try:
        plugin = plugin_for(split.benchmark.scorer)
    except UnknownBenchmark:
        return False
    return analysis_span_refresh(split=split, plugin=plugin)


def analysis_summary_update(*, submission_id: int) -> int | None:
    """When a score lands or is re-scored: make the submission's summary (its benchmark declaring summaries).
    Returns its split's id when one was written (the worker then asks for the split's span:
    `leaderboard.tasks.analysis_summary_on_score`), else None."""
    submission = (Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORED)
                  .select_related("split__benchmark", "model_entry").first())
    if submission is None:
        return None
    try:
        plugin = plugin_for(submission.split.benchmark.scorer)
    except UnknownBenchmark:
        return None
    if not analysis_summaries_compute(split=submission.split, plugin=plugin,
                                      kinds={submission.pk: submission.model_entry.kind}):
        return None
    return submission.split_id


def analysis_summary_on_verdicts(sender: object, *, submission_id: int, **kwargs: object) -> None:
    """Receiver of `scoring.events.score_updated`: a person's verdict, in the person's request, which does not ask
    for the span (every entry's summary read: a second at 100x); the tab's next page makes it, once."""
    analysis_summary_update(submission_id=submission_id)


CHART_TIMEOUT = 3600  # seconds a drawn chart is kept in the shared cache (found by what it draws: never stale)


def charts_drawn(figures: Sequence[Figure]) -> list[str | None]:
    """Each figure's chart as SVG (None for a table only), found in the shared cache under the digest of what it
    draws, else drawn and stored. A page made again after a score landed redraws only the charts whose data changed:
    the tab's heat maps were a fifth of an uncached page at 100x, drawn again for the same figures (issue 34); the
    figure's own .svg URL reads the same."""
    keys = [f"analysis-svg:{_digest(_drawn_from(f))}" for f in figures]
    found = cache.get_many(keys)
    drawn: list[str | None] = []
    made: dict[str, str] = {}
    for figure, key in zip(figures, keys):
        chart = found.get(key)
        if chart is None:
            chart = made[key] = analysis_svg.render(figure.chart, title=figure.title) or ""  # "": a table only
        drawn.append(chart or None)
    if made:
        cache.set_many(made, CHART_TIMEOUT)
    return drawn


def _drawn_from(figure: Figure) -> tuple:
    """What a figure's SVG is made of (`analysis_svg.render`: its chart and title), as plain values (`_digest`)."""
    chart = figure.chart
    return (chart.kind, tuple(chart.x), tuple((s.name, tuple(s.values)) for s in chart.series), chart.y_label,
            chart.y_max, figure.title)
