"""Review rules: the item state machine, review rounds, reviewer eligibility, version diffs, agreement, dashboard.

Rules: an item passes `rounds_required` rounds, each by a different reviewer, none of them one of its annotators;
"revise" keeps the rounds already passed and the new version restarts the round it failed; "reject" ends the cycle.
Everything here is plain data in, plain data out: no Django, no clock (times are passed in), no randomness
except through a seed the caller gives.
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from annotation.core.agreement import count_agreement, match_instances


class Verdict(str, Enum):
    ACCEPT = "accept"
    REVISE = "revise"
    REJECT = "reject"


class Reason(str, Enum):
    """The paper's taxonomy of annotation problems, plus mask quality and label errors."""

    AMBIGUOUS = "ambiguous_description"
    INCONSISTENT = "inconsistent_with_masks"
    TRIVIAL = "trivially_easy"
    MASK_QUALITY = "mask_quality"
    LABEL_ERROR = "label_error"


REASON_LABELS: dict[Reason, str] = {
    Reason.AMBIGUOUS: "Ambiguous description",
    Reason.INCONSISTENT: "Description inconsistent with the masks",
    Reason.TRIVIAL: "Trivially easy (found from a weak keyword alone)",
    Reason.MASK_QUALITY: "Mask quality",
    Reason.LABEL_ERROR: "Label error",
}


class Action(str, Enum):
    SAVE = "save"
    SUBMIT = "submit"
    REVIEW_PASS = "review_pass"  # accept in a round that is not the last
    ACCEPT = "accept"  # accept in the last round
    REVISE = "revise"
    REJECT = "reject"
    PUBLISH = "publish"
    REOPEN = "reopen"  # a curator sends a published or rejected item back for a correction


# (state, action) -> next state. Item states are the strings of annotation.models.Item.State.
TRANSITIONS: dict[tuple[str, Action], str] = {
    ("todo", Action.SAVE): "in_progress",
    ("in_progress", Action.SAVE): "in_progress",
    ("needs_revision", Action.SAVE): "in_progress",
    ("todo", Action.SUBMIT): "submitted",
    ("in_progress", Action.SUBMIT): "submitted",
    ("needs_revision", Action.SUBMIT): "submitted",
    ("submitted", Action.REVIEW_PASS): "submitted",
    ("submitted", Action.ACCEPT): "accepted",
    ("submitted", Action.REVISE): "needs_revision",
    ("submitted", Action.REJECT): "rejected",
    ("accepted", Action.PUBLISH): "published",
    ("published", Action.REOPEN): "needs_revision",
    ("rejected", Action.REOPEN): "needs_revision",
    ("accepted", Action.REOPEN): "needs_revision",
}


class TransitionError(ValueError):
    pass


def transition(state: str, action: Action) -> str:
    """The state after `action`, or TransitionError naming what is allowed from `state`."""
    try:
        return TRANSITIONS[(state, action)]
    except KeyError:
        allowed = sorted(a.value for (s, a) in TRANSITIONS if s == state)
        raise TransitionError(
            f"cannot {action.value} an item that is {state.replace('_', ' ')}"
            + (f" (allowed: {', '.join(allowed)})" if allowed else " (no action is allowed)")
        ) from None


@dataclass(frozen=True)
class Policy:
    rounds_required: int = 2
    distinct_reviewers: bool = True

    def __post_init__(self) -> None:
        if self.rounds_required < 1:
            raise ValueError(f"rounds_required must be at least 1, got {self.rounds_required}")


@dataclass(frozen=True)
class ReviewRecord:
    reviewer: int
    verdict: Verdict
    version: int


@dataclass(frozen=True)
class Progress:
    passed_reviewers: tuple[int, ...]  # who accepted rounds 1..k, in order
    current_round: int  # the round the next review is for (1-based)
    status: str  # "in_review", "needs_revision", "accepted", "rejected", "not_started"
    failed_round: int | None  # the round a "revise" sent back (restarted by the next version)

    @property
    def passed_rounds(self) -> int:
        return len(self.passed_reviewers)


