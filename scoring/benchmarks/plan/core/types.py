"""The plain types of PLAN-Bench scoring: items, predictions, verdicts, per-item outcomes.

Frozen dataclasses and enums only; readers build them, the engine and aggregation consume them, the site maps its
rows onto them. An item's `fingerprint` identifies its judged content, so a cached verdict never outlives an edit.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping

DIMENSIONS: dict[str, tuple[str, ...]] = {
    "Spatial Cognition": ("OO", "MD", "AR", "TD", "SR", "SpR"),
    "Temporal Reasoning": ("PT", "TO", "PC", "IA", "MR"),
    "Multi-Step Planning": ("CS", "CP", "RP", "DP", "Route"),
}
# Board column keys, the same names as data/published/plan_bench.csv.
DIMENSION_KEYS: dict[str, str] = {
    "Spatial Cognition": "spatial_cognition",
    "Temporal Reasoning": "temporal_reasoning",
    "Multi-Step Planning": "multi_step_planning",
}
SUBTASK_NAMES: dict[str, str] = {
    "OO": "Occlusion Order",
    "MD": "Mirror Distinction",
    "AR": "Action Recovery",
    "TD": "Target Discovery",
    "SR": "State Recognition",
    "SpR": "Spatial Relations",
    "PT": "Progress Tracking",
    "TO": "Temporal Ordering",
    "PC": "Persistent Counting",
    "IA": "Instruction Alignment",
    "MR": "Motion Retrieval",
    "CS": "Constraint Sequencing",
    "CP": "Capacity Planning",
    "RP": "Rearrangement Planning",
    "DP": "Dependency Planning",
    "Route": "Route Planning",
}
SUBTASKS: tuple[str, ...] = tuple(code for codes in DIMENSIONS.values() for code in codes)
DIMENSION_OF: dict[str, str] = {code: dim for dim, codes in DIMENSIONS.items() for code in codes}

# What evaluated models are asked: the paper's appendix B.1, verbatim (a site may supply other words in its prompt
# file, see protocol.load_model_prompts); shown on the site so submitters can reproduce it.
MODEL_BASE_PROMPT = (
    "Answer directly. Do not explain your reasoning. For single-choice questions, answer with one option letter "
    "only, such as A. For open questions, follow the required answer format exactly."
)
MODEL_SINGLE_CHOICE_SUFFIX = "This is a single-choice question. Return one option letter only."
MODEL_OPEN_SUFFIX = "This is an open question. Return only the requested structured answer."


class ItemType(str, Enum):
    SINGLE_CHOICE = "single_choice"
    OPEN = "open"


class DecidedBy(str, Enum):
    RULE = "rule"
    MODEL = "model"
    PERSON = "person"


@dataclass(frozen=True)
class Item:
    id: str
    dimension: str
    subtask: str
    type: ItemType
    question: str
    answer: str
    images: tuple[str, ...] = ()
    options: Mapping[str, str] | None = None
    answer_hint: str | None = None
    line: int | None = None
    # Images carried inside the file (VLMEvalKit TSV `image` column, base64); importers write them out.
    embedded_images: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        """Hash of what the judge sees; a verdict cached under it stays valid while these do not change."""
        payload = json.dumps(
            [self.id, self.type.value, self.question, self.answer, self.answer_hint, dict(self.options or {})],
            ensure_ascii=False,
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Prediction:
    id: str
    text: str
    line: int | None = None


@dataclass(frozen=True)
class Verdict:
    """One decision on one (item, output). `correct` is None while nobody has decided."""

    correct: bool | None
    decided_by: DecidedBy | None = None
    judge: str = ""  # "rule/1", the judge model's name, or the person's username
    prompt_version: str = ""
    raw_output: str = ""  # the judge's reply verbatim (or the rule that fired)
    extracted: str = ""  # the option letter taken from a single-choice output
    note: str = ""  # why: which rule, or what went wrong with the judge call

    @property
    def decided(self) -> bool:
        return self.correct is not None


UNDECIDED = Verdict(correct=None)


@dataclass(frozen=True)
class Outcome:
    """The cascade's result for one item of a submission."""

    index: int
    item: Item
    prediction: str | None  # None: the submission has no prediction for this item
    verdict: Verdict
    output_hash: str  # of the answer part (what is judged), so verdicts are shared across different traces
    reasoning: str = ""  # what was removed before reading the answer (scoring.core.reasoning.Answer.note)
    answer: str | None = None  # the part read for the answer; None: the prediction as it is (or none)

    @property
    def judged_text(self) -> str | None:
        return self.answer if self.answer is not None else self.prediction
