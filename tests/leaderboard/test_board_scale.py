"""A board's cost stays flat as it grows (issue 34): rows kept per process while what each was made from is
unchanged (and identical to rows built afresh after every kind of change), pages of the HTML board and the board
API with global ranks, a streamed CSV export of a large board, a model page that never reads whole boards."""
import csv
import io

import pytest
from django.utils import timezone

from leaderboard import board_views, selectors
from leaderboard.asgi import _cached
from leaderboard.core.board import PAGE_ROWS
from scoring.core.provenance import WITHHELD
from scoring.models import Score, Submission
from scoring.selectors import board_cache_invalidate
from tests.leaderboard.conftest import make_entry, make_reported, make_scored, random_scores
from tests.leaderboard.test_asgi_fast_path import http_scope


def same_as_built_afresh(split) -> list:
    kept = selectors.board_rows_current(split_id=split.pk)
    assert kept == selectors._load_rows(split.pk)
    return kept


@pytest.mark.django_db
def test_rows_kept_in_the_process_are_the_rows_built_afresh_after_every_change(epic_split, django_assert_num_queries):
    reported = make_reported(epic_split, make_entry("Paper-VL-7B"), 41.0, {"BA": 40.0})
    first = make_scored(epic_split, make_entry("Kept-VL", organisation="Lab A"), random_scores(1, 40, 0.6))
    Score.objects.filter(submission=first).update(provenance={"file_sha256": "a" * 64, "ground_truth_sha256": "b" * 64})
    runs = make_entry("Runs-VL")
    for seed in (2, 3):
        sub = make_scored(epic_split, runs, random_scores(seed, 40, 0.5))
        Submission.objects.filter(pk=sub.pk).update(run_set="seeds")
    rows = same_as_built_afresh(epic_split)
    assert {r.model_name for r in rows} == {"Paper-VL-7B", "Kept-VL", "Runs-VL"}
    assert next(r for r in rows if r.model_name == "Runs-VL").runs == 2
    # The split hides its ground truth: the hash is withheld in the kept row as in the fresh one.
    assert next(r for r in rows if r.model_name == "Kept-VL").provenance["ground_truth_sha256"] == WITHHELD
    with django_assert_num_queries(2):  # the split's flags and one light query: no row is built again
        assert selectors.board_rows_current(split_id=epic_split.pk) == rows

    entry = first.model_entry
    entry.name, entry.kind, entry.organisation, entry.parameters_b = "Renamed-VL", "proprietary", "Lab B", 9.0
    entry.save()
    assert next(r for r in same_as_built_afresh(epic_split) if r.submission_id == first.pk).model_name == "Renamed-VL"

    score = Score.objects.get(submission=first)  # a score recomputed in place (a human judgement)
    score.details, score.overall = {"final": False, "status_text": "awaiting judgement"}, 12.5
    score.save(update_fields=["details", "overall", "updated_at"])
    row = next(r for r in same_as_built_afresh(epic_split) if r.submission_id == first.pk)
    assert row.overall == 12.5 and row.pending

    Score.objects.filter(submission=first).update(intervals={}, updated_at=timezone.now())
    assert next(r for r in same_as_built_afresh(epic_split) if r.submission_id == first.pk).intervals == {}

    Submission.objects.filter(pk=first.pk).update(visibility=Submission.Visibility.PRIVATE)  # withdrawn
    assert first.pk not in {r.submission_id for r in same_as_built_afresh(epic_split)}
    Submission.objects.filter(pk=reported.pk).update(note="Table 2", source=Submission.Source.REPRODUCED)
    assert next(r for r in same_as_built_afresh(epic_split) if r.submission_id == reported.pk).row_type == "reproduced"

    epic_split.hidden_ground_truth = False
    epic_split.save()
    Submission.objects.filter(pk=first.pk).update(visibility=Submission.Visibility.PUBLIC)
    assert next(r for r in same_as_built_afresh(epic_split)
                if r.submission_id == first.pk).provenance["ground_truth_sha256"] == "b" * 64

    landed = make_scored(epic_split, make_entry("Landed-VL"), random_scores(4, 40, 0.9))
    assert landed.pk in {r.submission_id for r in same_as_built_afresh(epic_split)}
    Score.objects.filter(submission=landed).delete()  # re-scored: the score replaced
    Score.objects.create(submission=landed, overall=3.0, breakdown={"BA": 2.0}, scorer_version="test-2")
    assert next(r for r in same_as_built_afresh(epic_split) if r.submission_id == landed.pk).scorer_version == "test-2"


