"""A second verbalisation of every goal instruction (the instruction-robustness option of App. C / E.2).

The paper words each goal a second way, with a second generator or rewriting style, and compares a model's
success on both. Ours: no second language model is run here, so the second style is a rewriting of the frame
around the goal's outcome. Generated instructions are a frame ("Operate the device until this happens:") around
the description of the transition that enters the goal (`task_defs.TEMPLATES_FIRST` / `TEMPLATES_NEXT`); the
rephrasing swaps that frame for one of another style (the goal stated as an outcome to bring about) and keeps the
description word for word, so the component, the action and its parameters mean what they meant. An instruction
in no known frame (an imported task, the practice task) keeps its text after a lead-in of the second style.

Deterministic per task: the frame is chosen from the task id and the goal's index (sha256), never from the clock
or a random generator, so every episode of a task reads the same rephrased instructions. Pure.
"""
from __future__ import annotations

import hashlib
from typing import Sequence

from scoring.benchmarks.vge.core.task_defs import TEMPLATES_FIRST, TEMPLATES_NEXT

ORIGINAL = "original"
REPHRASED = "rephrased"
STYLES = (ORIGINAL, REPHRASED)

# The second style: the goal as an outcome to bring about. Each differs from every original frame.
REPHRASED_FIRST = (
    "Your goal is to bring about this outcome: {d}",
    "Work the controls until you observe this: {d}",
    "Act on the device so that you end up seeing this: {d}",
)
REPHRASED_NEXT = (
    "Once that is done, bring about this outcome: {d}",
    "Following that, work the controls until you observe this: {d}",
    "As the next step, act on the device so that you see this: {d}",
)
# For an instruction in no known frame: a lead-in, its text kept.
LEAD_IN_FIRST = "Your goal for this step: {d}"
LEAD_IN_NEXT = "Your next goal: {d}"
NOTHING_SAID = "Work the device towards its next state."


def _pick(task_id: str, index: int, choices: Sequence[str]) -> str:
    digest = hashlib.sha256(f"{task_id}\n{index}".encode()).digest()
    return choices[int.from_bytes(digest[:4], "big") % len(choices)]


def _outcome(text: str) -> str | None:
    """The goal's description inside a generated instruction's frame (None: not a generated frame)."""
    for template in (*TEMPLATES_FIRST, *TEMPLATES_NEXT):
        lead = template.split("{d}")[0]
        if text.startswith(lead) and text[len(lead):].strip():
            return text[len(lead):].strip()
    return None


def lowered(text: str) -> str:
    """The text with its first letter in lower case, unless the first word is an acronym or a name like "LEDs"."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and not first[1:].islower():
        return text
    return text[:1].lower() + text[1:]


def rephrase_instruction(*, task_id: str, index: int, text: str) -> str:
    """Goal `index` (0-based) of task `task_id`, worded in the second style: never empty, never the same text."""
    text = (text or "").strip()
    outcome = _outcome(text)
    if outcome is not None:
        return _pick(task_id, index, REPHRASED_NEXT if index else REPHRASED_FIRST).format(d=outcome)
    if not text:
        return NOTHING_SAID
    return (LEAD_IN_NEXT if index else LEAD_IN_FIRST).format(d=lowered(text))


def rephrased_instructions(*, task_id: str, instructions: Sequence[str]) -> tuple[str, ...]:
    """Every goal instruction of a task in the second style."""
    return tuple(rephrase_instruction(task_id=task_id, index=i, text=t) for i, t in enumerate(instructions))


def instruction_shown(*, task_id: str, index: int, text: str | None, style: str) -> str | None:
    """What an episode played with instruction `style` shows for goal `index` (None once every goal is reached)."""
    if text is None or style != REPHRASED:
        return text
    return rephrase_instruction(task_id=task_id, index=index, text=text)
