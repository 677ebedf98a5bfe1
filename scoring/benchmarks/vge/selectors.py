"""Reads for VGEBench's Analysis tab: what its figures need besides the board's episodes."""
from __future__ import annotations

from typing import Any

from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device
from scoring.benchmarks.vge.core.episode_options import (
    DEFAULT_INSTRUCTION,
    HISTORY_FULL,
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
)
from scoring.benchmarks.vge.core.graphs import DeviceGraphs
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA, LAMBDA_OPTION
from scoring.benchmarks.vge.scorer import site_device_loader
from scoring.models import SampleScore, Split, Submission
from scoring.selectors import on_boards


def device_graphs(split: Split) -> dict[str, DeviceGraphs]:
    """For each device of the split, its graphs (which components each view shows, the optimal plans the error
    taxonomy and the view switches judge turns against). Devices the source cannot give or that do not load are
    left out (their episodes are then not classed)."""
    loader = site_device_loader()
    if loader is None:
        return {}
    ids = {d for d in split.samples.values_list("ground_truth__device", flat=True) if isinstance(d, str)}
    graphs: dict[str, DeviceGraphs] = {}
    for device_id, definition in loader(ids).items():
        try:
            graphs[device_id] = DeviceGraphs(load_device(definition, source=device_id))
        except DeviceInvalid:
            continue
    return graphs


def option_runs(split: Split) -> list[dict[str, Any]]:
    """Every public scored upload of the split, split by the interaction budget λ its episodes were played with:
    per (submission, λ) its episode count, successes (SR is 100 or 0 per episode), the sum of its episodes' SSR, and
    the options its episodes were played with (the submission's: `perturbation`, "" for none; `lambda_option`, None
    when each task's own; `history`, "full" or a number of turns; `instruction`, "original" or "rephrased"), for the
    figures that compare a model's submissions with each other (robustness, budget, history, instruction), which
    keep those of the board's filtered rows."""
    subs = (on_boards(Submission.objects.filter(split=split, status=Submission.Status.SCORED,
                                                source=Submission.Source.UPLOAD))
            .select_related("model_entry").order_by("id"))
    counts: dict[int, dict[Any, dict[str, Any]]] = {}
    for sub_id, score, components, played, own in SampleScore.objects.filter(submission__in=subs).values_list(
            "submission_id", "score", "components", "details__lambda", "details__task__lambda"):
        lam = played if _budget(played) else own if _budget(own) else DEFAULT_LAMBDA
        row = counts.setdefault(sub_id, {}).setdefault(lam, {"n": 0, "hits": 0, "ssr_sum": 0.0})
        ssr = components.get("SSR") if isinstance(components, dict) else None
        row["n"] += 1
        row["hits"] += score is not None and score >= 100.0
        row["ssr_sum"] += float(ssr) if isinstance(ssr, (int, float)) else 0.0
    out = []
    for sub in subs:
        options = sub.options if isinstance(sub.options, dict) else {}
        for lam, row in sorted(counts.get(sub.pk, {}).items()) or [(None, {"n": 0, "hits": 0, "ssr_sum": 0.0})]:
            out.append({"submission": sub.pk, "model": sub.model_entry.name, "thinking": sub.model_entry.thinking,
                        "kind": sub.model_entry.kind, "perturbation": str(options.get("perturbation") or ""),
                        "lambda_option": options.get(LAMBDA_OPTION), "lambda": lam,
                        "history": str(options.get(HISTORY_OPTION) or HISTORY_FULL),
                        "instruction": str(options.get(INSTRUCTION_OPTION) or DEFAULT_INSTRUCTION),
                        "episodes": row["n"], "successes": row["hits"], "ssr_sum": row["ssr_sum"]})
    return out


def _budget(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def vge_analysis_context(split: Split) -> dict[str, Any]:
    return {"graphs": device_graphs(split), "runs": option_runs(split)}
