"""The LLM judge protocol for PLAN-Bench and how its replies are read.

The built-in prompts are OUR PARAPHRASE of the judge's prompts, which the paper gives exactly (appendix B.2): that
text is not available in this repository, so the built-in default stays a labelled paraphrase. A site that has the
paper's exact prompts supplies them as a prompt file (`load_prompt_file`, setting PLAN_JUDGE_PROMPT_FILE). Every verdict is stamped with the prompts' version,
"<label>#<sha256 of the four prompt texts, 16 hex>", and cached verdicts are keyed by it: changing a single character
of a prompt asks the judge again instead of reusing verdicts given under other words.

Open items: a precise answer-equivalence judge that replies True or False. Single-choice outputs the extraction
rules could not resolve: the judge names the option chosen, or None. Any other reply is malformed, which leaves the
item undecided (never wrong).
"""
from __future__ import annotations

import hashlib
import json
import re
import string
from dataclasses import dataclass
from typing import Any, Mapping

from scoring.benchmarks.plan.core.types import (
    MODEL_BASE_PROMPT,
    MODEL_OPEN_SUFFIX,
    MODEL_SINGLE_CHOICE_SUFFIX,
)

BUILT_IN_LABEL = "plan-judge/2"  # /2: the two rules issue 28 names as dropped are back (/1 lacked them)
# What the site says of the built-in prompts wherever it names them.
PARAPHRASE_NOTE = "appendix B.2 gives their exact words, which are not in this repository"

OPEN_SYSTEM_PROMPT = (
    "You are a precise answer-equivalence judge for an embodied reasoning and planning benchmark. "
    "Decide whether the model output is correct with respect to the ground-truth answer.\n"
    "Rules:\n"
    "- An output that is semantically equivalent to the ground-truth answer is correct.\n"
    "- Alternatives and equivalence conditions listed in the answer hint are correct.\n"
    "- A partial answer, omitted information, a contradiction, or extra incorrect content is wrong.\n"
    "- Ignore differences of formatting, case, punctuation and spacing.\n"
    "- Do not infer missing information on the model's behalf.\n"
    "- Do not introduce alternative interpretations of the question or of the ground-truth answer.\n"
    "- Judge only the final answer in the output, not any reasoning before it.\n"
    "Reply with exactly one word, True or False, and no explanation."
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


# Each prompt text of a prompt file, and the placeholders its template must use (and may use, no others).
PROMPT_FIELDS: dict[str, frozenset[str]] = {
    "open_system": frozenset(),
    "open_user": frozenset({"answer", "hint", "output"}),
    "choice_system": frozenset(),
    "choice_user": frozenset({"question", "options", "output"}),
}


class PromptFileError(ValueError):
    """A judge prompt file that cannot be used, with the file and the field in the message."""


@dataclass(frozen=True)
class JudgePrompts:
    open_system: str
    open_user: str
    choice_system: str
    choice_user: str
    label: str = BUILT_IN_LABEL  # "plan-judge/2" for the built-in paraphrase, "site" for a deployment's file

    @property
    def digest(self) -> str:
        """sha256 over the four prompt texts (16 hex digits): the same words, the same digest."""
        texts = [self.open_system, self.open_user, self.choice_system, self.choice_user]
        return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]

    @property
    def version(self) -> str:
        """What every verdict given under these prompts is stamped with (at most 40 characters)."""
        return f"{self.label}#{self.digest}"

    def open_messages(self, *, answer: str, hint: str | None, output: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.open_system},
            {"role": "user", "content": self.open_user.format(answer=answer, hint=hint or "None", output=output)},
        ]

    def choice_messages(self, *, question: str, options: Mapping[str, str], output: str) -> list[dict[str, str]]:
        listed = "\n".join(f"{letter}. {text}" for letter, text in options.items())
        return [
            {"role": "system", "content": self.choice_system},
            {"role": "user", "content": self.choice_user.format(question=question, options=listed, output=output)},
        ]


