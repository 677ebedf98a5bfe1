"""Score one std_format record against its raw GT JSON, and aggregate samples into the toolkit's summary.

Rules: dispatch by (task_category, task_type) as the reference registry does (unregistered pairs get the
placeholder score 0, not invalid); GT fields are read from the raw GT first (text_annotation, then
mask_annotation), then from the record's inline `ground_truth`; a scorer exception scores 0 and is invalid.
Deviations B1 and B5 apply unless `compat` is set (then the toolkit's reading is reproduced); `score_readings`
gives both readings of a record in one go, rescoring under the strict reading only where it can differ.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Generator, Iterable, Mapping, Sequence

from . import fields as F
from . import metrics as M
from .geometry import boxes_iou, boxes_ious
from .taxonomy import (
    BY_GROUP_ORDER,
    BY_TYPE_ORDER,
    CATEGORIES,
    CR,
    FP,
    GT_FIELDS,
    PR,
    TL,
    VM,
    Leaf,
    family,
    resolve_leaf,
)

SCORER_VERSION = "epic-1.1"  # 1.1: both readings scored per upload, the toolkit's as the headline
_INVALID_MARKERS = ("No Valid Response", "No path points parsed", "Missing")


@dataclass(frozen=True)
class Options:
    compat: bool = False
    coord_mode: str | None = None  # overrides every record's coordinate_system
    family: str | None = None  # the model's toolkit family: its system replaces auto (records that declare none)

    def mode_for(self, record: Mapping[str, Any]) -> str:
        """The system a record's boxes and points are read in before auto detection: the upload's coord_mode, else
        the record's own coordinate_system, else the model family's, else auto. An unhashable coordinate_system
        raises TypeError, as in the reference."""
        mode = F.coordinate_mode([self.coord_mode] if self.coord_mode else record.get("coordinate_system"))
        return (F.family_coordinates(self.family) or F.AUTO) if mode == F.AUTO else mode

    @property
    def mode_name(self) -> str:
        return "compat" if self.compat else "default"


@dataclass(frozen=True)
class SampleScore:
    index: int
    category: str
    task_type: str
    leaf: Leaf | None
    score: float
    components: Mapping[str, float | str]  # the toolkit's score_details: parts and weights, or an unknown task's message
    error: str | None = None
    invalid: bool = False
    gt_error: bool = False
    outcome: str = "ok"
    details: Mapping[str, Any] = field(default_factory=dict)

    def as_row(self) -> dict[str, Any]:
        """The toolkit's per-sample row (details.by_samples) with our extra fields after it."""
        return {
            "index": self.index,
            "task_category": self.category,
            "task_type": self.task_type,
            "score": float(self.score),
            "score_details": dict(self.components),
            "error": self.error,
            "invalid_response": bool(self.invalid),
            "outcome": self.outcome,
            "gt_error": self.gt_error,
            "by_type": self.leaf.by_type if self.leaf else None,
            "details": dict(self.details),
        }


def _components(loc: float = 0.0, count: float = 0.0, path: float = 0.0, binary: float = 0.0,
                w_loc: float = 0.0, w_count: float = 0.0, w_path: float = 0.0, w_binary: float = 0.0) -> dict[str, float]:
    return {
        "localization_score": float(loc),
        "count_score": float(count),
        "path_score": float(path),
        "binary_score": float(binary),
        "weight_localization": float(w_loc),
        "weight_count": float(w_count),
        "weight_path": float(w_path),
        "weight_binary": float(w_binary),
    }


class GroundTruth:
    """Field lookup over one sample's raw GT JSON with the record's inline `ground_truth` as fallback."""

    def __init__(self, raw: Mapping[str, Any] | None, inline: Mapping[str, Any] | None):
        raw = raw if isinstance(raw, dict) and raw else None
        text = raw.get("text_annotation") if raw else None
        masks = raw.get("mask_annotation") if raw else None
        self.text: dict[str, Any] = text if isinstance(text, dict) else {}
        self.masks: dict[str, Any] = masks if isinstance(masks, dict) else {}
        self.inline = inline if isinstance(inline, dict) else {}

    def get(self, name: str | None) -> Any:
        if not name:
            return None
        value = None
        if name in self.text:
            value = self.text[name]
        elif name in self.masks:
            value = self.masks[name]
        elif name == "placement_feasibility" and "placement_feasible" in self.text:
            value = self.text["placement_feasible"]
        if value is not None:
            return value
        value = self.inline.get(name)
        return value

    def count(self, name: str | None) -> int | None:
        return F.to_count(F.first(self.get(name))) if name else None

    def precise(self, names: Sequence[str]) -> bool:
        for name in names:
            value = F.first(self.get(name))
            if value is None:
                continue
            found = F.to_bool(value, allow_false_words=False)
            if found is not None:
                return found
        return False

    def flag(self, name: str | None) -> bool:
        value = F.first(self.get(name)) if name else None
        return bool(F.to_bool(value, allow_false_words=False)) if value is not None else False

    def feasibility(self, names: Sequence[str]) -> bool | None:
        for name in names:
            value = F.first(self.get(name))
            if value is None:
                continue
            found = F.to_bool(value, allow_false_words=True)
            if found is not None:
                return found
        return None


