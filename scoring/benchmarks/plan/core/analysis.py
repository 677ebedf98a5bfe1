"""PLAN-Bench's analyses on the hub's own verdicts, with the paper's stated figures beside them (marked "paper").

Input: each scored submission's items (`SampleScore.details`: dimension, type, decided_by; `score` 1/0, None while
undecided; `truth["answer_hint"]`), the paper's rows and stated deltas (`AnalysisContext.published`, `.deltas`)
and the audited judge verdicts of the split (`AnalysisContext.extra["agreement"]`, from
`scoring.benchmarks.plan.selectors.plan_judge_agreement`). docs/analyses.md defines each figure. Pure.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from scipy.stats import binomtest

from scoring.benchmarks.plan.core.aggregate import COLUMNS, Row, chance_breakdown
from scoring.benchmarks.plan.core.aggregate import summarise as board_summarise
from scoring.benchmarks.plan.core.types import DIMENSION_KEYS, DIMENSION_OF, SUBTASKS, ItemType
from scoring.core.analysis import (
    AnalysisContext,
    AnalysisSummaries,
    Chart,
    Figure,
    ModelSamples,
    ModelSummary,
    SampleRow,
    Series,
    share,
    summarise_all,
)

DIMENSIONS = tuple(DIMENSION_KEYS.values())
# The paper's groups (sec. 4.3, Fig. 6): "We group Plan-Bench into Navigation-related (Route Planning, Instruction
# Alignment, and Target Discovery) and Manipulation-related (Dependency Planning, Constraint Sequencing, and
# Occlusion Order)." The other ten subtasks count in neither.
NAVIGATION = ("Route", "IA", "TD")
MANIPULATION = ("DP", "CS", "OO")
DECIDERS = ("rule", "model", "person", "undecided")
GROUPS: tuple[tuple[str, Callable[[SampleRow], bool]], ...] = (
    ("navigation", lambda s: s.task in NAVIGATION),
    ("manipulation", lambda s: s.task in MANIPULATION),
    ("single_choice", lambda s: s.details.get("type") == "single_choice"),
    ("open", lambda s: s.details.get("type") == "open"),
    ("with_hint", lambda s: bool(s.truth.get("answer_hint"))),
    ("without_hint", lambda s: not s.truth.get("answer_hint")),
)


def dimension_of(s: SampleRow) -> str:
    title = s.details.get("dimension") or DIMENSION_OF.get(s.task, "")
    return DIMENSION_KEYS.get(title, title)


def accuracy(samples: Sequence[SampleRow]) -> tuple[int, float | None]:
    """(decided items, percent correct among them); undecided items (score None) are left out."""
    return _accuracy(_decided(samples))


def _decided(samples: Sequence[SampleRow]) -> list[Any]:
    """[decided items, sum of their scores] (the sufficient statistics of `accuracy`)."""
    decided = [float(s.score) for s in samples if s.score is not None]
    return [len(decided), sum(decided)]


def _accuracy(cell: Sequence[Any]) -> tuple[int, float | None]:
    n, total = int(cell[0]), cell[1]
    return n, (round(100.0 * total / n, 2) if n else None)


def _select(m: ModelSamples, column: str) -> list[SampleRow]:
    if column == "overall":
        return list(m.samples)
    if column in DIMENSIONS:
        return [s for s in m.samples if dimension_of(s) == column]
    return [s for s in m.samples if s.task == column]


COLUMNS_SHOWN = ("overall", *DIMENSIONS, *SUBTASKS)


def summarise(m: ModelSamples, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One submission's sufficient statistics (docs/analyses.md, "Summaries"): its item count; per board column
    (COLUMNS_SHOWN) and per group (GROUPS) [decided items, sum of their scores]; per subtask its items and how many
    each decider decided (DECIDERS' order)."""
    deciders = []
    for code in SUBTASKS:
        counts = {d: 0 for d in DECIDERS}
        items = [s for s in m.samples if s.task == code]
        for s in items:
            decider = s.details.get("decided_by") if s.score is not None else None
            counts[decider if decider in counts else "undecided"] += 1
        deciders.append([len(items), [counts[d] for d in DECIDERS]])
    return {"n": len(m.samples), "columns": [_decided(_select(m, c)) for c in COLUMNS_SHOWN],
            "groups": [_decided([s for s in m.samples if test(s)]) for _name, test in GROUPS],
            "deciders": deciders}