def progress(reviews: Sequence[ReviewRecord], policy: Policy) -> Progress:
    """Where one review cycle stands, from its reviews in order."""
    passed: list[int] = []
    status = "not_started" if not reviews else "in_review"
    failed: int | None = None
    for review in reviews:
        if status in ("accepted", "rejected"):
            break
        if review.verdict is Verdict.ACCEPT:
            passed.append(review.reviewer)
            status = "accepted" if len(passed) >= policy.rounds_required else "in_review"
            failed = None
        elif review.verdict is Verdict.REVISE:
            status, failed = "needs_revision", len(passed) + 1
        else:
            status = "rejected"
    return Progress(tuple(passed), min(len(passed) + 1, policy.rounds_required), status, failed)


def verdict_action(verdict: Verdict, before: Progress, policy: Policy) -> Action:
    """The state-machine action a verdict is, given the progress before it."""
    if verdict is Verdict.ACCEPT:
        return Action.ACCEPT if before.passed_rounds + 1 >= policy.rounds_required else Action.REVIEW_PASS
    return Action.REVISE if verdict is Verdict.REVISE else Action.REJECT


def reviewer_refusal(reviewer: int, *, annotators: Iterable[int], before: Progress, policy: Policy) -> str | None:
    """Why `reviewer` may not review the current round, or None when they may."""
    if reviewer in set(annotators):
        return "you annotated this item; an annotator never reviews their own item"
    if policy.distinct_reviewers and reviewer in before.passed_reviewers:
        return (f"you passed round {before.passed_reviewers.index(reviewer) + 1} of this item; "
                f"round {before.current_round} needs a different reviewer")
    return None


def check_review(verdict: str, reasons: Sequence[str], comment: str) -> tuple[Verdict, tuple[Reason, ...]]:
    """Parse and check a review form; ValueError names the field."""
    try:
        parsed = Verdict(verdict)
    except ValueError:
        raise ValueError(f"verdict: {verdict!r} is not one of accept, revise, reject") from None
    out = []
    for index, reason in enumerate(reasons):
        try:
            out.append(Reason(reason))
        except ValueError:
            raise ValueError(
                f"reasons[{index}]: {reason!r} is not a reason; use one of {', '.join(r.value for r in Reason)}"
            ) from None
    if parsed is not Verdict.ACCEPT and not out:
        raise ValueError(f"reasons: a {parsed.value} verdict needs at least one reason")
    if parsed is not Verdict.ACCEPT and not comment.strip():
        raise ValueError(f"comment: a {parsed.value} verdict needs a comment saying what to change")
    return parsed, tuple(dict.fromkeys(out))


def check_markers(markers: Any, image_sizes: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """Markers drawn on the image: [{"image": i, "x": .., "y": .., "note": ".."}] inside image i (H, W)."""
    if markers in (None, ""):
        return []
    if not isinstance(markers, list):
        raise ValueError("markers: must be a list of {image, x, y, note}")
    out = []
    for index, marker in enumerate(markers):
        where = f"markers[{index}]"
        if not isinstance(marker, Mapping):
            raise ValueError(f"{where}: must be an object {{image, x, y, note}}")
        image = marker.get("image", 0)
        if not isinstance(image, int) or not 0 <= image < len(image_sizes):
            raise ValueError(f"{where}.image: {image!r} is not an image of this item (0..{len(image_sizes) - 1})")
        x, y = marker.get("x"), marker.get("y")
        if (isinstance(x, bool) or isinstance(y, bool)
                or not isinstance(x, (int, float)) or not isinstance(y, (int, float))):
            raise ValueError(f"{where}: x and y must be numbers")
        height, width = image_sizes[image]
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"{where}: ({x}, {y}) is outside image {image + 1} ({width}x{height})")
        out.append({"image": image, "x": round(float(x), 1), "y": round(float(y), 1),
                    "note": str(marker.get("note", ""))[:500]})
    return out


# --- diff between two versions of an item ----------------------------------------------------------

SCALAR_FIELDS = ("count", "precise_count", "count_in_description", "placement_feasible")


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class MaskletChange:
    masklet: str
    before: int  # instances
    after: int
    matched: tuple[tuple[int, int, float], ...]  # (old index, new index, IoU)
    removed: tuple[int, ...]  # old indexes without a match
    added: tuple[int, ...]  # new indexes without a match
    union_iou: float

    @property
    def unchanged(self) -> bool:
        return not self.removed and not self.added and all(iou >= 0.999 for _, _, iou in self.matched)


@dataclass(frozen=True)
class ItemDiff:
    fields: tuple[FieldChange, ...]
    masklets: tuple[MaskletChange, ...]

    @property
    def empty(self) -> bool:
        return not self.fields and all(m.unchanged for m in self.masklets)


