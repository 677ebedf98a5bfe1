"""Writes for boards: the paired-bootstrap comparisons behind the significance marks (and, at the end, the pruning
of the board-change log that PostgreSQL's triggers write: `board_changes_prune`).

A board marks a row "not significantly different from the row above" (`core.board.adjacent_ties`), so it needs the
comparisons of adjacent rows only, never all pairs: a new score stores those with its neighbours by the headline
figure, and a view that shows other neighbours (best entry per model, a filter) gets its missing pairs on demand: a
few at once while the page is built, the rest by a background task. Each pair is computed once and kept,
so a score costs a few comparisons however large the board grows.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Container, Iterable

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from leaderboard import selectors
from leaderboard.core.board import BoardQuery, BoardView
from leaderboard.core.board_kept import KeptView, view_kept, view_updated
from leaderboard.models import BoardChange, BoardChangeHorizon, BoardComparison
from scoring.core.columns import BoardSpec
from scoring.core.stats import paired_bootstrap
from scoring.models import SampleScore, Score, Split, Submission
from scoring.selectors import on_boards

# Comparisons a page computes while it is built (each a bootstrap over the pair's shared samples); a view needing
# more sends the rest to the worker, which invalidates the board's cache when they are stored.
INLINE_PAIRS_MAX = 8


def _scores_by_key(submission_ids: Iterable[int]) -> dict[int, dict[str, tuple[float, str]]]:
    out: dict[int, dict[str, tuple[float, str]]] = defaultdict(dict)
    # In index order by the submission's id: the model's default ordering ("submission", that is its date) would
    # join every submission of the hub to the rows read.
    rows = (SampleScore.objects.filter(submission_id__in=list(submission_ids), score__isnull=False)
            .order_by("submission_id", "index").values_list("submission_id", "key", "score", "task"))
    for sid, key, score, task in rows.iterator(chunk_size=5000):
        out[sid][key] = (float(score), task)
    return out


def board_comparisons_compute(*, split_id: int, pairs: Iterable[tuple[int, int]]) -> int:
    """Compare each pair of submissions on the samples both were scored on (paired bootstrap, stratified by task,
    fixed seed) and store the results, `a` the smaller id. A pair with no shared sample is stored too (0 units,
    never a tie), so it is not computed again. Returns the number of pairs stored."""
    wanted = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    if not wanted:
        return 0
    scores = _scores_by_key({i for pair in wanted for i in pair})
    found = []
    for a, b in wanted:
        first, second = scores.get(a, {}), scores.get(b, {})
        shared = sorted(set(first) & set(second))
        if shared:
            result = paired_bootstrap([first[k][0] for k in shared], [second[k][0] for k in shared],
                                      strata=[first[k][1] for k in shared])
            difference, p_value, units = result.difference, result.p_value, result.shared_units
        else:
            difference, p_value, units = 0.0, 1.0, 0
        found.append(BoardComparison(split_id=split_id, a_id=a, b_id=b, difference=difference, p_value=p_value,
                                     shared_units=units))
    # Two readers may compute the same pair at once: the second write agrees (fixed seed) and wins quietly.
    BoardComparison.objects.bulk_create(found, update_conflicts=True, unique_fields=["a", "b"],
                                        update_fields=["split", "difference", "p_value", "shared_units"])
    return len(found)


def _missing(pairs: Iterable[tuple[int, int]], stored: Container[frozenset[int]]) -> list[tuple[int, int]]:
    return list(dict.fromkeys(p for p in pairs if frozenset(p) not in stored))


def _rank_neighbours(submission: Submission) -> list[tuple[int, int]]:
    """The new score's pairs with the public scored uploads next to it by the headline figure, one above and one
    below: two indexed reads, however large the board. The pairs a view shows beyond these (the rows a new best entry
    separated or joined, a filter's neighbours) are computed when a view needs them (`board_view_build`)."""
    overall = Score.objects.filter(submission_id=submission.pk).values_list("overall", flat=True).first()
    if overall is None or submission.visibility != Submission.Visibility.PUBLIC:
        return []
    others = (on_boards(Submission.objects.filter(split_id=submission.split_id, status=Submission.Status.SCORED,
                                                  source=Submission.Source.UPLOAD, score__overall__isnull=False))
              .exclude(pk=submission.pk))
    above = others.filter(score__overall__gte=overall).order_by("score__overall", "pk")
    below = others.filter(score__overall__lte=overall).order_by("-score__overall", "-pk")
    return [(submission.pk, pk) for query in (above, below)
            if (pk := query.values_list("pk", flat=True).first()) is not None]


def board_comparisons_update(*, submission_id: int) -> int:
    """When a score lands: store its comparisons with its neighbours by the headline figure, a couple however many
    rows the board has. Returns the number stored."""
    submission = Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORED).first()
    if submission is None:
        return 0
    pairs = _rank_neighbours(submission)
    missing = _missing(pairs, selectors.board_pairs_stored(pairs=pairs))
    return board_comparisons_compute(split_id=submission.split_id, pairs=missing)


