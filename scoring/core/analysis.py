"""The Analysis tab's contract: per-sample scores in, figures (a table of numbers + a chart spec + a note) out.

A benchmark's plugin names a pure function `figures(models) -> list[Figure]` (`BenchmarkPlugin.analyses`). The
site hands it, for each entry the board's filters keep, the per-sample rows the hub itself scored (never a
paper's published rows, which have no per-sample data). The leaderboard renders each figure's chart as SVG and
serves its table as CSV and JSON; docs/analyses.md defines every figure. Pure data, no Django.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from scoring.core.published import PublishedDelta, PublishedRow


@dataclass(frozen=True)
class SampleRow:
    """One sample as scored here (`SampleScore` with its split sample's category and group)."""

    key: str
    task: str = ""
    category: str = ""
    group: str = ""
    score: float | None = None
    outcome: str = ""
    invalid: bool = False
    components: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    truth: Mapping[str, Any] = field(default_factory=dict)  # only the ground-truth keys the plugin asks for


@dataclass(frozen=True)
class ModelSamples:
    """One scored submission: who it is and its samples in split order."""

    label: str  # what a figure calls it: the model name, "(thinking)" when it thinks
    model_name: str
    kind: str = ""
    thinking: str = ""
    submission_id: int = 0
    samples: Sequence[SampleRow] = ()


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]


@dataclass(frozen=True)
class Chart:
    """What to draw. kind: "bars" (grouped bars over `x`), "lines" (one line per series over numeric `x`),
    "heatmap" (one row per series, one cell per `x`), "none" (the table says it all)."""

    kind: str
    x: Sequence[str]
    series: Sequence[Series]
    y_label: str = ""
    y_max: float | None = None


@dataclass(frozen=True)
class Figure:
    key: str  # URL name: [a-z0-9-]
    title: str
    note: str  # one or two sentences: how it is computed (docs/analyses.md has the full definition)
    n_text: str  # on how many samples/episodes it stands, e.g. "2 models × 23 samples"
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    chart: Chart = Chart("none", (), ())
    n: int = 0  # samples/episodes counted, all models together

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "title": self.title, "note": self.note, "n": self.n, "n_text": self.n_text,
            "columns": list(self.columns), "rows": [dict(zip(self.columns, r)) for r in self.rows],
        }


@dataclass(frozen=True)
class AnalysisContext:
    """What a figure may show beside the hub's own scores, clearly as such: the paper's published rows of the
    models the board's filters keep, the paper's stated differences, and what the benchmark's site-side hook
    (`BenchmarkPlugin.analysis_context`) reads for the split (e.g. PLAN's audited judge verdicts)."""

    published: Sequence[PublishedRow] = ()
    deltas: Sequence[PublishedDelta] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    # The scored submissions the board's filters keep, every entry of a model (not only its best one, and each run
    # of a repeated run): for a figure that compares a model's submissions with each other from what `extra` reads.
    # None: no board chose them (every submission counts).
    submissions: frozenset[int] | None = None


Analyses = Callable[[Sequence[ModelSamples], AnalysisContext], list[Figure]]


def share(part: int, whole: int) -> float | None:
    """part/whole in percent, rounded to 0.01; None when nothing was counted."""
    return round(100.0 * part / whole, 2) if whole else None


def mean(values: Sequence[float]) -> float | None:
    """The mean in percent of 0-1 values, rounded to 0.01; None when empty."""
    return round(100.0 * sum(values) / len(values), 2) if values else None