def _column(m: ModelSummary, column: str) -> tuple[int, float | None]:
    return _accuracy(m.summary["columns"][COLUMNS_SHOWN.index(column)])


def _paper_value(row: Any, column: str) -> float | None:
    if column == "overall":
        return row.overall
    value = row.breakdown.get(column)
    return value if value is not None else row.figures.get(column)


def subtasks(models: Sequence[ModelSummary], context: AnalysisContext, span: Mapping[str, Any]) -> list[Figure]:
    columns = COLUMNS_SHOWN
    rows: list[tuple[Any, ...]] = []  # a figure's table: one tuple per row, of its columns
    series = []
    total = span["n"]
    for m in models:
        values = []
        for c in columns:
            n, acc = _column(m, c)
            rows.append((m.label, "scored here", c, n, acc))
            values.append(acc)
        series.append(Series(m.label, values))
    for p in context.published:
        values = [_paper_value(p, c) for c in columns]
        if not any(v is not None for v in values):
            continue
        rows += [(p.model, "paper", c, None, v) for c, v in zip(columns, values) if v is not None]
        series.append(Series(f"{p.model} (paper)", values))
    return [Figure(
        "subtasks", "Accuracy per dimension and subtask, with the paper's figures",
        "Percent correct among the decided items of each entry scored here (undecided items left out), per "
        "dimension and subtask; the paper's rows (marked 'paper', no N) are the figures its text states.",
        f"{span['entries']} entries scored here, {total} items in all; {len(context.published)} paper rows",
        ("model", "source", "column", "n", "accuracy"), rows,
        Chart("heatmap", list(columns), series, "accuracy (%)", 100.0), total)]


def _pairs(models: Sequence[ModelSummary]) -> list[tuple[str, dict[str, ModelSummary]]]:
    """Per model name scored in both modes (its first entry of each, in the board's order): (name, both)."""
    by_name: dict[str, dict[str, ModelSummary]] = {}
    for m in models:
        if m.thinking in ("yes", "no"):
            by_name.setdefault(m.model_name, {}).setdefault(m.thinking, m)
    return [(name, pair) for name, pair in by_name.items() if set(pair) == {"yes", "no"}]


def thinking_pairs(models: Sequence[ModelSummary], context: AnalysisContext,
                   span: Mapping[str, Any]) -> list[Figure]:
    metrics = ("overall", *DIMENSIONS)
    rows: list[tuple[Any, ...]] = []  # a figure's table: one tuple per row, of its columns
    series = []
    pairs, total = span["pairs"]
    for name, pair in _pairs(models):
        if not context.keeps(name):
            continue  # another page's pair
        gains = []
        for metric in metrics:
            n_t, think = _column(pair["yes"], metric)
            n_n, plain = _column(pair["no"], metric)
            gain = round(think - plain, 2) if think is not None and plain is not None else None
            rows.append((name, "scored here", metric, n_t, n_n, think, plain, gain))
            gains.append(gain)
        series.append(Series(name, gains))
    paper: dict[str, dict[str, float]] = {}
    for d in context.deltas:
        if d.metric in metrics:
            paper.setdefault(d.subject, {})[d.metric] = d.delta
        rows.append((d.subject, "paper", d.metric, None, None, None, None, d.delta))
    for subject, values in paper.items():
        series.append(Series(f"{subject[:34]} (paper)", [values.get(m) for m in metrics]))
    return [Figure(
        "thinking", "Thinking minus non-thinking, paired by model",
        "For each model scored here in both modes (the same model name, thinking and non-thinking entries): "
        "accuracy with thinking minus without, overall and per dimension, in points. The paper's stated "
        "differences are listed as 'paper' (data/published/plan_bench_deltas.csv).",
        f"{pairs} pairs scored here, {total} items in all; {len(context.deltas)} paper deltas",
        ("model", "source", "metric", "n_thinking", "n_non_thinking", "thinking", "non_thinking", "gain"), rows,
        Chart("heatmap", list(metrics), series, "gain (points; a loss shows white)"), total)]


