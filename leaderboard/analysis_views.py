"""The Analysis tab: the papers' analyses on the hub's own per-sample scores, per benchmark and split.

Generic: the benchmark's plugin names its figures function (`BenchmarkPlugin.analyses`, pure); this module picks
the board's rows with the board's own filters (`?split=`, kind, thinking, source, parameters, search, all
entries), combines the figures from their stored per-submission summaries (leaderboard.services_analysis; a
benchmark that declares none: from their per-sample rows), and serves each figure as inline SVG on the page and as
SVG, CSV or JSON alone. Figures are cached under the board's data key, so a score that lands shows at the next request.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_safe
from markdown_it import MarkdownIt

from leaderboard import selectors, services_analysis
from leaderboard.board_views import error_page, pager_context, resolve_board, svg_response
from leaderboard.core.board import BadBoardQuery, board_page, csv_cell, parse_page
from scoring import access
from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.analysis import EntryPage, Figure, figure_page
from scoring.core.collector import collector_paused
from scoring.core.plugin import BenchmarkPlugin

FORMATS = ("svg", "csv", "json")
METHOD_DOC = Path(settings.BASE_DIR) / "docs" / "analyses.md"


def _figures_made(plugin: BenchmarkPlugin, split, spec, query, data, *, number: int | None, public: bool,
                  withheld: tuple[str, ...]) -> tuple[list[Figure], list[str]]:
    """What `_figures` caches: the figures (of the page `number`'s entries, or of every entry) and the labels of the
    entries, in the board's order."""
    rows, filtered = services_analysis.analysis_entries(data, spec, query)
    labelled = selectors.analysis_labels(rows=rows)
    labels = [label for _, label in labelled]
    page = board_page(len(labels), number or 1)
    entries = (EntryPage(frozenset(labels[page.start:page.end]), frozenset(labels))
               if number is not None and page.pages > 1 else None)
    context = replace(services_analysis.figure_context(plugin, split, rows, filtered, site_reads=public,
                                                       board_rows=data.rows), page=entries)
    summaries = plugin.analysis_summaries_spec()
    if summaries is not None and summaries.span is not None and entries is not None:
        # A page: what spans every entry from its stored aggregate, the summaries of the page's models alone (issue
        # 34: a page reads as many summaries however many entries the board has).
        span = services_analysis.analysis_span(split=split, plugin=plugin, labelled=labelled, also=filtered,
                                               context=context)
        shown, by_id = services_analysis.analysis_page_summaries(split=split, plugin=plugin, labelled=labelled,
                                                                 also=filtered, shown=entries.shown)
        computed = summaries.combine(shown, replace(context, summaries=by_id, span=span))
    elif summaries is not None:  # the stored summaries of the rows, combined: no per-sample row read
        shown, by_id = services_analysis.analysis_summaries_for(split=split, plugin=plugin, rows=rows,
                                                                also=filtered)
        computed = summaries.combine(shown, replace(context, summaries=by_id))
    else:  # a benchmark that declares no summaries: from the rows' per-sample scores
        read = ({"truth_keys": plugin.analysis_truth_keys} if public
                else {"detail_keys": plugin.hidden_split_detail_keys})
        computed = plugin.analyses_function()(selectors.analysis_models(rows=rows, **read), context)
    # A figures function may make every entry's rows: the page is cut here all the same.
    return ([f if entries is None else figure_page(f, entries) for f in computed if f.key not in withheld],
            labels)


def _figures(benchmark, split, spec, query, *,
             number: int | None = None) -> tuple[list[Figure] | None, tuple[str, ...], str, list[str]]:
    """The benchmark's figures for the board's filtered rows (None when it declares no analyses), the keys of
    those withheld, the cache key they are kept under and the labels of the entries they show, in the board's order
    (`selectors.analysis_labels`: what the tab pages). `number`: a page of the tab (issue 34), whose figures have
    the per-entry rows and series of that page's entries only (made for them alone: `AnalysisContext.page`) and
    everything that spans entries over all of them; None: every entry's (the exports). On a split with hidden ground
    truth (scoring.access) the figures read from it are not computed, and the others get only what a submitter may
    see of their samples (no ground truth, no site-side reads)."""
    try:
        plugin = plugin_for(benchmark.scorer)
    except UnknownBenchmark:
        return None, (), "", []
    if plugin.analyses_function() is None:
        return None, (), "", []
    public = access.ground_truth_figures_public(split=split)
    withheld = () if public else plugin.analysis_truth_figures
    # The board's key alone (its version and fingerprint: `board_data`'s cache key), so that a page found cached reads
    # no board row: the rows' digest, one aggregate over every row, is read only when the figures are made.
    key = (f"{selectors.board_cache_key(split_id=split.pk)}:analysis:{query.canonical()}:"
           f"{f'page:{number}' if number else 'all'}")
    found = cache.get(key)
    if found is None:
        data = selectors.board_data(split=split)
        found = _figures_made(plugin, split, spec, query, data, number=number, public=public, withheld=withheld)
        cache.set(key, found, selectors.ROWS_TIMEOUT)
    return found[0], withheld, key, found[1]


def _withheld_message(split, key: str) -> str:
    return (f"Figure '{key}' is read from ground truth, and split '{split.name}' has hidden ground truth: it is "
            "not computed for this split.")


def _resolve(request: HttpRequest, slug: str):
    """The board's rows as `resolve_board` reads them; with no `?split=`, the split the tab opens on (one with
    uploads scored here) rather than the board's (whose papers' rows have no per-sample scores)."""
    default = None if request.GET.get("split") else selectors.analysis_split_name(slug=slug)
    return resolve_board(request, slug, default_split=default)


# The tab's views run with the cyclic collector paused (scoring.core.collector): a request decodes a summary per
# entry and makes the figures, many acyclic containers that reference counting frees when the view returns, before
# the collector runs again; paused over the figures alone, it ran its collections at the pause's end instead
# (profile of an uncached 200-entry page: they cost more than the rest of the request, 0.7 ms a summary).
@require_GET
@collector_paused()
def analysis(request: HttpRequest, slug: str) -> HttpResponse:
    resolved, error = _resolve(request, slug)
    if error:
        return error
    benchmark, split, spec, query = resolved
    try:
        number, _ = parse_page(request.GET)
    except BadBoardQuery as exc:
        return error_page(request, 400, f"Bad parameter '{exc.parameter}': {exc.message}")
    # The per-entry rows are paged as the board (issue 34: a row per entry is megabytes of SVG on a large board);
    # what is computed over all entries stays on every page. Each page's charts are drawn once per figures
    # computed, and kept beside them.
    figures, withheld, key, labels = _figures(benchmark, split, spec, query, number=number)
    # The figures' links, the board's and the pages': this split and filters.
    board_params = {"split": split.name, **query.as_params()}
    params = urlencode(board_params)
    page = board_page(len(labels), number)
    paged = figures or []
    charts = cache.get(f"{key}:svg") if key else None
    if charts is None:
        charts = [chart or "" for chart in services_analysis.charts_drawn(paged)]
        if key:
            cache.set(f"{key}:svg", charts, selectors.ROWS_TIMEOUT)
    shown = [{"f": f, "svg": mark_safe(chart)} for f, chart in zip(paged, charts)]  # our own escaped SVG
    return render(request, "leaderboard/analysis.html", {
        "benchmark": benchmark, "split": split, "splits": selectors.board_splits(benchmark=benchmark),
        "query": query, "params": params, "figures": shown, "declared": figures is not None,
        "withheld": withheld,
        "kinds": ["proprietary", "open-source", "embodied", "human", "baseline"],
        "page": page, **pager_context(page, board_params),
    })


@require_safe
@collector_paused()
def analysis_figure(request: HttpRequest, slug: str, key: str, fmt: str) -> HttpResponse:
    if fmt not in FORMATS:
        return error_page(request, 404, f"No format '{fmt[:20]}': use .svg, .csv or .json.")
    resolved, error = _resolve(request, slug)
    if error:
        return error
    benchmark, split, spec, query = resolved
    figures, withheld, _, _ = _figures(benchmark, split, spec, query)
    if key in withheld:
        message = _withheld_message(split, key)
        if fmt == "json":
            return JsonResponse({"benchmark": benchmark.slug, "split": split.name, "key": key, "withheld": True,
                                 "error": message}, status=404)
        return error_page(request, 404, message)
    figures = figures or []
    figure = next((f for f in figures if f.key == key), None)
    if figure is None:
        known = ", ".join(f.key for f in figures) or "none"
        return error_page(request, 404, f"No figure '{key[:40]}' for {benchmark.slug}. Known: {known}.")
    name = f"{benchmark.slug}-{slugify(split.name)}-v{split.version}-{figure.key}.{fmt}"
    if fmt == "svg":
        body = services_analysis.charts_drawn([figure])[0]
        if body is None:
            return error_page(request, 404, f"Figure '{figure.key}' is a table only: use .csv or .json.")
        return svg_response(body)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(figure.columns)
        for row in figure.rows:
            writer.writerow([csv_cell(v) for v in row])
        response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    else:
        payload = {"benchmark": benchmark.slug, "split": split.name, "split_version": split.version,
                   **figure.as_json()}
        response = HttpResponse(json.dumps(payload, indent=1), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
def analysis_method(request: HttpRequest, slug: str) -> HttpResponse:
    """How each figure is computed: docs/analyses.md as a page (the tab cites it; the docs are not served
    otherwise). Markdown without raw HTML: the text is escaped."""
    resolved, error = resolve_board(request, slug)
    if error:
        return error
    benchmark = resolved[0]
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(METHOD_DOC.read_text(encoding="utf-8"))
    return render(request, "leaderboard/analysis_method.html", {
        "benchmark": benchmark, "body": mark_safe(body),  # rendered with raw HTML off: escaped
        "source": "docs/analyses.md",
    })
