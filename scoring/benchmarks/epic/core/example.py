"""An example raw response for each EPIC-Bench task, for the format page's example file: the JSON each task's
extractor looks for (raw.py), with made-up values in pixels. Pure."""
from __future__ import annotations

import json
from typing import Any, Mapping

from .raw import required_fields

BOX = [120, 80, 360, 300]  # x1, y1, x2, y2 in pixels
PATH = [[100, 420], [180, 360], [260, 300], [340, 240]]  # x, y in pixels, from the start to the goal


def example_answer(category: str, task: str) -> dict[str, Any]:
    """The answer object a model should print (inside a ```json block) for a sample of this task."""
    required = required_fields(category, task)
    if required == {"path"}:
        return {"points": PATH}
    if category == "TargetLocalization":
        return {"number_of_objects": 1, "bounding_boxes": [BOX]}
    if required == {"localization", "count"}:
        return {"number_of_instances": 1, "bounding_boxes": [BOX]}
    if "binary" in required:
        return {"bounding_boxes": [BOX], "placement_feasibility": True}
    return {"bounding_boxes": [BOX]}


def example_response(category: str, task: str) -> str:
    return "```json\n" + json.dumps(example_answer(category, task)) + "\n```"


def image_names(inputs: Mapping[str, Any]) -> list[str]:
    """The layout paths of a sample's images ("EPIC_Bench/.../x_image.jpg"), as a raw line lists them."""
    return [image["name"] for image in inputs.get("images") or () if isinstance(image, dict) and image.get("name")]


def example_record(sample: Any) -> dict[str, Any]:
    """One raw response line for a sample (a `SampleRecord`): its images and a response in the task's format."""
    return {"images": image_names(sample.inputs), "response": example_response(sample.category, sample.task)}