def item_groups(models: Sequence[ModelSummary], context: AnalysisContext, span: Mapping[str, Any]) -> list[Figure]:
    names = [g for g, _ in GROUPS]
    rows: list[tuple[Any, ...]] = []  # a figure's table: one tuple per row, of its columns
    series = []
    total = span["n"]
    for m in models:
        values = []
        for name, cell in zip(names, m.summary["groups"]):
            n, acc = _accuracy(cell)
            rows.append((m.label, "scored here", name, n, acc))
            values.append(acc)
        series.append(Series(m.label, values))
    for p in context.published:
        values = [_paper_value(p, g) for g in names]
        if any(v is not None for v in values):
            rows += [(p.model, "paper", g, None, v) for g, v in zip(names, values) if v is not None]
            series.append(Series(f"{p.model} (paper)", values))
    return [Figure(
        "groups", "Navigation vs manipulation, single-choice vs open, with vs without an answer hint",
        f"Percent correct among decided items in each group. Navigation and manipulation as the paper groups them "
        f"(Sec. 4.3, Fig. 6): navigation {', '.join(NAVIGATION)}; manipulation {', '.join(MANIPULATION)}. Hint: "
        "the item has an answer hint for the judge.",
        f"{span['entries']} entries scored here, {total} items in all", ("model", "source", "group", "n", "accuracy"),
        rows, Chart("bars", names, series, "accuracy (%)", 100.0), total)]


COMPUTED = "computed from this split's options"


def random_baseline_columns(items: Sequence[Mapping[str, Any]]) -> tuple[dict[str, int], dict[str, float | None]]:
    """(items per board column, a uniform guesser's expected accuracy per column) for items given as dimension,
    subtask, type ("single_choice"/"open") and number of options: `aggregate.chance_breakdown` over them."""
    board_rows = [Row(DIMENSION_OF.get(i["subtask"], i["dimension"]), i["subtask"], ItemType(i["type"]), None)
                  for i in items]
    if not board_rows:
        return {}, {}
    return (board_summarise(board_rows, intervals=False).counts,
            chance_breakdown(board_rows, [int(i.get("options") or 0) for i in items]))


def random_baseline(models: Sequence[ModelSummary], context: AnalysisContext) -> list[Figure]:
    """The paper's Table 1 row "Random baseline", computed for this split from its items' option counts
    (`AnalysisContext.extra["random_baseline"]["items"]`: dimension, subtask, type, options; inputs, no ground
    truth) and averaged per board column as the board averages verdicts; the paper's row beside when the board
    keeps it."""
    items = (context.extra.get("random_baseline") or {}).get("items") or ()
    counts, chance = random_baseline_columns(items)
    rows: list[tuple[Any, ...]] = []  # a figure's table: one tuple per row, of its columns
    series = []
    if items:
        rows += [(COMPUTED, c, counts[c], chance[c]) for c in COLUMNS]
        series.append(Series("Random baseline (computed)", [chance[c] for c in COLUMNS]))
    for p in context.published:
        if p.kind != "baseline" or not p.model.lower().startswith("random"):
            continue
        values = [_paper_value(p, c) for c in COLUMNS]
        rows += [("paper", c, None, v) for c, v in zip(COLUMNS, values) if v is not None]
        series.append(Series(f"{p.model} (paper)", values))
    n_text = (f"{len(items)} items of this split" if items else
              "no items read for this page: a split with hidden ground truth gets no site reads here (the board "
              "shows its computed baseline above the table), or the split has no items")
    return [Figure(
        "random-baseline", "Random baseline (computed from this split's options)",
        "What a uniform guesser scores in expectation on this split: a single-choice item with k options counts "
        "1/k (ours; the paper's Table 1 states 25% for its four-option items), an open item 0 (the paper's "
        "Table 1: 0% open), averaged over each column's items as the board averages verdicts. Read from the "
        "items' option counts only, never their answers. The paper's 'Random baseline' row (marked 'paper') "
        "beside when the board keeps it.",
        n_text, ("source", "column", "n", "accuracy"), rows,
        Chart("bars", list(COLUMNS), series, "accuracy (%)", 100.0), len(items))]


def wilson(agree: int, n: int) -> tuple[float | None, float | None]:
    """The 95% Wilson score interval of agree/n, in percent (None, None when n is 0)."""
    if not n:
        return None, None
    ci = binomtest(agree, n).proportion_ci(confidence_level=0.95, method="wilson")
    return round(100.0 * ci.low, 2), round(100.0 * ci.high, 2)


