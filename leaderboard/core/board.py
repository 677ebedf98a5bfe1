"""Board rows: filtering, best entry per model, sorting, best/second-best marks and significance marks.

Rows are plain frozen dataclasses built from stored scores; every operation takes rows and returns new rows
or marks, so the page, the exports and the API all show exactly the same thing. Query parameters are parsed
here too, and anything malformed raises `BadBoardQuery` with the parameter and what is wrong.
"""
from __future__ import annotations

import bisect
import json
import math
import re
import sys
from array import array
from dataclasses import dataclass, field, replace
from typing import AbstractSet, Any, Iterable, Iterator, Mapping, Sequence

from scoring.core.columns import BoardSpec, Column, Direction, Level
from scoring.core.numbers import finite

KINDS = ("proprietary", "open-source", "embodied", "human", "baseline")
THINKING = ("yes", "no", "unknown")
SOURCES = ("reported", "scored")
# Row types (`?type=`): a paper's number, an author's upload scored here (self-reported predictions), an upload the
# hub made again from its artefacts with the same result (reproduced), a model the hub ran itself (hub-run).
ROW_TYPES = ("reported", "upload", "reproduced", "hub-run")
ROW_TYPE_LABELS = {"reported": "paper", "upload": "self-reported", "reproduced": "reproduced", "hub-run": "hub-run"}
# The provenance keys an export row carries (scoring.core.provenance.KEYS, named as the file names them).
PROVENANCE_COLUMNS = ("file_sha256", "split_version", "ground_truth_sha256", "options", "hub_version")
UNRANKED_KINDS = frozenset({"human"})  # reference rows: shown in place, never ranked or tied


_COLUMN_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}  # one per set of columns (a benchmark's, a reading's)
COLUMN_INDEXES_MAX = 10_000


def _column_index(keys: tuple[str, ...]) -> dict[str, int]:
    """Each key's place, in one dict shared by every row with the same keys in the same order (`Figures`,
    `Intervals`); the keys interned."""
    index = _COLUMN_INDEXES.get(keys)
    if index is None:
        index = {sys.intern(key): i for i, key in enumerate(keys)}
        if len(_COLUMN_INDEXES) < COLUMN_INDEXES_MAX:
            _COLUMN_INDEXES[keys] = index
    return index


_NO_FIGURE = float("nan")  # where a column has no figure (None), in `Figures`' array


class Figures(Mapping[str, "float | None"]):
    """A row's figures per column (a finite float, or None), held as one array of doubles (NaN for none) under a
    column index shared by every row with the same columns: a process keeps a board's rows between reads
    (leaderboard.selectors), and a dict of float objects took ~1.6 KB of an EPIC row, ~0.4 here (issue 34). Read
    only, compared as any mapping; `get` is the rows' fast read (`BoardRow.value`)."""

    __slots__ = ("_index", "_values")

    def __init__(self, found: Mapping[str, Any]):
        kept = {key: _figure(v) for key, v in found.items() if v is None or isinstance(v, (int, float))}
        self._index = _column_index(tuple(kept))
        self._values = array("d", [_NO_FIGURE if v is None else v for v in kept.values()])

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> "Figures":
        return found if isinstance(found, Figures) else cls(found)

    def get(self, key: str, default: Any = None) -> Any:
        i = self._index.get(key)
        if i is None:
            return default
        v = self._values[i]
        return None if v != v else v

    def __getitem__(self, key: str) -> float | None:
        v = self._values[self._index[key]]
        return None if v != v else v

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Figures) and other._index is self._index:
            return self._values.tobytes() == other._values.tobytes()  # every None is the same NaN
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # as a dict's

    def __reduce__(self) -> tuple:
        return Figures, (dict(self),)

    def __repr__(self) -> str:
        return f"Figures({dict(self)!r})"