def diff_snapshots(old: Mapping[str, Any], new: Mapping[str, Any]) -> ItemDiff:
    """What changed from one snapshot (ItemRevision.snapshot) to another: labels, then masks per layer."""
    changes = []
    old_texts, new_texts = old.get("texts") or {}, new.get("texts") or {}
    for name in sorted(set(old_texts) | set(new_texts)):
        if old_texts.get(name) != new_texts.get(name):
            changes.append(FieldChange(f"texts.{name}", old_texts.get(name), new_texts.get(name)))
    for name in SCALAR_FIELDS:
        if old.get(name) != new.get(name):
            changes.append(FieldChange(name, old.get(name), new.get(name)))
    masklets = []
    old_masks, new_masks = old.get("instances") or {}, new.get("instances") or {}
    for name in sorted(set(old_masks) | set(new_masks)):
        a, b = list(old_masks.get(name) or []), list(new_masks.get(name) or [])
        agreement = match_instances(a, b, iou_threshold=0.01) if (a or b) else None
        if agreement is None:
            continue
        masklets.append(MaskletChange(
            name, len(a), len(b), tuple((m.a, m.b, round(m.iou, 4)) for m in agreement.matches),
            agreement.unmatched_a, agreement.unmatched_b, round(agreement.union_iou, 4),
        ))
    return ItemDiff(tuple(changes), tuple(masklets))


# --- second opinion (blind re-annotation) ----------------------------------------------------------


@dataclass(frozen=True)
class AgreementThresholds:
    min_f1: float = 0.5  # share of instances matched one-to-one at IoU >= iou_threshold
    min_mean_iou: float = 0.5
    iou_threshold: float = 0.5


@dataclass(frozen=True)
class AgreementResult:
    masklet: str
    mean_iou: float
    f1: float
    union_iou: float
    count_first: int | None
    count_second: int | None
    count_equal: bool
    low: bool
    why: tuple[str, ...]


def second_opinion_agreement(
    *, masklet: str, first: Sequence[Mapping[str, Any]], second: Sequence[Mapping[str, Any]],
    count_first: int | None, count_second: int | None, thresholds: AgreementThresholds = AgreementThresholds(),
) -> AgreementResult:
    """Instance-level IoU and count agreement of two independent annotations of the counted/scored layer."""
    instances = match_instances(first, second, iou_threshold=thresholds.iou_threshold)
    counts = count_agreement(count_first, count_second)
    why = []
    if instances.f1 < thresholds.min_f1:
        why.append(f"only {instances.f1:.0%} of the instances match (F1 < {thresholds.min_f1:.0%})")
    if instances.matches and instances.mean_iou < thresholds.min_mean_iou:
        why.append(f"matched instances overlap by IoU {instances.mean_iou:.2f} < {thresholds.min_mean_iou:.2f}")
    if count_first is not None and count_second is not None and not counts.equal:
        why.append(f"counts differ ({count_first} vs {count_second})")
    return AgreementResult(masklet, round(instances.mean_iou, 4), round(instances.f1, 4),
                           round(instances.union_iou, 4), count_first, count_second, counts.equal, bool(why),
                           tuple(why))


def choose_share(candidates: Sequence[int], share: float, *, seed: int) -> list[int]:
    """A reproducible random share (0..1] of the candidate ids, at least one when there are candidates."""
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    pool = sorted(candidates)
    if not pool:
        return []
    k = max(1, round(share * len(pool)))
    return sorted(random.Random(seed).sample(pool, k))


# --- dashboard statistics --------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemRow:
    state: str
    round: int | None  # the current review round of submitted items


@dataclass(frozen=True)
class ReviewRow:
    reviewer: str
    verdict: str
    reasons: tuple[str, ...]
    seconds: float | None


@dataclass(frozen=True)
class AgreementRow:
    first_annotator: str
    second_annotator: str
    mean_iou: float
    f1: float
    count_equal: bool
    low: bool


@dataclass
class Dashboard:
    by_state: dict[str, int] = field(default_factory=dict)  # ordered buckets
    annotators: dict[str, dict[str, float | str | None]] = field(default_factory=dict)  # counts, seconds, time, rate
    reviewers: dict[str, dict[str, float | str | None]] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    agreement: dict[str, float] = field(default_factory=dict)
    agreement_by_annotator: dict[str, dict[str, float]] = field(default_factory=dict)


