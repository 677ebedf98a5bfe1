"""Board pages, exports, plots, model pages and drill-down (server-rendered; JavaScript only enhances).

Views are thin: resolve the split, parse the query with `leaderboard.core.board`, read cached rows from
`leaderboard.selectors`, and render. Bad parameters answer 400, unknown boards 404, never 500.
"""
from __future__ import annotations

import csv
import functools
import io
import itertools
import json
import threading
from collections import OrderedDict
from dataclasses import replace
from html import escape
from typing import Any
from urllib.parse import urlencode

from django.core.cache import cache
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.defaultfilters import floatformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_safe

from accounts import roles
from leaderboard import selectors, services, tasks, versions
from leaderboard.core import labels, svg
from leaderboard.core.board import (
    ROW_TYPE_LABELS,
    BadBoardQuery,
    BoardPage,
    BoardView,
    active_parameters_from_name,
    board_build,
    board_page,
    csv_cell,
    export_cells,
    export_header,
    export_table,
    format_value,
    marks_signature,
    page_numbers,
    parameters_from_name,
    parse_page,
    parse_query,
    view_empty_leaves,
    view_marks,
)
from leaderboard.core.readings import reading_sentence
from scoring import access
from scoring.benchmarks import UnknownBenchmark, board_for, plugin_for
from scoring.core.columns import Level
from scoring.core.disclosure import sample_disclosed
from scoring.core.plugin import BenchmarkPlugin, Drilldown, DrilldownSample
from scoring.error_pages import refusal_page
from scoring.errors import ServiceRefusal
from scoring.models import ModelEntry, Sample, SampleScore, Submission
from scoring.paging import page_requested
from scoring.phases import phase_shown
from scoring.rescore import declared_version
from scoring.selectors import model_entry_editable_by

PLOT_TOP_MODELS = 6


def error_page(request: HttpRequest, status: int, message: str) -> HttpResponse:
    return refusal_page(request, ServiceRefusal(message, status=status))


def _plugin(slug: str) -> BenchmarkPlugin | None:
    try:
        return plugin_for(slug)
    except UnknownBenchmark:
        return None


def protocol_statement(slug: str, reading: str = "") -> str:
    """Which protocol the board's numbers use, as its page, API and JSON export say it, with which of the
    benchmark's readings the figures shown are ("" when the benchmark declares neither)."""
    plugin = _plugin(slug)
    if plugin is None:
        return ""
    return " ".join(part for part in (plugin.protocol.statement(), reading_sentence(plugin.readings, reading))
                    if part)


def reading_keys(slug: str) -> tuple[str, ...]:
    """The keys of the benchmark's readings, the headline's first (none: the board takes no ?reading=)."""
    return tuple(r.key for r in selectors.benchmark_readings(slug))


def reading_shown(slug: str, reading: str) -> dict[str, str] | None:
    """The reading the figures shown are under, as the API and JSON export name it (None: one reading only)."""
    plugin = _plugin(slug)
    found = plugin.reading(reading) if plugin is not None else None
    if found is None:
        return None
    return {"key": found.key, "label": found.label, "description": found.description,
            "headline": found is plugin.readings[0]}


def resolve_board(request: HttpRequest, slug: str, *, default_split: str | None = None, params=None):
    """(benchmark, split, spec, query) as the board reads them, or an error response (404, 400). The Analysis tab
    reads its rows the same way (with its own `default_split` when the URL names none); a snapshot's form gives the
    board's parameters as `params` (default: the request's query string)."""
    try:
        return board_resolve(request.GET if params is None else params, slug, default_split=default_split), None
    except ServiceRefusal as exc:
        message = f"Bad parameter '{exc.field}': {exc.message}" if exc.status == 400 and exc.field else exc.message
        return None, error_page(request, exc.status, message)


def board_resolve(params, slug: str, *, default_split: str | None = None):
    """(benchmark, split, spec, query) a board's parameters name, the board API's too; refuses 404 (no such board or
    split version), 400 (a bad parameter, an unknown scorer version)."""
    raw_version = (params.get("split_version") or "").strip()
    if raw_version and not (raw_version.isdigit() and params.get("split")):
        raise ServiceRefusal("a split's version number, given with ?split=<name>", field="split_version")
    try:
        benchmark, split = selectors.benchmark_split_cached(
            slug=slug, split_name=params.get("split") or default_split,
            version=int(raw_version) if raw_version else None)
    except selectors.BoardNotFound as exc:
        raise ServiceRefusal(str(exc), status=404) from None
    spec = board_for(benchmark.slug)
    try:
        query = parse_query(params, spec, reading_keys(benchmark.slug))
        if query.scorer and query.scorer not in {v.version for v in versions.scorer_versions(split=split)}:
            known = ", ".join(v.version for v in versions.scorer_versions(split=split)) or "none"
            raise BadBoardQuery("scorer", f"no scores of this board were made under '{query.scorer[:60]}'; "
                                          f"versions: {known}")
    except BadBoardQuery as exc:
        raise ServiceRefusal(exc.message, field=exc.parameter) from None
    return benchmark, split, spec, query


def split_params(request: HttpRequest, split) -> dict[str, str]:
    """The split parameters a board's own links keep: the split named, and its version when the URL names one."""
    if not request.GET.get("split"):
        return {}
    params = {"split": split.name}
    if request.GET.get("split_version"):
        params["split_version"] = str(split.version)
    return params


