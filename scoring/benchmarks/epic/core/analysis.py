"""EPIC-Bench's analyses (the paper's Fig. 4 and 5 and its error analysis) on the hub's own per-sample scores.

Input: each scored submission's samples as the site stored them (`SampleScore.components` and `.details` from
`scorer.score_sample`). Output: `Figure`s; docs/analyses.md defines each. Pure.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from scoring.benchmarks.epic.core.taxonomy import CR, LEAVES, TL, VM, Leaf, family, resolve_leaf
from scoring.core.analysis import (
    AnalysisContext,
    AnalysisSummaries,
    Chart,
    Figure,
    ModelSamples,
    ModelSummary,
    SampleRow,
    Series,
    mean_of,
    share,
    summarise_all,
)

# True-count buckets of the counting figure, as the paper (Fig. 4): (label, lowest, highest) with both ends
# included; "0" holds the samples with no target (a predicted count above 0 there is a hallucinated target).
COUNT_BUCKETS: tuple[tuple[str, int, float], ...] = (
    ("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4–5", 4, 5), ("6–10", 6, 10), (">10", 11, float("inf")),
)
# The counting figure's series per model, as the paper (Fig. 4): Visual Matching apart from the target counts of
# Target Localization and Contact Relationship. (label, scoring families pooled in it)
COUNT_POOLS: tuple[tuple[str, frozenset[str]], ...] = (("TL+CR", frozenset({TL, CR})), ("VM", frozenset({VM})))
# IoU buckets of the localization figure: "0" is exactly 0, then (lo, hi] up to 1.
IOU_BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("0", -1.0, 0.0), ("(0,0.25]", 0.0, 0.25), ("(0.25,0.5]", 0.25, 0.5), ("(0.5,0.75]", 0.5, 0.75),
    ("(0.75,1]", 0.75, 1.0),
)
COMPONENTS: tuple[tuple[str, str, str], ...] = (
    # (short name, component key, weight key): a component counts on a sample only where its weight is > 0
    ("localization", "localization_score", "weight_localization"),
    ("count", "count_score", "weight_count"),
    ("binary", "binary_score", "weight_binary"),
    ("path", "path_score", "weight_path"),
)


def leaf_of(sample: SampleRow) -> Leaf | None:
    return resolve_leaf(sample.category, sample.task, sample.key)


def count_bucket(gt_count: int) -> str | None:
    for label, lo, hi in COUNT_BUCKETS:
        if lo <= gt_count <= hi:
            return label
    return None


def soft_count(pred: Any, gt: int) -> float:
    """The paper's soft count score 1 - min(1, |g - p| / g) for g >= 1; for g = 0, 1 if p = 0 else 0 (as the
    scorer, `metrics.count`); 0 for no readable prediction."""
    if not isinstance(pred, (int, float)) or isinstance(pred, bool):
        return 0.0
    if gt <= 0:
        return 1.0 if int(pred) == 0 else 0.0
    return max(0.0, 1.0 - min(1.0, abs(gt - int(pred)) / gt))


def count_pool(sample: SampleRow) -> str | None:
    """The counting figure's pool of a sample ("TL+CR", "VM"), or None for a family with no count."""
    fam = family(sample.category, sample.task)
    return next((label for label, families in COUNT_POOLS if fam in families), None)


def _count_details(sample: SampleRow) -> tuple[int, Any] | None:
    """(true count, predicted count or None) of a sample scored on a count with a true count >= 0."""
    count = sample.details.get("count") if isinstance(sample.details, Mapping) else None
    if not isinstance(count, Mapping):
        return None
    gt = count.get("gt_count")
    if not isinstance(gt, int) or isinstance(gt, bool) or gt < 0:
        return None
    return gt, count.get("pred_count")


def _n_text(entries: int, n: int, unit: str = "samples") -> str:
    return f"{entries} model{'s' if entries != 1 else ''}, {n} {unit} in all"


def _pairs(m: ModelSamples) -> dict[tuple[str, str], list[tuple[float, float]]]:
    by_bucket: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for s in m.samples:
        found = _count_details(s)
        pool = count_pool(s)
        if found is None or pool is None:
            continue
        gt, pred = found
        exact = 1.0 if isinstance(pred, (int, float)) and not isinstance(pred, bool) and int(pred) == gt else 0.0
        bucket = count_bucket(gt)
        if bucket is not None:  # always, for a true count >= 0: the buckets run from 0 to infinity
            by_bucket.setdefault((pool, bucket), []).append((exact, soft_count(pred, gt)))
    return by_bucket


def _summarise_counting(m: ModelSamples) -> list[list[Any]]:
    """Per pool and true-count bucket (the figure's order): [n, sum of exact, sum of soft] (0/1 and 0-1 values)."""
    by_bucket = _pairs(m)
    out = []
    for pool, _ in COUNT_POOLS:
        for label, _, _ in COUNT_BUCKETS:
            pairs = by_bucket.get((pool, label), [])
            out.append([len(pairs), sum(p[0] for p in pairs), sum(p[1] for p in pairs)])
    return out