def gt_json_path(record: Mapping[str, Any]) -> str | None:
    inline = record.get("ground_truth")
    value = inline.get("gt_json_path") if isinstance(inline, dict) else None
    value = F.first(value)
    return value if isinstance(value, str) and value else None


def _text(value: Any) -> str:
    value = F.first(value)
    return value if isinstance(value, str) else ""


def score_sample(record: Mapping[str, Any], raw_gt: Mapping[str, Any] | None, *, index: int = 0,
                 options: Options = Options(), gt_problem: str | None = None) -> SampleScore:
    """Score one record. `raw_gt` is the parsed `*_mask_rle.json` (None if missing); `gt_problem` says why."""
    return score_samples([(record, raw_gt, gt_problem)], options=options, indices=[index])[0]


def score_samples(triples: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]], *,
                  options: Options = Options(), indices: Sequence[int] | None = None) -> list[SampleScore]:
    """`score_sample` of many (record, raw GT, GT problem) triples, indexed 0, 1, ... or by `indices`: each sample is
    scored up to its box IoU (`sample_steps`), then the IoUs of all of them are computed in one batch
    (geometry.boxes_ious) and each sample finished with its own."""
    results: list[SampleScore | None] = [None] * len(triples)
    waiting: list[tuple[int, Generator[M.BoxesIoU, float, SampleScore], M.BoxesIoU]] = []
    for k, (record, raw_gt, gt_problem) in enumerate(triples):
        steps = sample_steps(record, raw_gt, index=indices[k] if indices is not None else k, options=options,
                             gt_problem=gt_problem)
        try:
            waiting.append((k, steps, next(steps)))
        except StopIteration as done:
            results[k] = done.value
    while waiting:
        try:
            values: list[float | Exception] = list(boxes_ious([(ask.boxes, ask.mask) for _, _, ask in waiting]))
        except Exception:  # noqa: BLE001 - one by one then, so that each sample meets its own error as alone
            values = [_boxes_iou_or_error(ask) for _, _, ask in waiting]
        still: list[tuple[int, Generator[M.BoxesIoU, float, SampleScore], M.BoxesIoU]] = []
        for (k, steps, _), value in zip(waiting, values):
            try:
                ask = steps.throw(value) if isinstance(value, Exception) else steps.send(value)
            except StopIteration as done:
                results[k] = done.value
            else:
                still.append((k, steps, ask))
        waiting = still
    return results  # type: ignore[return-value]  # every one set above


def _boxes_iou_or_error(ask: M.BoxesIoU) -> float | Exception:
    try:
        return boxes_iou(ask.boxes, ask.mask)
    except Exception as exc:  # noqa: BLE001 - sent into the sample's steps, which score it as a scorer error
        return exc


def sample_steps(record: Mapping[str, Any], raw_gt: Mapping[str, Any] | None, *, index: int = 0,
                 options: Options = Options(),
                 gt_problem: str | None = None) -> Generator[M.BoxesIoU, float, SampleScore]:
    """One record's scoring as a generator: yields the box IoUs it needs (`metrics.BoxesIoU`), is sent their
    values (or an exception, thrown in) and returns the SampleScore (`score_samples` drives it)."""
    category, task_type = _text(record.get("task_category")), _text(record.get("task_type"))
    leaf = resolve_leaf(category, task_type, gt_json_path(record))
    fam = family(category, task_type)
    if fam is None:
        return SampleScore(index, category, task_type, leaf, 0.0,
                           {"message": "No scorer registered for this task (placeholder)."}, outcome="unknown_task")
    try:
        return (yield from _score_family(fam, record, raw_gt, index=index, category=category, task_type=task_type,
                                         leaf=leaf, options=options, gt_problem=gt_problem))
    except Exception as exc:  # noqa: BLE001 - the reference scores a crashing sample 0 and invalid
        return SampleScore(index, category, task_type, leaf, 0.0, _components(), error=f"{type(exc).__name__}: {exc}",
                           invalid=True, outcome="error")


_LIST_FIELDS = ("formatted_response_localization", "formatted_response_path")
_SCALAR_FIELDS = ("formatted_response_count", "formatted_response_binary")


