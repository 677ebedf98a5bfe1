"""Significance between submissions is precomputed by the scoring pipeline, once per new score."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import BoardComparison
from leaderboard.services import board_comparisons_update
from scoring import pipeline
from tests.leaderboard.conftest import make_entry, make_reported, make_scored
from tests.scoring.factories import SampleFactory, SplitFactory


@pytest.mark.django_db
def test_scoring_a_submission_stores_its_comparisons(dummy_benchmark, token_client, settings, django_capture_on_commit_callbacks):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="dev")
    for i in range(30):
        SampleFactory(split=split, key=f"k{i}", position=i, task="ab"[i % 2])

    def upload_and_score(lines: bytes, model: str) -> int:
        with django_capture_on_commit_callbacks(execute=False):
            sid = token_client.post("/api/submissions/", {"benchmark": "dummy-bench", "split": "dev", "model": model,
                                                          "file": SimpleUploadedFile("p.txt", lines)},
                                    format="multipart").json()["id"]
        with django_capture_on_commit_callbacks(execute=True):
            assert pipeline.submission_score(submission_id=sid, worker="w") == "scored"
        return sid

    first = upload_and_score(b"1\n" * 30, "Strong")
    assert BoardComparison.objects.count() == 0  # nothing to compare with yet
    second = upload_and_score(b"0\n" * 30, "Weak")
    comparison = BoardComparison.objects.get()
    assert (comparison.a_id, comparison.b_id) == (first, second)
    assert comparison.shared_units == 30 and comparison.difference == pytest.approx(1.0)
    assert comparison.p_value < 0.05


@pytest.mark.django_db
def test_comparisons_skip_reported_rows_and_are_deterministic(epic_split):
    reported = make_reported(epic_split, make_entry("Paper"), 50.0)
    a = make_scored(epic_split, make_entry("A"), [1.0, 0.0] * 20)
    b = make_scored(epic_split, make_entry("B"), [0.0, 1.0] * 20)
    assert board_comparisons_update(submission_id=b.pk) == 1
    first = BoardComparison.objects.get()
    assert {first.a_id, first.b_id} == {a.pk, b.pk} and reported.pk not in (first.a_id, first.b_id)
    board_comparisons_update(submission_id=a.pk)  # recomputing gives the same figures (fixed seed)
    again = BoardComparison.objects.get()
    assert again.p_value == first.p_value and again.difference == 0.0
    assert again.p_value > 0.05


def _scored_ladder(split, count: int, *, kind: str = "open-source") -> list:
    """`count` scored rows with distinct overall figures, best first (row i answers 40 - i samples right)."""
    return [make_scored(split, make_entry(f"Ladder-{kind}-{i}", kind=kind), [1.0] * (40 - i) + [0.0] * i)
            for i in range(count)]


def _stored_pairs() -> set[frozenset[int]]:
    return {frozenset((a, b)) for a, b in BoardComparison.objects.values_list("a_id", "b_id")}


@pytest.mark.django_db
def test_a_new_score_is_compared_with_its_neighbours_in_rank_not_with_every_row(epic_split):
    """Issue 34: "every new score runs a paired bootstrap against *every* other scored submission of its split ...
    so one score costs O(rows) and a board O(rows²) ... Significance is only shown between neighbours in rank:
    compute what the page shows (adjacent ranks, or on demand, cached), not all pairs."""
    rows = _scored_ladder(epic_split, 12)
    for sub in rows:
        board_comparisons_update(submission_id=sub.pk)
    assert _stored_pairs() == {frozenset((a.pk, b.pk)) for a, b in zip(rows, rows[1:])}
    before = _stored_pairs()

    # A new score landing between the 6th and the 7th row: its two new neighbours, nothing else.
    middle = make_scored(epic_split, make_entry("Newcomer"), [1.0] * 35 + [0.5] + [0.0] * 4)
    stored = board_comparisons_update(submission_id=middle.pk)
    assert stored == 2
    assert _stored_pairs() - before == {frozenset((rows[4].pk, middle.pk)), frozenset((middle.pk, rows[5].pk))}
    # Nothing new to compute when it lands again (a re-score): both pairs are kept.
    assert board_comparisons_update(submission_id=middle.pk) == 0


@pytest.mark.django_db
def test_a_filtered_view_computes_its_missing_neighbour_pairs_on_demand_and_keeps_them(client, epic_split):
    """Issue 34: "compute what the page shows (adjacent ranks, or on demand, cached)". Filtering out every other
    row makes rows adjacent that never were on the unfiltered board; their comparisons are computed when such a view
    is read, stored, and not computed again."""
    rows = []
    for i in range(6):
        kind = "proprietary" if i % 2 else "open-source"
        rows.append(make_scored(epic_split, make_entry(f"Alt-{i}", kind=kind), [1.0] * (40 - i) + [0.0] * i))
    for sub in rows:
        board_comparisons_update(submission_id=sub.pk)
    assert len(_stored_pairs()) == 5
    proprietary = [r for r in rows if r.model_entry.kind == "proprietary"]
    wanted = {frozenset((a.pk, b.pk)) for a, b in zip(proprietary, proprietary[1:])}
    assert not wanted & _stored_pairs()

    body = client.get("/api/leaderboards/epic-bench/", {"kind": "proprietary"}).json()
    assert wanted <= _stored_pairs()
    # One answer apart in 40: not significant, so each lower row is marked as tied with the one above.
    flags = {r["submission"]: r["not_significant_vs_above"] for r in body["rows"]}
    assert [flags[s.pk] for s in proprietary] == [False, True, True]
    count = BoardComparison.objects.count()
    client.get("/leaderboard/epic-bench/", {"kind": "proprietary", "order": "desc"})
    assert BoardComparison.objects.count() == count


@pytest.mark.django_db
def test_pairs_beyond_what_a_page_computes_at_once_go_to_the_worker(client, epic_split, celery_eager,
                                                                    django_capture_on_commit_callbacks):
    """A view that needs more than INLINE_PAIRS_MAX comparisons computes that many while the page is built and hands
    the rest to `board_comparisons_fill`, which stores them and invalidates the board's cache."""
    from leaderboard import services
    from scoring.selectors import board_cache_version

    rows = _scored_ladder(epic_split, services.INLINE_PAIRS_MAX + 5)
    adjacent = {frozenset((a.pk, b.pk)) for a, b in zip(rows, rows[1:])}
    version = board_cache_version(split_id=epic_split.pk)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        client.get("/api/leaderboards/epic-bench/")
    assert len(_stored_pairs() & adjacent) == services.INLINE_PAIRS_MAX
    for callback in callbacks:
        callback()
    assert _stored_pairs() == adjacent
    assert board_cache_version(split_id=epic_split.pk) > version
    again = client.get("/api/leaderboards/epic-bench/").json()
    assert all(r["not_significant_vs_above"] for r in again["rows"][1:])


@pytest.mark.django_db
def test_the_comparisons_read_the_pairs_rows_without_joining_their_submissions(epic_split):
    """The per-sample read is by submission id alone: the model's default ordering (the submission's date) joined
    every submission of the hub to it (issue 34, the worker's cost at 100×)."""
    a = make_scored(epic_split, make_entry("A"), [1.0, 0.0] * 20)
    b = make_scored(epic_split, make_entry("B"), [0.0, 1.0] * 20)
    with CaptureQueriesContext(connection) as queries:
        assert board_comparisons_update(submission_id=b.pk) == 1
    reads = [q["sql"] for q in queries if 'FROM "scoring_samplescore"' in q["sql"]]
    assert len(reads) == 1 and 'JOIN "scoring_submission"' not in reads[0]
    assert BoardComparison.objects.get().shared_units == 40 and {a.pk, b.pk} == set(
        BoardComparison.objects.values_list("a_id", "b_id").get())
