"""A page of the Analysis tab reads what spans every entry from a stored aggregate, the span (issue 34: a page's cost
stays flat as the board grows): `AnalysisSummaries.span` of every entry's summary, stored under the digest of what it
is made of, and the summaries of the page's models alone. Figure by figure and value by value the page equals the
figures over all entries cut to it, also after a score is re-scored and after a submission leaves the board."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leaderboard import selectors, services_analysis, tasks
from leaderboard.board_views import board_resolve
from leaderboard.core.board import PAGE_ROWS, board_build, filter_rows
from leaderboard.services_analysis import figure_context
from scoring.benchmarks import plugin_for
from scoring.core.analysis import EntryPage, entry_of, figure_page
from scoring.models import SampleScore, Score, Submission
from scoring.selectors import board_cache_invalidate
from tests.leaderboard.test_analysis_paging import PARAMS, _plain, board_labels, clone_entries, shown
from tests.leaderboard.test_analysis_summaries import DEMOS, _per_sample_figures

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def _board(slug: str):
    benchmark, split, spec, query = board_resolve(PARAMS, slug)
    plugin = plugin_for(benchmark.scorer)
    data = selectors.board_data(split=split)
    return plugin, split, board_build(data.rows, spec, query, data.pairs), filter_rows(data.rows, query)


@pytest.mark.parametrize("slug,command", DEMOS)
def test_a_page_from_the_stored_span_and_its_models_summaries_equals_the_figures_of_all_entries_cut(
        slug, command, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command(command)
    plugin, split, view, filtered = _board(slug)
    spec = plugin.analysis_summaries_spec()
    summaries, by_id = services_analysis.analysis_summaries_for(split=split, plugin=plugin, rows=view.rows,
                                                                also=filtered)
    labels = [m.label for m in summaries]
    assert len(labels) >= 2
    context = figure_context(plugin, split, view.rows, filtered)
    every = spec.combine(summaries, replace(context, summaries=by_id))
    labelled = selectors.analysis_labels(rows=view.rows)
    span = services_analysis.analysis_span(split=split, plugin=plugin, labelled=labelled, also=filtered,
                                           context=context)
    assert json.loads(json.dumps(span)) == span  # JSON-able: it may be stored anywhere
    for on_page in (labels[:1], labels[1:], labels[-1:]):
        page = EntryPage(frozenset(on_page), frozenset(labels))
        mine, mine_by_id = services_analysis.analysis_page_summaries(split=split, plugin=plugin, labelled=labelled,
                                                                     also=filtered, shown=page.shown)
        assert {m.model_name for m in mine} == {m.model_name for m in summaries if m.label in on_page}
        made = spec.combine(mine, replace(context, summaries=mine_by_id, span=span, page=page))
        assert [f.key for f in made] == [f.key for f in every]
        for figure, full in zip(made, every):
            assert _plain(figure) == _plain(figure_page(full, page)), figure.key


def _summary_ids_read(queries) -> set[int]:
    """The submissions whose stored summaries these queries read."""
    found: set[int] = set()
    for q in queries:
        sql = q["sql"]
        if "leaderboard_analysissummary" in sql and '"summary"' in sql and " IN (" in sql:
            inside = sql.split(" IN (", 1)[1].split(")", 1)[0]
            found |= {int(v) for v in inside.replace(" ", "").split(",") if v.isdigit()}
    return found


def _page_equals_scratch(page: int) -> None:
    """The page's figures equal the figures over all entries read from their per-sample rows, cut to its entries."""
    labels = board_labels()
    expected = _per_sample_figures("plan-bench", PARAMS)
    on_page = set(labels[(page - 1) * PAGE_ROWS:page * PAGE_ROWS])
    _, figures = shown(Client(), page)
    assert list(figures) == list(expected)
    for key, figure in figures.items():
        kept = [r for r in expected[key]["rows"]
                if entry_of(next(iter(r.values())), labels) in on_page | {None}]
        assert figure == {**expected[key], "rows": kept}, key


@pytest.fixture
def plan_board(django_capture_on_commit_callbacks) -> list[str]:
    """PLAN's demo split with 2 * PAGE_ROWS + 3 more entries (three pages); its labels in the board's order."""
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_published")
        call_command("make_demo_plan")
    clone_entries(2 * PAGE_ROWS + 3)
    return board_labels()


def _page_two_reads_its_models_summaries_only(client) -> None:
    """Page 2 after the board's version changed (another score's landing elsewhere: the figures' cache is gone)
    reads the summaries of its entries and their thinking partners, not every entry's."""
    split = Submission.objects.filter(split__benchmark__slug="plan-bench", split__name="demo").first().split
    board_cache_invalidate(split_id=split.pk)
    with CaptureQueriesContext(connection) as queries:
        shown(client, 2)
    read = _summary_ids_read(queries.captured_queries)
    assert read, "no summary read: the test reads the wrong query"
    assert len(read) <= PAGE_ROWS + 5 < len(board_labels())
    _page_equals_scratch(2)