def board_view_build(*, split: Split, spec: BoardSpec, query: BoardQuery, marks: bool = True
                     ) -> tuple[BoardView, selectors.BoardData, list[tuple[int, int]]]:
    """A board view with the significance of the pairs it shows side by side: stored pairs come from the board's
    cached data; missing ones (a filtered or re-sorted view's neighbours, rows that became adjacent when another was
    withdrawn) are computed here, up to INLINE_PAIRS_MAX. Returns the view, the board data it was built from and the
    pairs still missing, for the caller to hand to the worker (`tasks.board_comparisons_fill`). `marks`: as
    `board_build`'s."""
    data = selectors.board_data(split=split, reading=query.reading, scorer=query.scorer)

    def build() -> tuple[KeptView, list[tuple[int, int]]]:
        kept = view_kept(data.rows, spec, query, data.pairs, marks=marks)
        return kept, _missing(kept.view.compared, data.pairs)  # none under another reading than the headline's

    def update(held: tuple[KeptView, list[tuple[int, int]]], gone, came) -> tuple[KeptView, list[tuple[int, int]]]:
        kept = view_updated(held[0], gone, came, data.pairs, len(data.rows))
        return kept, _missing(kept.view.compared, data.pairs)

    # Kept while the board's rows and comparisons are unchanged, whatever the cache version (a read after a score
    # landed on another board, or pairs stored that this view does not show); after a change, brought up to date with
    # the rows that changed.
    kept, missing = selectors.board_view_kept(data, ("view", query.canonical(), marks), build, update)
    view = kept.view
    if not missing:
        return view, data, []
    now, later = missing[:INLINE_PAIRS_MAX], missing[INLINE_PAIRS_MAX:]
    board_comparisons_compute(split_id=split.pk, pairs=now)
    data = selectors.board_data_pairs_add(data, selectors.board_pairs_stored(pairs=now))
    return view_updated(kept, (), (), data.pairs, len(data.rows)).view, data, later  # the rows are the same


def board_comparisons_on_score_landed(sender: object, *, submission_id: int, **kwargs: object) -> None:
    """Receiver of `scoring.events.score_landed`."""
    board_comparisons_update(submission_id=submission_id)


BOARD_CHANGES_KEPT = timedelta(hours=1)


def board_changes_prune(*, kept: timedelta = BOARD_CHANGES_KEPT) -> int:
    """Delete the board-change log's entries older than `kept` (PostgreSQL's triggers write them: BoardChange) and
    raise the horizon above their transactions, in one transaction: a process whose rows were last checked before
    the horizon reads their digest instead of the log."""
    with transaction.atomic():
        old = BoardChange.objects.filter(at__lt=timezone.now() - kept)
        top = old.aggregate(top=Max("xid"))["top"]
        if top is None:
            return 0
        deleted, _ = old.filter(xid__lte=top).delete()
        horizon, _ = BoardChangeHorizon.objects.select_for_update().get_or_create(pk=1)
        if horizon.below <= top:
            horizon.below = top + 1
            horizon.save(update_fields=["below"])
    return deleted
