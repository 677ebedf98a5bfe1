"""Reading the four `formatted_response_*` fields and GT scalars of a std_format record (spec sections 4, 5.0, 5.1).

Rules: the reference's readings, with deviation B1 unless `compat` is set: in a field that expects a list, any
string (bare or as the only item of a list) is an invalid response, except `Not Required`; a sentinel wrapped in
a list means the same as the bare sentinel in every field. Python's own min/max/int semantics are kept on
purpose (NaN and infinities behave exactly as in the reference).
"""
from __future__ import annotations

import enum
import math
import re
from typing import Any, Sequence

NOT_REQUIRED = "Not Required"
NO_VALID_RESPONSE = "No Valid Response"
_NVR_WORDS = frozenset({"no valid response", "no_valid_response", "invalid response", "no response", ""})

ABSOLUTE, NORM_1, NORM_1000, AUTO = "absolute", "normalized_0_1", "normalized_0_1000", "auto"
COORDINATE_SYSTEMS = (AUTO, ABSOLUTE, NORM_1, NORM_1000)
_COORD_ALIASES = {"normalized": NORM_1, "normalized_1000": NORM_1000}
COORDINATE_MEANINGS = {
    AUTO: "the model family's system where the model's name shows one of the families below (for lines that "
          "declare no coordinate_system); else decided per sample from its own numbers: all within 0-1 -> "
          "normalized_0_1; any above the image's larger side -> normalized_0_1000; else absolute (so 0-1000 answers "
          "on images wider or taller than 1000 px are read as pixels: choose the mode)",
    ABSOLUTE: "pixels of the image as given, x from the left, y from the top",
    NORM_1: "fractions of the width (x) and height (y), 0 to 1",
    NORM_1000: "thousandths of the width (x) and height (y), 0 to 1000",
}
# The public toolkit's batch runner overrides the coordinate system by model family (spec 5.4); the same table,
# shown on the upload form and the format page, offered by the client's --family, and applied when coord_mode is
# left at auto to a model whose name shows its family (`model_family`).
FAMILY_COORDINATES: tuple[tuple[str, str], ...] = (
    ("Qwen2.5-VL", ABSOLUTE),
    ("Claude", ABSOLUTE),
    ("Qwen3-VL", NORM_1000),
    ("Qwen3.5-VL", NORM_1000),
    ("InternVL3", NORM_1000),
    ("InternVL3.5", NORM_1000),
    ("Gemini", NORM_1000),
    ("LLaVA", NORM_1),
)
_FAMILY_MODES = dict(FAMILY_COORDINATES)


def _name_tokens(text: str) -> str:
    """A model or family name compared loosely: lower case, spaces and underscores read as '-'."""
    return re.sub(r"[\s_]+", "-", text.strip().lower())


# Longest names first, so that 'InternVL3.5-8B' is InternVL3.5, not InternVL3.
_FAMILY_PATTERNS = tuple(
    (family, re.compile(r"(?:^|[/:\-])" + re.escape(_name_tokens(family)) + r"(?![a-z0-9.])"))
    for family, _ in sorted(FAMILY_COORDINATES, key=lambda item: -len(item[0])))


def model_family(name: str | None) -> str | None:
    """The toolkit family (a name of FAMILY_COORDINATES) a model's name belongs to, or None when none matches.

    The family's name must stand as a whole part of the model's name (at its start or after '/', ':' or '-'),
    case and spacing aside: 'Qwen3-VL-8B-Instruct', 'Qwen/Qwen3-VL-235B', 'gemini-2.5-pro' and 'InternVL3.5-8B'
    match; 'Qwen3-VLM', 'InternVL30' and 'MyGeminiTune' do not.
    """
    if not name:
        return None
    text = _name_tokens(name)
    for family, pattern in _FAMILY_PATTERNS:
        if pattern.search(text):
            return family
    return None


def family_coordinates(family: str | None) -> str | None:
    """The coordinate system the toolkit's batch runner uses for a family (None: no family, or an unknown one)."""
    return _FAMILY_MODES.get(family) if family else None


class Sentinel(enum.Enum):
    NOT_REQUIRED = "not_required"
    NO_VALID_RESPONSE = "no_valid_response"


def first(value: Any) -> Any:
    """A std_format scalar: the first element of a list (None for an empty list), or the bare value."""
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _bare_sentinel(value: Any) -> Sentinel | None:
    if value is None:
        return Sentinel.NO_VALID_RESPONSE
    if isinstance(value, str):
        word = value.strip().lower()
        if word == NOT_REQUIRED.lower():
            return Sentinel.NOT_REQUIRED
        if word in _NVR_WORDS:
            return Sentinel.NO_VALID_RESPONSE
    return None


def sentinel(value: Any, *, expects_list: bool, compat: bool) -> Sentinel | None:
    """Which sentinel a field value stands for, if any (B1 unless compat)."""
    found = _bare_sentinel(value)
    if found is not None or compat:
        return found
    inner = value[0] if isinstance(value, list) and len(value) == 1 else value
    if inner is not value:
        found = _bare_sentinel(inner)
        if found is not None:
            return found
    if expects_list and isinstance(inner, str):
        return Sentinel.NO_VALID_RESPONSE
    return None


