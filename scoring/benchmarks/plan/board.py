"""PLAN-Bench on the board and the per-sample results page: judge-human agreement and the prompts in use above the
board; a sample's output, extracted answer, verdict and (where the viewer may see it) ground truth. Site-side."""
from __future__ import annotations

from typing import Any

from scoring.benchmarks.plan.core.analysis import random_baseline_columns
from scoring.benchmarks.plan.core.details import PlanSampleDetails, first_set, options_of
from scoring.benchmarks.plan.core.protocol import BUILT_IN_LABEL, PARAPHRASE_NOTE, PromptFileError
from scoring.benchmarks.plan.core.types import DIMENSION_KEYS
from scoring.benchmarks.plan.selectors import plan_judge_agreement, plan_random_baseline_items
from scoring.benchmarks.plan.services.judge import judge_prompts_from_settings, model_prompts_from_settings
from scoring.core.plugin import DrilldownSample


def _prompts() -> dict[str, Any]:
    """What PLAN models are asked and which judge prompts verdicts are given under (a broken file says so)."""
    try:
        return {"model": model_prompts_from_settings(),
                "judge": judge_prompts_from_settings(), "problem": ""}
    except PromptFileError as exc:
        return {"model": None, "judge": None, "problem": str(exc)}


def _random_baseline(split) -> list[tuple[str, float]]:
    """The split's random baseline (computed from its items' option counts, no ground truth), as (label, percent)
    for overall, the dimensions and the two item types that have items."""
    counts, chance = random_baseline_columns(plan_random_baseline_items(split))
    labels = {"overall": "overall", **{key: title for title, key in DIMENSION_KEYS.items()},
              "single_choice": "single-choice", "open": "open"}
    return [(label, value) for key, label in labels.items() if counts.get(key) and (value := chance[key]) is not None]


def board_extras(benchmark, split) -> dict[str, Any]:
    return {"judge_agreement": plan_judge_agreement(split), "random_baseline": _random_baseline(split),
            "prompts": _prompts(), "built_in_label": BUILT_IN_LABEL, "paraphrase_note": PARAPHRASE_NOTE}


def sample_view(sample: DrilldownSample) -> dict[str, Any]:
    details: PlanSampleDetails = sample.details
    truth = sample.ground_truth
    return {
        "output": details.output,
        "extracted": details.extracted,
        "verdict": details.verdict or sample.outcome,
        "decided_by": details.decided_by,
        "reasoning": details.reasoning,
        "options": options_of(sample.inputs),
        "gt": (first_set(truth, "answer", "gt_answer") or truth) if sample.ground_truth_visible else None,
    }
