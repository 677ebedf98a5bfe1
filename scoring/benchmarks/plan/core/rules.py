"""The rule judge: decides an open answer only when rules make it certain, else returns *undecided*.

True when the normalised output (case, spacing, punctuation, articles, number words) equals the answer or an
alternative the hint lists, or is the same sequence up to the swaps the hint allows. False only when the hint is
absent or fully understood and the output is certainly different (empty, a refusal, another number, the other of
yes/no, the same steps in a forbidden order). Free-text hints never lead to False: the LLM or a person decides.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field

RULE_VERSION = "rule/1"

_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th",
}  # fmt: skip
_ARTICLES = {"a", "an", "the"}
_LEADING = re.compile(r"^\s*(?:(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:：]?\s*)", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*(?:->|→|=>|,|;|\n|\bthen\b)\s*", re.IGNORECASE)
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_NEGATIONS = {"not", "no", "never", "except", "or", "nor", "without"}
_REFUSALS = ("cannot determine", "can't determine", "cannot be determined", "unable to determine", "i don't know")
_ENUM_PREFIX = re.compile(r"^\s*(?:step\s*)?\d+\s*[.)]\s*", re.IGNORECASE)


def normalise(text: str) -> str:
    """Lower case, NFKC, no punctuation, no articles, number words as digits, single spaces.

    An upper-case "A" is kept (it is usually an option or step label, "B, C, A"), and so is an article that
    ends a phrase; a lower-case "a", "an" and "the" in front of a word are dropped.
    """
    text = unicodedata.normalize("NFKC", str(text)).strip()
    text = _LEADING.sub("", text)
    # Keep decimal points inside numbers ("2.5"); every other punctuation mark ends a phrase.
    text = "".join(
        "\n" if ch != "." and unicodedata.category(ch).startswith(("P", "S", "C")) else ch for ch in text
    )
    text = re.sub(r"\.(?!\d)|(?<!\d)\.", "\n", text)
    words: list[str] = []
    for phrase in text.split("\n"):
        tokens = phrase.split()
        for i, token in enumerate(tokens):
            lowered = token.lower()
            if lowered in _ARTICLES and token != "A" and i + 1 < len(tokens):
                continue
            words.append(_NUMBER_WORDS.get(lowered, lowered))
    return " ".join(words)


def _number(text: str) -> float | None:
    return float(text) if _NUMBER.match(text) else None


def split_sequence(text: str) -> list[str]:
    """Steps of a sequence answer ("B, A, C", "pick mug -> place mug", numbered lines); one step if none."""
    parts = [_ENUM_PREFIX.sub("", p) for p in _SEPARATORS.split(str(text).strip())]
    return [normalise(p) for p in parts if normalise(p)]


@dataclass(frozen=True)
class Hint:
    """What the rule judge understood of an answer hint. `understood` False: free text it must not overrule."""

    alternatives: tuple[str, ...] = ()
    unordered_all: bool = False
    unordered_groups: tuple[tuple[int, ...], ...] = ()  # 0-based positions whose order is free
    synonyms: tuple[tuple[str, str], ...] = ()  # (alias, canonical), normalised
    understood: bool = True
    clauses: tuple[str, ...] = field(default=(), compare=False)


_ACCEPT = re.compile(r"^(?:also\s+)?(?:accept(?:ed)?|alternatives?|equivalent(?:\s+answers?)?)\s*[:：]\s*(.+)$", re.I)
_ANY_ORDER = re.compile(r"^(?:(?:in\s+)?any\s+order(?:\s+is\s+(?:fine|correct|accepted))?|order\s+does\s+not\s+matter|unordered)$", re.I)
_SWAP = re.compile(
    r"^(?:swap|unordered|interchangeable)\s*[:：]\s*([\d\s,\-–]+)$"
    r"|^(?:steps?|positions?|items?)\s+([\d\s,and\-–]+?)\s+(?:may|can)\s+be\s+(?:swapped|in\s+any\s+order|interchanged)$",
    re.I,
)
_SYNONYM = re.compile(r"^(?:alias|synonym|same)\s*[:：]\s*(.+?)\s*=\s*(.+)$", re.I)


def _positions(text: str) -> tuple[int, ...]:
    text = re.sub(r"\band\b", ",", text)
    out: list[int] = []
    for part in re.split(r"[,\s]+", text.strip()):
        if not part:
            continue
        if re.match(r"^\d+[\-–]\d+$", part):
            lo, hi = (int(x) for x in re.split(r"[\-–]", part))
            out.extend(range(lo - 1, hi))
        elif part.isdigit():
            out.append(int(part) - 1)
    return tuple(sorted(set(out)))


def parse_hint(hint: str | None) -> Hint:
    """Understand the structured hint forms documented in docs/plan-scoring.md; anything else is free text."""
    if hint is None or not str(hint).strip():
        return Hint()
    raw = str(hint).strip()
    if raw.startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            return Hint(understood=False)
        if not isinstance(data, dict):
            return Hint(understood=False)
        accept = data.get("accept") or []
        unordered = data.get("unordered")
        try:
            json_groups = (
                tuple(tuple(sorted(int(p) - 1 for p in g)) for g in unordered) if isinstance(unordered, list) else ()
            )
            accepted = tuple(normalise(str(a)) for a in ([accept] if isinstance(accept, str) else accept))
        except (TypeError, ValueError):
            return Hint(understood=False)
        return Hint(
            alternatives=accepted,
            unordered_all=unordered is True,
            unordered_groups=json_groups,
            understood=set(data) <= {"accept", "unordered"},
        )
    alternatives: list[str] = []
    groups: list[tuple[int, ...]] = []
    synonyms: list[tuple[str, str]] = []
    unordered_all = False
    understood = True
    clauses = [c.strip().rstrip(".") for c in re.split(r"\n|(?<!\d)\.\s+", raw) if c.strip().rstrip(".")]
    for clause in clauses:
        if m := _ACCEPT.match(clause):
            body = m.group(1)
            parts = body.split("|") if "|" in body else body.split(";") if ";" in body else [body]
            alternatives += [normalise(p) for p in parts if normalise(p)]
        elif _ANY_ORDER.match(clause):
            unordered_all = True
        elif m := _SWAP.match(clause):
            positions = _positions(m.group(1) or m.group(2))
            if len(positions) >= 2:
                groups.append(positions)
            else:
                understood = False
        elif m := _SYNONYM.match(clause):
            synonyms.append((normalise(m.group(2)), normalise(m.group(1))))
        else:
            understood = False
    return Hint(tuple(alternatives), unordered_all, tuple(groups), tuple(synonyms), understood, tuple(clauses))


@dataclass(frozen=True)
class RuleDecision:
    correct: bool | None
    rule: str


def _apply_synonyms(text: str, hint: Hint) -> str:
    for alias, canonical in hint.synonyms:
        text = re.sub(rf"\b{re.escape(alias)}\b", canonical, text)
    return text


def _sequence_allowed(answer: list[str], output: list[str], hint: Hint) -> bool:
    """Is `output` the answer with steps reordered only within the groups the hint frees?"""
    if len(answer) != len(output):
        return False
    if hint.unordered_all:
        return sorted(answer) == sorted(output)
    fixed = set(range(len(answer))) - {p for g in hint.unordered_groups for p in g}
    if any(answer[p] != output[p] for p in fixed):
        return False
    return all(sorted(answer[p] for p in g if p < len(answer)) == sorted(output[p] for p in g if p < len(output))
               for g in hint.unordered_groups)


def judge_open(answer: str, output: str, hint_text: str | None) -> RuleDecision:
    """True / False when certain, None (undecided) otherwise."""
    hint = parse_hint(hint_text)
    out_norm = _apply_synonyms(normalise(output), hint)
    ans_norm = _apply_synonyms(normalise(answer), hint)
    if not out_norm:
        return RuleDecision(False, "empty output")
    accepted = [ans_norm, *(_apply_synonyms(a, hint) for a in hint.alternatives)]
    if out_norm in accepted:
        return RuleDecision(True, "normalised exact match" if out_norm == ans_norm else "hint alternative")
    if any(r in out_norm for r in _REFUSALS) and not any(r in ans_norm for r in _REFUSALS):
        return RuleDecision(False if hint.understood else None, "refusal")
    # Numbers: "3", "3.0", "three", "3 mugs" against a numeric answer.
    ans_number = _number(ans_norm)
    if ans_number is not None:
        out_tokens = out_norm.split()
        numbers = [_number(t) for t in out_tokens if _number(t) is not None]
        alternative_numbers = [_number(a) for a in hint.alternatives]
        if len(numbers) == 1 and not _NEGATIONS & set(out_tokens):
            if numbers[0] == ans_number or numbers[0] in alternative_numbers:
                return RuleDecision(True, "same number")
            if hint.understood and len(out_tokens) <= 4:
                return RuleDecision(False, "different number")
        return RuleDecision(None, "number not certain")
    # Yes / no.
    if ans_norm in ("yes", "no") and not hint.alternatives:
        first = out_norm.split()[0]
        if first in ("yes", "no") and len(out_norm.split()) <= 6 and not _NEGATIONS - {"no"} & set(out_norm.split()):
            if first == ans_norm:
                return RuleDecision(True, "same yes/no")
            return RuleDecision(False if hint.understood else None, "other yes/no")
    # Sequences, up to the swaps the hint allows.
    answer_steps = split_sequence(_apply_synonyms(answer, hint) if not hint.synonyms else answer)
    if len(answer_steps) >= 2:
        answer_steps = [_apply_synonyms(s, hint) for s in answer_steps]
        output_steps = [_apply_synonyms(s, hint) for s in split_sequence(output)]
        if output_steps == answer_steps or _sequence_allowed(answer_steps, output_steps, hint):
            return RuleDecision(True, "same sequence up to allowed swaps")
        for alternative in hint.alternatives:
            if output_steps == [_apply_synonyms(s, hint) for s in split_sequence(alternative)]:
                return RuleDecision(True, "hint alternative sequence")
        if hint.understood and sorted(output_steps) == sorted(answer_steps):
            return RuleDecision(False, "same steps in an order the hint does not allow")
    return RuleDecision(None, "not certain")


