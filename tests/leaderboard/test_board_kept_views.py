"""An uncached board read (the cache version bumped: a score landed somewhere) costs the same however many rows the
board has (issue 34): the process's rows and comparisons are checked by one aggregate query each and, while their
digest is unchanged, neither they nor the views made from them (filtered, sorted, ranked, marked) nor a CSV export's
row text are made again; any change to a row, an entry or a comparison shows at the next read."""
import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard import board_views, selectors, services
from leaderboard.core.board import BoardQuery, export_table
from leaderboard.models import BoardComparison
from scoring.benchmarks import board_for
from scoring.models import Score, Submission
from scoring.selectors import board_cache_invalidate
from tests.leaderboard.conftest import make_entry, make_reported, make_scored, random_scores


def reported_rows(split, n: int, start: int = 0) -> list[Submission]:
    return [make_reported(split, make_entry(f"Kept-VL-{i:03d}"), 90.0 - i / 2, {"BA": 50.0 + i % 7})
            for i in range(start, start + n)]


def view_of(split, query: BoardQuery | None = None):
    view, _, _ = services.board_view_build(split=split, spec=board_for("epic-bench"), query=query or BoardQuery())
    return view


def rows_read(captured: CaptureQueriesContext) -> list[str]:
    """The queries that read submissions row by row (not an aggregate of them, an EXISTS or the first of them)."""
    return [q["sql"] for q in captured.captured_queries if '"scoring_submission"' in q["sql"]
            and not any(word in q["sql"] for word in ("MD5(", "COUNT(", "EXISTS", "MAX(", "LIMIT 1"))]


@pytest.mark.django_db
def test_an_unchanged_board_is_read_again_without_a_row_read_and_with_the_same_view(epic_split):
    reported_rows(epic_split, 30)
    query = BoardQuery(kinds=("open-source",), sort="BA", descending=False)
    first = view_of(epic_split, query)
    board_cache_invalidate(split_id=epic_split.pk)  # a score landed somewhere: every cached page is missed
    with CaptureQueriesContext(connection) as captured:
        again = view_of(epic_split, query)
    assert again is first  # not filtered, sorted, ranked or marked again
    assert rows_read(captured) == []
    assert len(captured.captured_queries) <= 4  # the split's flags, the digests of the rows and of the comparisons


@pytest.mark.django_db
def test_the_queries_of_an_uncached_board_page_do_not_grow_with_its_rows(client, epic_split, monkeypatch):
    monkeypatch.setattr(selectors, "FINGERPRINT_TIMEOUT", 0)  # re-read at every request: the same queries each time
    def uncached_page() -> CaptureQueriesContext:
        board_cache_invalidate(split_id=epic_split.pk)
        client.get("/leaderboard/epic-bench/")  # the process's rows: this board's as it is now
        board_cache_invalidate(split_id=epic_split.pk)
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/leaderboard/epic-bench/").status_code == 200
        return captured

    reported_rows(epic_split, 3)
    small = uncached_page()
    reported_rows(epic_split, 60, start=3)
    large = uncached_page()
    assert len(large.captured_queries) == len(small.captured_queries)
    assert rows_read(large) == [] == rows_read(small)


@pytest.mark.django_db
def test_a_change_to_a_row_an_entry_or_a_comparison_shows_at_the_next_read(epic_split):
    subs = reported_rows(epic_split, 5)
    first = view_of(epic_split)
    assert [r.model_name for r in first.rows][:2] == ["Kept-VL-000", "Kept-VL-001"]

    # a score recomputed in place without its last-change time (a bulk update): its figure is in the digest
    Score.objects.filter(submission=subs[4]).update(overall=99.0)
    view = view_of(epic_split)
    assert view is not first and view.rows[0].submission_id == subs[4].pk
    assert view.rows == tuple(view_of(epic_split).rows) and view_of(epic_split) is view

    entry = subs[1].model_entry  # renamed to a name of the same length: the text, not its length, is compared
    entry.name = "Kept-VL-1XX"
    entry.save()
    assert "Kept-VL-1XX" in {r.model_name for r in view_of(epic_split).rows}

    Submission.objects.filter(pk=subs[0].pk).update(visibility=Submission.Visibility.PRIVATE)  # withdrawn
    assert subs[0].pk not in {r.submission_id for r in view_of(epic_split).rows}
    added = reported_rows(epic_split, 1, start=40)[0]
    assert added.pk in {r.submission_id for r in view_of(epic_split).rows}
    assert selectors.board_rows_current(split_id=epic_split.pk) == selectors._load_rows(epic_split.pk)


