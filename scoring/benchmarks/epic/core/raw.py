"""Raw model responses -> std_format records, by the reference rules of spec section 3.

Rules: the task comes from the image paths; one extractor per base task finds one JSON candidate (fenced
blocks first, then a single brace scan), converts Python literals, parses strictly and normalises boxes,
points, counts and feasibility; the four response fields are then filled from the task's requirement matrix.
Quirks of the reference (first candidate only, no key aliases, trailing commas fail) are kept on purpose so
scores stay comparable with the papers.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import PurePosixPath
from typing import Any, Callable, Mapping

from scoring.core.reasoning import strip_think

from .fields import NO_VALID_RESPONSE, NOT_REQUIRED
from .taxonomy import CATEGORIES, TL_LEAVES

_FP_SUBTYPES = ("FeasiblePath_Ego", "FeasiblePath_Exo")
_CR_SUBTYPES = ("ContactRelationship_TypeOne", "ContactRelationship_TypeTwo", "ContactRelationship_TypeThree")
_NVR = NO_VALID_RESPONSE


def task_from_path(path: str) -> tuple[str | None, str | None]:
    """(category, type) from the first category component of one image path (rule 1)."""
    parts = PurePosixPath(path).parts
    at = next((i for i, part in enumerate(parts) if part in CATEGORIES), None)
    if at is None:
        return None, None
    category = parts[at]
    below = parts[at + 1 :]
    if category == "TargetLocalization":
        return category, below[1] if len(below) > 1 and below[1] in TL_LEAVES else None
    if not below:
        return category, None
    sub = below[0]
    if category == "Navigation":
        if sub in ("GroundDetection", "VisualMatching"):
            return category, sub
        if sub == "FeasiblePath":
            return category, below[1] if len(below) > 1 and below[1] in _FP_SUBTYPES else "FeasiblePath"
        return category, None
    sub = {"Affordance": "AffordanceRegion", "Placement": "PlacementRegion"}.get(sub, sub)
    if sub in ("AffordanceRegion", "PlacementRegion"):
        return category, sub
    if sub == "ContactRelationship":
        return category, below[1] if len(below) > 1 and below[1] in _CR_SUBTYPES else "ContactRelationship"
    return category, None


def image_paths(images: Any) -> list[str]:
    """The paths of a record's `images` (strings or {"path": ...}); anything else is not an image path."""
    if not isinstance(images, list):
        return []
    out = []
    for img in images:
        if isinstance(img, dict) and img.get("path") and isinstance(img["path"], str):
            out.append(img["path"])
        elif isinstance(img, str):
            out.append(img)
    return out


def task_of_record(record: Mapping[str, Any]) -> tuple[str | None, str | None]:
    for path in image_paths(record.get("images")):
        if not path:
            continue
        category, task_type = task_from_path(path)
        if category:
            return category, task_type
    return None, None


def gt_path_from_images(images: list[str], task_type: str | None) -> str | None:
    """The GT JSON next to the `_image` file(s) (section 1.2)."""
    stems = [(PurePosixPath(p).parent, PurePosixPath(p).stem) for p in images]
    stems = [(d, s) for d, s in stems if s.endswith("_image")]
    if task_type == "VisualMatching":
        if len(stems) < 2:
            return None
        first, other = stems[0], (stems[1] if len(stems) == 2 else stems[-1])
        return str(first[0] / f"{first[1][:-6]}__{other[1][:-6]}_mask_rle.json")
    if len(stems) != 1:
        return None
    return str(stems[0][0] / f"{stems[0][1][:-6]}_mask_rle.json")


# ---------------------------------------------------------------------------------------------------------
# Candidate search and literal conversion (rules 4-9)
# ---------------------------------------------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json|python)?\s*\n?(.*?)\n?```", re.DOTALL)
_PAREN = re.compile(r"\(([^)]*)\)")


