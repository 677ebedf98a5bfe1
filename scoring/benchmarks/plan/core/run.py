"""PLAN-Bench's protocol for the hub's runner (`BenchmarkPlugin.runner`; scoring.core.runner): each item asked once
per repeat with its images (as the item gives them, in order), its question, its options (`A. text`, one a line)
and the paper's appendix B.1 instructions (the base, then the single-choice or open suffix); the answer is the
item's `plan-pred/1` line. Pure.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping

from scoring.core.runner import Context, RunError, Unit, sample_images

from .protocol import BUILT_IN_MODEL_PROMPTS, ModelPrompts
from .types import ItemType


def user_text(inputs: Mapping[str, Any], prompts: ModelPrompts = BUILT_IN_MODEL_PROMPTS) -> str:
    """The text of an item's user message: question, options, then the B.1 instructions."""
    lines = [str(inputs.get("question") or "").strip()]
    options = inputs.get("options") or {}
    lines += [f"{letter}. {text}" for letter, text in sorted(options.items())]
    single = inputs.get("type") == ItemType.SINGLE_CHOICE.value
    lines += [prompts.base, prompts.single_choice_suffix if single else prompts.open_suffix]
    return "\n".join(line for line in lines if line)


class PlanProtocol:
    options = ()
    uses_agent = False
    file_suffix = ".jsonl"

    def __init__(self, prompts: ModelPrompts = BUILT_IN_MODEL_PROMPTS):
        self.prompts = prompts

    def check_options(self, options: Mapping[str, Any], *, model: str) -> dict[str, Any]:
        if options:
            raise RunError(f"unknown option {sorted(options)[0]!r} (PLAN-Bench's protocol takes none)")
        return {}

    def request_extra(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def play(self, unit: Unit, ctx: Context) -> dict[str, Any]:
        inputs = unit.record.inputs or {}
        names = [str(name) for name in inputs.get("images") or ()]
        content = [*sample_images(ctx, unit.record, names), {"type": "text", "text": user_text(inputs, self.prompts)}]
        answer = ctx.ask(unit.request_key(), [{"role": "user", "content": content}])
        return {"id": unit.record.key, "prediction": answer.content}

    def upload_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {}


PROTOCOL = PlanProtocol()


# -- the stand-in model's PLAN answers (scoring/standin.py) --

def standin(request: Mapping[str, Any], images: list[bytes]) -> str | None:
    """To a request ending in the B.1 instructions: an option letter picked by the question's hash (single-choice),
    or a fixed phrase (open); else None."""
    messages = request.get("messages") or []
    last = messages[-1].get("content") if messages else None
    text = last if isinstance(last, str) else " ".join(
        p.get("text", "") for p in last or () if isinstance(p, dict))
    if BUILT_IN_MODEL_PROMPTS.base not in text:
        return None
    letters = re.findall(r"^([A-Z])\. ", text, re.M)
    if text.rstrip().endswith(BUILT_IN_MODEL_PROMPTS.single_choice_suffix) and letters:
        return letters[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(letters)]
    return "I do not know."
