"""What moved between two scorer versions of one board (issue 29): each row's headline figure and rank under the
older and the newer version, and by how much. Pure: rows in, rows out.

Ranks are competition ranks ("1, 2, 2, 4") by the figure, higher first, among every row that has a figure under
that version (a paper's reported rows included: they are on both boards, unchanged, so a re-scored row passing one
moves in rank). A row scored under one version only is listed as added or dropped, never compared across.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

MOVED_EPSILON = 1e-9  # figures closer than this are the same figure (floating-point noise of a re-computation)


@dataclass(frozen=True)
class VersionRow:
    """One row of the board under one scorer version: its key (a submission id), what the reader sees and figure."""

    key: int
    label: str
    overall: float | None
    reported: bool = False


@dataclass(frozen=True)
class DiffRow:
    key: int
    label: str
    old: float | None
    new: float | None
    old_rank: int | None
    new_rank: int | None
    reported: bool = False

    @property
    def delta(self) -> float | None:
        return self.new - self.old if self.old is not None and self.new is not None else None

    @property
    def rank_change(self) -> int | None:
        """Places gained (positive: up the board)."""
        return self.old_rank - self.new_rank if self.old_rank is not None and self.new_rank is not None else None

    @property
    def status(self) -> str:
        if self.old_rank is None and self.new_rank is not None:
            return "added"
        if self.new_rank is None and self.old_rank is not None:
            return "dropped"
        if (self.delta is not None and abs(self.delta) > MOVED_EPSILON) or self.rank_change:
            return "moved"
        return "same"


def ranks(rows: Sequence[VersionRow]) -> dict[int, int]:
    """Competition ranks by figure, higher first; rows without a figure get none."""
    scored = sorted((r for r in rows if r.overall is not None), key=lambda r: -r.overall)  # type: ignore[operator]
    out: dict[int, int] = {}
    for position, row in enumerate(scored, start=1):
        previous = scored[position - 2] if position > 1 else None
        same = previous is not None and abs(previous.overall - row.overall) <= MOVED_EPSILON  # type: ignore[operator]
        out[row.key] = out[previous.key] if same and previous is not None else position
    return out


def version_diff(old: Sequence[VersionRow], new: Sequence[VersionRow]) -> list[DiffRow]:
    """Every row of either version with its figures and ranks under both; moved rows first (the largest change of
    figure first), then added and dropped, then the unchanged, each in the new board's order."""
    old_by, new_by = {r.key: r for r in old}, {r.key: r for r in new}
    old_ranks, new_ranks = ranks(old), ranks(new)
    keys = list(dict.fromkeys([*new_by, *old_by]))
    rows = []
    for key in keys:
        a, b = old_by.get(key), new_by.get(key)
        either = b or a
        assert either is not None
        rows.append(DiffRow(key, either.label, a.overall if a else None, b.overall if b else None,
                            old_ranks.get(key) if a else None, new_ranks.get(key) if b else None, either.reported))
    order = {"moved": 0, "added": 1, "dropped": 2, "same": 3}
    return sorted(rows, key=lambda r: (order[r.status], -abs(r.delta or 0.0),
                                       r.new_rank if r.new_rank is not None else 10**9, r.key))


def moved(rows: Sequence[DiffRow]) -> list[DiffRow]:
    return [r for r in rows if r.status == "moved"]


def summary(rows: Sequence[DiffRow]) -> Mapping[str, int]:
    counts = {"moved": 0, "added": 0, "dropped": 0, "same": 0}
    for row in rows:
        counts[row.status] += 1
    return counts