def strict_may_differ(record: Mapping[str, Any], toolkit: SampleScore) -> bool:
    """Whether the strict reading (B1, B5) can score a record otherwise than the toolkit's reading did: some field's
    sentinel reading differs between the two (B1: a string where a list is expected, a wrapped sentinel), the
    toolkit's score met a GT error (B5), or the scorer failed. Elsewhere the two readings take the same branches."""
    if toolkit.gt_error or toolkit.outcome == "error":
        return True
    for names, expects_list in ((_LIST_FIELDS, True), (_SCALAR_FIELDS, False)):
        for name in names:
            value = record.get(name)
            if F.sentinel(value, expects_list=expects_list, compat=True) != F.sentinel(
                    value, expects_list=expects_list, compat=False):
                return True
    return False


def score_readings(record: Mapping[str, Any], raw_gt: Mapping[str, Any] | None, *, index: int = 0,
                   options: Options = Options(), gt_problem: str | None = None) -> tuple[SampleScore, SampleScore]:
    """(the toolkit's reading, the strict reading) of one record; the second is the first object itself where the
    strict reading cannot differ (`strict_may_differ`), so most records are scored once."""
    return score_readings_many([(record, raw_gt, gt_problem)], options=options, indices=[index])[0]


def score_readings_many(triples: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]], *,
                        options: Options = Options(),
                        indices: Sequence[int] | None = None) -> list[tuple[SampleScore, SampleScore]]:
    """`score_readings` of many triples (indexed as `score_samples` indexes them), each reading's box IoUs in one
    batch; the strict reading only of the records where it can differ."""
    indices = range(len(triples)) if indices is None else indices
    toolkit = score_samples(triples, options=replace(options, compat=True), indices=indices)
    again = [k for k, (triple, one) in enumerate(zip(triples, toolkit)) if strict_may_differ(triple[0], one)]
    strict = score_samples([triples[k] for k in again], options=replace(options, compat=False),
                           indices=[indices[k] for k in again])
    pairs = [(one, one) for one in toolkit]
    for k, one in zip(again, strict):
        pairs[k] = (toolkit[k], one)
    return pairs


def strict_tells_more(toolkit: SampleScore, strict: SampleScore) -> bool:
    """Whether a sample's strict score tells its submitter more of the ground truth than its toolkit score with its
    components does. The two differ only where the toolkit read an unusable localization as no boxes against an
    empty GT (localization 1 there, 0 under B1); the strict total is then the toolkit's less the localization
    weight. That weight is fixed (or the whole score) except in TL and CR, where it follows from GT flags
    (`tl_weights`); there the toolkit's total gives it away already unless localization and count scored alike."""
    if strict.score == toolkit.score or family(strict.category, strict.task_type) not in (TL, CR):
        return False
    components = toolkit.components
    return components.get("localization_score") == components.get("count_score")


def _score_family(fam: str, record: Mapping[str, Any], raw_gt: Mapping[str, Any] | None, *, index: int,
                  category: str, task_type: str, leaf: Leaf | None, options: Options,
                  gt_problem: str | None) -> Generator[M.BoxesIoU, float, SampleScore]:
    gt = GroundTruth(raw_gt, record.get("ground_truth"))
    names = GT_FIELDS[fam]
    compat = options.compat
    format_type = F.first(record.get("format_type")) or "bbox"
    mode = options.mode_for(record)
    metrics: dict[str, M.Metric] = {}
    if fam == FP:
        metrics["path"] = M.path(record.get("formatted_response_path"), gt.get(names.path), gt.get(names.target_area),
                                 exo=task_type == "FeasiblePath_Exo", mode=mode, compat=compat)
        total = metrics["path"].score
        components = _components(path=total, w_path=1.0)
    else:
        gt_count = gt.count(names.count)
        metrics["localization"] = yield from M.localization(
            record.get("formatted_response_localization"), gt.get(names.localization), format_type=format_type,
            mode=mode, gt_count=gt_count, compat=compat)
        loc = metrics["localization"].score
        if fam in (TL, CR, VM):
            precise, in_desc = gt.precise(names.precise), gt.flag(names.in_description)
            metrics["count"] = M.count(record.get("formatted_response_count"), gt_count=gt_count, precise=precise,
                                       in_description=in_desc, compat=compat)
            cnt = metrics["count"].score
            w_loc, w_count = (0.5, 0.5) if fam == VM else M.tl_weights(precise, in_desc)
            total = w_loc * loc + w_count * cnt
            components = _components(loc=loc, count=cnt, w_loc=w_loc, w_count=w_count)
        elif fam == PR:
            metrics["binary"] = M.binary(record.get("formatted_response_binary"),
                                         gt_value=gt.feasibility(names.feasibility), compat=compat)
            binary_score = metrics["binary"].score
            total = 0.5 * loc + 0.5 * binary_score
            components = _components(loc=loc, binary=binary_score, w_loc=0.5, w_binary=0.5)
        else:
            total = loc
            components = _components(loc=loc, w_loc=1.0)

    errors = [m.error for m in metrics.values() if m.error]
    error = "; ".join(errors) or None
    if compat:
        invalid = error is not None and any(marker in error for marker in _INVALID_MARKERS)
    else:
        invalid = any(m.error and not m.gt_error and any(k in m.error for k in _INVALID_MARKERS) for m in metrics.values())
    gt_error = any(m.gt_error for m in metrics.values()) or gt_problem is not None
    details: dict[str, Any] = {name: dict(m.details) for name, m in metrics.items() if m.details}
    notes = [f"{name}: {note}" for name, m in metrics.items() for note in m.notes]
    if notes:
        details["notes"] = notes
    if gt_problem:
        details["gt_problem"] = gt_problem
    return SampleScore(index, category, task_type, leaf, float(total), components, error, invalid, gt_error,
                       _outcome(metrics, invalid, gt_error), details)


