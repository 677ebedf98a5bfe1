"""The Analysis tab's contract: per-sample scores in, figures (a table of numbers + a chart spec + a note) out.

A benchmark's plugin names a pure function `figures(models) -> list[Figure]` (`BenchmarkPlugin.analyses`). The
site hands it, for each entry the board's filters keep, the per-sample rows the hub itself scored (never a
paper's published rows, which have no per-sample data). The leaderboard renders each figure's chart as SVG and
serves its table as CSV and JSON; docs/analyses.md defines every figure. A plugin may also name its figures in two
steps (`AnalysisSummaries`: a JSON summary per submission, stored when its score lands, and the figures combined
from the summaries), so a page reads no per-sample row (issue 34). Pure data, no Django.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Collection, Mapping, Sequence

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
class EntryPage:
    """The entries of one page of the Analysis tab (issue 34): of the labels of every entry a board keeps
    (`labels`), those the page shows (`shown`). A series or table row named by an entry's label (or its label,
    " · " and a part: `entry_of`) is the page's when its entry is shown; one of no entry (an aggregate, a paper's
    row) is every page's."""

    shown: frozenset[str]
    labels: frozenset[str]
    _known: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)  # an entry's rows repeat its name

    def keeps(self, name: Any) -> bool:
        """Whether a series or table row named `name` is on this page."""
        if not isinstance(name, str):
            return True
        found = self._known.get(name)
        if found is None:
            entry = entry_of(name, self.labels)
            found = self._known[name] = entry is None or entry in self.shown
        return found


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
    # The summaries (`AnalysisSummaries.summarise`) of those submissions, by id, where the site combines stored
    # summaries: what a figure that compares a model's submissions reads of each instead of its samples.
    summaries: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    # The page of entries asked for (issue 34): a `combine` may make the per-entry rows and series of the shown
    # entries only (`keeps`), while what spans entries (N and its text, aggregates, the papers' rows) stays computed
    # over all of them. None: every entry's (the exports, the tools). The site pages the result with `figure_page`
    # all the same, so a benchmark that makes every entry's rows gives the same page, only slower.
    page: EntryPage | None = None
    # What the figures read of every entry (`AnalysisSummaries.span` of all of them: counts, the union of their
    # categories, ...), where the site stored it (issue 34): `combine` is then given only the summaries of the page's
    # entries and the entries of the same models (`AnalysisSummaries.span`), and reads every N and aggregate here.
    # None: `combine` computes it from the summaries it is given.
    span: Mapping[str, Any] | None = None

    def keeps(self, name: Any) -> bool:
        """Whether the rows and series named `name` (an entry's label, or an aggregate's name) are wanted."""
        return self.page is None or self.page.keeps(name)


Analyses = Callable[[Sequence[ModelSamples], AnalysisContext], list[Figure]]


@dataclass(frozen=True)
class ModelSummary:
    """One scored submission as its summary: who it is (as `ModelSamples`) and the JSON-able sufficient statistics
    of its samples its benchmark's `summarise` wrote (counts and sums per task, leaf, bucket, ...), from which the
    figures are combined without reading a per-sample row. Lists, not dicts, where order matters: a stored summary
    comes back from PostgreSQL's jsonb with its object keys reordered."""

    label: str
    model_name: str
    kind: str = ""
    thinking: str = ""
    submission_id: int = 0
    summary: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AnalysisSummaries:
    """A benchmark's analyses in two steps (`BenchmarkPlugin.analysis_summaries`): `summarise(model, extra)` one
    submission's samples into a JSON-able summary (`extra`: what the summary reads besides the samples, e.g. VGE's
    device graphs; the site's `analysis_summary_context`), and `combine(summaries, context)` the figures from the
    summaries of the board's entries. `version` names the summaries' layout and definitions: a stored summary of
    another version is stale and computed again. `figures(models, context)` is combine(summarise each): one path.

    `span(summaries, context)`: the JSON-able aggregate of the board's summaries that the figures read over every
    entry (each figure's N, the union of the entries' categories, the thinking pairs' count, ...). Given it
    (`AnalysisContext.span`), `combine` makes the same figures of a page from the summaries of the page's entries and
    of every entry and submission of the same models (a figure may compare an entry with its model's other entries,
    never with another model's), so a page reads a stored aggregate and the summaries of its own entries alone."""

    version: str
    summarise: Callable[[ModelSamples, Mapping[str, Any]], dict[str, Any]]
    combine: Callable[[Sequence[ModelSummary], AnalysisContext], list[Figure]]
    span: Callable[[Sequence[ModelSummary], AnalysisContext], dict[str, Any]] | None = None


def summary_of(m: ModelSamples, summary: Mapping[str, Any]) -> ModelSummary:
    return ModelSummary(label=m.label, model_name=m.model_name, kind=m.kind, thinking=m.thinking,
                        submission_id=m.submission_id, summary=summary)


def summarise_all(summaries: AnalysisSummaries, models: Sequence[ModelSamples],
                  extra: Mapping[str, Any]) -> list[ModelSummary]:
    return [summary_of(m, summaries.summarise(m, extra)) for m in models]


def mean_of(total: float, n: int) -> float | None:
    """`mean` from a sum and a count: mean(values) == mean_of(sum(values), len(values))."""
    return round(100.0 * total / n, 2) if n else None


def share(part: int, whole: int) -> float | None:
    """part/whole in percent, rounded to 0.01; None when nothing was counted."""
    return round(100.0 * part / whole, 2) if whole else None


def mean(values: Sequence[float]) -> float | None:
    """The mean in percent of 0-1 values, rounded to 0.01; None when empty."""
    return round(100.0 * sum(values) / len(values), 2) if values else None


def entry_of(name: str, labels: Collection[str]) -> str | None:
    """The entry label (`labels`) a series or table row named `name` belongs to: the label itself, or a label
    followed by " · " and a part of the entry (e.g. "model · VM"); None for a row or series of no entry (an
    aggregate, a paper's row, a decider)."""
    if name in labels:
        return name
    at = name.find(" · ")
    while at != -1:
        if name[:at] in labels:
            return name[:at]
        at = name.find(" · ", at + 1)
    return None


def figure_page(figure: Figure, page: EntryPage) -> Figure:
    """`figure` with only the per-entry series and table rows of the entries `page` shows (issue 34: the page's size
    stays flat as the board grows); every series and row of no entry (the aggregates, the papers' rows) is kept as
    computed over all entries, and so are `n` and `n_text`."""
    chart = replace(figure.chart, series=[s for s in figure.chart.series if page.keeps(s.name)])
    return replace(figure, rows=[r for r in figure.rows if not r or page.keeps(r[0])], chart=chart)
