"""The shape of a benchmark's board: columns grouped under headers, as the papers lay them out.

Each benchmark's plugin builds its `BoardSpec` from its own core's taxonomy. A column has a key (the Score.breakdown key, or "overall"), a label, the header group it sits under, a
direction (higher or lower is better) and a visibility level: headline columns are always shown, leaves
when their group is expanded, extras on demand. Pure data, no Django.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Direction(str, Enum):
    UP = "up"  # higher is better
    DOWN = "down"  # lower is better


class Level(str, Enum):
    HEADLINE = "headline"
    LEAF = "leaf"
    EXTRA = "extra"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    title: str = ""
    group: str = ""  # header group label ("" for none)
    direction: Direction = Direction.UP
    level: Level = Level.HEADLINE
    parent: str = ""  # for leaves: the headline column they expand from
    digits: int = 2
    scale: float | None = 100.0  # the top of a plot's axis for it: 100 for a percentage; None: from its values

    @property
    def better_arrow(self) -> str:
        return "↑" if self.direction is Direction.UP else "↓"


@dataclass(frozen=True)
class BoardSpec:
    benchmark: str
    columns: tuple[Column, ...]
    default_sort: str = "overall"

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)

    def visible(self, *, expanded: bool = False, extras: bool = False) -> tuple[Column, ...]:
        shown = {Level.HEADLINE}
        if expanded:
            shown.add(Level.LEAF)
        if extras:
            shown.add(Level.EXTRA)
        return tuple(c for c in self.columns if c.level in shown)

    @property
    def has_leaves(self) -> bool:
        return any(c.level is Level.LEAF for c in self.columns)

    @property
    def has_extras(self) -> bool:
        return any(c.level is Level.EXTRA for c in self.columns)


def overall_only(benchmark: str) -> BoardSpec:
    """The board of a benchmark whose plugin declares no columns: its overall score only."""
    return BoardSpec(benchmark, (Column("overall", "Overall"),))
