"""Plain labels for what the drill-down shows: task keys, outcomes, score component names and values.

Scorers store internal names (`weight_binary`, `low_iou`, `Navigation/FeasiblePath/FeasiblePath_Ego`) and JSON
values (None, False); a reader sees "Weight of the binary part", "low IoU", "FP · FP-Ego", "–" and "no". Pure.
"""
from __future__ import annotations

import math
from typing import Any

from scoring.core.columns import BoardSpec

# Words written the way a reader knows them.
WORDS = {
    "iou": "IoU", "gt": "ground truth", "px": "(pixels)", "sr": "SR", "ssr": "SSR", "spl": "SPL", "f1": "F1",
    "id": "ID", "ok": "ok", "bbox": "box", "l": "L", "opt": "optimal",
}


def humanize(name: str) -> str:
    """`weight_binary` -> "Weight of the binary part", `localization_score` -> "Localization score",
    `low_iou` -> "Low IoU"; a name that is already plain text comes back unchanged."""
    if not name or (" " in name and "_" not in name):
        return name
    if name.startswith("weight_") and len(name) > len("weight_"):
        return f"Weight of the {humanize(name[len('weight_'):]).lower()} part"
    words = [WORDS.get(w.lower(), w) for w in name.replace("-", "_").split("_") if w]
    if not words:
        return name
    text = " ".join(words)
    return text[0].upper() + text[1:] if not words[0][:1].isupper() else text


def outcome_label(outcome: str) -> str:
    """How an outcome reads in a filter and on a sample ("" is what older scorers stored for a plain result)."""
    return humanize(outcome or "ok").lower().replace("iou", "IoU")


def task_labels(spec: BoardSpec | None, tasks: list[str]) -> dict[str, str]:
    """Each task key with its board label: "Occlusion Order (OO)" for a task titled by its code, "FP · FP-Ego" for
    a leaf under its group."""
    out: dict[str, str] = {}
    for task in tasks:
        column = spec.column(task) if spec is not None else None
        if column is None or spec is None:
            out[task] = task.rsplit("/", 1)[-1].replace("_", " ")
            continue
        parent = spec.column(column.parent) if column.parent else None
        if column.title and column.title != column.key and "/" not in column.title:
            out[task] = f"{column.title} ({column.label})" if column.label != column.title else column.title
        elif parent is not None:
            out[task] = f"{parent.label} · {column.label}"
        else:
            out[task] = column.label
    return out


def value_text(value: Any) -> str:
    """A JSON value as a reader reads it: no value as "–", booleans as yes/no, numbers to three decimals."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "–"
        return f"{value:.3f}".rstrip("0").rstrip(".") or "0"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(v) for v in value) or "–"
    return str(value)
