"""Readers for the papers' published tables (data/published/*.csv): plain rows of numbers, None for unknown.

Each benchmark's plugin names its file and columns (a `PublishedTable`); this module maps them to one shape: model,
kind, thinking, overall and a breakdown keyed the way the boards key their columns. A table may have a long-form
file of further figures the paper's text states (`model,kind,thinking,metric,value,source`): figures on board
columns join the model's breakdown (a figure that contradicts the table is an error), the others are kept as
named figures with their source.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping


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
    figures: Mapping[str, float] = field(default_factory=dict)  # named figures that are no board column
    sources: Mapping[str, str] = field(default_factory=dict)  # where the text states each figure
    source_file: str = ""


@dataclass(frozen=True)
class PublishedTable:
    benchmark: str
    filename: str
    overall_column: str
    breakdown_columns: tuple[str, ...]
    has_thinking: bool = False
    figures_filename: str = ""  # long-form figures extending the table
    figure_columns: tuple[str, ...] = ()  # board columns besides the table's own that figures may fill
    deltas_filename: str = ""  # differences the text states (`model_or_group,metric,delta,source`)


@dataclass(frozen=True)
class PublishedDelta:
    """A difference the paper's text states, e.g. Thinking minus Non-Thinking for a model or a mean over models."""

    benchmark: str
    subject: str  # a model name, or a description of the group of models
    metric: str
    delta: float
    source: str
    line: int = 0


FIGURE_COLUMNS = ("model", "kind", "thinking", "metric", "value", "source")
DELTA_COLUMNS = ("model_or_group", "metric", "delta", "source")


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


def _records(path: Path, needed: Iterable[str]) -> list[tuple[int, dict[str, str]]]:
    """(line number, record) per data line of a CSV file whose header has every `needed` column."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = set(needed) - set(reader.fieldnames or ())
        if missing:
            raise PublishedDataError(f"{path.name}: missing columns {sorted(missing)}")
        return list(enumerate(reader, start=2))


def read_table(directory: Path, table: PublishedTable) -> list[PublishedRow]:
    rows = _read_wide(directory, table)
    return _with_figures(directory, table, rows) if table.figures_filename else rows


def _read_wide(directory: Path, table: PublishedTable) -> list[PublishedRow]:
    path = directory / table.filename
    kind_column = "group" if table.has_thinking else "kind"
    needed = {"model", kind_column, table.overall_column, *table.breakdown_columns}
    return [
        PublishedRow(
            benchmark=table.benchmark,
            model=record["model"].strip(),
            kind=record[kind_column].strip(),
            thinking=record.get("thinking", "").strip() if table.has_thinking else "",
            overall=_number(record[table.overall_column], path=path, line=line, column=table.overall_column),
            breakdown={c: _number(record[c], path=path, line=line, column=c) for c in table.breakdown_columns},
            note=(record.get("note") or "").strip(),
            line=line,
            source_file=path.name,
        )
        for line, record in _records(path, needed)
    ]


def read_all(directory: Path, tables: Iterable[PublishedTable]) -> list[PublishedRow]:
    return [row for table in tables for row in read_table(directory, table)]


def _with_figures(directory: Path, table: PublishedTable, rows: list[PublishedRow]) -> list[PublishedRow]:
    path = directory / table.figures_filename
    by_model = {row.model: row for row in rows}
    merged: dict[str, dict] = {
        row.model: {"overall": row.overall, "breakdown": dict(row.breakdown), "figures": {}, "sources": {}}
        for row in rows
    }
    added: list[PublishedRow] = []
    for line, record in _records(path, FIGURE_COLUMNS):
        model, metric = record["model"].strip(), record["metric"].strip()
        value = _number(record["value"], path=path, line=line, column="value")
        if value is None:
            raise PublishedDataError(f"{path.name}, line {line}, column 'value': a figure needs a value")
        if model not in merged:
            row = PublishedRow(table.benchmark, model, record["kind"].strip(), "", None, {}, line=line,
                               source_file=path.name)
            by_model[model] = row
            added.append(row)
            merged[model] = {"overall": None, "breakdown": {}, "figures": {}, "sources": {}}
        target = merged[model]
        if metric == table.overall_column:
            known = target["overall"]
            target["overall"] = value
        elif metric in table.breakdown_columns or metric in table.figure_columns:
            known = target["breakdown"].get(metric)
            target["breakdown"][metric] = value
        else:
            known = target["figures"].get(metric)
            target["figures"][metric] = value
        if known is not None and known != value:
            raise PublishedDataError(
                f"{path.name}, line {line}: {model} {metric} = {value}, but {known} is already stated"
            )
        target["sources"][metric] = record["source"].strip()
    return [
        replace(row, overall=merged[row.model]["overall"], breakdown=merged[row.model]["breakdown"],
                figures=merged[row.model]["figures"], sources=merged[row.model]["sources"])
        for row in [*rows, *added]
    ]


def read_deltas(directory: Path, table: PublishedTable) -> list[PublishedDelta]:
    """The table's stated differences ([] when it has none); every line needs a subject, a metric and a number."""
    if not table.deltas_filename:
        return []
    path = directory / table.deltas_filename
    out = []
    for line, record in _records(path, DELTA_COLUMNS):
        subject, metric = (record["model_or_group"] or "").strip(), (record["metric"] or "").strip()
        if not subject or not metric:
            raise PublishedDataError(f"{path.name}, line {line}: a delta needs model_or_group and metric")
        delta = _number(record["delta"], path=path, line=line, column="delta")
        if delta is None:
            raise PublishedDataError(f"{path.name}, line {line}, column 'delta': a delta needs a value")
        out.append(PublishedDelta(table.benchmark, subject, metric, delta, (record["source"] or "").strip(), line))
    return out