class Intervals(Mapping[str, tuple[float, float]]):
    """A row's confidence intervals per column, held as one array of doubles under a column index shared by every
    row with the same columns (as `Figures`): a dict of tuples of floats took ~100 bytes a column, 16 here (issue
    34). Read only, compared as any mapping."""

    __slots__ = ("_index", "_bounds")

    def __init__(self, found: Mapping[str, tuple[float, float]]):
        self._index = _column_index(tuple(found))
        self._bounds = array("d", [bound for pair in found.values() for bound in pair])  # no room to spare

    @classmethod
    def of(cls, found: Mapping[str, tuple[float, float]]) -> "Intervals":
        return found if isinstance(found, Intervals) else cls(found)

    def __getitem__(self, key: str) -> tuple[float, float]:
        i = 2 * self._index[key]
        return self._bounds[i], self._bounds[i + 1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __reduce__(self) -> tuple:
        return Intervals, (dict(self),)

    def __repr__(self) -> str:
        return f"Intervals({dict(self)!r})"


def _figure(value: Any) -> float | None:
    """A row's figure: a finite number as a float; None for None, NaN, either infinity and what is not a number."""
    found = finite(value) if isinstance(value, (int, float)) else None
    return None if found is None else float(found)


@dataclass(frozen=True, slots=True)
class BoardRow:
    # Slots: a process keeps a large board's rows between reads (leaderboard.selectors), and an instance dictionary
    # took ~1 KB of a row once the pages' remembered drawings were added to it (issue 34).
    submission_id: int
    model_id: int
    model_name: str
    model_slug: str
    kind: str
    thinking: str  # "yes", "no" or ""
    parameters_b: float | None
    source: str  # "reported" or "scored"
    overall: float | None
    values: Mapping[str, float | None] = field(default_factory=dict)
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    organisation: str = ""
    scorer_version: str = ""
    note: str = ""
    finished_at: str = ""
    parameters_from_name: bool = False  # the size was read from the model's name, not stated on its entry
    pending: str = ""  # why the figures are not final yet (e.g. answers awaiting human judgement)
    run_set: str = ""  # the uploader's label for repeated runs of one variant ("" for a single run)
    run_ids: tuple[int, ...] = ()  # the submissions averaged into this row (repeated runs); () for a single one
    run_spread: Mapping[str, float] = field(default_factory=dict)  # per column: run-to-run standard deviation
    reading_note: str = ""  # why the row has no figures under the reading shown (leaderboard.core.readings)
    row_type: str = "upload"  # one of ROW_TYPES (the submission's source)
    provenance: Mapping[str, Any] = field(default_factory=dict)  # the score's provenance keys, as anyone may see them
    # What the pages made of the row, remembered on it while a process keeps it (leaderboard.board_views: its table
    # cells per way of drawing, its CSV text per columns and reading). Not compared: rows compare as before.
    drawn_html: dict | None = field(default=None, init=False, compare=False, repr=False)
    drawn_csv: dict | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def row_type_label(self) -> str:
        return ROW_TYPE_LABELS.get(self.row_type, self.row_type)

    @property
    def runs(self) -> int:
        return max(1, len(self.run_ids))

    def __post_init__(self) -> None:
        # The figures made floats, or None where there is no finite one, once: every read asks each row for each
        # column's figure several times (filter, sort, marks), and a process keeps a board's rows between reads
        # (leaderboard.selectors), where a second, remembered copy of them cost ~2 KB a row. What is not a number
        # (a score's text or nested keys) is no column's figure. Figures and intervals are arrays under column keys
        # shared by the rows (`Figures`, `Intervals`): each score's JSON brings its own copies of some 50 keys.
        object.__setattr__(self, "overall", _figure(self.overall))
        object.__setattr__(self, "values", Figures.of(self.values))
        object.__setattr__(self, "intervals", Intervals.of(self.intervals))
        for name in ("kind", "thinking", "source", "scorer_version", "organisation", "row_type"):  # few distinct
            if type(text := getattr(self, name)) is str:
                object.__setattr__(self, name, sys.intern(text))

    def value(self, key: str) -> float | None:
        return self.overall if key == "overall" else self.values.get(key)

    def interval(self, key: str) -> tuple[float, float] | None:
        if self.source != "scored":
            return None  # the papers give no intervals; never invent one
        return self.intervals.get(key)


class BadBoardQuery(ValueError):
    def __init__(self, parameter: str, message: str):
        super().__init__(f"{parameter}: {message}")
        self.parameter = parameter
        self.message = message


@dataclass(frozen=True)
class BoardQuery:
    sort: str = "overall"
    descending: bool | None = None  # None: the column's better direction first
    kinds: tuple[str, ...] = ()
    thinking: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    types: tuple[str, ...] = ()  # row types (ROW_TYPES); (): every type
    min_params: float | None = None
    max_params: float | None = None
    search: str = ""
    all_entries: bool = False
    expanded: bool = False
    extras: bool = False
    reading: str = ""  # a second reading's key (the plugin's `readings`); "": the headline's
    scorer: str = ""  # an older scorer version whose scores to show (issue 29); "": each row's current score

    def canonical(self) -> str:
        """A stable text form, used as part of cache keys."""
        return "|".join(
            str(x)
            for x in (
                self.sort, self.descending, ",".join(sorted(self.kinds)), ",".join(sorted(self.thinking)),
                ",".join(sorted(self.sources)), self.min_params, self.max_params, self.search.lower(),
                self.all_entries, self.expanded, self.extras, self.reading, ",".join(sorted(self.types)), self.scorer,
            )
        )

    def as_params(self, **override: object) -> dict[str, str]:
        """Query-string parameters that reproduce this query (with overrides), leaving defaults out."""
        q = replace(self, **override)  # type: ignore[arg-type]
        params: dict[str, str] = {}
        if q.sort != "overall":
            params["sort"] = q.sort
        if q.descending is not None:
            params["order"] = "desc" if q.descending else "asc"
        if q.kinds:
            params["kind"] = ",".join(q.kinds)
        if q.thinking:
            params["thinking"] = ",".join(q.thinking)
        if q.sources:
            params["source"] = ",".join(q.sources)
        if q.types:
            params["type"] = ",".join(q.types)
        if q.min_params is not None:
            params["min_params"] = f"{q.min_params:g}"
        if q.max_params is not None:
            params["max_params"] = f"{q.max_params:g}"
        if q.search:
            params["q"] = q.search
        if q.all_entries:
            params["entries"] = "all"
        if q.expanded:
            params["expand"] = "1"
        if q.extras:
            params["extras"] = "1"
        if q.reading:
            params["reading"] = q.reading
        if q.scorer:
            params["scorer"] = q.scorer
        return params


def _choices(params: Mapping[str, str], name: str, allowed: Sequence[str]) -> tuple[str, ...]:
    raw = params.get(name, "") or ""
    values = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
    bad = [v for v in values if v not in allowed]
    if bad:
        raise BadBoardQuery(name, f"unknown value(s) {', '.join(repr(b) for b in bad)}; allowed: {', '.join(allowed)}")
    return values


def _number(params: Mapping[str, str], name: str) -> float | None:
    raw = (params.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise BadBoardQuery(name, f"'{raw[:40]}' is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise BadBoardQuery(name, "must be a finite number of billions >= 0")
    return value


def _flag(params: Mapping[str, str], name: str, truthy: Sequence[str] = ("1", "true", "yes", "on")) -> bool:
    raw = (params.get(name) or "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in truthy:
        return True
    raise BadBoardQuery(name, f"'{raw[:40]}' is not one of {', '.join(truthy)} or 0")


def _reading(params: Mapping[str, str], readings: Sequence[str]) -> str:
    """The second reading asked for: "" for none or the headline's own (the first of `readings`)."""
    raw = (params.get("reading") or "").strip()
    if not raw or (readings and raw == readings[0]):
        return ""
    if raw not in readings[1:]:
        allowed = ", ".join(readings) if readings else "none (this board has one reading)"
        raise BadBoardQuery("reading", f"unknown reading '{raw[:40]}'; readings: {allowed}")
    return raw


SCORER_VERSION_MAX = 200  # Score.scorer_version's length


def _scorer(params: Mapping[str, str]) -> str:
    """The scorer version asked for (`?scorer=`); whether the board has scores under it is the site's to say."""
    raw = (params.get("scorer") or "").strip()
    if len(raw) > SCORER_VERSION_MAX or any(ord(ch) < 32 for ch in raw):
        raise BadBoardQuery("scorer", f"'{raw[:40]}' is not a scorer version")
    return raw


def parse_query(params: Mapping[str, str], spec: BoardSpec, readings: Sequence[str] = ()) -> BoardQuery:
    """Read a board query from request parameters; raises BadBoardQuery on anything malformed. `readings`: the
    keys of the benchmark's readings, the headline's first (`?reading=` takes one of them)."""
    sort = (params.get("sort") or spec.default_sort).strip()
    if spec.column(sort) is None:
        raise BadBoardQuery("sort", f"unknown column '{sort[:60]}'; columns: {', '.join(c.key for c in spec.columns)}")
    order = (params.get("order") or "").strip().lower()
    if order not in ("", "asc", "desc"):
        raise BadBoardQuery("order", f"'{order[:40]}' is not 'asc' or 'desc'")
    entries = (params.get("entries") or "best").strip().lower()
    if entries not in ("best", "all"):
        raise BadBoardQuery("entries", f"'{entries[:40]}' is not 'best' or 'all'")
    search = (params.get("q") or "").strip()
    if len(search) > 100:
        raise BadBoardQuery("q", "search text is longer than 100 characters")
    query = BoardQuery(
        sort=sort,
        descending=None if not order else order == "desc",
        kinds=_choices(params, "kind", KINDS),
        thinking=_choices(params, "thinking", THINKING),
        sources=_choices(params, "source", SOURCES),
        types=_choices(params, "type", ROW_TYPES),
        min_params=_number(params, "min_params"),
        max_params=_number(params, "max_params"),
        search=search,
        all_entries=entries == "all",
        expanded=_flag(params, "expand"),
        extras=_flag(params, "extras"),
        reading=_reading(params, readings),
        scorer=_scorer(params),
    )
    if query.min_params is not None and query.max_params is not None and query.min_params > query.max_params:
        raise BadBoardQuery("min_params", "is larger than max_params")
    return query


def row_kept(row: BoardRow, query: BoardQuery) -> bool:
    """Whether the query's filters keep a row (`filter_rows`)."""
    if query.kinds and row.kind not in query.kinds:
        return False
    if query.thinking and (row.thinking or "unknown") not in query.thinking:
        return False
    if query.sources and row.source not in query.sources:
        return False
    if query.types and row.row_type not in query.types:
        return False
    if query.min_params is not None or query.max_params is not None:
        # A parameter range only keeps models whose size is known and inside it.
        if row.parameters_b is None:
            return False
        if query.min_params is not None and row.parameters_b < query.min_params:
            return False
        if query.max_params is not None and row.parameters_b > query.max_params:
            return False
    needle = query.search.casefold()
    return not needle or needle in row.model_name.casefold() or needle in row.organisation.casefold()


def filter_rows(rows: Iterable[BoardRow], query: BoardQuery) -> list[BoardRow]:
    return [row for row in rows if row_kept(row, query)]


def better_first(column: Column, descending: bool | None) -> bool:
    if descending is not None:
        return descending
    return column.direction is Direction.UP


def sort_key(row: BoardRow, key: str, descending: bool) -> tuple:
    """Where a row stands when sorting on column `key` (`sort_rows`): rows with a value first, by value (largest
    first when `descending`), then by name, then by submission. Unique per submission."""
    v = row.value(key)
    if v is None:
        return (1, 0.0, row.model_name.casefold(), row.submission_id)
    return (0, -v if descending else v, row.model_name.casefold(), row.submission_id)


def sort_rows(rows: Iterable[BoardRow], column: Column, *, descending: bool | None = None) -> list[BoardRow]:
    """Sort by one column; rows without a value always go last; ties broken by name, then submission."""
    desc = better_first(column, descending)
    return sorted(rows, key=lambda r: sort_key(r, column.key, desc))


def best_key(row: BoardRow, column: Column) -> tuple:
    """The smallest of a model's rows is the one `best_per_model` keeps: a figure on the column before none, the
    better figure, then the earlier submission."""
    v = row.value(column.key)
    if v is None:
        return (1, 0.0, row.submission_id)
    return (0, -v if column.direction is Direction.UP else v, row.submission_id)


def best_per_model(rows: Iterable[BoardRow], column: Column) -> list[BoardRow]:
    """Keep each model entry's best row on a column (scored rows beat reported ones only on the figure)."""
    best: dict[int, BoardRow] = {}
    for row in rows:
        held = best.get(row.model_id)
        if held is None or best_key(row, column) < best_key(held, column):
            best[row.model_id] = row
    return list(best.values())


def empty_leaves(rows: Sequence[BoardRow], columns: Iterable[Column]) -> tuple[Column, ...]:
    """The task (leaf) columns among `columns` that no row has a figure for: the papers' rows give only category
    scores, so on a board of reported rows "expand all tasks" would add nothing but columns of dashes."""
    filled = {c.key for c in columns if any(r.value(c.key) is not None for r in rows)}
    return tuple(c for c in columns if c.level is Level.LEAF and c.key not in filled)


def column_marks(rows: Sequence[BoardRow], columns: Iterable[Column], *,
                 within_kind: bool = False) -> dict[str, dict[int, str]]:
    """Per column, which submissions hold the best and second-best value ("best" / "second"), as the papers
    bold and underline them. Ties share the mark; rows of the human baseline are left out, as in the papers.
    `within_kind`: best and second best within each model category (proprietary, open-source, embodied,
    baseline), the way the papers' tables mark them, instead of across all rows."""
    columns = tuple(columns)
    # One pass over the rows per column: the best and second-best distinct values (per kind, or of all rows), then
    # the rows holding them. Rows of the human baseline and rows without a value are left out.
    marks: dict[str, dict[int, str]] = {}
    contestants = [r for r in rows if r.kind != "human"]
    for column in columns:
        key, up = column.key, column.direction is Direction.UP
        top: dict[str, list[float]] = {}  # group -> its best and second-best distinct values, best first
        held: list[tuple[int, str, float]] = []
        for r in contestants:
            v = r.value(key)
            if v is None:
                continue
            group = r.kind if within_kind else ""
            held.append((r.submission_id, group, v))
            best = top.get(group)
            if best is None:
                top[group] = [v]
            elif v != best[0] and (len(best) == 1 or v != best[1]):
                if (v > best[0]) if up else (v < best[0]):
                    top[group] = [v, best[0]]
                elif len(best) == 1 or ((v > best[1]) if up else (v < best[1])):
                    top[group] = [best[0], v]
        col: dict[int, str] = {}
        for sid, group, v in held:
            best = top[group]
            if v == best[0]:
                col[sid] = "best"
            elif len(best) > 1 and v == best[1]:
                col[sid] = "second"
        marks[key] = col
    return marks


def top_marks(rows: Sequence[BoardRow], columns: Iterable[Column]) -> dict[str, frozenset[int]]:
    """Per column, the submissions holding the best value across all rows (human baseline left out)."""
    return {key: frozenset(sid for sid, mark in col.items() if mark == "best")
            for key, col in column_marks(rows, columns).items()}


@dataclass(frozen=True)
class ColumnTops:
    """The figures of some rows per column, for marking them without a pass over the rows: per column and model kind
    the values sorted (the human baseline left out, as `column_marks` leaves it out; an array of doubles, 8 bytes a
    figure where a list of (value, submission) pairs took ~100: a process keeps a view's tops for every column of a
    large board, issue 34), per column how many rows, the human baseline's included, have a figure (`empty_leaves`),
    and the rows by submission. Changed by copying only what a row changes (`tops_changed`): one in use by a reader is
    never changed."""

    up: Mapping[str, bool]  # per column key: whether larger is better
    values: Mapping[str, Mapping[str, array]]
    filled: Mapping[str, int]
    rows: Mapping[int, BoardRow]

    def cover(self, columns: Iterable[Column]) -> bool:
        return all(c.key in self.up for c in columns)


def tops_of(rows: Iterable[BoardRow], columns: Iterable[Column]) -> ColumnTops:
    columns = tuple(columns)
    values: dict[str, dict[str, list[float]]] = {c.key: {} for c in columns}
    filled = {c.key: 0 for c in columns}
    by_id = {}
    for row in rows:
        by_id[row.submission_id] = row
        for c in columns:
            v = row.value(c.key)
            if v is None:
                continue
            filled[c.key] += 1
            if row.kind != "human":
                values[c.key].setdefault(row.kind, []).append(v)
    tops = {key: {kind: array("d", sorted(found)) for kind, found in by_kind.items()} for key, by_kind in values.items()}
    return ColumnTops({c.key: c.direction is Direction.UP for c in columns}, tops, filled, by_id)


def tops_changed(tops: ColumnTops, gone: Iterable[BoardRow], came: Iterable[BoardRow]) -> ColumnTops:
    """`tops` without the rows `gone` and with the rows `came` (a new ColumnTops; `tops` is left as it was)."""
    values = {key: dict(by_kind) for key, by_kind in tops.values.items()}
    filled, by_id = dict(tops.filled), dict(tops.rows)
    copied: set[tuple[str, str]] = set()
    for sign, rows in ((-1, gone), (1, came)):
        for row in rows:
            if sign > 0:
                by_id[row.submission_id] = row
            elif by_id.pop(row.submission_id, None) is None:
                raise ValueError(f"row {row.submission_id} is not among the tops")
            for key, by_kind in values.items():
                v = row.value(key)
                if v is None:
                    continue
                filled[key] += sign
                if row.kind == "human":
                    continue
                if (key, row.kind) not in copied:
                    by_kind[row.kind] = array("d", by_kind.get(row.kind, ()))
                    copied.add((key, row.kind))
                found = by_kind[row.kind]
                if sign > 0:
                    bisect.insort(found, v)
                else:
                    i = bisect.bisect_left(found, v)
                    if i == len(found) or found[i] != v:
                        raise ValueError(f"row {row.submission_id} is not among the tops of {key}")
                    del found[i]
    return ColumnTops(tops.up, values, filled, by_id)


def _leaders(found: Sequence[float], up: bool) -> tuple[float, ...]:
    """The best and second-best distinct values of sorted values, best first (fewer when there are fewer): found by
    bisection, not by walking the rows that hold them."""
    if not found:
        return ()
    if up:
        best = found[-1]
        i = bisect.bisect_left(found, best)
        return (best, found[i - 1]) if i else (best,)
    best = found[0]
    i = bisect.bisect_right(found, best)
    return (best, found[i]) if i < len(found) else (best,)


class _ColumnMarks(Mapping[int, str]):
    """One column of `column_marks` of the rows a ColumnTops holds, read per submission: a row's mark is whether its
    figure is its group's best or second-best value, so a page asks for the marks of its own rows only."""

    def __init__(self, key: str, leaders: Mapping[str, tuple[float, ...]], rows: Mapping[int, BoardRow],
                 within_kind: bool):
        self.key, self.leaders, self.rows, self.within_kind = key, leaders, rows, within_kind

    def __getitem__(self, sid: int) -> str:
        row = self.rows.get(sid)
        v = row.value(self.key) if row is not None and row.kind != "human" else None
        top = self.leaders.get(row.kind if self.within_kind else "", ()) if row is not None else ()
        if v is not None and v in top:
            return ("best", "second")[top.index(v)]
        raise KeyError(sid)

    def __iter__(self) -> Iterator[int]:  # every row: for comparing and listing, not for a page
        return (sid for sid in self.rows if sid in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _ColumnBest(AbstractSet[int]):
    """One column of `top_marks`: the submissions whose figure is the best of all rows' (`_ColumnMarks`)."""

    def __init__(self, marks: _ColumnMarks):
        self.marks = marks

    def __contains__(self, sid: object) -> bool:
        return isinstance(sid, int) and self.marks.get(sid) == "best"

    def __iter__(self) -> Iterator[int]:
        return (sid for sid, mark in self.marks.items() if mark == "best")

    def __len__(self) -> int:
        return sum(1 for _ in self)


def tops_marks(tops: ColumnTops, columns: Iterable[Column], *, within_kind: bool = False
               ) -> dict[str, _ColumnMarks]:
    """`column_marks` of the rows `tops` holds, each column's read per submission (`_ColumnMarks`)."""
    marks: dict[str, _ColumnMarks] = {}
    for column in columns:
        up = tops.up[column.key]
        leaders = {kind: _leaders(found, up) for kind, found in tops.values[column.key].items()}
        if not within_kind:  # the best two distinct values of all kinds are among each kind's best two
            leaders = {"": tuple(sorted({v for top in leaders.values() for v in top}, reverse=up)[:2])}
        marks[column.key] = _ColumnMarks(column.key, leaders, tops.rows, within_kind)
    return marks


def tops_best(tops: ColumnTops, columns: Iterable[Column]) -> dict[str, AbstractSet[int]]:
    """`top_marks` of the rows `tops` holds, each column's read per submission."""
    return {key: _ColumnBest(col) for key, col in tops_marks(tops, columns).items()}


def marks_signature(marks: Mapping[str, Mapping[int, str]], top: Mapping[str, AbstractSet[int]]) -> tuple | None:
    """What a row's best / second-best and best-of-all marks over these columns depend on besides the row itself:
    each column's leaders (`tops_marks`, `tops_best`), so that rows drawn under equal signatures are drawn alike; None
    where the marks were counted over the rows (`column_marks`), which keep no such summary."""
    parts: list[tuple] = []
    for key, column in marks.items():
        if not isinstance(column, _ColumnMarks):
            return None
        parts.append((key, column.within_kind, tuple(sorted(column.leaders.items()))))
    for key, best in top.items():
        if not isinstance(best, _ColumnBest):
            return None
        parts.append((key, tuple(sorted(best.marks.leaders.items()))))
    return tuple(parts)


def tops_empty_leaves(tops: ColumnTops, columns: Iterable[Column]) -> tuple[Column, ...]:
    """`empty_leaves` of the rows `tops` holds."""
    return tuple(c for c in columns if c.level is Level.LEAF and not tops.filled[c.key])


@dataclass(frozen=True)
class PairSignificance:
    """A precomputed paired-bootstrap result between two submissions on the same split."""

    a: int
    b: int
    p_value: float
    shared_units: int

    def significant(self, alpha: float = 0.05) -> bool:
        return self.shared_units > 0 and self.p_value < alpha


def adjacent_pairs(rows: Sequence[BoardRow]) -> list[tuple[int, int]]:
    """The (above, below) submission pairs whose significance a board shows: scored single runs standing next to
    each other in rank. Reported rows carry no samples, a mean of runs is no single submission, and a row between
    two scored ones (a paper's, say) separates them: a board compares only what it shows side by side."""
    # Each row's submission where it is a scored single run (`runs` is 1), else None.
    single = [r.submission_id if r.source == "scored" and len(r.run_ids) <= 1 else None
              for r in rows if r.kind not in UNRANKED_KINDS]
    return [(above, below) for above, below in zip(single, single[1:]) if above is not None and below is not None]


def adjacent_ties(adjacent: Iterable[tuple[int, int]], pairs: Mapping[frozenset[int], PairSignificance], *,
                  alpha: float = 0.05) -> set[int]:
    """Submissions whose difference to the row just above is not significant (paired bootstrap), of the (above,
    below) pairs `adjacent_pairs` gave. Only pairs with a stored comparison on shared samples are judged."""
    tied: set[int] = set()
    for above, below in adjacent:
        result = pairs.get(frozenset((above, below)))
        if result is not None and result.shared_units > 0 and not result.significant(alpha):
            tied.add(below)
    return tied


def compared_pairs(rows: Sequence[BoardRow], column: Column) -> tuple[tuple[int, int], ...]:
    """The pairs a view ordered by `column` judges: significance is computed on the headline figure, so it is only
    shown when ranking by it."""
    return tuple(adjacent_pairs(rows)) if column.key == "overall" else ()


def ranks(rows: Sequence[BoardRow], column: Column) -> list[int | None]:
    """Competition ranks (1, 2, 2, 4) by the sort column's value; rows without a value get no rank, nor do human
    baseline rows: as in the papers they are a reference line, not a contestant (and never tie a model)."""
    out: list[int | None] = []
    previous: float | None = None
    rank = 0
    position = 0
    for row in rows:
        v = row.value(column.key)
        if v is None or row.kind in UNRANKED_KINDS:
            out.append(None)
            continue
        position += 1
        if previous is None or v != previous:
            rank = position
        previous = v
        out.append(rank)
    return out


@dataclass(frozen=True)
class BoardView:
    spec: BoardSpec
    query: BoardQuery
    columns: tuple[Column, ...]
    rows: tuple[BoardRow, ...]
    ranks: tuple[int | None, ...]
    marks: Mapping[str, Mapping[int, str]]  # best / second best within each model category
    ties: frozenset[int]
    total_rows: int  # before filtering and best-per-model
    top: Mapping[str, AbstractSet[int]] = field(default_factory=dict)  # per column: best across all rows
    compared: tuple[tuple[int, int], ...] = ()  # the adjacent pairs whose significance this view shows
    # The figures of `rows` over every column the view can show (`ColumnTops`), for marks over other columns than
    # `columns` (`view_marks`); None where not kept. Not compared: views compare by what they show.
    tops: ColumnTops | None = field(default=None, compare=False, repr=False)


def view_marks(view: BoardView, columns: Sequence[Column]
               ) -> tuple[Mapping[str, Mapping[int, str]], Mapping[str, AbstractSet[int]]]:
    """`column_marks` within each kind and `top_marks` of the view's rows over `columns` (from its tops when it
    keeps them over these columns)."""
    if view.tops is not None and view.tops.cover(columns):
        return tops_marks(view.tops, columns, within_kind=True), tops_best(view.tops, columns)
    return column_marks(view.rows, columns, within_kind=True), top_marks(view.rows, columns)


def view_empty_leaves(view: BoardView, columns: Sequence[Column]) -> tuple[Column, ...]:
    """`empty_leaves` of the view's rows (from its tops when it keeps them over these columns)."""
    if view.tops is not None and view.tops.cover(columns):
        return tops_empty_leaves(view.tops, columns)
    return empty_leaves(view.rows, columns)


def board_build(
    rows: Sequence[BoardRow],
    spec: BoardSpec,
    query: BoardQuery,
    pairs: Mapping[frozenset[int], PairSignificance] | None = None,
    *,
    marks: bool = True,
) -> BoardView:
    """Everything a board shows, for a page, an export or the API: the one code path. `marks`: False for a reader
    that shows no best / second-best marks (the API, the exports): they are left empty."""
    column = spec.column(query.sort) or spec.columns[0]
    kept = filter_rows(rows, query)
    if not query.all_entries:
        kept = best_per_model(kept, column)
    return ordered_view(spec, query, sort_rows(kept, column, descending=query.descending), pairs, len(rows),
                        marked=marks)


def ordered_view(spec: BoardSpec, query: BoardQuery, ordered: Sequence[BoardRow],
                 pairs: Mapping[frozenset[int], PairSignificance] | None, total_rows: int, *,
                 marked: bool = False, tops: ColumnTops | None = None) -> BoardView:
    """The view of rows the query's filters kept, one per model (unless every entry) and in its order, `total_rows`
    before that: ranks and the significance of adjacent rows counted over them; with `marked` the best / second-best
    marks from a pass over the rows, with `tops` (their figures kept per column) from these."""
    column = spec.column(query.sort) or spec.columns[0]
    columns = spec.visible(expanded=query.expanded, extras=query.extras)
    # Comparisons are of the headline reading's per-sample scores: none is shown under another reading.
    # Nor under an older scorer version: the stored comparisons are of the current scores' per-sample rows.
    compared = compared_pairs(ordered, column) if not query.reading and not query.scorer else ()
    marks: Mapping[str, Mapping[int, str]] = {}
    top: Mapping[str, AbstractSet[int]] = {}
    if tops is not None:
        marks, top = tops_marks(tops, columns, within_kind=True), tops_best(tops, columns)
    elif marked:
        marks, top = column_marks(ordered, columns, within_kind=True), top_marks(ordered, columns)
    return BoardView(spec=spec, query=query, columns=columns, rows=tuple(ordered),
                     ranks=tuple(ranks(ordered, column)), marks=marks, ties=frozenset(adjacent_ties(compared, pairs or {})),
                     total_rows=total_rows, top=top, compared=compared, tops=tops)


PAGE_ROWS = 50  # rows a board page shows (and the board API's page, unless it asks for another size)
PAGE_ROWS_MAX = 500  # the largest page the board API gives


@dataclass(frozen=True)
class BoardPage:
    """One page of a board's ordered rows: `number` of `pages` (1-based), rows [start, end) of `count`."""

    number: int
    pages: int
    start: int
    end: int
    count: int
    size: int


def parse_page(params: Mapping[str, str], *, size_allowed: bool = False) -> tuple[int, int]:
    """The page asked for (`?page=`, default 1) and its size (`?page_size=`, only where `size_allowed`: the
    board API; default PAGE_ROWS, at most PAGE_ROWS_MAX); raises BadBoardQuery on anything else."""
    raw = (params.get("page") or "1").strip()
    if not raw.isdigit() or int(raw) < 1 or len(raw) > 9:
        raise BadBoardQuery("page", f"'{raw[:20]}' is not a page number (1, 2, ...)")
    size = PAGE_ROWS
    raw_size = (params.get("page_size") or "").strip() if size_allowed else ""
    if raw_size:
        if not raw_size.isdigit() or not 1 <= int(raw_size) <= PAGE_ROWS_MAX or len(raw_size) > 9:
            raise BadBoardQuery("page_size", f"'{raw_size[:20]}' is not a number of rows from 1 to {PAGE_ROWS_MAX}")
        size = int(raw_size)
    return int(raw), size


def board_page(count: int, number: int, size: int = PAGE_ROWS) -> BoardPage:
    """The page `number` of `count` ordered rows, `size` a page; a number past the last is the last page (an empty
    board has one empty page). Ranks, marks and significance stay those of the whole ordering (`board_build`)."""
    pages = max(1, -(-count // size))
    number = min(max(1, number), pages)
    start = (number - 1) * size
    return BoardPage(number=number, pages=pages, start=start, end=min(count, start + size), count=count, size=size)


def page_numbers(page: BoardPage, around: int = 2) -> list[int | None]:
    """The page numbers a board's page links show: the first, the last and `around` either side of the current
    one, None where numbers are left out (an ellipsis)."""
    shown = sorted({1, page.pages, *range(max(1, page.number - around), min(page.pages, page.number + around) + 1)})
    out: list[int | None] = []
    for n in shown:
        if out and out[-1] is not None and n - out[-1] > 1:
            out.append(None)
        out.append(n)
    return out


def format_value(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def export_table(view: BoardView, names: Mapping[str, str] | None = None, *, reading: str = ""
                 ) -> tuple[list[str], list[list[object]]]:
    """Header and rows of exactly what the board shows (rank, model, kind, thinking, params, source, columns,
    and the interval bounds of each column), then each row's type and provenance keys (scorer version, file sha256,
    split version, ground-truth hash, options, hub version; empty for a paper's number). A column is named by its key, or by `names[key]` (a headline kept
    under "overall" that the benchmark calls by its metric's name). With `reading` (a board with readings: the key
    of the one shown), a column naming it on every row and one saying why a row has no figures under it."""
    return export_header(view, names, reading=reading), list(export_lines(view, reading=reading))


def export_header(view: BoardView, names: Mapping[str, str] | None = None, *, reading: str = "") -> list[str]:
    """The header of `export_table`."""
    header = ["rank", "model", "kind", "thinking", "parameters_b", "source", "submission"]
    for c in view.columns:
        name = (names or {}).get(c.key) or c.key
        header += [name, f"{name}_ci_low", f"{name}_ci_high"]
    if reading:
        header += ["reading", "reading_note"]
    header += ["type", "scorer_version", *PROVENANCE_COLUMNS]
    return header


def export_lines(view: BoardView, *, reading: str = "") -> Iterator[list[object]]:
    """The rows of `export_table`, one at a time (a streamed export holds one row's cells at once)."""
    for rank, row in zip(view.ranks, view.rows):
        yield [rank, *export_cells(row, view.columns, reading=reading)]


def export_cells(row: BoardRow, columns: Sequence[Column], *, reading: str = "") -> list[object]:
    """A row's cells of `export_table` after its rank: the same whatever the view ranks it, so that an export can
    keep them with the row."""
    line: list[object] = [row.model_name, row.kind, row.thinking or "", row.parameters_b, row.source, row.submission_id]
    for c in columns:
        iv = row.interval(c.key)
        line += [row.value(c.key), iv[0] if iv else None, iv[1] if iv else None]
    if reading:
        line += [reading, row.reading_note]
    line += [row.row_type, row.scorer_version, *(_provenance_cell(row.provenance.get(k)) for k in PROVENANCE_COLUMNS)]
    return line


def _provenance_cell(value: Any) -> object:
    """A provenance key as one export cell: an object (the options) as its canonical JSON text; none as empty."""
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return value


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A value as a CSV export writes it: nothing for None, and text a spreadsheet would run as a formula (it starts
    with = + - @, a tab or a carriage return; model names are user input) behind a quote. Empty text stays empty."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*[Bb](?![a-zA-Z0-9])")


def parameters_from_name(name: str) -> float | None:
    """The parameter count a model's name states ("Qwen3.5-27B" -> 27, "Qwen3.5-35B-A3B" -> 35: the total,
    not the active experts), or None. Used for rows whose entry does not give a size."""
    for token in re.split(r"[-_\s/]", name):
        match = _SIZE.fullmatch(token)
        if match:
            return float(match.group(1))
    return None


_ACTIVE = re.compile(r"[Aa](\d+(?:\.\d+)?)[Bb]")


def active_parameters_from_name(name: str) -> float | None:
    """The active parameter count a mixture-of-experts name states ("Qwen3.5-35B-A3B" -> 3), or None."""
    for token in re.split(r"[-_\s/]", name):
        match = _ACTIVE.fullmatch(token)
        if match:
            return float(match.group(1))
    return None


Z95 = 1.959963984540054


def combine_runs(rows: Sequence[BoardRow]) -> list[BoardRow]:
    """Scored rows of one model entry with the same run label become one row: per column the mean of the runs
    (only where every run has a figure), the run-to-run standard deviation (n-1), and a 95% interval that accounts
    for both the test items and the runs: mean ± 1.96·sqrt(SE_items² + SD_runs²/k), where SE_items is the runs'
    average bootstrap standard error (half an interval / 1.96; the items are the same in every run, so that part
    does not shrink with k). Without every run's interval the row has none. Other rows pass through unchanged."""
    groups: dict[tuple[int, str], list[BoardRow]] = {}
    out: list[BoardRow | tuple[int, str]] = []
    for row in rows:
        if row.source != "scored" or not row.run_set:
            out.append(row)
            continue
        key = (row.model_id, row.run_set)
        if key not in groups:
            groups[key] = []
            out.append(key)
        groups[key].append(row)
    combined: list[BoardRow] = []
    for item in out:
        if isinstance(item, BoardRow):
            combined.append(item)
            continue
        runs = sorted(groups[item], key=lambda r: r.submission_id)
        combined.append(runs[0] if len(runs) == 1 else _mean_of_runs(runs))
    return combined


def _mean_of_runs(runs: Sequence[BoardRow]) -> BoardRow:
    k = len(runs)
    keys = ["overall", *dict.fromkeys(key for r in runs for key in r.values if key != "overall")]
    means: dict[str, float | None] = {}
    spread: dict[str, float] = {}
    intervals: dict[str, tuple[float, float]] = {}
    for key in keys:
        figures = [r.value(key) for r in runs]
        if any(v is None for v in figures):
            means[key] = None
            continue
        values = [float(v) for v in figures if v is not None]
        mean = sum(values) / k
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (k - 1))
        means[key], spread[key] = mean, sd
        bounds = [r.interval(key) for r in runs]
        if all(b is not None for b in bounds):
            se_items = sum((b[1] - b[0]) / (2 * Z95) for b in bounds if b is not None) / k
            half = Z95 * math.sqrt(se_items**2 + sd**2 / k)
            intervals[key] = (mean - half, mean + half)
    first = runs[0]
    return replace(
        first,
        overall=means.pop("overall"),
        values=means,
        intervals=intervals,
        run_ids=tuple(r.submission_id for r in runs),
        run_spread=spread,
        note=f"mean of {k} runs",
        finished_at=max(r.finished_at for r in runs),
        pending=next((r.pending for r in runs if r.pending), ""),
        scorer_version=first.scorer_version if all(r.scorer_version == first.scorer_version for r in runs)
        else "mixed scorer versions",
    )
