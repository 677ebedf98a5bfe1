"""Readers for the papers' published tables (data/published/*.csv): plain rows of numbers, None for unknown.

Each benchmark's file has its own columns; this module maps them to one shape: model, kind, thinking,
overall and a breakdown keyed the way the boards key their columns.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping


@dataclass(frozen=True)
class PublishedRow:
    benchmark: str
    model: str
    kind: str
    thinking: str  # "yes", "no" or "" when the paper does not say
    overall: float | None
    breakdown: Mapping[str, float | None] = field(default_factory=dict)
    note: str = ""
    line: int = 0


@dataclass(frozen=True)
class PublishedTable:
    benchmark: str
    filename: str
    overall_column: str
    breakdown_columns: tuple[str, ...]
    has_thinking: bool = False


TABLES = (
    PublishedTable(
        "epic-bench", "epic_bench_table8.csv", "average", ("BA", "SRA", "ECA", "GD", "FP", "VM", "AR", "CR", "PR"), True
    ),
    PublishedTable(
        "plan-bench", "plan_bench.csv", "overall", ("spatial_cognition", "temporal_reasoning", "multi_step_planning")
    ),
    PublishedTable(
        "vge-bench",
        "vge_bench.csv",
        "SR",
        ("SR", "SSR", "SPL", "State-F1", "EIR", "TIR", "VSPS", "GVPE", "EER", "PSR", "AvgDist", "AvgWDist"),
    ),
)


class PublishedDataError(ValueError):
    pass


def _number(text: str, *, path: Path, line: int, column: str) -> float | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise PublishedDataError(f"{path.name}, line {line}, column '{column}': '{text}' is not a number") from None


def read_table(directory: Path, table: PublishedTable) -> list[PublishedRow]:
    path = directory / table.filename
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        kind_column = "group" if table.has_thinking else "kind"
        needed = {"model", kind_column, table.overall_column, *table.breakdown_columns}
        missing = needed - set(reader.fieldnames or ())
        if missing:
            raise PublishedDataError(f"{path.name}: missing columns {sorted(missing)}")
        rows = []
        for line, record in enumerate(reader, start=2):
            rows.append(
                PublishedRow(
                    benchmark=table.benchmark,
                    model=record["model"].strip(),
                    kind=record[kind_column].strip(),
                    thinking=record.get("thinking", "").strip() if table.has_thinking else "",
                    overall=_number(record[table.overall_column], path=path, line=line, column=table.overall_column),
                    breakdown={
                        c: _number(record[c], path=path, line=line, column=c) for c in table.breakdown_columns
                    },
                    note=(record.get("note") or "").strip(),
                    line=line,
                )
            )
    return rows


def read_all(directory: Path) -> list[PublishedRow]:
    return [row for table in TABLES for row in read_table(directory, table)]