def state_bucket(row: ItemRow) -> str:
    if row.state == "submitted":
        return f"in review round {row.round or 1}"
    return row.state.replace("_", " ").replace("todo", "to do")


def active_seconds(times: Sequence[datetime], *, idle_cap_s: float = 300.0) -> float:
    """Time spent from event times: gaps longer than the cap count as the cap (the person left and came back)."""
    ordered = sorted(times)
    return float(sum(min((b - a).total_seconds(), idle_cap_s) for a, b in zip(ordered, ordered[1:])))


# Below this much measured time a rate says nothing (two verdicts a few seconds after opening read "800/hour").
RATE_MIN_SECONDS = 60.0


def duration_text(seconds: float) -> str:
    """A time spent, never rounded to nothing: '9 s', '4 min 10 s', '2 h 05 min'."""
    total = int(round(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


def _rate(count: int, seconds: float) -> float | None:
    """Per hour, from the work whose time was measured; None while too little time was measured."""
    return round(count / (seconds / 3600), 1) if seconds >= RATE_MIN_SECONDS and count else None


def dashboard(
    *, items: Sequence[ItemRow], rounds_required: int, submissions: Mapping[str, int],
    accepted_by_annotator: Mapping[str, int], annotator_seconds: Mapping[str, float],
    reviews: Sequence[ReviewRow], agreements: Sequence[AgreementRow],
) -> Dashboard:
    out = Dashboard()
    order = ["to do", "in progress", *[f"in review round {k}" for k in range(1, rounds_required + 1)],
             "needs revision", "accepted", "published", "rejected"]
    counted = Counter(state_bucket(row) for row in items)
    out.by_state = {bucket: counted.get(bucket, 0) for bucket in order}
    for bucket, n in counted.items():  # e.g. a round above the policy after it was lowered
        out.by_state.setdefault(bucket, n)
    for name in sorted(set(submissions) | set(accepted_by_annotator) | set(annotator_seconds)):
        spent = annotator_seconds.get(name, 0.0)
        out.annotators[name] = {"submissions": submissions.get(name, 0),
                                "accepted": accepted_by_annotator.get(name, 0), "seconds": round(spent, 1),
                                "time": duration_text(spent), "per_hour": _rate(submissions.get(name, 0), spent)}
    per_reviewer: dict[str, Counter] = defaultdict(Counter)
    seconds: dict[str, float] = defaultdict(float)
    reasons: Counter = Counter()
    for review in reviews:
        per_reviewer[review.reviewer]["reviews"] += 1
        per_reviewer[review.reviewer][review.verdict] += 1
        if review.seconds is not None:  # from opening the review to the verdict
            per_reviewer[review.reviewer]["timed"] += 1
            seconds[review.reviewer] += review.seconds
        if review.verdict != Verdict.ACCEPT.value:
            reasons.update(review.reasons)
    for name in sorted(per_reviewer):
        counts = per_reviewer[name]
        out.reviewers[name] = {"reviews": counts["reviews"], "accept": counts["accept"], "revise": counts["revise"],
                               "reject": counts["reject"], "timed": counts["timed"],
                               "seconds": round(seconds[name], 1), "time": duration_text(seconds[name]),
                               # Reviews without a time (verdict without opening the page) do not count here.
                               "per_hour": _rate(counts["timed"], seconds[name])}
    out.reasons = {REASON_LABELS.get(Reason(r), r) if r in Reason._value2member_map_ else r: n
                   for r, n in reasons.most_common()}
    if agreements:
        n = len(agreements)
        out.agreement = {"items": n, "mean_iou": round(sum(a.mean_iou for a in agreements) / n, 4),
                         "mean_f1": round(sum(a.f1 for a in agreements) / n, 4),
                         "count_agreement": round(sum(a.count_equal for a in agreements) / n, 4),
                         "low": sum(a.low for a in agreements)}
        per: dict[str, list[AgreementRow]] = defaultdict(list)
        for row in agreements:
            per[row.first_annotator].append(row)
            per[row.second_annotator].append(row)
        for name in sorted(per):
            rows = per[name]
            out.agreement_by_annotator[name] = {
                "items": len(rows), "mean_iou": round(sum(r.mean_iou for r in rows) / len(rows), 4),
                "mean_f1": round(sum(r.f1 for r in rows) / len(rows), 4),
                "count_agreement": round(sum(r.count_equal for r in rows) / len(rows), 4),
            }
    return out
