"""An uncached board read (the cache version bumped: a score landed somewhere) costs the same however many rows the
board has (issue 34): the process's rows and comparisons are checked by one aggregate query each and, while their
digest is unchanged, neither they nor the views made from them (filtered, sorted, ranked, marked) nor a CSV export's
row text are made again; any change to a row, an entry or a comparison shows at the next read."""
import csv
import io
import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leaderboard import board_views, selectors, services
from leaderboard.core.board import BoardQuery, board_build, column_marks, export_table, top_marks, view_marks
from leaderboard.core.board_kept import view_kept
from leaderboard.models import BoardComparison
from scoring.benchmarks import board_for
from scoring.models import ModelEntry, Phase, Score, Submission
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
    seen = {repr(selectors._bucket_digests(rows, columns))}
    for note, organisation in (("a", "b"), ("ab", ""), ("", "ab;"), ("", "")):
        Submission.objects.filter(pk=sub.pk).update(note=note)
        entry.organisation = organisation
        entry.save()
        seen.add(repr(selectors._bucket_digests(rows, columns)))
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


QUERIES = (BoardQuery(), BoardQuery(kinds=("open-source", "proprietary"), sort="BA", descending=False),
           BoardQuery(all_entries=True, expanded=True), BoardQuery(search="vl-0", descending=False))


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(3))
def test_views_kept_through_random_writes_are_the_views_made_from_scratch(epic_split, monkeypatch, seed):
    """Each write path (a new score, a re-score, a withdrawal, a private toggle, an entry renamed or moved to another
    kind, a phase closing, a comparison stored) shows at the next read exactly as a view built from all the rows read
    anew; the views are brought up to date, never built again after the first read."""
    rnd = random.Random(seed)
    monkeypatch.setattr(selectors, "DIGEST_BUCKETS", (64, 4, 1)[seed])  # buckets of one row, of several, of all
    spec = board_for("epic-bench")
    entries = [make_entry(f"Rand-VL-{i}", kind=rnd.choice(("open-source", "proprietary", "human"))) for i in range(6)]
    phase = Phase.objects.create(benchmark=epic_split.benchmark, name="Held", slug="held", results_at_close=True,
                                 opens_at=timezone.now() - timedelta(days=2),
                                 closes_at=timezone.now() + timedelta(days=1))

    def new_row() -> Submission:
        entry = rnd.choice(entries)
        if rnd.random() < 0.5:
            return make_reported(epic_split, entry, float(rnd.randrange(0, 100, 5)), {"BA": float(rnd.randrange(9))})
        sub = make_scored(epic_split, entry, random_scores(rnd.randrange(99), 40, rnd.random()),
                          breakdown={"BA": float(rnd.randrange(9))})
        if rnd.random() < 0.3:
            Submission.objects.filter(pk=sub.pk).update(run_set="seeds")
        return sub

    subs = [new_row() for _ in range(12)]
    builds = []
    monkeypatch.setattr(services, "view_kept", lambda *a, **k: builds.append(1) or view_kept(*a, **k))
    for step in range(30):
        for _ in range(rnd.choice((1, 1, 3))):
            sub = rnd.choice(subs)
            what = rnd.randrange(8)
            if what == 0:
                subs.append(new_row())
            elif what == 1:  # re-scored: its figures and last change
                score = Score.objects.get(submission=sub)
                score.overall, score.breakdown = float(rnd.randrange(0, 100, 5)), {"BA": float(rnd.randrange(9))}
                score.save()
            elif what == 2:
                Submission.objects.filter(pk=sub.pk).update(visibility=rnd.choice(Submission.Visibility.values))
            elif what == 3:
                entry = sub.model_entry  # a name that sorts elsewhere, or its own of the same length
                entry.name = rnd.choice(("A-Renamed", "Z-Renamed", entry.name.swapcase())) + f"-{step}"
                entry.save()
            elif what == 4:
                ModelEntry.objects.filter(pk=sub.model_entry_id).update(kind=rnd.choice(("open-source", "human")))
            elif what == 5:  # the split enters a phase that holds uploads back, or the phase closes
                if epic_split.phase_id is None:
                    epic_split.phase = phase
                    epic_split.save()
                else:
                    phase.closes_at = timezone.now() - timedelta(seconds=1)
                    phase.save()
            elif what == 6:
                scored = list(Submission.objects.filter(split=epic_split, source="upload").values_list("pk", flat=True))
                stored = list(BoardComparison.objects.filter(split=epic_split))
                if stored and rnd.random() < 0.3:  # a comparison gone (its submission deleted: the cascade)
                    rnd.choice(stored).delete()
                elif len(scored) > 1:
                    a, b = sorted(rnd.sample(scored, 2))
                    BoardComparison.objects.update_or_create(a_id=a, b_id=b, defaults={
                        "split": epic_split, "difference": 1.0, "p_value": rnd.choice((0.01, 0.5)),
                        "shared_units": 40})
            else:
                Submission.objects.filter(pk=sub.pk).update(note=rnd.choice(("", "a note")))
        for query in QUERIES:
            for marks in (True, False):
                view, _, _ = services.board_view_build(split=epic_split, spec=spec, query=query, marks=marks)
                rows, pairs = selectors._load_rows(epic_split.pk), selectors._load_pairs(epic_split.pk)
                assert view == board_build(rows, spec, query, pairs, marks=marks), (step, query)
                if marks:
                    every = spec.visible(expanded=True)
                    assert view_marks(view, every) == (column_marks(view.rows, every, within_kind=True),
                                                       top_marks(view.rows, every))
        assert selectors.board_rows_current(split_id=epic_split.pk) == selectors._load_rows(epic_split.pk)
    assert len(builds) == 2 * len(QUERIES)  # made once each, then only brought up to date


@pytest.mark.django_db
def test_a_view_kept_from_before_the_board_came_back_to_the_same_rows_follows_every_change_since(epic_split,
                                                                                                monkeypatch):
    """A view read when the board's rows were A, not read while they went to B and back to A (a note written and
    taken back) and then to C, is brought up to date through every change kept since the first A: the same view as
    one made from scratch, not made again."""
    subs = reported_rows(epic_split, 12)
    spec = board_for("epic-bench")
    kept_query, other_query = BoardQuery(sort="BA"), BoardQuery(descending=False)
    builds, chains = [], []
    monkeypatch.setattr(services, "view_kept", lambda *a, **k: builds.append(1) or view_kept(*a, **k))
    changes_since = selectors._changes_since

    def changes_seen(*args):
        found = changes_since(*args)
        if found is not None:
            chains.append(len(found))
        return found

    monkeypatch.setattr(selectors, "_changes_since", changes_seen)

    def read(query: BoardQuery):
        board_cache_invalidate(split_id=epic_split.pk)
        return services.board_view_build(split=epic_split, spec=spec, query=query)[0]

    read(kept_query)
    read(other_query)
    for note in ("a note", ""):  # B, then A again
        Submission.objects.filter(pk=subs[3].pk).update(note=note)
        read(other_query)
    score = Score.objects.get(submission=subs[7])  # C: a row moves
    score.overall, score.breakdown = 99.5, {"BA": 1.0}
    score.save()
    view = read(kept_query)
    rows, pairs = selectors._load_rows(epic_split.pk), selectors._load_pairs(epic_split.pk)
    assert view == board_build(rows, spec, kept_query, pairs)
    assert len(builds) == 2  # each query's view made once, then brought up to date
    assert chains[-1] == 3  # the kept view followed A -> B, B -> A and A -> C