def board_rows(split, n: int) -> list[Submission]:
    """n reported rows at 100, 99, ... (one model entry each), quickly."""
    return [make_reported(split, make_entry(f"Paged-VL-{i:03d}"), 100.0 - i) for i in range(n)]


def names_in(html: str) -> list[str]:
    return [part.split("<", 1)[0] for part in html.split(">Paged-VL-")[1:]]


@pytest.mark.django_db
def test_the_board_shows_a_page_of_rows_with_global_ranks_and_links_keeping_the_query(client, epic_split):
    board_rows(epic_split, PAGE_ROWS + 10)
    first = client.get("/leaderboard/epic-bench/?kind=open-source")
    assert first.status_code == 200
    html = first.content.decode()
    assert html.count('data-submission="') == PAGE_ROWS
    assert 'href="?kind=open-source&amp;page=2"' in html and 'rel="next"' in html
    second = client.get("/leaderboard/epic-bench/?kind=open-source&page=2")
    html = second.content.decode()
    assert html.count('data-submission="') == 10
    view = second.context["view"]
    assert view.ranks[PAGE_ROWS] == PAGE_ROWS + 1  # ranks are the whole board's
    assert f'data-key="rank">{PAGE_ROWS + 1}<' in html
    assert names_in(html)[0] == f"{PAGE_ROWS:03d}"
    assert 'href="?kind=open-source&amp;page=1"' in html and 'rel="prev"' in html
    past = client.get("/leaderboard/epic-bench/?kind=open-source&page=9")  # past the last: the last page
    assert past.status_code == 200 and past.context["page"].number == 2
    bad = client.get("/leaderboard/epic-bench/?page=x")
    assert bad.status_code == 400 and "page" in bad.content.decode()


@pytest.mark.django_db
def test_a_board_of_one_page_shows_no_page_links(client, epic_split):
    board_rows(epic_split, 3)
    html = client.get("/leaderboard/epic-bench/").content.decode()
    assert 'id="board-pages"' not in html and 'data-pages="1"' in html


@pytest.mark.django_db
def test_the_board_api_gives_pages_with_global_ranks(client, epic_split):
    board_rows(epic_split, PAGE_ROWS + 10)
    body = client.get("/api/leaderboards/epic-bench/").json()
    assert (body["count"], body["page"], body["pages"], body["page_size"]) == (PAGE_ROWS + 10, 1, 2, PAGE_ROWS)
    assert len(body["rows"]) == PAGE_ROWS and body["total_rows"] == PAGE_ROWS + 10
    body = client.get("/api/leaderboards/epic-bench/?page_size=25&page=3").json()
    assert [r["rank"] for r in body["rows"]] == list(range(51, PAGE_ROWS + 11))
    assert client.get("/api/leaderboards/epic-bench/?page_size=0").status_code == 400
    assert client.get("/api/leaderboards/epic-bench/?page=-1").status_code == 400


@pytest.mark.django_db
def test_the_fast_path_answers_each_page_of_the_board_apart(client, epic_split):
    board_rows(epic_split, PAGE_ROWS + 10)
    path = "/leaderboard/epic-bench/"
    body = client.get(path + "?page=2").content
    assert body.decode().count('data-submission="') == 10
    assert _cached(http_scope(path, b"page=2")) == body
    assert _cached(http_scope(path, b"page=1")) is None


@pytest.mark.django_db
def test_a_large_csv_export_is_streamed_with_the_same_text(client, epic_split, monkeypatch):
    board_rows(epic_split, 12)
    whole = client.get("/leaderboard/epic-bench/export.csv")
    assert not whole.streaming
    selectors.board_local_responses_clear()
    from django.core.cache import cache

    cache.clear()
    monkeypatch.setattr(board_views, "CSV_STREAMED_ROWS", 5)
    monkeypatch.setattr(board_views, "CSV_CHUNK_ROWS", 4)
    streamed = client.get("/leaderboard/epic-bench/export.csv")
    assert streamed.streaming and streamed["Content-Disposition"] == whole["Content-Disposition"]
    text = b"".join(streamed.streaming_content)
    assert text == whole.content
    assert len(list(csv.reader(io.StringIO(text.decode())))) == 13