def board_view(split, spec, query, *, marks: bool = True) -> tuple[BoardView, selectors.BoardData]:
    """The view a board page, its API and exports show (under the query's reading), with the significance of the
    pairs it shows side by side (`services.board_view_build`); pairs left for later go to the worker once the
    request commits. `marks`: False where no best / second-best mark is shown (the API, the exports)."""
    view, data, later = services.board_view_build(split=split, spec=spec, query=query, marks=marks)
    if later:
        transaction.on_commit(lambda: tasks.board_comparisons_fill.delay(split.pk, [list(p) for p in later]))
    return view, data


def _cell_html(view: BoardView, row, column, headline: str) -> str:
    """One figure cell of the board table, as HTML. Written here rather than in the template: a page draws some
    50 rows × 35 columns of these, and the template language spent most of an uncached board's time on them
    (a dozen lookups per cell). Every text is escaped as the template's autoescape escapes it (html.escape); a
    figure is written by Python's float formatting (digits, sign, point, exponent), which needs none."""
    key = column.key
    value = row.value(key)
    interval = row.interval(key)
    mark = view.marks.get(key, {}).get(row.submission_id, "")
    leaf = column.level is Level.LEAF
    out = f'<td data-key="{_escaped(key)}"'
    if mark or leaf or key == headline:
        out += f' class="{_escaped(mark)}{" leaf" if leaf else ""}{" col-headline" if key == headline else ""}"'
    if interval:
        out += f' data-value="{"" if value is None else repr(value)}"'
    if column.parent:
        out += f' data-parent="{_escaped(column.parent)}"'
    out += ">" + (format_value(value, column.digits) or "–")
    if row.submission_id in view.top.get(key, ()):
        out += '<span class="top-mark" title="Best of all rows in this column">★</span>'
    if interval:
        out += (f'<span class="ci" title="95% bootstrap interval">{format_value(interval[0], column.digits)}'
                f'–{format_value(interval[1], column.digits)}</span>')
    return out + "</td>"


@functools.lru_cache(maxsize=1024)
def _escaped(text: str) -> str:
    """`escape` of a column's key, its parent's or a mark: a few texts, each escaped once."""
    return escape(text)


def _model_cells_html(row, split, run_sd: str) -> str:
    """A board row's model cell (name, tags, size) and kind cell, as HTML, written here for the reason
    `_cell_html` is; the table's {% spaceless %} drops the whitespace between tags as it did around the template's
    tags. Every text escaped as the template's autoescape escapes it."""
    out = (f'<th scope="row" class="model pin pin-model" data-key="model">'
           f'<a href="{escape(reverse("model-page", args=[row.model_slug]))}">{escape(row.model_name)}</a>')
    if row.thinking == "yes":
        out += '<span class="tag tag-thinking">thinking</span>'
    if row.source == "reported":
        out += (f'<span class="tag" title="{escape(row.note)}">paper</span>' if row.note
                else '<span class="tag">paper</span>')
    else:
        sha = row.provenance.get("file_sha256")
        out += (f'<a class="tag tag-scored" href="{escape(reverse("submission-samples", args=[row.submission_id]))}" '
                f'title="Scored here (scorer {escape(row.scorer_version)}, on split {escape(split.name)} '
                f'v{split.version}): per-sample results">scored #{row.submission_id}</a>'
                f'<span class="tag tag-type tag-{escape(row.row_type)}"'
                + (f' title="file sha256 {escape(str(sha))}; provenance: /submissions/{row.submission_id}'
                   f'/provenance.json"' if sha else "")
                + f' data-row-type="{escape(row.row_type)}">{escape(row.row_type_label)}</span>')
    if row.kind == "human" and row.source != "reported" and row.note:
        out += f'<span class="tag tag-human">{escape(row.note)}</span>'
    if row.runs > 1:
        out += (f'<span class="tag tag-runs" title="Runs #{", #".join(str(i) for i in row.run_ids)} '
                f'({escape(row.run_set)}); run-to-run SD of the headline: {escape(run_sd)}. The interval accounts for '
                f'the test items and the runs.">mean of {row.runs} runs ± {escape(run_sd)}</span>')
    if row.pending:
        out += f'<span class="tag tag-pending" title="Figures are provisional">{escape(row.pending)}</span>'
    if row.reading_note:
        out += f'<span class="tag tag-reading muted" data-reading-note>{escape(row.reading_note)}</span>'
    if row.parameters_b:
        out += ('<span class="params"' + (' title="Size read from the model\'s name"' if row.parameters_from_name
                                          else "")
                + f'>{escape(floatformat(row.parameters_b, "-1"))}B</span>')
    return out + f'</th><td class="kind" data-key="kind">{escape(row.kind or "not stated")}</td>'


class _RowsDrawn:
    """How a table draws its rows' cells after the rank (the model cell, the kind, each column's figure): the view its
    marks are read from, its columns and headline, the split the model cells name, and `token`, the same number for
    tables that draw a row alike (equal marks' signatures, columns, headline and split), or None (marks counted over
    the rows: drawn each time)."""

    def __init__(self, view: BoardView, columns: tuple, headline: str, split, token: int | None):
        self.view, self.columns, self.headline, self.split, self.token = view, columns, headline, split, token


# A number per way of drawing rows (`_RowsDrawn.token`), never one number for two ways; the least recently used go.
DRAWN_TOKENS_MAX = 256
_drawn_tokens: OrderedDict[tuple, int] = OrderedDict()
_drawn_numbers = itertools.count()
_drawn_lock = threading.Lock()