def counting(summaries: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    rows = []
    exact_series, soft_series = [], []
    for m in summaries:
        cells = iter(m.summary["counting"])
        for pool, _ in COUNT_POOLS:
            exact_values, soft_values = [], []
            for label, _, _ in COUNT_BUCKETS:
                n, exact_sum, soft_sum = next(cells)
                e, so = mean_of(exact_sum, n), mean_of(soft_sum, n)
                rows.append((m.label, pool, label, n, e, so))
                exact_values.append(e)
                soft_values.append(so)
            exact_series.append(Series(f"{m.label} · {pool}", exact_values))
            soft_series.append(Series(f"{m.label} · {pool}", soft_values))
    columns = ("model", "tasks", "true_count", "n", "exact_accuracy", "soft_count_score")
    x = [label for label, _, _ in COUNT_BUCKETS]
    total = span["counting"]
    n_text = _n_text(span["entries"], total)
    note = ("As the paper (Fig. 4): samples scored on a count, bucketed by the true count (0 = no target: any "
            "predicted target is a hallucination), Visual Matching (VM) apart from Target Localization and Contact "
            "Relationship (TL+CR). Exact: the predicted count equals it; soft: 1 − min(1, |true − predicted| / true) "
            "(for 0: exact); an unreadable answer scores 0.")
    return [
        Figure("counting-exact", "Exact-count accuracy by true count, as the paper (Fig. 4)", note, n_text, columns, rows,
               Chart("bars", x, exact_series, "exact-count accuracy (%)", 100.0), total),
        Figure("counting-soft", "Soft count score by true count, as the paper (Fig. 4)", note, n_text, columns, rows,
               Chart("bars", x, soft_series, "soft count score (%)", 100.0), total),
    ]


def _component_sums(samples: Sequence[SampleRow]) -> list[list[float]]:
    """Per component (COMPONENTS' order): [samples weighing it, sum of its scores there]."""
    out = []
    for _name, key, weight in COMPONENTS:
        values = [float(s.components.get(key) or 0.0) for s in samples
                  if isinstance(w := s.components.get(weight), (int, float)) and w > 0]
        out.append([len(values), sum(values)])
    return out


def _by_leaf(m: ModelSamples) -> dict[str, list[SampleRow]]:
    out: dict[str, list[SampleRow]] = {}
    for s in m.samples:
        leaf = leaf_of(s)
        if leaf is not None:
            out.setdefault(leaf.by_type, []).append(s)
    return out


def _summarise_leaves(m: ModelSamples) -> list[list[Any]]:
    """Per leaf (LEAVES' order): [n, sum of scores, invalid, wrong, per component [n, sum]]."""
    grouped = _by_leaf(m)
    out = []
    for leaf in LEAVES:
        samples = grouped.get(leaf.by_type, [])
        out.append([len(samples), sum(float(s.score or 0.0) for s in samples),
                    sum(1 for s in samples if s.invalid),
                    sum(1 for s in samples if not s.invalid and s.outcome != "ok"), _component_sums(samples)])
    return out


def _leaf_samples(m: ModelSummary) -> int:
    return sum(cell[0] for cell in m.summary["leaves"])


def leaves(summaries: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    rows = []
    heat, comp_series = [], []
    for m in summaries:
        scores: list[float | None] = []
        comps: dict[str, list[float | None]] = {name: [] for name, _, _ in COMPONENTS}
        for leaf, (n, score_sum, _invalid, _wrong, parts) in zip(LEAVES, m.summary["leaves"]):
            score = mean_of(score_sum, n)
            means = [mean_of(part_sum, part_n) for part_n, part_sum in parts]
            rows.append((m.label, leaf.name, n, score, *means))
            scores.append(score)
            for (name, _, _), value in zip(COMPONENTS, means):
                comps[name].append(value)
        heat.append(Series(m.label, scores))
        comp_series += [Series(f"{m.label} · {name}", values) for name, values in comps.items()
                        if any(v is not None for v in values)]
    columns = ("model", "leaf", "n", "score", *(f"{n}_score" for n, _, _ in COMPONENTS))
    x = [leaf.name for leaf in LEAVES]
    total = span["leaves"]
    n_text = _n_text(span["entries"], total)
    return [
        Figure("leaf-scores", "Score per leaf task (models × 23 leaves)",
               "Mean sample score per leaf, in percent (the board's leaf columns, from the per-sample rows).",
               n_text, columns, rows, Chart("heatmap", x, heat, "score (%)", 100.0), total),
        Figure("leaf-components", "Score components per leaf",
               "Mean of each score component (localization IoU, count, binary feasibility, path) over the samples "
               "of a leaf whose scoring weighs that component; empty where the leaf does not use it.",
               n_text, columns, rows, Chart("heatmap", x, comp_series, "component score (%)", 100.0), total),
    ]


def invalid_responses(summaries: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    rows = []
    heat = []
    total = span["leaves"]
    for m in summaries:
        values = []
        for leaf, (n, _score, invalid, wrong, _parts) in zip(LEAVES, m.summary["leaves"]):
            rows.append((m.label, leaf.name, n, invalid, wrong, share(invalid, n), share(wrong, n)))
            values.append(share(invalid, n))
        heat.append(Series(m.label, values))
    columns = ("model", "leaf", "n", "invalid", "wrong", "invalid_share", "wrong_share")
    return [Figure(
        "invalid-responses", "Invalid responses per model and leaf",
        "Invalid: the answer could not be read (no valid response, no path points, a missing prediction, a scorer "
        "error on the answer). Wrong: a readable answer whose outcome is not 'ok' (wrong count, IoU < 0.5, wrong "
        "feasibility, path score < 0.5). The heat map shows the invalid share.",
        _n_text(span["entries"], total), columns, rows, Chart("heatmap", [leaf.name for leaf in LEAVES], heat,
                                                        "invalid share (%)", 100.0), total)]


def _iou_bucket(iou: float) -> str:
    for label, lo, hi in IOU_BUCKETS:
        if lo < iou <= hi:
            return label
    return IOU_BUCKETS[-1][0]


GROUPS = tuple(dict.fromkeys(leaf.group_code for leaf in LEAVES))


def _summarise_localization(m: ModelSamples) -> list[list[Any]]:
    """Per leaf group (GROUPS' order): [n, sum of IoU, count per IoU bucket, no box, off image, mismatch]."""
    by_group: dict[str, list[Mapping[str, Any]]] = {}
    for s in m.samples:
        leaf = leaf_of(s)
        loc = s.details.get("localization") if isinstance(s.details, Mapping) else None
        if leaf is None or not isinstance(loc, Mapping) or not isinstance(loc.get("iou"), (int, float)):
            continue
        if loc.get("gt_empty"):
            continue  # nothing to localize: IoU is 1 for an empty answer, 0 otherwise
        by_group.setdefault(leaf.group_code, []).append(loc)
    out = []
    for code in GROUPS:
        locs = by_group.get(code, [])
        buckets = {label: 0 for label, _, _ in IOU_BUCKETS}
        for loc in locs:
            buckets[_iou_bucket(float(loc["iou"]))] += 1
        out.append([len(locs), sum(float(loc["iou"]) for loc in locs), [buckets[b] for b, _, _ in IOU_BUCKETS],
                    sum(1 for loc in locs if loc.get("pred_empty")),
                    sum(1 for loc in locs if (loc.get("boxes_off_image") or 0) > 0),
                    sum(1 for loc in locs if loc.get("coordinate_system_mismatch"))])
    return out


def localization(summaries: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    rows = []
    series = []
    total = span["localization"]
    for m in summaries:
        means = []
        for code, (n, iou_sum, buckets, no_box, off, mismatch) in zip(GROUPS, m.summary["localization"]):
            mean_iou = mean_of(iou_sum, n)
            means.append(mean_iou)
            rows.append((m.label, code, n, mean_iou, *(share(b, n) for b in buckets),
                         share(no_box, n), share(off, n), share(mismatch, n)))
        series.append(Series(m.label, means))
    columns = ("model", "group", "n", "mean_iou", *(f"iou_{b}" for b, _, _ in IOU_BUCKETS), "no_box_share",
               "off_image_share", "coordinate_mismatch_share")
    return [Figure(
        "localization", "Localization quality per group",
        "Samples whose localization was scored against a non-empty target: mean IoU (bars) and, in the table, the "
        "share of samples per IoU bucket, with no box, with a box reaching outside the image, and whose declared "
        "coordinate system contradicts its values.",
        _n_text(span["entries"], total), columns, rows, Chart("bars", list(GROUPS), series, "mean IoU (%)", 100.0),
        total)]


def summarise(m: ModelSamples, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One submission's sufficient statistics for every figure (docs/analyses.md, "Summaries")."""
    return {"counting": _summarise_counting(m), "leaves": _summarise_leaves(m),
            "localization": _summarise_localization(m)}


def span(summaries: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext()) -> dict[str, Any]:
    """What the figures read of every entry: their number and each figure's samples in all."""
    return {"entries": len(summaries),
            "counting": sum(cell[0] for m in summaries for cell in m.summary["counting"]),
            "leaves": sum(_leaf_samples(m) for m in summaries),
            "localization": sum(cell[0] for m in summaries for cell in m.summary["localization"])}


def combine(summaries: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    """The figures of these entries; per entry, only the rows and series of the entries `context` keeps (a page of
    the tab), every figure's N over all of them (`context.span`, else these entries')."""
    over_all = context.span if context.span is not None else span(summaries, context)
    kept = [m for m in summaries if context.keeps(m.label)]
    return [*counting(kept, over_all), *leaves(kept, over_all), *invalid_responses(kept, over_all),
            *localization(kept, over_all)]


SUMMARIES = AnalysisSummaries(version="epic-1", summarise=summarise, combine=combine, span=span)


def figures(models: Sequence[ModelSamples], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    return combine(summarise_all(SUMMARIES, models, context.extra), context)