BUILT_IN_PROMPTS = JudgePrompts(OPEN_SYSTEM_PROMPT, OPEN_USER_TEMPLATE, CHOICE_SYSTEM_PROMPT, CHOICE_USER_TEMPLATE)
PROMPT_VERSION = BUILT_IN_PROMPTS.version


def _placeholders(template: str, *, source: str, field: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as exc:
        raise PromptFileError(f"{source}: '{field}' is not a valid template ({exc}); write literal braces as {{{{ }}}}") from None


def load_prompt_file(text: str, *, source: str) -> JudgePrompts:
    """A deployment's judge prompts from a JSON object with the four fields of PROMPT_FIELDS (strings), e.g. the
    paper's exact wording. Unknown fields, missing ones, and templates with missing or unknown placeholders are
    refused with the file and the field named."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PromptFileError(f"{source}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise PromptFileError(f"{source}: expected a JSON object with {', '.join(PROMPT_FIELDS)}")
    unknown = sorted(set(data) - set(PROMPT_FIELDS) - {"model_prompts"})
    if unknown:
        raise PromptFileError(f"{source}: unknown field(s) {', '.join(unknown)}; expected {', '.join(PROMPT_FIELDS)}")
    values: dict[str, str] = {}
    for field, needed in PROMPT_FIELDS.items():
        value = data.get(field)
        if not isinstance(value, str) or not value.strip():
            raise PromptFileError(f"{source}: '{field}' is missing or not a non-empty string")
        used = _placeholders(value, source=source, field=field)
        if used - needed:
            raise PromptFileError(f"{source}: '{field}' uses unknown placeholder(s) "
                                  f"{', '.join('{' + n + '}' for n in sorted(used - needed))}")
        if needed - used:
            raise PromptFileError(f"{source}: '{field}' must contain {', '.join('{' + n + '}' for n in sorted(needed - used))}")
        values[field] = value
    return JudgePrompts(**values, label="site")


@dataclass(frozen=True)
class ModelPrompts:
    """What evaluated models are asked to add to each question (shown to submitters; not used in scoring)."""

    base: str
    single_choice_suffix: str
    open_suffix: str
    label: str = "built-in"

    @property
    def digest(self) -> str:
        texts = [self.base, self.single_choice_suffix, self.open_suffix]
        return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


BUILT_IN_MODEL_PROMPTS = ModelPrompts(MODEL_BASE_PROMPT, MODEL_SINGLE_CHOICE_SUFFIX, MODEL_OPEN_SUFFIX)
MODEL_PROMPT_FIELDS = ("base", "single_choice_suffix", "open_suffix")


def load_model_prompts(text: str, *, source: str, default: ModelPrompts) -> ModelPrompts:
    """The optional "model_prompts" object of a prompt file ({"base", "single_choice_suffix", "open_suffix"}),
    or `default` when the file has none."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PromptFileError(f"{source}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    block = data.get("model_prompts") if isinstance(data, dict) else None
    if block is None:
        return default
    if not isinstance(block, dict) or set(block) != set(MODEL_PROMPT_FIELDS) or not all(
            isinstance(v, str) and v.strip() for v in block.values()):
        raise PromptFileError(f"{source}: 'model_prompts' must be an object of non-empty strings with exactly "
                              f"{', '.join(MODEL_PROMPT_FIELDS)}")
    return ModelPrompts(**block, label="site")


# The built-in prompts, as the functions the engine has always called.
def open_messages(*, answer: str, hint: str | None, output: str) -> list[dict[str, str]]:
    return BUILT_IN_PROMPTS.open_messages(answer=answer, hint=hint, output=output)


def choice_messages(*, question: str, options: Mapping[str, str], output: str) -> list[dict[str, str]]:
    return BUILT_IN_PROMPTS.choice_messages(question=question, options=options, output=output)


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