def _rows_drawn(view: BoardView, columns: tuple, headline: str, split) -> _RowsDrawn:
    signature = marks_signature(view.marks, view.top)
    token = None
    if signature is not None:
        key = (signature, tuple(c.key for c in columns), headline, split.pk, split.name, split.version)
        with _drawn_lock:
            token = _drawn_tokens.get(key)
            if token is None:
                token = _drawn_tokens[key] = next(_drawn_numbers)
            _drawn_tokens.move_to_end(key)
            while len(_drawn_tokens) > DRAWN_TOKENS_MAX:
                _drawn_tokens.popitem(last=False)
    return _RowsDrawn(view, columns, headline, split, token)


ROW_DRAWINGS_KEPT = 4  # ways of drawing one row remembered on it (collapsed or not, with extras or not, ...)


def _drawn_on(row, name: str) -> dict:
    """The row's memo `name` (`BoardRow.drawn_html`, `drawn_csv`): what the pages made of it, kept with it."""
    known = getattr(row, name)
    if known is None:
        known = {}
        object.__setattr__(row, name, known)
    return known


def _row_html(row, rank: int | None, tied: bool, drawn: _RowsDrawn) -> str:
    """One row of the board table, as HTML (the template's loop wrote it until issue 34). Its cells after the rank are
    remembered on the row for the way `drawn` draws it: a board keeps its rows between reads (leaderboard.selectors),
    so a page read after a score landed elsewhere draws only the rows that changed, and the ranks. Every text escaped
    as the template's autoescape escapes it."""
    known = _drawn_on(row, "drawn_html")
    cells = known.get(drawn.token) if drawn.token is not None else None
    if cells is None:
        view, headline = drawn.view, drawn.headline
        run_sd = format_value(row.run_spread.get(headline), view.spec.columns[0].digits) if row.runs > 1 else ""
        cells = _model_cells_html(row, drawn.split, run_sd) + "".join(
            _cell_html(view, row, c, headline) for c in drawn.columns)
        if drawn.token is not None:
            if len(known) >= ROW_DRAWINGS_KEPT:
                known.clear()
            known[drawn.token] = cells
    tie = ('<span class="tie" title="Not significantly different from the row above (paired bootstrap, 95%)">≈</span>'
           if tied else "")
    return (f'<tr class="{escape(row.source)}{" human" if row.kind == "human" else ""}" '
            f'data-submission="{row.submission_id}"><td class="rank pin pin-rank" data-key="rank">'
            f'{"–" if rank is None else rank}{tie}</td>{cells}</tr>')


def _header_group_label(column, spec) -> str:
    """The group a column sits under in the header row. A task (leaf) column sits under its parent's group when
    its parent's group differs (a dimension's subtasks under "Dimensions", once, not once per dimension)."""
    if column.level is Level.LEAF and column.parent:
        parent = spec.column(column.parent)
        if parent is not None and parent.group:
            return parent.group
    return column.group


def _header_groups(columns, spec, *, collapsed: bool = False) -> list[dict[str, Any]]:
    """Grouped header cells; when leaves are collapsed they do not count toward a group's span."""
    groups: list[dict[str, Any]] = []
    for column in columns:
        label = _header_group_label(column, spec)
        counts = 0 if (collapsed and column.level is Level.LEAF) else 1
        if groups and groups[-1]["label"] == label:
            groups[-1]["span"] += counts
            groups[-1]["full"] += 1
        else:
            groups.append({"label": label, "span": counts, "full": 1})
    return groups


def _table_view(view: BoardView, collapsed: bool) -> tuple[tuple, tuple, BoardView]:
    """The table's left-out task columns, its columns, and the view with its marks over them (collapsed: marked here,
    over every column with leaves, so that script can expand a group in place). From the figures the view keeps per
    column (`view_marks`: no pass over its rows), and remembered on the view."""
    known = view.__dict__.setdefault("_table_read", {})  # not a field: views compare as before
    if collapsed not in known:
        all_columns = view.spec.visible(expanded=True, extras=view.query.extras) if collapsed else view.columns
        # Task columns no shown row has a figure for are left out (the papers' rows give category scores only),
        # and the page says which and why.
        empty = view_empty_leaves(view, all_columns)
        table_columns = tuple(c for c in all_columns if c not in empty)
        shown_view = None
        if collapsed:
            marks, top = view_marks(view, table_columns)
            shown_view = replace(view, marks=marks, top=top)
        # Never the view itself: a view holding itself is a reference cycle, and a view dropped after a change (with
        # its kept figures, some 70,000 objects on a board of 2,000 rows) would wait for the garbage collector's
        # full pass, which then took some 175 ms inside one request.
        known[collapsed] = (empty, table_columns, shown_view)
    empty, table_columns, shown_view = known[collapsed]
    return empty, table_columns, shown_view or view