def _deciders(models: Sequence[ModelSummary]) -> list[list[Any]]:
    """Per subtask (SUBTASKS' order): [items of all entries, how many each decider decided (DECIDERS' order)]."""
    out = []
    for i in range(len(SUBTASKS)):
        n_items = 0
        counts = [0] * len(DECIDERS)
        for m in models:
            n, by_decider = m.summary["deciders"][i]
            n_items += n
            counts = [a + b for a, b in zip(counts, by_decider)]
        out.append([n_items, counts])
    return out


def judge_cascade(context: AnalysisContext, span: Mapping[str, Any]) -> list[Figure]:
    agreement: Mapping[str, Any] = (context.extra.get("agreement") or {}).get("by_subtask") or {}
    rows: list[tuple[Any, ...]] = []
    shares: dict[str, list[float | None]] = {d: [] for d in (*DECIDERS, "agreement")}
    total = 0
    for code, (n_items, by_decider) in zip(SUBTASKS, span["deciders"]):
        counts = dict(zip(DECIDERS, by_decider))
        total += n_items
        audit = agreement.get(code) or {}
        agree, n = int(audit.get("agree") or 0), int(audit.get("n") or 0)
        low, high = wilson(agree, n)
        rate = share(agree, n)
        rows.append((code, n_items, *(share(counts[d], n_items) for d in DECIDERS), n, agree, rate, low, high))
        for d in DECIDERS:
            shares[d].append(share(counts[d], n_items))
        shares["agreement"].append(rate)
    return [Figure(
        "judge", "Judge cascade and judge–human agreement per subtask",
        "Share of the items of all entries scored here decided by the rules, the LLM judge, people, or still "
        "undecided; agreement: audited verdicts where the person agreed with the rule or judge, with its 95% "
        "Wilson interval.",
        f"{total} items of {span['entries']} entries; {sum(r[6] for r in rows)} audited verdicts",
        ("subtask", "n", *(f"{d}_share" for d in DECIDERS), "audited", "agree", "agreement", "agreement_low",
         "agreement_high"), rows,
        Chart("heatmap", list(SUBTASKS), [Series(k, v) for k, v in shares.items()], "%", 100.0), total)]


def paper_figures(models: Sequence[ModelSummary], context: AnalysisContext) -> list[Figure]:
    """The paper's stated figures that are no board column (e.g. the misleading-view study), as a table."""
    rows = [(p.model, metric, value, p.sources.get(metric, "")) for p in context.published
            for metric, value in p.figures.items()]
    return [Figure(
        "paper-figures", "The paper's other stated figures",
        "Figures the paper's text states for a named model that are no board column (data/published/"
        "plan_bench_figures.csv), with where it states them; the hub has no per-item data behind them.",
        f"{len(rows)} figures of {len({r[0] for r in rows})} models", ("model", "metric", "value", "source"), rows)]


def figures(models: Sequence[ModelSamples], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    return combine(summarise_all(SUMMARIES, models, context.extra), context)


def span(models: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext()) -> dict[str, Any]:
    """What the figures read of every entry: their number and items, the thinking pairs' number and items, and the
    judge cascade's counts per subtask."""
    pairs = _pairs(models)
    return {"entries": len(models), "n": sum(m.summary["n"] for m in models),
            "pairs": [len(pairs), sum(p["yes"].summary["n"] + p["no"].summary["n"] for _, p in pairs)],
            "deciders": _deciders(models)}


def combine(models: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    """The figures of these entries; per entry, only the rows and series of the entries `context` keeps (a page of
    the tab: a thinking pair's rows are named by its model, paged as `figure_page` pages them), every N and
    aggregate over all entries (`context.span`, else these entries')."""
    over_all = context.span if context.span is not None else span(models, context)
    kept = [m for m in models if context.keeps(m.label)]
    return [*subtasks(kept, context, over_all), *thinking_pairs(models, context, over_all),
            *item_groups(kept, context, over_all), *random_baseline(models, context),
            *judge_cascade(context, over_all), *paper_figures(models, context)]


SUMMARIES = AnalysisSummaries(version="plan-1", summarise=summarise, combine=combine, span=span)
