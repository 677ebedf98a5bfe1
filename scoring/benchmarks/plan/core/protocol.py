"""The LLM judge protocol of the PLAN-Bench paper (appendix B.2) and how its replies are read.

Open items: a precise answer-equivalence judge that replies True or False. Single-choice outputs the extraction
rules could not resolve: the judge names the option chosen, or None. Any other reply is malformed, which leaves the
item undecided (never wrong). Change PROMPT_VERSION whenever a prompt changes: cached verdicts are keyed by it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

PROMPT_VERSION = "plan-judge/1"

OPEN_SYSTEM_PROMPT = (
    "You are a precise answer-equivalence judge for an embodied reasoning and planning benchmark. "
    "Decide whether the model output is correct with respect to the ground-truth answer.\n"
    "Rules:\n"
    "- An output that is semantically equivalent to the ground-truth answer is correct.\n"
    "- Alternatives and equivalence conditions listed in the answer hint are correct.\n"
    "- A partial answer, omitted information, a contradiction, or extra incorrect content is wrong.\n"
    "- Ignore differences of formatting, case, punctuation and spacing.\n"
    "- Do not infer missing information on the model's behalf.\n"
    "- Judge only the final answer in the output, not any reasoning before it.\n"
    "Reply with exactly one word: True or False."
)

OPEN_USER_TEMPLATE = (
    "Ground-truth answer: {answer}\n"
    "Answer hint: {hint}\n"
    "Model output: {output}\n"
    "Is the model output correct? Reply True or False."
)

CHOICE_SYSTEM_PROMPT = (
    "You map a model's reply to a single-choice question onto the option it chose. "
    "Reply with exactly one option letter, or None when the reply chooses no option or several options."
)

CHOICE_USER_TEMPLATE = "Question: {question}\nOptions:\n{options}\nModel reply: {output}\nWhich option letter did the reply choose?"


def open_messages(*, answer: str, hint: str | None, output: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": OPEN_SYSTEM_PROMPT},
        {"role": "user", "content": OPEN_USER_TEMPLATE.format(answer=answer, hint=hint or "None", output=output)},
    ]


def choice_messages(*, question: str, options: Mapping[str, str], output: str) -> list[dict[str, str]]:
    listed = "\n".join(f"{letter}. {text}" for letter, text in options.items())
    return [
        {"role": "system", "content": CHOICE_SYSTEM_PROMPT},
        {"role": "user", "content": CHOICE_USER_TEMPLATE.format(question=question, options=listed, output=output)},
    ]


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_WRAPPING = " \t\r\n*`'\".:!"


@dataclass(frozen=True)
class ParsedReply:
    correct: bool | None  # None: malformed, the item stays undecided
    letter: str = ""
    problem: str = ""


def _final_text(reply: str) -> str:
    # Reasoning models may think aloud first; only what follows the thinking is the verdict.
    return _THINK.sub("", reply).strip().strip(_WRAPPING)


def parse_true_false(reply: str) -> ParsedReply:
    text = _final_text(reply)
    word = text.lower()
    if word in ("true", "false"):
        return ParsedReply(word == "true")
    # "Answer: True" / "True." on the last line, but never a reply that names both.
    last = text.splitlines()[-1].strip(_WRAPPING).lower() if text else ""
    last = re.sub(r"^(?:final\s+)?(?:answer|verdict|judgement|judgment)\s*[:：]\s*", "", last).strip(_WRAPPING)
    if last in ("true", "false"):
        return ParsedReply(last == "true")
    return ParsedReply(None, problem=f"expected True or False, got {reply[:200]!r}")


def parse_choice(reply: str, options: Mapping[str, str], answer: str) -> ParsedReply:
    text = _final_text(reply)
    if text in options:
        return ParsedReply(text == answer, letter=text)
    if text.lower() == "none":
        return ParsedReply(False, letter="")
    match = re.fullmatch(r"(?:option\s*)?\(?([A-Z])\)?", text, re.IGNORECASE)
    if match and match.group(1).upper() in options:
        letter = match.group(1).upper()
        return ParsedReply(letter == answer, letter=letter)
    return ParsedReply(None, problem=f"expected an option letter or None, got {reply[:200]!r}")