@pytest.mark.django_db
def test_a_comparison_stored_or_recomputed_shows_at_the_next_read(epic_split):
    runs = [make_scored(epic_split, make_entry(f"Compared-VL-{i}"), random_scores(i, 40, 0.5 + i / 10))
            for i in range(3)]
    data = selectors.board_data(split=epic_split)
    assert data.pairs == selectors._load_pairs(epic_split.pk)
    a, b = sorted((runs[0].pk, runs[1].pk))
    BoardComparison.objects.update_or_create(a_id=a, b_id=b, defaults={"split": epic_split, "difference": 1.0,
                                                                       "p_value": 0.5, "shared_units": 40})
    stored = selectors.board_data(split=epic_split)
    assert stored.content_key != data.content_key and stored.pairs[frozenset((a, b))].p_value == 0.5
    BoardComparison.objects.filter(a_id=a, b_id=b).update(p_value=0.01)  # recomputed in place
    assert selectors.board_data(split=epic_split).pairs[frozenset((a, b))].p_value == 0.01
    assert selectors.board_data(split=epic_split).pairs == selectors._load_pairs(epic_split.pk)


@pytest.mark.django_db
def test_the_digest_tells_apart_values_moved_between_columns(epic_split):
    entry = make_entry("Digest-VL", organisation="ab")
    sub = make_reported(epic_split, entry, 50.0)
    columns = ("note", "model_entry__organisation")
    rows = Submission.objects.filter(pk=sub.pk)
    seen = {selectors._digest(rows, columns)}
    for note, organisation in (("a", "b"), ("ab", ""), ("", "ab;"), ("", "")):
        Submission.objects.filter(pk=sub.pk).update(note=note)
        entry.organisation = organisation
        entry.save()
        seen.add(selectors._digest(rows, columns))
    assert len(seen) == 5


@pytest.mark.django_db
def test_a_csv_export_of_kept_rows_is_the_export_table_written_as_csv(client, epic_split):
    subs = reported_rows(epic_split, 8)
    path = "/leaderboard/epic-bench/export.csv?sort=BA"

    def expected() -> str:
        view = view_of(epic_split, BoardQuery(sort="BA"))
        shown = board_views.reading_shown("epic-bench", "")
        header, body = export_table(view, {"overall": selectors.headline_key("epic-bench")},
                                    reading=shown["key"] if shown else "")
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows([["" if v is None else v for v in line] for line in body])
        return out.getvalue()

    assert client.get(path).content.decode() == expected()
    entry = subs[2].model_entry
    entry.name = "=Renamed-VL"  # a formula's start: quoted as csv_cell quotes it
    entry.save()
    board_cache_invalidate(split_id=epic_split.pk)
    text = client.get(path).content.decode()
    assert "'=Renamed-VL" in text and "Kept-VL-002" not in text
    assert text == expected().replace(",=Renamed-VL,", ",'=Renamed-VL,")


@pytest.mark.django_db
def test_an_unchanged_board_page_is_not_rendered_again_and_a_changed_one_is(client, epic_split):
    subs = reported_rows(epic_split, 6)

    def tables_rendered() -> list[str]:
        board_cache_invalidate(split_id=epic_split.pk)  # a new cache version: the shared fragment is missed
        response = client.get("/leaderboard/epic-bench/?kind=open-source")
        assert response.status_code == 200
        return [t.name for t in response.templates if t.name == "leaderboard/_board_table.html"]

    assert tables_rendered() == ["leaderboard/_board_table.html"]
    assert tables_rendered() == []  # the same rows: the table this process rendered
    entry = subs[3].model_entry
    entry.name = "Changed-VL"
    entry.save()
    assert tables_rendered() == ["leaderboard/_board_table.html"]
    assert "Changed-VL" in client.get("/leaderboard/epic-bench/?kind=open-source").content.decode()
