"""A board page read after a score landed draws again only the rows that changed (issue 34): each row's cells are
remembered on the row the process keeps, for the marks' signature, columns, headline and split they were drawn under
(`board_views._row_html`); the ranks and ties are written at each read. The page reads byte for byte as one drawn
from scratch, after a change that moves no mark and after one that does."""
import pytest
from django.core.cache import cache

from leaderboard import board_views, selectors
from scoring.models import Score, Submission
from scoring.selectors import board_cache_invalidate
from tests.leaderboard.conftest import forget_pages, make_entry, make_reported

PAGE = "/leaderboard/epic-bench/?sort=overall"


@pytest.fixture
def drawn(monkeypatch):
    """The submissions whose figure cells were drawn, one per cell."""
    seen: list[int] = []
    draw = board_views._cell_html

    def counted(view, row, column, headline):
        seen.append(row.submission_id)
        return draw(view, row, column, headline)

    monkeypatch.setattr(board_views, "_cell_html", counted)
    return seen


def read(client) -> bytes:
    split_id = Submission.objects.values_list("split_id", flat=True).first()
    board_cache_invalidate(split_id=split_id)
    cache.delete(f"board-fp:{split_id}")  # as after the fingerprint's one-second life (a note is in it on PostgreSQL)
    response = client.get(PAGE)
    assert response.status_code == 200
    return response.content


def from_scratch(client) -> bytes:
    """The page as a process that kept nothing would draw it."""
    forget_pages()
    for kept in (selectors._local_rows, selectors._local_pairs, selectors._local_views, selectors._local_derived):
        kept.clear()
    return read(client)


@pytest.mark.django_db
def test_a_page_read_after_a_change_draws_only_the_rows_that_changed(client, epic_split, drawn):
    # Given a board of 30 papers' rows read once (every row of its first page drawn)
    subs = [make_reported(epic_split, make_entry(f"Drawn-VL-{i:02d}"), 80.0 - i, {"BA": 40.0 + i % 9})
            for i in range(30)]
    read(client)
    cells = drawn.count(subs[0].pk)
    assert cells > 0 and set(drawn) == {s.pk for s in subs}

    # When one row's note changes (its figures, ranks and every mark as they were) and the page is read again
    drawn.clear()
    Submission.objects.filter(pk=subs[12].pk).update(note="re-read from the paper's table 3")
    page = read(client)
    # Then only that row was drawn again, and the page is the one drawn from scratch
    assert drawn == [subs[12].pk] * cells
    assert page == from_scratch(client)

    # When a row becomes the best of a column (every row's marks in it move) and the page is read again
    read(client)
    drawn.clear()
    score = Score.objects.get(submission=subs[20])
    score.breakdown = {"BA": 99.0}
    score.save()
    page = read(client)
    # Then every row was drawn again, and the page is still the one drawn from scratch
    assert set(drawn) == {s.pk for s in subs}
    assert b"Drawn-VL-20" in page and page == from_scratch(client)


@pytest.mark.django_db
def test_a_row_remembers_a_few_ways_of_being_drawn(client, epic_split):
    # Given a board read under more ways of drawing its rows than a row remembers (tables collapsed and expanded,
    # with and without extras, sorted and filtered otherwise)
    sub = make_reported(epic_split, make_entry("Drawn-VL-only"), 50.0, {"BA": 40.0})
    for query in ("", "?expanded=1", "?extras=1", "?expanded=1&extras=1", "?sort=BA", "?kind=open-source"):
        board_cache_invalidate(split_id=epic_split.pk)
        assert client.get(f"/leaderboard/epic-bench/{query}").status_code == 200
    # Then the row keeps at most ROW_DRAWINGS_KEPT of them
    row = selectors.board_rows_current(split_id=epic_split.pk)[0]
    assert row.submission_id == sub.pk and 0 < len(row.drawn_html) <= board_views.ROW_DRAWINGS_KEPT