@pytest.mark.django_db
def test_a_model_page_says_whether_its_board_has_a_human_row_without_reading_the_board(client, epic_split,
                                                                                         django_assert_max_num_queries):
    entry = make_entry("Model-Page-VL")
    make_reported(epic_split, entry, 50.0)
    board_rows(epic_split, 30)
    assert client.get(f"/models/{entry.slug}/").context["any_human"] is False
    make_reported(epic_split, make_entry("Human", kind="human", thinking=""), 90.0)
    assert client.get(f"/models/{entry.slug}/").context["any_human"] is True


@pytest.mark.django_db
def test_kept_rows_share_their_column_keys(epic_split):
    # A process keeps every row of a board: each score's JSON brings its own copy of every column key, held once.
    for i in range(3):
        make_scored(epic_split, make_entry(f"Keyed-VL-{i}"), random_scores(i, 40, 0.5),
                    breakdown={"Navigation/FeasiblePath/FeasiblePath_Ego": 40.0 + i, "BA": 30.0 + i})
        Score.objects.filter(submission__model_entry__name=f"Keyed-VL-{i}").update(
            intervals={"BA": [20.0, 40.0 + i]})
    rows = selectors.board_rows_current(split_id=epic_split.pk)
    keys = [{k: k for k in (*row.values, *row.intervals)} for row in rows]
    assert len(rows) == 3 and all(set(k) == set(keys[0]) for k in keys)
    assert all(k[key] is keys[0][key] for k in keys for key in k)


@pytest.mark.django_db
def test_a_boards_rows_are_built_a_few_scores_at_a_time(epic_split, monkeypatch, django_assert_num_queries):
    # A score read with its JSON is tens of KB in memory: a board's first read held every one of them at once (a ~90
    # MiB peak at 2,000 EPIC rows, which the process kept). Built ROWS_BUILT_AT_ONCE at a time, the rows are the same.
    monkeypatch.setattr(selectors, "ROWS_BUILT_AT_ONCE", 3)
    ids = [make_scored(epic_split, make_entry(f"Parted-VL-{i}"), random_scores(i, 40, 0.4 + i / 20)).pk
           for i in range(7)]
    hidden, _, headline, readings = selectors._board_figures(epic_split.pk)
    with django_assert_num_queries(6):  # a submissions' and a scores' query for each three
        built = selectors._rows_built(ids, headline, readings, hidden)
    assert sorted(built) == ids
    assert [built[pk] for pk in ids] == [r for r in selectors._load_rows(epic_split.pk) if r.submission_id in built]
    same_as_built_afresh(epic_split)


@pytest.mark.django_db
def test_a_process_keeps_one_copy_of_each_page_however_often_its_board_changes(client, epic_split):
    """What a process keeps of a board's pages (whole responses, rendered tables) is one per page: a page read
    after a score landed replaces what was kept of it, which no read asks for again (with 128 responses kept until
    evicted, a 100x hub's server held ~30 MiB of stale exports: issue 34)."""
    board_rows(epic_split, 5)
    paths = ["/leaderboard/epic-bench/", "/leaderboard/epic-bench/?sort=BA", "/leaderboard/epic-bench/export.csv",
             "/api/leaderboards/epic-bench/"]
    selectors.board_local_responses_clear()
    shown = []
    for change in range(4):
        make_scored(epic_split, make_entry(f"Landed-VL-{change}"), random_scores(10 + change, 40, 0.5))
        board_cache_invalidate(split_id=epic_split.pk)  # as a score landing does
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200
            shown.append(b"".join(response) if response.streaming else response.content)
        assert b"Landed-VL-%d" % change in shown[-2]  # the CSV of this change
        assert len(selectors._local_responses) == len(paths)
        assert len(selectors._local_derived) == 3  # each page's table and the scorer versions: not one per change
    for path, first in zip(paths, shown[-len(paths):]):
        again = client.get(path)
        assert (b"".join(again) if again.streaming else again.content) == first
