"""The paper's prompts (EPIC-Bench App. C), assembled for one sample as the toolkit's data converters assemble them.

The texts are data: `prompts.json`, transcribed verbatim from the public toolkit (rxc205/EPIC-Bench-Eval,
Apache-2.0; its `source` block names the commit and files). This module holds only the assembly rules of spec
section 2.1: the first non-empty line of the task's system prompt is the system message; the user message is the
rest of it, the response-format block, one ` <image> ` per image and the task's description lines, joined by
newlines. Description lines come from a sample's text fields (at import) and are then what a model is shown
(`Sample.inputs["prompt"]`); assembling needs nothing else, so no ground truth ever reaches a prompt. Pure.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from scoring.core.contract import SampleRecord

from .taxonomy import AR, CR, FP, LEAF_BY_NAME, PR, Leaf

PROMPTS_FILE = Path(__file__).with_name("prompts.json")
IMAGE_PLACEHOLDER = " <image> "
TL_PROMPT = "TargetLocalization"  # the 14 target-localization leaves share one prompt

# Per prompt task: (title, images the model gets, the labels of its description lines after the images).
_SHAPE: Mapping[str, tuple[str, int, tuple[str, ...]]] = {
    TL_PROMPT: ("Target Localization (all 14 leaves)", 1, ("Target Object Description",)),
    "GroundDetection": ("Ground Detection", 1, ()),
    "VisualMatching": ("Visual Matching", 3, ()),
    "FeasiblePath_Ego": ("Feasible Path, ego", 2, ("Target Area Description",)),
    "FeasiblePath_Exo": ("Feasible Path, exo", 2, ("Target Area Description",)),
    "ContactRelationship_TypeOne": ("Contact Relationship, type 1", 2, ("Reference Object Description",)),
    "ContactRelationship_TypeTwo": ("Contact Relationship, type 2", 2, ("Reference Object Description",)),
    "ContactRelationship_TypeThree": ("Contact Relationship, type 3", 2, ("Reference Object Description",)),
    "AffordanceRegion": ("Affordance Region", 2, ("Reference Object Description", "Task Description")),
    "PlacementRegion": ("Placement Region", 2, ("Reference Object Description", "Placement Region Description")),
}


@dataclass(frozen=True)
class TaskPrompt:
    """One task type's prompt: the toolkit's variables (`system_var`, `response_var`) and their texts verbatim."""

    task: str  # a key of `_SHAPE`: a leaf name, or TargetLocalization for every TL leaf
    title: str
    module: str  # the toolkit's prompt module, tools/data_gen/prompts/<module>.py
    system_var: str
    response_var: str
    system_prompt: str
    response_format: str
    images: int
    description_labels: tuple[str, ...]

    @property
    def system_message(self) -> str:
        return split_system_prompt(self.system_prompt)[0]

    def user_template(self) -> str:
        """The user message with each description written as `{its label}`."""
        return assemble_user(self, [f"{label}: {{{label}}}" + ("." if self.task.startswith("FeasiblePath") else "")
                                    for label in self.description_labels])


@dataclass(frozen=True)
class SamplePrompt:
    """One sample's messages as the paper's pipeline sends them (ms-swift's `messages`, `images`)."""

    system: str
    user: str
    images: tuple[str, ...]

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@lru_cache(maxsize=1)
def prompt_data() -> Mapping[str, Any]:
    """prompts.json: `source` (where the texts come from), `tasks` (the paper's), `variants` (optional extras)."""
    return json.loads(PROMPTS_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def task_prompts() -> Mapping[str, TaskPrompt]:
    out = {}
    for task, (title, images, labels) in _SHAPE.items():
        found = prompt_data()["tasks"][task]
        out[task] = TaskPrompt(task=task, title=title, module=found["module"], system_var=found["system_var"],
                               response_var=found["response_var"], system_prompt=found["system_prompt"],
                               response_format=found["response_format"], images=images, description_labels=labels)
    return out


def prompt_task(leaf: Leaf) -> str:
    """The prompt a leaf is asked with (every TL leaf: the target-localization prompt)."""
    return TL_PROMPT if leaf.category == "TargetLocalization" else leaf.name


def split_system_prompt(text: str) -> tuple[str, str]:
    """(the system message, the rest): the text stripped, its first line and the remainder, each stripped."""
    text = (text or "").strip()
    head, _, tail = text.partition("\n")
    return head.strip(), tail.strip()


@lru_cache(maxsize=None)
def _user_head(task: TaskPrompt) -> str:
    """What every user message of a task starts with: the system prompt's rest, the response format, the images."""
    chunks = [part for part in (split_system_prompt(task.system_prompt)[1], task.response_format.strip()) if part]
    chunks.append("\n".join([IMAGE_PLACEHOLDER] * task.images))
    return "\n".join(chunks)


def assemble_user(task: TaskPrompt, lines: Sequence[str]) -> str:
    return "\n".join([_user_head(task), *lines]).strip()


def sample_prompt(task: str, lines: Sequence[str], images: Sequence[str]) -> SamplePrompt:
    """The system and user messages of one sample of a prompt task, from its description lines (what the model is
    shown, `Sample.inputs["prompt"]`) and its images in order (names only; the placeholders are the task's)."""
    found = task_prompts()[task]
    return SamplePrompt(system=found.system_message, user=assemble_user(found, lines), images=tuple(images))


# -- description lines from a sample's text fields (spec 2.1; run at import, on the raw GT JSON's text fields) --

def normalize_area_description(text: str) -> str:
    """FP: runs of two or more '2' separate areas: each becomes ',', then ', ' spacing, whitespace collapsed,
    leading and trailing commas removed."""
    text = str(text).strip()
    if not text:
        return text
    text = re.sub(r"2{2,}", ",", text)
    text = re.sub(r"\s*,\s*", ", ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"^(,\s*)+|(\s*,)+$", "", text).strip()


def normalize_reference_objects(text: str) -> str:
    """CR types 2 and 3: every run of '2' (one or more, so '2 cups' too: bug B8) becomes ', ', then ', ' spacing
    and whitespace collapsed."""
    text = str(text).strip()
    if not text:
        return text
    text = re.sub(r"2+", ", ", text)
    text = re.sub(r"\s*,\s*", ", ", text)
    return re.sub(r"\s+", " ", text).strip()


def _first(value: Any) -> str:
    """The converters' reading of a text field: the first item of a list, else the value, as text ('' when none;
    the toolkit skips such a sample, the hub keeps it with an empty description)."""
    if isinstance(value, list):
        value = value[0] if value else None
    return "" if value is None else str(value)


def _label(gt: Mapping[str, Any], text: Mapping[str, Any] | None) -> Any:
    value = text.get("text_label") if text is not None else None
    return gt.get("text_label") if value is None else value


def description_lines(gt: Mapping[str, Any], leaf: Leaf) -> list[str]:
    """The lines a leaf's converter puts after the images, from the sample's text fields (`text_annotation`, with the
    converters' legacy fallbacks)."""
    text: Mapping[str, Any] | None = gt["text_annotation"] if isinstance(gt.get("text_annotation"), dict) else None
    masks: Mapping[str, Any] = gt["mask_annotation"] if isinstance(gt.get("mask_annotation"), dict) else {}
    code = leaf.group_code
    if leaf.category == "TargetLocalization":
        return [f"Target Object Description: {_first(_label(gt, text))}"]
    if code == FP:
        return [f"Target Area Description: {normalize_area_description(_first(_label(gt, text)))}."]
    if code == CR:
        label = _first(_label(gt, text))
        if leaf.name != "ContactRelationship_TypeOne":
            label = normalize_reference_objects(label)
        return [f"Reference Object Description: {label}"]
    if code == AR:
        task = (text.get("text_label") or text.get("task_description_en")) if text is not None else None
        task = task or gt.get("text_label") or None
        reference = (text.get("reference_object_description_en") if text is not None else None) or masks.get("target_en")
        return [f"Reference Object Description: {_first(reference)}", f"Task Description: {_first(task)}"]
    if code == PR:
        reference = text.get("reference_object_description_en") if text is not None else None
        region = text.get("placement_region_description_en") if text is not None else None
        reference = masks.get("target_en") if reference is None else reference
        region = masks.get("placement_region_en") if region is None else region
        return [f"Reference Object Description: {_first(reference)}",
                f"Placement Region Description: {_first(region)}"]
    return []


# -- what the site serves: the inputs download's files and the format page's texts --

def _image_names(inputs: Mapping[str, Any]) -> list[str]:
    names = []
    for image in inputs.get("images") or ():
        name = image.get("name") if isinstance(image, Mapping) else image
        if isinstance(name, str) and name:
            names.append(name)
    return names


def record_prompt(record: SampleRecord) -> dict[str, Any] | None:
    """One line of prompts.jsonl for a sample: its key, task, the prompt task and the messages, from its inputs
    only (its ground truth is never read). None for a sample of no known leaf."""
    leaf = LEAF_BY_NAME.get(record.task)
    if leaf is None:
        return None
    inputs = record.inputs or {}
    lines = [str(line) for line in inputs.get("prompt") or ()]
    task = prompt_task(leaf)
    built = sample_prompt(task, lines, _image_names(inputs))
    return {"key": record.key, "task": record.task, "prompt_task": task, "system": built.system,
            "user": built.user, "images": list(built.images)}


def templates() -> dict[str, Any]:
    """prompt_templates.json: per prompt task, the toolkit's variables and texts, the system message and the user
    message with its descriptions as {placeholders}; the source of the texts."""
    return {
        "source": prompt_data()["source"],
        "assembly": ("system = the first non-empty line of system_prompt; user = the rest of system_prompt, then "
                     "response_format, then one ' <image> ' per image (joined by newlines), then the description "
                     "lines, all joined by newlines and stripped (docs/formats/epic.md section 2.1)"),
        "tasks": {task: {"title": t.title, "leaves": [leaf.name for leaf in LEAF_BY_NAME.values()
                                                       if prompt_task(leaf) == task],
                         "system_var": t.system_var, "response_var": t.response_var,
                         "system_prompt": t.system_prompt, "response_format": t.response_format,
                         "system": t.system_message, "user_template": t.user_template(), "images": t.images}
                  for task, t in task_prompts().items()},
    }


def input_files(records: Sequence[SampleRecord]) -> list[tuple[str, str]]:
    """The inputs download's extra files (`FormatGuide.input_files`): prompts.jsonl, one line per sample with the
    messages the paper's pipeline sends, and prompt_templates.json. Built from the records' inputs only."""
    lines = [line for line in map(record_prompt, records) if line is not None]
    return [("prompts.jsonl", "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)),
            ("prompt_templates.json", json.dumps(templates(), ensure_ascii=False, indent=1) + "\n")]


def format_prompts() -> list[tuple[str, str]]:
    """The format page's prompts (`FormatGuide.prompts`): per task type its system prompt and response-format block,
    verbatim, and the user message's shape."""
    out = []
    for t in task_prompts().values():
        out += [(f"{t.title}: system prompt ({t.system_var}); its first line is the system message",
                 t.system_prompt.strip()),
                (f"{t.title}: response format ({t.response_var})", t.response_format.strip()),
                (f"{t.title}: the user message, assembled", t.user_template())]
    return out
