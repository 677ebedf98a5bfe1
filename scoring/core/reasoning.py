"""What of a thinking model's output is its answer: one helper for every benchmark's reader.

`strip_think` is the EPIC toolkit's rule, kept exactly (EPIC's raw reader and VGE's action reader call it): an output that opens a
`<think>` block and never closes it has no answer (a trace cut off by the token limit); otherwise every
`<think>…</think>` block is removed. `answer_part` adds what thinking models print after their trace
("Final answer: B", "**Final Answer:** …"): the text after the last such marker is the answer. It says what it
removed, so a verdict can record it. Pure, no Django.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL)
# "Final answer:", "**Final Answer**:", "Final answer is:", "final answer：" (full-width colon); not "final answers".
FINAL_ANSWER = re.compile(
    r"(?i)(?:\*\*|__)?\bfinal\s+answer\b(?:\s+is)?(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?"
)

UNCLOSED = "unclosed think"
THINK = "think"
FINAL = "final answer"


def strip_think(text: str) -> str | None:
    """`text` without its `<think>…</think>` blocks (stripped), unchanged when it has none; None when a
    `<think>` is never closed (EPIC toolkit: No Valid Response)."""
    if "<think>" in text:
        if "</think>" not in text:
            return None
        return THINK_BLOCK.sub("", text).strip()
    return text


@dataclass(frozen=True)
class Answer:
    text: str | None  # the part to read an answer from; None: the output has none (an unclosed trace)
    removed: tuple[str, ...] = ()  # what was taken away: "think", "final answer", or "unclosed think"

    @property
    def note(self) -> str:
        """How the verdict records it ("" when the output was read as it is)."""
        if not self.removed:
            return ""
        if UNCLOSED in self.removed:
            return "thinking trace never closed (<think> without </think>): no answer"
        parts = []
        if THINK in self.removed:
            parts.append("<think>…</think> removed")
        if FINAL in self.removed:
            parts.append('read after "Final answer:"')
        return "; ".join(parts)


def answer_part(text: str) -> Answer:
    """The answer part of a model's output (see the module docstring)."""
    stripped = strip_think(text)
    if stripped is None:
        return Answer(None, (UNCLOSED,))
    removed: list[str] = [THINK] if "<think>" in text else []
    markers = list(FINAL_ANSWER.finditer(stripped))
    if markers:
        tail = stripped[markers[-1].end():].strip()
        if tail:
            return Answer(tail, (*removed, FINAL))
    return Answer(stripped, tuple(removed))