def _find_candidate(text: str, must: tuple[str, ...], any_of: tuple[str, ...]) -> str | None:
    blocks = [m.group(1).strip() for m in _FENCE.finditer(text)]
    if must:
        for block in blocks:
            if all(k in block for k in must):
                return block
    if any_of:
        for block in blocks:
            if any(k in block for k in any_of):
                return block
    start = -1
    for key in (*must, *any_of):
        start = text.find(key)
        if start != -1:
            break
    if start == -1:
        return None
    brace = text.rfind("{", 0, start)
    if brace == -1:
        return None
    depth = 0
    for i in range(brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                candidate = text[brace : i + 1]
                if must and not all(k in candidate for k in must):
                    return candidate if any_of and any(k in candidate for k in any_of) else None
                if any_of and not must and not any(k in candidate for k in any_of):
                    return None
                return candidate
    return None


def _python_to_json(text: str) -> str:
    """Single-quoted strings to double-quoted, True/False/None outside strings to JSON words."""
    text = text.replace("\\'", "'")
    out: list[str] = []
    quote: str | None = None
    escaped = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\" and quote:
            out.append(ch)
            escaped = True
        elif ch in ('"', "'"):
            if quote is None:
                quote = ch
                out.append('"')
            elif ch == quote:
                quote = None
                out.append('"')
            else:
                out.append(ch)
        elif quote:
            out.append(ch)
        else:
            for word, json_word in (("True", "true"), ("False", "false"), ("None", "null")):
                end = i + len(word)
                if text.startswith(word, i) and (end >= n or not text[end].isalnum()):
                    out.append(json_word)
                    i = end
                    break
            else:
                out.append(ch)
                i += 1
            continue
        i += 1
    return "".join(out)


def _tuples_to_lists(text: str, key: str) -> str:
    pattern = re.compile(r'("' + re.escape(key) + r'"\s*:\s*\[)(.*?)(\]\s*[,}])', re.DOTALL)
    return pattern.sub(lambda m: m.group(1) + _PAREN.sub(r"[\1]", m.group(2)) + m.group(3), text)


def _load(candidate: str, list_key: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(_tuples_to_lists(_python_to_json(candidate), list_key))
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _number(value: Any) -> int | float | None:
    if value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(f):
        return None
    return int(f) if f == int(f) and abs(f) < 1e15 else f


def _box(item: Any) -> list | None:
    if not isinstance(item, (list, tuple)):
        return None
    if len(item) == 4:
        values = [_number(v) for v in item]
        if None not in values:
            return values
    if len(item) == 2 and all(isinstance(v, (list, tuple)) and len(v) >= 2 for v in item):
        values = [_number(item[0][0]), _number(item[0][1]), _number(item[1][0]), _number(item[1][1])]
        if None not in values:
            return values
    if len(item) == 1 and isinstance(item[0], (list, tuple)) and len(item[0]) >= 4:
        values = [_number(v) for v in item[0][:4]]
        if None not in values:
            return values
    return None


def _point(item: Any) -> list | None:
    if not isinstance(item, (list, tuple)):
        return None
    if len(item) == 2:
        values = [_number(item[0]), _number(item[1])]
        if None not in values:
            return values
    if len(item) == 1 and isinstance(item[0], (list, tuple)) and len(item[0]) >= 2:
        values = [_number(item[0][0]), _number(item[0][1])]
        if None not in values:
            return values
    return None


def normalize_boxes(value: Any) -> list[list]:
    return [b for b in map(_box, value) if b is not None] if isinstance(value, list) else []


def normalize_points(value: Any) -> list[list]:
    return [p for p in map(_point, value) if p is not None] if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # the reference crashes on an infinite count; we say NVR
        return None


def _feasible(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("true", "1", "yes")


# ---------------------------------------------------------------------------------------------------------
# Extractors (rules 2, 10-13): each returns the normalised object, or None for No Valid Response
# ---------------------------------------------------------------------------------------------------------


def _tl(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj.get("number_of_objects") is None:
        return None
    n = _int(obj["number_of_objects"])
    if n is None:
        return None
    boxes = obj.get("bounding_boxes")
    return {"number_of_objects": n, "bounding_boxes": normalize_boxes(boxes) if boxes is not None else []}


def _boxes_only(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj.get("bounding_boxes") is None:
        return None
    return {"bounding_boxes": normalize_boxes(obj["bounding_boxes"])}


def _placement(obj: dict[str, Any]) -> dict[str, Any] | None:
    boxes, feasible = obj.get("bounding_boxes"), obj.get("placement_feasibility")
    if boxes is None or feasible is None:
        return None
    return {"bounding_boxes": normalize_boxes(boxes), "placement_feasibility": _feasible(feasible)}


def _path(obj: dict[str, Any]) -> dict[str, Any] | None:
    if obj.get("points") is None:
        return None
    points = normalize_points(obj["points"])
    return {"points": points} if len(points) >= 3 else None


def _instances(obj: dict[str, Any]) -> dict[str, Any] | None:
    num, boxes = obj.get("number_of_instances"), obj.get("bounding_boxes")
    if num is None and boxes is None:
        return None
    out: dict[str, Any] = {}
    if num is not None:
        n = _int(num)
        if n is None:
            return None
        out["number_of_instances"] = n
    out["bounding_boxes"] = normalize_boxes(boxes) if boxes is not None else []
    return out


_Extractor = tuple[tuple[str, ...], tuple[str, ...], str, Callable[[dict[str, Any]], dict[str, Any] | None]]
_TL_X: _Extractor = (("number_of_objects", "bounding_boxes"), ("number_of_objects",), "bounding_boxes", _tl)
_BOX_X: _Extractor = ((), ("bounding_boxes",), "bounding_boxes", _boxes_only)
_PR_X: _Extractor = (("bounding_boxes", "placement_feasibility"), ("placement_feasibility",), "bounding_boxes", _placement)
_FP_X: _Extractor = ((), ("points",), "points", _path)
_INST_X: _Extractor = (("number_of_instances", "bounding_boxes"), ("number_of_instances", "bounding_boxes"),
                       "bounding_boxes", _instances)


def _extractor(category: str | None, task_type: str | None) -> _Extractor | None:
    base = task_type
    if task_type in _FP_SUBTYPES:
        base = "FeasiblePath"
    elif task_type in _CR_SUBTYPES:
        base = "ContactRelationship"
    table = {
        ("Navigation", "GroundDetection"): _BOX_X,
        ("Navigation", "FeasiblePath"): _FP_X,
        ("Navigation", "VisualMatching"): _INST_X,
        ("Manipulation", "AffordanceRegion"): _BOX_X,
        ("Manipulation", "ContactRelationship"): _INST_X,
        ("Manipulation", "PlacementRegion"): _PR_X,
    }
    found = table.get((category, base))  # type: ignore[arg-type]
    if found is None and category == "TargetLocalization":
        return _TL_X
    return found


def extract(response: Any, category: str | None, task_type: str | None) -> dict[str, Any] | None:
    """The normalised answer object of one response, or None (No Valid Response)."""
    extractor = _extractor(category, task_type)
    if extractor is None:
        return None  # unregistered task: no field is required, so the answer is never read
    must, any_of, list_key, normalise = extractor
    if not response or not isinstance(response, str):
        return None
    text: str | None = response.strip()
    if not text:
        return None
    text = strip_think(text)  # the shared rule (PLAN's reader uses it too)
    if text is None:
        return None
    candidate = _find_candidate(text, must, any_of)
    if not candidate:
        return None
    obj = _load(candidate, list_key)
    return normalise(obj) if obj is not None else None


def required_fields(category: str | None, task_type: str | None) -> set[str]:
    if category == "TargetLocalization":
        return {"localization", "count"}
    if category == "Navigation":
        if task_type == "GroundDetection":
            return {"localization"}
        if task_type in ("FeasiblePath", *_FP_SUBTYPES):
            return {"path"}
        if task_type == "VisualMatching":
            return {"localization", "count"}
    if category == "Manipulation":
        if task_type in ("Affordance", "AffordanceRegion"):
            return {"localization"}
        if task_type in ("ContactRelationship", *_CR_SUBTYPES):
            return {"localization", "count"}
        if task_type in ("Placement", "PlacementRegion"):
            return {"localization", "binary"}
    return set()


def response_fields(answer: dict[str, Any] | None, required: set[str]) -> dict[str, list]:
    """The four std_format fields (rule 14)."""
    out: dict[str, list] = {}
    for key in ("localization", "count", "path", "binary"):
        name = f"formatted_response_{key}"
        if key not in required:
            out[name] = [NOT_REQUIRED]
        elif answer is None:
            out[name] = [_NVR]
        elif key == "localization":
            boxes = answer.get("bounding_boxes")
            out[name] = normalize_boxes(boxes) if boxes is not None else [_NVR]
        elif key == "count":
            value = next((answer[k] for k in ("number_of_instances", "number_of_objects") if answer.get(k) is not None), None)
            n = _int(value) if value is not None else None
            out[name] = [n] if n is not None else [_NVR]
        elif key == "path":
            points = answer.get("points")
            out[name] = normalize_points(points) if points is not None else [_NVR]
        else:
            feasible = answer.get("placement_feasibility")
            out[name] = [_feasible(feasible)] if feasible is not None else [_NVR]
    return out


def to_std_record(record: Mapping[str, Any], *, format_type: str | None = None,
                  coordinate_system: str = "auto", read_answer: bool = True) -> dict[str, Any]:
    """One raw `{"images": [...], "response": "..."}` record as a std_format record. Without `read_answer` the
    response is left unread and the four response fields out (the pre-check: which sample a line answers needs
    only its images, and reading an answer never rejects a file, it may only find no valid response)."""
    category, task_type = task_of_record(record)
    images = image_paths(record.get("images"))
    if not read_answer:
        return {"task_category": [category] if category else [], "task_type": [task_type] if task_type else [],
                "images": images, "ground_truth": {"gt_json_path": _listed(gt_path_from_images(images, task_type))}}
    answer = extract(record.get("response") or "", category, task_type)
    gt_path = gt_path_from_images(images, task_type)
    if format_type is None:
        format_type = "point" if category == "Navigation" and task_type in ("FeasiblePath", *_FP_SUBTYPES) else "bbox"
    return {
        "task_category": [category] if category else [],
        "task_type": [task_type] if task_type else [],
        "format_type": [format_type],
        "coordinate_system": [coordinate_system],
        **response_fields(answer, required_fields(category, task_type)),
        "images": images,
        "ground_truth": {"gt_json_path": _listed(gt_path)},
    }


def _listed(path: str | None) -> list[str]:
    return [path] if path else []
