"""Board views kept between reads and brought up to date with the rows that changed (issue 34).

`board_build` makes a view from all of a board's rows; after one score lands, a view kept from the read before is
brought to the same result by `view_updated` with the rows that went and came: each changed model's best row is
chosen again among its rows, taken out of the order and put back in its place (bisect on the sort key), and its
figures taken out of and put into the kept per-column values that the best / second-best marks are read from
(`ColumnTops`). Ranks and the adjacent pairs are counted again over the ordered rows (a plain loop, no row read
twice). A view depends only on the set of rows, not their order (ties are broken by submission), so an updated view
equals `board_build` over the new rows, which the tests check over random sequences of changes.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from leaderboard.core.board import (
    BoardQuery,
    BoardRow,
    BoardView,
    PairSignificance,
    best_key,
    better_first,
    ordered_view,
    row_kept,
    sort_key,
    tops_changed,
    tops_of,
)
from scoring.core.columns import BoardSpec, Column


@dataclass(frozen=True)
class KeptView:
    """A view with what updating it needs: per group (a model entry; a submission when every entry is shown) the
    rows the filters keep and the one shown. Never changed: an update makes a new one. The shown rows' places are
    found by their sort keys, made for the few rows bisection reads, not kept: a process keeps many views of a
    large board (issue 34)."""

    view: BoardView
    candidates: Mapping[int, tuple[BoardRow, ...]]
    shown: Mapping[int, BoardRow]


def _group(row: BoardRow, query: BoardQuery) -> int:
    return row.submission_id if query.all_entries else row.model_id


def _sort_column(spec: BoardSpec, query: BoardQuery) -> Column:
    return spec.column(query.sort) or spec.columns[0]


def view_kept(rows: Sequence[BoardRow], spec: BoardSpec, query: BoardQuery,
              pairs: Mapping[frozenset[int], PairSignificance] | None = None, *, marks: bool = True) -> KeptView:
    """The view `board_build` makes of `rows`, kept for `view_updated`. With `marks`, the figures of every column the
    view's board can show are kept too (`view_marks` reads other columns' marks from them)."""
    column = _sort_column(spec, query)
    desc = better_first(column, query.descending)
    candidates: dict[int, list[BoardRow]] = {}
    for row in rows:
        if row_kept(row, query):
            candidates.setdefault(_group(row, query), []).append(row)
    shown = {group: min(found, key=lambda r: best_key(r, column)) for group, found in candidates.items()}
    ordered = sorted((sort_key(row, column.key, desc), row) for row in shown.values())  # keys are unique
    tops = tops_of(shown.values(), spec.visible(expanded=True, extras=query.extras)) if marks else None
    return KeptView(ordered_view(spec, query, [row for _, row in ordered], pairs, len(rows), tops=tops),
                    {group: tuple(found) for group, found in candidates.items()}, shown)


def view_updated(kept: KeptView, gone: Iterable[BoardRow], came: Iterable[BoardRow],
                 pairs: Mapping[frozenset[int], PairSignificance] | None, total_rows: int) -> KeptView:
    """`kept` after the board's rows `gone` left it and the rows `came` joined it (a changed row: its old self gone,
    its new self come; a row is known by its submission), under the comparisons `pairs`: what `view_kept` makes of
    the board's rows now. Raises ValueError where a row gone is not in the view as it was (then build it anew)."""
    view, query = kept.view, kept.view.query
    column = _sort_column(view.spec, query)
    desc = better_first(column, query.descending)
    candidates = dict(kept.candidates)
    changed: set[int] = set()
    for row in gone:
        if row_kept(row, query):
            group = _group(row, query)
            left = tuple(r for r in candidates.get(group, ()) if r.submission_id != row.submission_id)
            if len(left) == len(candidates.get(group, ())):
                raise ValueError(f"row {row.submission_id} is not in the view")
            candidates[group] = left
            changed.add(group)
    for row in came:
        if row_kept(row, query):
            group = _group(row, query)
            candidates[group] = (*candidates.get(group, ()), row)
            changed.add(group)
    shown, ordered = dict(kept.shown), list(view.rows)

    def key_of(row: BoardRow) -> tuple:
        return sort_key(row, column.key, desc)

    left_out, put_in = [], []
    for group in changed:
        old = shown.pop(group, None)
        new = min(candidates[group], key=lambda r: best_key(r, column)) if candidates[group] else None
        if new is None:
            del candidates[group]
        else:
            shown[group] = new
        if old is not new:
            left_out += [old] if old is not None else []
            put_in += [new] if new is not None else []
    # Every row out before any comes in: a row that moved to another model entry goes from one group and comes into
    # another with the same sort key.
    for old in left_out:
        key = key_of(old)
        i = bisect.bisect_left(ordered, key, key=key_of)
        if i == len(ordered) or key_of(ordered[i]) != key:
            raise ValueError(f"row {old.submission_id} is not where the view put it")
        del ordered[i]
    for new in put_in:
        bisect.insort(ordered, new, key=key_of)
    tops = tops_changed(view.tops, left_out, put_in) if view.tops is not None else None
    return KeptView(ordered_view(view.spec, query, ordered, pairs, total_rows, tops=tops), candidates, shown)