def _table_context(request: HttpRequest, benchmark, split, view: BoardView, page: BoardPage) -> dict[str, Any]:
    """The table of one page of the board: its rows with their global ranks, and marks and significance computed
    over the whole ordering (`board_build`); column choices (empty task columns) over all of its rows too."""
    base = split_params(request, split)
    sort_links = {}
    for column in view.columns:
        same = view.query.sort == column.key
        current_desc = view.query.descending if view.query.descending is not None else column.direction.value == "up"
        params = view.query.as_params(sort=column.key, descending=(not current_desc) if same else None)
        sort_links[column.key] = "?" + urlencode({**base, **params})
    # Leaves are always in the table so that script can expand one group in place; without script,
    # CSS keeps them hidden until the "expand" link asks the server for them.
    collapsed = view.spec.has_leaves and not view.query.expanded
    empty, table_columns, shown_view = _table_view(view, collapsed)
    for column in table_columns:
        if column.key not in sort_links:
            params = view.query.as_params(sort=column.key, descending=None, expanded=True)
            sort_links[column.key] = "?" + urlencode({**base, **params})
    groups = _header_groups(table_columns, view.spec, collapsed=collapsed)
    group_index = [gi for gi, g in enumerate(groups) for _ in range(g["full"])]
    headline = view.spec.columns[0].key
    drawn = _rows_drawn(shown_view, table_columns, headline, split)
    rows = [_row_html(row, rank, row.submission_id in view.ties, drawn)
            for rank, row in zip(view.ranks[page.start:page.end], view.rows[page.start:page.end])]
    return {
        "benchmark": benchmark,
        "split": split,
        "view": view,
        "columns": [
            {"c": c, "link": sort_links[c.key], "sorted": view.query.sort == c.key, "gi": group_index[i],
             "desc": (view.query.descending if view.query.descending is not None else c.direction.value == "up"),
             "has_leaves": any(x.parent == c.key for x in table_columns), "headline": c.key == headline,
             "extra": c.level is Level.EXTRA}
            for i, c in enumerate(table_columns)
        ],
        "groups": groups,
        "rows_html": mark_safe("".join(rows)),  # our own, every text escaped (`_row_html`)
        "has_groups": any(c.group for c in table_columns),
        "collapsed": collapsed,
        "empty_leaves": empty if (view.query.expanded and view.rows) else (),
        "filtered": view.total_rows > 0,
        "page": page,
        **pager_context(page, {**base, **view.query.as_params()}),
    }


def pager_context(page: BoardPage, params: dict[str, Any]) -> dict[str, Any]:
    """The page links of a paged list (the board's rows, the Analysis tab's entries): each with `params` and its
    `?page=`; none when there is one page."""
    def link(n: int) -> str:
        return "?" + urlencode({**params, "page": n})

    return {
        "page_links": [(n, n and link(n)) for n in page_numbers(page)] if page.pages > 1 else [],
        "previous_link": link(page.number - 1) if page.number > 1 else "",
        "next_link": link(page.number + 1) if page.number < page.pages else "",
    }


@require_GET
def board(request: HttpRequest, slug: str) -> HttpResponse:
    resolved, error = resolve_board(request, slug)
    if error:
        return error
    benchmark, split, spec, query = resolved
    try:
        number, _ = parse_page(request.GET)
    except BadBoardQuery as exc:
        return error_page(request, 400, f"Bad parameter '{exc.parameter}': {exc.message}")
    # Anonymous readers without session or message cookies all get the same page: cache it whole.
    shareable = "sessionid" not in request.COOKIES and "messages" not in request.COOKIES \
        and not request.user.is_authenticated
    page_key = None
    if shareable:
        page_key = selectors.board_page_key(selectors.board_cache_key(split_id=split.pk), request.get_full_path())
        if (page := selectors.board_response_get(page_key)) is not None:
            return HttpResponse(page, content_type="text/html; charset=utf-8")
    # With task columns collapsed the table marks every column from the figures the view keeps (`_table_view`).
    view, data = board_view(split, spec, query)
    data_key = data.cache_key
    page = board_page(len(view.rows), number)
    # The table is the costly part to render; it depends only on the rows, the query, the page and the split
    # parameters its links keep: kept in the shared cache under the board's key, and in this process while the
    # board's data is unchanged (a read after a score landed elsewhere renders none of it again).
    fragment = f"{urlencode(split_params(request, split))}:{query.canonical()}:page:{page.number}"

    def table() -> str:
        found = cache.get(f"{data_key}:html:{fragment}")
        if found is None:
            found = render_to_string("leaderboard/_board_table.html",
                                     _table_context(request, benchmark, split, view, page))
            cache.set(f"{data_key}:html:{fragment}", found, selectors.ROWS_TIMEOUT)
        return found

    table_html = selectors.board_derived(data, ("table", fragment), table)
    base = split_params(request, split)

    def link(**override) -> str:
        return "?" + urlencode({**base, **query.as_params(**override)})

    params = urlencode({**base, **query.as_params()})
    context = {
        "benchmark": benchmark,
        "split": split,
        "splits": selectors.board_splits(benchmark=benchmark),
        "spec": spec,
        "query": query,
        "view": view,
        "page": page,
        "table_html": mark_safe(table_html),  # rendered by our own template, escaped there
        "params": params,
        "toggle_entries": link(all_entries=not query.all_entries),
        "toggle_expand": link(expanded=not query.expanded),
        "toggle_extras": link(extras=not query.extras),
        "kinds": ["proprietary", "open-source", "embodied", "human", "baseline"],
        "row_types": list(ROW_TYPE_LABELS.items()),
        "extra_labels": [c.label for c in spec.columns if c.level is Level.EXTRA],
        "board_ws": f"/ws/boards/{split.pk}/",
        "board_fingerprint": selectors.board_fingerprint_of_key(data_key),
        "phase": phase_shown(split.phase) if split.phase_id else None,
    }
    context.update(_versions_context(benchmark, split, query, base, data))
    context["can_curate"] = roles.is_curator(request.user)
    plugin = _plugin(benchmark.slug)
    if plugin is not None:
        context["protocol"] = protocol_statement(benchmark.slug, query.reading)
        context["protocol_docs"] = plugin.protocol.docs
        shown = plugin.reading(query.reading)
        context["readings"] = [
            {"reading": r, "shown": r is shown, "headline": i == 0,
             "link": "?" + urlencode({**base, **query.as_params(reading="" if i == 0 else r.key)})}
            for i, r in enumerate(plugin.readings)]
    if plugin is not None and (extras := plugin.board_extras.context_function()) is not None:
        context["board_extras"] = extras(benchmark, split)
        context["board_extras_template"] = plugin.board_extras.template
    response = render(request, "leaderboard/board.html", context)
    if page_key is not None:
        selectors.board_response_set(page_key, response.content)
    return response