MODEL_FACTS_FILENAME = "model_facts.csv"
FACT_COLUMNS = ("model", "organisation", "organisation_source", "open_weights", "open_weights_source",
                "parameters_b", "parameters_source", "thinking", "thinking_source")


@dataclass(frozen=True)
class ModelFacts:
    """What is known of a published model beyond its figures, each fact with where it is stated (the paper's table,
    the model's name, the maker's release). An empty fact is unknown, never false."""

    model: str
    organisation: str = ""
    open_weights: bool | None = None
    parameters_b: float | None = None
    thinking: str = ""  # "yes"/"no" when the paper's row does not state the mode and the name does
    sources: Mapping[str, str] = field(default_factory=dict)  # ModelEntry field name -> source


def _yes_no(text: str, *, path: Path, line: int, column: str) -> str:
    text = (text or "").strip().lower()
    if text not in ("", "yes", "no"):
        raise PublishedDataError(f"{path.name}, line {line}, column '{column}': '{text}' is not yes, no or empty")
    return text


def read_model_facts(directory: Path, filename: str = MODEL_FACTS_FILENAME) -> dict[str, ModelFacts]:
    """Model name -> its facts ({} when the directory has no such file). Each fact needs its source."""
    path = directory / filename
    if not path.exists():
        return {}
    out: dict[str, ModelFacts] = {}
    for line, record in _records(path, FACT_COLUMNS):
        model = (record["model"] or "").strip()
        if not model or model in out:
            raise PublishedDataError(f"{path.name}, line {line}: a model name is needed, once: '{model}'")
        open_weights = _yes_no(record["open_weights"], path=path, line=line, column="open_weights")
        thinking = _yes_no(record["thinking"], path=path, line=line, column="thinking")
        facts = {
            "organisation": ((record["organisation"] or "").strip(), "organisation_source"),
            "open_weights": (open_weights, "open_weights_source"),
            "parameters_b": ((record["parameters_b"] or "").strip(), "parameters_source"),
            "thinking": (thinking, "thinking_source"),
        }
        sources = {}
        for name, (value, source_column) in facts.items():
            source = (record[source_column] or "").strip()
            if value and not source:
                raise PublishedDataError(f"{path.name}, line {line}: {model}'s {name} needs its source")
            if value:
                sources[name] = source
        out[model] = ModelFacts(
            model=model, organisation=facts["organisation"][0],
            open_weights={"yes": True, "no": False}.get(open_weights),
            parameters_b=_number(record["parameters_b"], path=path, line=line, column="parameters_b"),
            thinking=thinking, sources=sources,
        )
    return out