def _outcome(metrics: Mapping[str, M.Metric], invalid: bool, gt_error: bool) -> str:
    if invalid:
        return "invalid"
    if gt_error:
        return "gt_error"
    if any(m.error for m in metrics.values()):
        return "error"
    if "count" in metrics and metrics["count"].score < 1.0:
        return "wrong_count"
    if "localization" in metrics and metrics["localization"].score < 0.5:
        return "low_iou"
    if "binary" in metrics and metrics["binary"].score < 1.0:
        return "wrong_feasibility"
    if "path" in metrics and metrics["path"].score < 0.5:
        return "low_path_score"
    return "ok"


# ---------------------------------------------------------------------------------------------------------
# Aggregation (5.4)
# ---------------------------------------------------------------------------------------------------------


def _bucket(scores: list[float], invalid: int, expected: Any) -> dict[str, Any]:
    n = len(scores)
    return OrderedDict([
        ("total_expected", int(expected) if expected is not None else n),
        ("total_processed", n),
        ("num_invalid_response", int(invalid)),
        ("mean_score", float(sum(scores) / n) if n > 0 else 0.0),
    ])


def summarize(samples: Iterable[SampleScore], expected: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The toolkit's summary: overall micro mean, then by_category, by_type, by_group in their fixed orders."""
    expected = expected or {}
    by_cat: dict[str, list[float]] = {}
    by_type: dict[str, list[float]] = {}
    by_group: dict[str, list[float]] = {}
    inv_cat: dict[str, int] = {}
    inv_type: dict[str, int] = {}
    inv_group: dict[str, int] = {}
    scores: list[float] = []
    invalid = 0
    for s in samples:
        scores.append(s.score)
        invalid += int(s.invalid)
        by_cat.setdefault(s.category, []).append(s.score)
        inv_cat[s.category] = inv_cat.get(s.category, 0) + int(s.invalid)
        if s.leaf is not None:
            by_type.setdefault(s.leaf.by_type, []).append(s.score)
            inv_type[s.leaf.by_type] = inv_type.get(s.leaf.by_type, 0) + int(s.invalid)
            by_group.setdefault(s.leaf.by_group, []).append(s.score)
            inv_group[s.leaf.by_group] = inv_group.get(s.leaf.by_group, 0) + int(s.invalid)
    exp_cat = expected.get("by_category") or {}
    exp_type = expected.get("by_type") or {}
    exp_group = expected.get("by_group") or {}
    summary: dict[str, Any] = OrderedDict()
    summary["overall"] = OrderedDict([
        ("total_expected", int(expected["overall"]) if expected.get("overall") is not None else len(scores)),
        ("total_processed", len(scores)),
        ("num_invalid_response", invalid),
        ("average_score", float(sum(scores) / len(scores)) if scores else 0.0),
    ])
    summary["by_category"] = OrderedDict(
        (c, _bucket(by_cat[c], inv_cat[c], exp_cat.get(c))) for c in CATEGORIES if c in by_cat
    )
    summary["by_type"] = OrderedDict(
        (k, _bucket(by_type.get(k, []), inv_type.get(k, 0), exp_type.get(k)))
        for k in BY_TYPE_ORDER if k in by_type or k in exp_type
    )
    summary["by_group"] = OrderedDict(
        (k, _bucket(by_group.get(k, []), inv_group.get(k, 0), exp_group.get(k)))
        for k in BY_GROUP_ORDER if k in by_group or k in exp_group
    )
    return summary
