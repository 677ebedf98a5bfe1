from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.benchmarks.plan.core.types import Item, ItemType


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def items_file(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "items.jsonl",
        [
            {"id": "pc-1", "dimension": "Temporal Reasoning", "subtask": "PC", "type": "open", "images": ["a.png", "b.png"],
             "question": "How many mugs?", "options": None, "answer": "3", "answer_hint": None},
            {"id": "oo-1", "dimension": "Spatial Cognition", "subtask": "OO", "type": "single_choice", "images": ["c.png"],
             "question": "Which is in front?", "options": {"A": "red box", "B": "blue box", "C": "green ball"}, "answer": "B",
             "answer_hint": None},
            {"id": "dp-1", "dimension": "Multi-Step Planning", "subtask": "DP", "type": "open", "images": ["d.png"],
             "question": "Order the steps.", "options": None, "answer": "open fridge, take milk, take butter, close fridge",
             "answer_hint": "Steps 2 and 3 may be swapped"},
        ],
    )


def open_item(answer: str = "3", hint: str | None = None, item_id: str = "pc-1", subtask: str = "PC") -> Item:
    from scoring.benchmarks.plan.core.types import DIMENSION_OF

    return Item(id=item_id, dimension=DIMENSION_OF[subtask], subtask=subtask, type=ItemType.OPEN, question="q?",
                answer=answer, answer_hint=hint)


def choice_item(answer: str = "B", item_id: str = "oo-1", subtask: str = "OO") -> Item:
    from scoring.benchmarks.plan.core.types import DIMENSION_OF

    return Item(id=item_id, dimension=DIMENSION_OF[subtask], subtask=subtask, type=ItemType.SINGLE_CHOICE,
                question="Which is in front?", answer=answer, options={"A": "red box", "B": "blue box", "C": "green ball"})
