"""The Analysis tab pages its per-entry rows as the board pages its rows (issue 34: the page's cost stays flat as the
hub grows): 50 entries a page in the board's order, while everything computed over all entries (N, the judge's
shares, the papers' rows) is the same on every page and equals the benchmark's `figures(...)` over all entries."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from django.core.cache import cache
from django.core.management import call_command

from leaderboard import selectors, services_analysis
from leaderboard.board_views import board_resolve
from leaderboard.core.board import PAGE_ROWS, board_build, filter_rows
from leaderboard.models import AnalysisSummary
from leaderboard.services_analysis import figure_context
from scoring.benchmarks import plugin_for
from scoring.core.analysis import EntryPage, Figure, entry_of, figure_page
from scoring.models import SampleScore, Score, Submission
from tests.leaderboard.conftest import make_entry
from tests.leaderboard.test_analysis_summaries import DEMOS, _per_sample_figures

pytestmark = pytest.mark.django_db

PARAMS = {"split": "demo"}


def clone_entries(n: int) -> None:
    """n more scored entries of the PLAN demo split: copies of its scored submissions under new model entries."""
    originals = list(Submission.objects.filter(split__benchmark__slug="plan-bench", split__name="demo",
                                               status=Submission.Status.SCORED).order_by("pk"))
    for i in range(n):
        original = originals[i % len(originals)]
        sub = Submission.objects.get(pk=original.pk)
        sub.pk = None
        sub.model_entry = make_entry(f"Clone-{i:03d}")
        sub.save()
        score = Score.objects.get(submission=original)
        score.pk, score.submission = None, sub
        score.save()
        samples = list(SampleScore.objects.filter(submission=original))
        for s in samples:
            s.pk, s.submission = None, sub
        SampleScore.objects.bulk_create(samples)
        summary = AnalysisSummary.objects.get(submission=original)
        summary.pk, summary.submission = None, sub
        summary.save()


def board_labels() -> list[str]:
    benchmark, split, spec, query = board_resolve(PARAMS, "plan-bench")
    data = selectors.board_data(split=split)
    return [label for _, label in selectors.analysis_labels(rows=board_build(data.rows, spec, query, data.pairs).rows)]


def shown(client, page: int) -> tuple[str, dict[str, dict]]:
    response = client.get("/leaderboard/plan-bench/analysis/", {**PARAMS, "page": str(page)})
    assert response.status_code == 200
    return (response.content.decode(),
            {i["f"].key: json.loads(json.dumps(i["f"].as_json())) for i in response.context["figures"]})


def split_rows(figure: dict, labels: list[str]) -> tuple[list[str], list[dict]]:
    """The entries a figure's table rows are of (in order, once each) and its rows of no entry."""
    entries, others = [], []
    for row in figure["rows"]:
        entry = entry_of(next(iter(row.values())), labels)
        if entry is None:
            others.append(row)
        elif entry not in entries:
            entries.append(entry)
    return entries, others


def test_page_two_shows_entries_51_to_100_in_board_order_and_the_same_aggregates(client,
                                                                                 django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_published")
        call_command("make_demo_plan")
    clone_entries(2 * PAGE_ROWS + 3)
    cache.clear()
    labels = board_labels()
    assert len(labels) > 2 * PAGE_ROWS
    expected = _per_sample_figures("plan-bench", PARAMS)  # figures(...) over all entries
    first_html, first = shown(client, 1)
    second_html, second = shown(client, 2)
    assert f"Entries 51–100 of {len(labels)}" in second_html and 'id="analysis-pages"' in second_html
    assert '<a href="?split=demo&amp;page=3" data-page="3">3</a>' in second_html
    assert list(first) == list(second) == list(expected)
    for page, figures, html in ((1, first, first_html), (2, second, second_html)):
        on_page = labels[(page - 1) * PAGE_ROWS:page * PAGE_ROWS]
        for key, figure in figures.items():
            entries, others = split_rows(figure, labels)
            full_entries, full_others = split_rows(expected[key], labels)
            assert others == full_others, key  # the aggregates and the papers' rows, over all entries
            assert entries == [e for e in full_entries if e in on_page], key  # this page's entries, board order
            assert {k: v for k, v in figure.items() if k != "rows"} == \
                {k: v for k, v in expected[key].items() if k != "rows"}, key  # N and its text over all entries
            full_rows = [r for r in expected[key]["rows"] if entry_of(next(iter(r.values())), labels) in on_page]
            assert [r for r in figure["rows"] if r not in others] == full_rows, key  # value by value
        assert "Clone-" in html
    assert split_rows(second["subtasks"], labels)[0] == labels[PAGE_ROWS:2 * PAGE_ROWS]
    assert f">{labels[PAGE_ROWS]}<" in second_html and f">{labels[PAGE_ROWS]}<" not in first_html  # in the SVG
    # The exports stay complete: every entry.
    exported = json.loads(client.get("/leaderboard/plan-bench/analysis/subtasks.json", {**PARAMS, "page": "2"}).content)
    assert split_rows(exported, labels)[0] == labels


def _of_entry(name: str, labels: list[str]) -> str | None:
    """The entry a series or row named `name` is of, by its name's start (an entry's label, then a space or a
    colon and a part): what a reader of the chart takes it for."""
    found = [label for label in labels if name == label or name.startswith((f"{label} ", f"{label}:"))]
    return max(found, key=len) if found else None


def _plain(figure: Figure) -> tuple:
    chart = figure.chart
    return (figure.as_json(), chart.kind, list(chart.x), [(s.name, list(s.values)) for s in chart.series],
            chart.y_label, chart.y_max)


@pytest.mark.parametrize("slug,command", DEMOS)
def test_a_page_is_combined_for_its_entries_alone_and_equals_the_figures_of_all_entries_cut(
        slug, command, django_capture_on_commit_callbacks):
    """`combine` with a page (AnalysisContext.page) makes only the page's entries' rows and series, and gives exactly
    the figures over all entries cut to the page (`figure_page`): N, its text and the aggregates over all."""
    with django_capture_on_commit_callbacks(execute=True):
        call_command(command)
    benchmark, split, spec, query = board_resolve(PARAMS, slug)
    plugin = plugin_for(benchmark.scorer)
    data = selectors.board_data(split=split)
    view = board_build(data.rows, spec, query, data.pairs)
    filtered = filter_rows(data.rows, query)
    summaries, by_id = services_analysis.analysis_summaries_for(split=split, plugin=plugin, rows=view.rows,
                                                                also=filtered)
    labels = [m.label for m in summaries]
    assert len(labels) >= 2
    context = replace(figure_context(plugin, split, view.rows, filtered), summaries=by_id)
    combine = plugin.analysis_summaries_spec().combine
    every = combine(summaries, context)
    for shown in (labels[:1], labels[1:]):
        page = EntryPage(frozenset(shown), frozenset(labels))
        made = combine(summaries, replace(context, page=page))
        assert [f.key for f in made] == [f.key for f in every]
        for figure, full in zip(made, every):
            assert _plain(figure) == _plain(figure_page(full, page)), figure.key
            names = [s.name for s in figure.chart.series] + [r[0] for r in figure.rows if r and isinstance(r[0], str)]
            assert not [n for n in names if _of_entry(n, labels) not in (None, *shown)], figure.key
