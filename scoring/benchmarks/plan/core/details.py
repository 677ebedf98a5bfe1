"""The typed reading of a scored PLAN-Bench sample's details: what the per-sample results page shows of it.

The scorer's names changed over time (and imported runs use the toolkit's); each field reads the first of the names
a scorer may use that is set. Pure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


def first_set(mapping: Any, *keys: str) -> Any:
    """The value of the first of `keys` that `mapping` holds and is neither None nor empty text."""
    if not isinstance(mapping, Mapping):
        return None
    return next((mapping[k] for k in keys if mapping.get(k) not in (None, "")), None)


@dataclass(frozen=True)
class PlanSampleDetails:
    output: Any = None  # the model's text
    extracted: Any = None  # the answer read from it
    verdict: Any = None
    decided_by: Any = None  # the rules, the model judge or a human
    reasoning: Any = None  # what was stripped before the answer part (a <think> trace)

    @classmethod
    def from_details(cls, details: Mapping[str, Any]) -> "PlanSampleDetails":
        return cls(
            output=first_set(details, "output", "response", "prediction", "raw"),
            extracted=first_set(details, "extracted", "extracted_answer", "answer_extracted", "pred"),
            verdict=first_set(details, "verdict", "judgement", "judgment"),
            decided_by=first_set(details, "decided_by", "judge", "decider", "source"),
            reasoning=first_set(details, "reasoning_stripped"),
        )


def options_of(inputs: Any) -> list[tuple[str, Any]]:
    """An item's options as (letter, text): a mapping as it is, a list lettered A, B, ..."""
    options = first_set(inputs, "options", "choices")
    if isinstance(options, dict):
        return list(options.items())
    if isinstance(options, list):
        return [(chr(ord("A") + i), v) for i, v in enumerate(options[:26])]
    return []