def test_a_page_reads_the_summaries_of_its_models_only_once_the_span_is_stored(client, plan_board):
    shown(client, 2)  # the board's first request after a score: the span made from every summary, and stored
    _page_two_reads_its_models_summaries_only(client)


def test_the_span_follows_a_rescore_and_a_withdrawal(client, plan_board):
    shown(client, 2)  # the span stored
    clones = Submission.objects.filter(model_entry__name__startswith="Clone-").order_by("pk")
    # A re-score on page 1: its verdicts now by people (the judge cascade's shares, over all entries, change).
    rescored = clones.first()
    rows = list(SampleScore.objects.filter(submission=rescored))
    for s in rows:
        s.details = {**s.details, "decided_by": "person"}
    SampleScore.objects.bulk_update(rows, ["details"])
    assert services_analysis.analysis_summary_update(submission_id=rescored.pk)
    board_cache_invalidate(split_id=rescored.split_id)
    _page_equals_scratch(2)
    # A withdrawal: the entry leaves the board (N and the entries' count change on every page).
    withdrawn = clones.last()
    withdrawn.visibility = Submission.Visibility.WITHDRAWN
    withdrawn.save(update_fields=["visibility"])
    board_cache_invalidate(split_id=withdrawn.split_id)
    _page_equals_scratch(2)
    _page_equals_scratch(3)


def test_a_score_landing_stores_the_span_of_the_board_as_it_opens(client, plan_board, celery_eager,
                                                                   django_capture_on_commit_callbacks):
    landed = Submission.objects.filter(model_entry__name__startswith="Clone-").order_by("pk").last()
    cache.clear()  # the fixture's scores asked for a refresh in a transaction that never commits: its mark stays
    with django_capture_on_commit_callbacks(execute=True):  # the worker, as the score lands: the span's task asked
        tasks.analysis_summary_on_score(None, submission_id=landed.pk)
    _page_two_reads_its_models_summaries_only(client)  # the tab's first request after it


def test_scores_landing_together_share_one_span_refresh(plan_board, django_capture_on_commit_callbacks):
    """The span reads every entry's summary (about a second at 100x): the worker makes it once for the scores that land
    within SPAN_REFRESH_DELAY of each other, in a task of its own, so one score's own cost does not grow with the
    board; a score landing once the refresh has started asks for the next one."""
    clones = list(Submission.objects.filter(model_entry__name__startswith="Clone-").order_by("pk")[:3])
    cache.clear()  # as above
    with django_capture_on_commit_callbacks() as asked:
        for sub in clones:
            tasks.analysis_summary_on_score(None, submission_id=sub.pk)
    assert len(asked) == 1
    assert services_analysis.analysis_span_fill(split_id=clones[0].split_id)
    with django_capture_on_commit_callbacks() as again:
        tasks.analysis_summary_on_score(None, submission_id=clones[1].pk)
    assert len(again) == 1


def test_a_cached_page_reads_no_board_row(client, plan_board):
    """A page found in the cache is named by the board's key alone (its version and fingerprint): neither the rows'
    digest (an aggregate over every row of the board) nor a row is read for it."""
    first, _ = shown(client, 2)
    with CaptureQueriesContext(connection) as queries:
        again, _ = shown(client, 2)
    assert again == first
    read = [q["sql"] for q in queries.captured_queries]
    assert not [sql for sql in read if "MD5(" in sql.upper()], read
    assert not [sql for sql in read if "leaderboard_analysissummary" in sql], read


def test_the_tabs_entries_follow_a_change_without_ordering_every_row_again(client, plan_board, monkeypatch):
    """After a score changed, the tab's entries are its kept view brought up to date with that row
    (`services_analysis.analysis_entries`, as the board's own views are), in the order a view made from every row
    has them."""
    made = []
    real = services_analysis.view_kept
    monkeypatch.setattr(services_analysis, "view_kept", lambda *a, **k: made.append(1) or real(*a, **k))
    shown(client, 2)
    assert len(made) == 1
    sub = (Submission.objects.filter(split__benchmark__slug="plan-bench", split__name="demo",
                                     status=Submission.Status.SCORED).order_by("pk").last())
    Score.objects.filter(submission=sub).update(overall=F("overall") + 7.5, updated_at=timezone.now())
    board_cache_invalidate(split_id=sub.split_id)
    shown(client, 2)
    assert len(made) == 1  # brought up to date, not made again
    _, split, spec, query = board_resolve(PARAMS, "plan-bench")
    data = selectors.board_data(split=split)
    rows, filtered = services_analysis.analysis_entries(data, spec, query)
    assert rows == list(board_build(data.rows, spec, query, data.pairs).rows)
    assert filtered == filter_rows(data.rows, query) and len(rows) > PAGE_ROWS
