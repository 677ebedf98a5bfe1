"""Single-choice answer extraction, following VLMEvalKit's `can_infer` so our accuracies match theirs.

Order: refusals are no answer; a lone option letter among the last four tokens (after replacing `.()[],:;!*#{}`
with spaces; case-sensitive); the pattern "answer is X"; for short outputs, the one option whose text occurs in the
output. Anything else is unresolved (None): the LLM judge may map it, otherwise it is wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

REFUSALS = (
    "Failed to obtain answer via API",
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
    "cannot determine",
    "can't determine",
    "unable to determine",
)
_PUNCTUATION = str.maketrans({c: " " for c in ".()[],:;!*#{}"})
_ANSWER_IS = re.compile(r"(?i:answer\s+is)\s*:?\s*\(?\s*([A-Z])\b(?!['’]\w)")


@dataclass(frozen=True)
class Extraction:
    letter: str | None  # the option chosen; None: unresolved or refused
    refused: bool = False
    rule: str = ""  # which rule decided, for the audit trail


def extract_option(output: str, options: Mapping[str, str]) -> Extraction:
    text = str(output)
    lowered = text.lower()
    if any(refusal.lower() in lowered for refusal in REFUSALS):
        return Extraction(None, refused=True, rule="refusal")
    tokens = text.translate(_PUNCTUATION).split()
    present = [letter for letter in options if letter in tokens]
    if len(present) == 1:
        letter = present[0]
        # VLMEvalKit: the letter must be among the last four tokens, else it is likely prose ("A robot ...").
        if tokens.index(letter) > len(tokens) - 5:
            return Extraction(letter, rule="option letter")
    elif not present and "Z" in tokens and "Z" not in options:  # VLMEvalKit: "Z" is its no-answer token
        return Extraction(None, refused=True, rule="refusal")
    match = _ANSWER_IS.search(text)
    if match and match.group(1) in options:
        return Extraction(match.group(1), rule="answer is X")
    total_option_length = sum(len(str(v)) for v in options.values())
    if len(text.strip()) <= 2 * total_option_length:
        hits = [letter for letter, value in options.items() if str(value).strip() and str(value).lower() in lowered]
        if len(hits) == 1:
            return Extraction(hits[0], rule="option text")
    return Extraction(None, rule="unresolved")