def read_boxes(value: Any) -> tuple[list[list[float]], list[str]]:
    """Box items: lists with at least 4 elements whose first four convert to float; others dropped (noted)."""
    if not isinstance(value, list):
        return [], ([] if value in ({}, None) else [f"not a list ({type(value).__name__}); read as no boxes"])
    boxes: list[list[float]] = []
    notes: list[str] = []
    for i, item in enumerate(value):
        if isinstance(item, (list, tuple)) and len(item) >= 4:
            try:
                boxes.append([float(item[0]), float(item[1]), float(item[2]), float(item[3])])
                if not all(math.isfinite(v) for v in boxes[-1]):
                    notes.append(f"item {i}: non-finite coordinate kept as the reference does")
                continue
            except (TypeError, ValueError):
                pass
        notes.append(f"item {i}: {_short(item)} is not a box [x1, y1, x2, y2]; dropped")
    return boxes, notes


def read_points(value: Any) -> tuple[list[tuple[float, float]], list[str]]:
    """Point items: lists with at least 2 elements whose first two convert to float; others dropped (noted)."""
    if not isinstance(value, list):
        return [], [f"not a list ({type(value).__name__}); read as no points"]
    points: list[tuple[float, float]] = []
    notes: list[str] = []
    for i, item in enumerate(value):
        if isinstance(item, (list, tuple)) and len(item) >= 2:
            try:
                points.append((float(item[0]), float(item[1])))
                continue
            except (TypeError, ValueError):
                pass
        notes.append(f"item {i}: {_short(item)} is not a point [x, y]; dropped")
    return points, notes


def _short(item: Any) -> str:
    text = repr(item)
    return text if len(text) <= 40 else text[:37] + "..."


def to_count(value: Any) -> int | None:
    """A count: bool 0/1, number truncated, digit string, numeric string via float; else None.

    Infinite numbers raise OverflowError as in the reference (the sample then scores 0, invalid).
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        try:
            return int(value)
        except (TypeError, ValueError):
            return None
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
        try:
            return int(float(text))
        except (TypeError, ValueError):
            return None
    return None


def pred_count(value: Any) -> int | None:
    raw = value[0] if isinstance(value, list) and value else value
    return to_count(raw)


def pred_binary(value: Any) -> bool | None:
    raw = value[0] if isinstance(value, list) and value else value
    return to_bool(raw, allow_false_words=True)


def to_bool(value: Any, *, allow_false_words: bool) -> bool | None:
    """bool; number (nonzero is true); 'true/yes/1' (and 'false/no/0' where allowed); else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "1"):
            return True
        if allow_false_words and word in ("false", "no", "0"):
            return False
        if not allow_false_words:
            return False
    return None


def coordinate_mode(value: Any) -> str:
    """The declared mode; unknown values (and empty) mean auto. An unhashable value raises TypeError, as in the reference."""
    mode = first(value) or AUTO
    mode = _COORD_ALIASES.get(mode, mode)
    return mode if mode in (ABSOLUTE, NORM_1, NORM_1000) else AUTO


def detect_mode(values: Sequence[float], height: int, width: int, mode: str) -> str:
    """The mode actually used: a declared mode as is; auto from the sample's own values (5.1)."""
    if mode != AUTO:
        return mode
    if not values:
        return ABSOLUTE
    top, bottom = max(values), min(values)
    if top <= 1.0 and bottom >= 0:
        return NORM_1
    if top > max(height, width):
        return NORM_1000
    return ABSOLUTE


def _scale(mode: str, height: int, width: int) -> tuple[float, float]:
    if mode == NORM_1:
        return float(width), float(height)
    if mode == NORM_1000:
        return width / 1000.0, height / 1000.0
    return 1.0, 1.0


def _scale_of(items: Sequence[Sequence[float]], height: int, width: int, mode: str) -> tuple[float, float]:
    """The scale of boxes or points read in `mode`; auto is detected from their values (gathered only then)."""
    if mode == AUTO:
        mode = detect_mode([v for item in items for v in item], height, width, mode)
    return _scale(mode, height, width)


def boxes_to_pixels(boxes: Sequence[Sequence[float]], height: int, width: int, mode: str) -> list[tuple[int, int, int, int]]:
    """Scale, reorder, clip to the image, drop zero-area boxes, truncate (5.1 steps 1-5)."""
    sx, sy = _scale_of(boxes, height, width, mode)
    out: list[tuple[int, int, int, int]] = []
    for box in boxes:
        x1, y1, x2, y2 = box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy
        x1, x2 = min(x1, x2), max(x1, x2)
        y1, y2 = min(y1, y2), max(y1, y2)
        x1 = max(0.0, min(x1, float(width)))
        x2 = max(0.0, min(x2, float(width)))
        y1 = max(0.0, min(y1, float(height)))
        y2 = max(0.0, min(y2, float(height)))
        if x2 > x1 and y2 > y1:
            out.append((int(x1), int(y1), int(x2), int(y2)))
    return out


def boxes_off_image(boxes: Sequence[Sequence[float]], height: int, width: int, mode: str) -> int:
    """How many boxes reach outside the image once scaled as `boxes_to_pixels` scales them (before its clipping)."""
    sx, sy = _scale_of(boxes, height, width, mode)
    return sum(1 for b in boxes if min(b[0] * sx, b[2] * sx) < 0 or max(b[0] * sx, b[2] * sx) > width
               or min(b[1] * sy, b[3] * sy) < 0 or max(b[1] * sy, b[3] * sy) > height)


def points_to_pixels(points: Sequence[tuple[float, float]], height: int, width: int, mode: str) -> list[tuple[float, float]]:
    """Scale and clip to [0, W-1] x [0, H-1]; not rounded."""
    sx, sy = _scale_of(points, height, width, mode)
    return [
        (max(0.0, min(x * sx, float(width - 1))), max(0.0, min(y * sy, float(height - 1)))) for x, y in points
    ]