def _versions_context(benchmark, split, query, base: dict[str, str], data: selectors.BoardData) -> dict[str, Any]:
    """The scorer-version selector (issue 29): each row's current score, or the scores of one version (older ones
    stay viewable after a re-score), the version a paper's rows are comparable to, and the diff page's link. The
    versions are read from the scores on the board: made once per content of its rows (`board_derived`; a re-score
    writes the score it replaces, whose row changes with it) and the version the benchmark declares now."""
    declared = declared_version(benchmark)
    known = selectors.board_derived(data, ("scorer_versions", declared),
                                    lambda: versions.scorer_versions(split=split, declared=declared, data=data))
    choices = [{"label": "current scores", "shown": not query.scorer, "current": False,
                "link": "?" + urlencode({**base, **query.as_params(scorer="")})}]
    choices += [{"label": v.version, "shown": v.version == query.scorer, "current": v.current,
                 "link": "?" + urlencode({**base, **query.as_params(scorer=v.version)})} for v in known]
    diff = ""
    if len(known) > 1:
        diff = reverse("board-diff", args=[benchmark.slug]) + "?" + urlencode(
            {**base, "from": known[-2].version, "to": known[-1].version})
    return {"scorer_versions": choices if known else [], "scorer_diff_link": diff,
            "comparable_version": versions.comparable_version(split=split, known=known)}


def _export_name(benchmark, split, ext: str) -> str:
    return f"{benchmark.slug}-{slugify(split.name)}-v{split.version}.{ext}"


@require_GET
def board_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "json"):
        return error_page(request, 404, f"No export format '{fmt[:20]}': use export.csv or export.json.")
    resolved, error = resolve_board(request, slug)
    if error:
        return error
    benchmark, split, spec, query = resolved

    names = {spec.columns[0].key: selectors.headline_key(benchmark.slug)}
    if fmt == "csv":
        return _csv_export(request, benchmark, split, spec, query, names)

    def build() -> selectors.CachedResponse:
        view, _ = board_view(split, spec, query, marks=False)
        reading = reading_shown(benchmark.slug, query.reading)
        header, body = export_table(view, names, reading=reading["key"] if reading else "")
        payload = {
            "benchmark": benchmark.slug,
            "split": split.name,
            "split_version": split.version,
            "scorer_version": query.scorer or None,  # null: each row's current score
            "protocol": protocol_statement(benchmark.slug, query.reading),
            "reading": reading,
            "columns": header,
            "rows": [dict(zip(header, line)) for line in body],
        }
        content = json.dumps(payload, indent=1)
        return selectors.CachedResponse("application/json", content.encode(), _export_name(benchmark, split, fmt))

    # The same for every reader: cached whole, like the board page, under the same key and invalidation.
    return cached_response(
        selectors.board_response_cached(split_id=split.pk, full_path=request.get_full_path(), build=build))


CSV_TYPE = "text/csv; charset=utf-8"
CSV_CHUNK_ROWS = 200  # rows written to the response at a time
# An export of more rows is streamed, and not kept whole. A 2,000-row board (the 100x hub) exports 0.4-0.6 MB: kept
# whole, its repeats are answered from the cache (26-29 ms streamed each time at 100x against ~1 ms kept, issue 34),
# as its JSON export is; every row's CSV text is kept with the board's rows in any case (`_csv_cells_text`).
CSV_STREAMED_ROWS = 5_000


def _csv_export(request: HttpRequest, benchmark, split, spec, query, names) -> HttpResponse:
    """The CSV export, written a few hundred rows at a time. One of up to CSV_STREAMED_ROWS rows is kept whole under
    the board's key, like the board API (the fast path answers its repeats); a larger one is streamed, never every
    row's text in memory at once."""
    key = selectors.board_page_key(selectors.board_cache_key(split_id=split.pk), request.get_full_path())
    found = selectors.board_response_get(key)
    if isinstance(found, selectors.CachedResponse):
        return cached_response(found)
    view, _ = board_view(split, spec, query, marks=False)
    reading = reading_shown(benchmark.slug, query.reading)
    shown = reading["key"] if reading else ""
    filename = _export_name(benchmark, split, "csv")

    def chunks():
        buffer = io.StringIO()
        csv.writer(buffer).writerow(export_header(view, names, reading=shown))
        drawing = (tuple(c.key for c in view.columns), shown)
        for i, (rank, row) in enumerate(zip(view.ranks, view.rows), start=1):
            buffer.write("" if rank is None else str(rank))  # as the writer writes it, before the row's own cells
            buffer.write(_csv_cells_text(row, view.columns, drawing))
            if i % CSV_CHUNK_ROWS == 0:
                yield buffer.getvalue().encode()
                buffer.seek(0)
                buffer.truncate()
        yield buffer.getvalue().encode()

    if len(view.rows) <= CSV_STREAMED_ROWS:
        found = selectors.CachedResponse(CSV_TYPE, b"".join(chunks()), filename)
        selectors.board_response_set(key, found)
        return cached_response(found)
    response = StreamingHttpResponse(chunks(), content_type=CSV_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _csv_cells_text(row, columns, drawing: tuple[tuple[str, ...], str]) -> str:
    """A row's CSV text after its rank (`export_cells`, from the separator before them to the line's end), remembered
    on the row: a board keeps its rows per process while they are unchanged (leaderboard.selectors), so an export
    after a score landed elsewhere writes only the ranks again (`BoardRow.drawn_csv`, per `drawing`: the columns' keys
    and the reading, one tuple for every row of an export)."""
    known = _drawn_on(row, "drawn_csv")
    text = known.get(drawing)
    if text is None:
        buffer = io.StringIO()
        csv.writer(buffer).writerow(["", *(csv_cell(v) for v in export_cells(row, columns, reading=drawing[1]))])
        known[drawing] = text = buffer.getvalue()
    return text


def cached_response(found: selectors.CachedResponse) -> HttpResponse:
    response = HttpResponse(found.body, content_type=found.content_type)
    if found.filename:
        response["Content-Disposition"] = f'attachment; filename="{found.filename}"'
    return response


def svg_response(body: str) -> HttpResponse:
    """An SVG plot as the site's own pages embed it (<object>): framing by this site only, not DENY as elsewhere."""
    response = HttpResponse(body, content_type="image/svg+xml")
    response["X-Frame-Options"] = "SAMEORIGIN"
    return response


@require_safe
def board_plot(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    if kind not in ("params", "categories"):
        return error_page(request, 404, f"No plot '{kind[:20]}': use params.svg or categories.svg.")
    resolved, error = resolve_board(request, slug)
    if error:
        return error
    benchmark, split, spec, query = resolved
    data = selectors.board_data(split=split, reading=query.reading, scorer=query.scorer)
    key = f"{data.cache_key}:plot:{kind}:{query.canonical()}"
    body = cache.get(key)
    if body is None:
        view = board_build(data.rows, spec, query, data.pairs)
        headline = spec.columns[0]
        if kind == "params":
            points = [
                svg.Point(r.model_name, r.parameters_b, v, r.kind, href=reverse("model-page", args=[r.model_slug]))
                for r in view.rows
                if r.kind == "open-source" and r.parameters_b and (v := r.value(headline.key)) is not None
            ]
            body = svg.scatter_log_x(points, title=f"{benchmark.name}: {headline.label} vs parameters (open models)",
                                     y_label=headline.label)
        else:
            cats = [c for c in spec.visible() if c.key != "overall"] or list(spec.columns[:1])
            models = [r for r in view.rows if r.kind not in ("human", "baseline")]
            # A board of baselines only (a demo split) still gets its chart.
            top = (models or [r for r in view.rows if r.kind != "human"])[:PLOT_TOP_MODELS]
            # A panel with no figure for any of these models would be an empty axis: leave it out.
            cats = [c for c in cats if any(r.value(c.key) is not None for r in top)] or cats[:1]
            series = [svg.Series(r.model_name + (" (thinking)" if r.thinking == "yes" else ""),
                                 [r.value(c.key) for c in cats], href=reverse("model-page", args=[r.model_slug]))
                      for r in top]
            # Each metric on its own axis: a metric of about 1 is invisible on a 0-100 one; percentages share 0-100.
            body = svg.metric_panels([_plot_label(c) for c in cats], series,
                                     title=f"{benchmark.name}: top {len(top)} models by category",
                                     scales=[c.scale for c in cats])
        cache.set(key, body, selectors.ROWS_TIMEOUT)
    return svg_response(body)


def _plot_label(column) -> str:
    return f"{column.label} {column.better_arrow}"


def model_page(request: HttpRequest, slug: str) -> HttpResponse:
    entry = ModelEntry.objects.filter(slug=slug).first()
    if entry is None:
        return error_page(request, 404, f"No model entry '{slug[:60]}'.")
    subs = list(selectors.model_submissions(entry=entry))
    by_benchmark: dict[str, list[dict[str, Any]]] = {}
    for sub in subs:
        spec = board_for(sub.split.benchmark.slug)
        cells = []
        for c in spec.visible():
            v = sub.score.overall if c.key == "overall" else sub.score.breakdown.get(c.key)
            cells.append({"label": c.label, "text": format_value(v if isinstance(v, (int, float)) else None, c.digits)})
        by_benchmark.setdefault(sub.split.benchmark.name, []).append({"sub": sub, "cells": cells})
    charts = [(*chart, chart_has_human(benchmark_slug=chart[0], split_name=chart[2])) for chart in dict.fromkeys(
        (s.split.benchmark.slug, s.split.benchmark.name, s.split.name) for s in subs)]
    # The size the board shows: the entry's own, else the one its name states (as the board reads it).
    size = entry.parameters_b if entry.parameters_b is not None else parameters_from_name(entry.name)
    reported_in = list(dict.fromkeys(
        (s.split.benchmark.name, s.split.benchmark.paper_url) for s in subs if s.source == Submission.Source.REPORTED))
    return render(request, "leaderboard/model.html", {
        "entry": entry, "by_benchmark": by_benchmark, "charts": charts, "size": size,
        "size_from_name": entry.parameters_b is None and size is not None,
        "active": active_parameters_from_name(entry.name),
        # A model the papers list among the open-source ones has open weights, even when its entry does not say.
        "open_weights": entry.open_weights if entry.open_weights is not None
        else (True if entry.kind == ModelEntry.Kind.OPEN_SOURCE and reported_in else None),
        "reported_in": reported_in, "any_human": any(chart[3] for chart in charts),
        "can_edit": model_entry_editable_by(entry=entry, user=request.user),
    })


@require_safe
def model_chart(request: HttpRequest, slug: str, benchmark: str) -> HttpResponse:
    """Bars of a model's category scores against the best model and the human baseline on that board."""
    entry = get_object_or_404(ModelEntry, slug=slug)
    try:
        bench, split = selectors.benchmark_split(slug=benchmark, split_name=request.GET.get("split") or None)
    except selectors.BoardNotFound as exc:
        raise Http404(str(exc)) from None
    spec = board_for(bench.slug)
    data = selectors.board_data(split=split)
    mine = [r for r in data.rows if r.model_id == entry.pk]
    if not mine:
        raise Http404("This model has no score on that board.")
    cats = [c for c in spec.visible() if c.key != "overall"] or list(spec.columns[:1])
    headline = spec.columns[0]
    up = headline.direction.value == "up"

    def best_of(rows):
        scored = [r for r in rows if r.value(headline.key) is not None]
        return (max if up else min)(scored, key=lambda r: r.value(headline.key)) if scored else None

    own = best_of(mine) or mine[0]
    leader = best_of([r for r in data.rows if r.kind not in ("human", "baseline")])
    human = best_of([r for r in data.rows if r.kind == "human"])
    shown = [own, *(r for r in (leader, human) if r is not None and r.model_id != entry.pk)]
    # A panel no shown row has a figure for would be an empty axis: leave it out (the board's plot does the same).
    cats = [c for c in cats if any(r.value(c.key) is not None for r in shown)] or list(spec.columns[:1])
    series = [svg.Series(entry.name, [own.value(c.key) for c in cats])]
    if leader is not None and leader.model_id != entry.pk:
        series.append(svg.Series(f"Best: {leader.model_name}", [leader.value(c.key) for c in cats],
                                 href=reverse("model-page", args=[leader.model_slug])))
    if human is not None and human.model_id != entry.pk:
        series.append(svg.Series(f"Human: {human.model_name}", [human.value(c.key) for c in cats],
                                 href=reverse("model-page", args=[human.model_slug])))
    body = svg.metric_panels([_plot_label(c) for c in cats], series, title=f"{entry.name} on {bench.name}",
                             scales=[c.scale for c in cats])
    return svg_response(body)


def chart_has_human(*, benchmark_slug: str, split_name: str) -> bool:
    """Whether a model page's chart on this board draws a human baseline (a benchmark without one draws none)."""
    try:
        _, split = selectors.benchmark_split(slug=benchmark_slug, split_name=split_name)
    except selectors.BoardNotFound:
        return False
    return selectors.board_has_kind(split_id=split.pk, kind="human")


# --- drill-down ---------------------------------------------------------------------------------

def _drilldown_submission(request: HttpRequest, pk: int) -> tuple[Submission, bool]:
    submission = get_object_or_404(
        Submission.objects.select_related("model_entry", "split__benchmark", "score"),
        pk=pk, status=Submission.Status.SCORED, source=Submission.Source.UPLOAD,
    )
    if not access.submission_public_to(submission=submission, user=request.user):
        raise Http404("This submission is private.")
    # On a hidden split, per-sample results are for the submitter and curators; elsewhere they are public.
    if not access.sample_results_visible_to(submission=submission, user=request.user):
        raise Http404("Per-sample results of a hidden split are shown to the submitter and curators only.")
    return submission, access.ground_truth_visible_to(split=submission.split, user=request.user)


def submission_samples(request: HttpRequest, pk: int) -> HttpResponse:
    submission, show_gt = _drilldown_submission(request, pk)
    task = (request.GET.get("task") or "")[:100]
    outcome = (request.GET.get("outcome") or "")[:30]
    facets = selectors.sample_facets(submission=submission)
    tasks, outcomes = facets.tasks, facets.outcomes
    task_names = labels.task_labels(board_for(submission.split.benchmark.slug), tasks)
    if task and task not in tasks:
        return error_page(request, 400, f"Bad parameter 'task': '{task}' is not a task of this submission.")
    if outcome and outcome not in outcomes:
        return error_page(request, 400, f"Bad parameter 'outcome': '{outcome}' is not an outcome here.")
    page = page_requested(request, selectors.sample_scores(submission=submission, task=task, outcome=outcome), 25,
                          count=facets.count(task=task, outcome=outcome))  # counted with the facets
    benchmark = submission.split.benchmark.slug
    plugin = _plugin(benchmark)
    drilldown = plugin.drilldown if plugin else Drilldown()
    sample_view = drilldown.sample_function()
    sample_ids = [s.sample_id for s in page.object_list if s.sample_id]
    samples = {s.pk: s for s in Sample.objects.filter(pk__in=sample_ids)}
    # Only what the benchmark's plugin allows this viewer (on a hidden split: the submitter's own outputs and scores).
    keys = selectors.sample_detail_keys(user=request.user, split=submission.split)
    hidden = submission.split.hidden_ground_truth
    items = []
    for s in page.object_list:
        sample = samples.get(s.sample_id)
        details, components = sample_disclosed(s.details, s.components, outcome=s.outcome, keys=keys, hidden=hidden)
        items.append({
            "s": s,
            "inputs": sample.inputs if sample else {},
            "details": details,
            "details_json": json.dumps(details, indent=1, ensure_ascii=False)[:4000],
            "components": [(labels.humanize(k), labels.value_text(v)) for k, v in components.items()],
            "task_label": task_names.get(s.task) or s.task,
            "outcome_label": labels.outcome_label(s.outcome),
            "view": sample_view(_drilldown_sample(plugin, sample, details, s.outcome, show_gt=show_gt))
            if sample_view else {},
            "question": _question(sample.inputs, drilldown.question_keys) if sample else None,
            "readings": _sample_readings(plugin, s.readings, keys),
        })
    filters = urlencode({k: v for k, v in (("task", task), ("outcome", outcome)) if v})
    return render(request, "leaderboard/samples.html", {
        "submission": submission, "benchmark": benchmark, "items": items, "page": page,
        "tasks": [(t, task_names.get(t) or t) for t in tasks],
        "outcomes": [(o, labels.outcome_label(o)) for o in outcomes],
        "task": task, "outcome": outcome, "show_gt": show_gt, "filters": filters,
        "drilldown": drilldown,
        "drilldown_page": page_extras(show_gt=show_gt) if (page_extras := drilldown.page_function()) else {},
    })


def _sample_readings(plugin: BenchmarkPlugin | None, readings: Any,
                     keys: frozenset[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """A sample's second readings where they differ from its score, as (label, {score, invalid, outcome}), for a
    viewer who may see all of its details (`keys` None: a public split, or a curator). On a split with hidden ground
    truth a second reading could tell more of it than the headline, so others never get them here."""
    if keys is not None or plugin is None or not isinstance(readings, dict):
        return []
    labels_by_key = {r.key: r.label for r in plugin.readings}
    return [(labels_by_key[k], v) for k, v in readings.items() if k in labels_by_key and isinstance(v, dict)]


def _question(inputs: Any, keys: tuple[str, ...]) -> str | None:
    """What the model was asked, from the inputs keys its benchmark names (inputs, never answers)."""
    value = next((inputs[k] for k in keys if inputs.get(k) not in (None, "")), None) \
        if isinstance(inputs, dict) else None
    if isinstance(value, list):
        value = "\n".join(str(v) for v in value if v not in (None, ""))
    return str(value) if value not in (None, "") else None


def _drilldown_sample(plugin: BenchmarkPlugin, sample: Sample | None, details: Any, outcome: str, *,
                      show_gt: bool, private_media: bool = False) -> DrilldownSample:
    """One sample as a benchmark's drill-down hooks read it: disclosed details through the plugin's typed reading;
    ground truth for shapes, with whether this viewer may see it (scoring.access decided)."""
    return DrilldownSample(
        details=plugin.sample_details_of(details), outcome=outcome,
        inputs=sample.inputs if sample else {}, ground_truth=sample.ground_truth if sample else None,
        ground_truth_visible=show_gt, private_media_visible=private_media,
    )


def sample_overlay(request: HttpRequest, pk: int, index: int) -> HttpResponse:
    submission, show_gt = _drilldown_submission(request, pk)
    plugin = _plugin(submission.split.benchmark.slug)
    image = plugin.drilldown.image_function() if plugin else None
    if image is None:
        raise Http404("This benchmark's samples have no image.")
    row = get_object_or_404(SampleScore, submission=submission, index=index)
    sample = Sample.objects.filter(pk=row.sample_id).first()
    details, _ = sample_disclosed(row.details, row.components, outcome=row.outcome,
                                  keys=selectors.sample_detail_keys(user=request.user, split=submission.split),
                                  hidden=submission.split.hidden_ground_truth)
    png = image(_drilldown_sample(plugin, sample, details, row.outcome, show_gt=show_gt,
                                  private_media=roles.is_curator(request.user)))
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = "private, max-age=300"
    return response


@require_GET
def submission_samples_export(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """The per-sample results of a scored upload as JSON Lines, with what the drill-down shows this viewer (the
    benchmark's disclosure rules: on a hidden split, the submitter's own outputs and scores, never ground truth)."""
    submission, _ = _drilldown_submission(request, pk)
    keys = selectors.sample_detail_keys(user=request.user, split=submission.split)
    hidden = submission.split.hidden_ground_truth

    def lines():
        for s in selectors.sample_scores(submission=submission).iterator(chunk_size=500):
            details, components = sample_disclosed(s.details, s.components, outcome=s.outcome, keys=keys,
                                                   hidden=hidden)
            line = {"index": s.index, "key": s.key, "task": s.task, "score": s.score, "outcome": s.outcome,
                    "invalid": s.invalid, "error": s.error, "components": components, "details": details}
            if keys is None and s.readings:  # second readings: as the drill-down shows them (_sample_readings)
                line["readings"] = s.readings
            yield json.dumps(line, ensure_ascii=False) + "\n"

    response = StreamingHttpResponse(lines(), content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="submission-{submission.pk}-samples.jsonl"'
    response["Cache-Control"] = "private, no-store"
    return response
