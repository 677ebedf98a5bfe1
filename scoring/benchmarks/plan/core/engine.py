"""The judge cascade for one submission: rules, then cached verdicts, then the LLM judge; the rest is undecided.

Single choice: VLMEvalKit extraction decides; an unresolved output goes to the LLM judge when one is given, else it
is wrong (VLMEvalKit's rule). Open: the rule judge decides what it can; a cached verdict (a person's first, then this
judge's under this prompt version) comes next; then the judge is called, in chunks, with the new verdicts stored as
they arrive. A failed or malformed judge call leaves the item undecided, never wrong.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Protocol, Sequence

from scoring.benchmarks.plan.core.extract import extract_option
from scoring.benchmarks.plan.core.judge_client import JudgeReply, Messages
from scoring.benchmarks.plan.core.protocol import BUILT_IN_PROMPTS, JudgePrompts, parse_choice, parse_true_false
from scoring.benchmarks.plan.core.rules import RULE_VERSION, judge_open
from scoring.benchmarks.plan.core.types import UNDECIDED, DecidedBy, Item, ItemType, Outcome, Prediction, Verdict
from scoring.core.reasoning import Answer, answer_part

JUDGE_CHUNK = 64  # judge calls per batch: progress and cache writes happen between batches
CacheKey = tuple[str, str]  # (item fingerprint, output hash)


def output_hash(text: str) -> str:
    """Outputs that differ only in surrounding or repeated whitespace share cached verdicts."""
    return hashlib.sha256(" ".join(str(text).split()).encode("utf-8")).hexdigest()


class ChatJudge(Protocol):
    name: str

    def complete_many(self, conversations: Sequence[Messages]) -> list[JudgeReply]: ...


@dataclass(frozen=True)
class CacheEntry:
    item: Item
    output: str
    output_hash: str
    verdict: Verdict


class VerdictCache(Protocol):
    def lookup(self, keys: Sequence[CacheKey], *, judge: str | None, prompt_version: str) -> Mapping[CacheKey, Verdict]:
        """Decided verdicts for these keys: a person's if any, else `judge`'s under `prompt_version`."""
        ...

    def store(self, entries: Sequence[CacheEntry]) -> None: ...


class MemoryCache:
    """A VerdictCache in a dict, for the CLI and tests (the site keeps its verdicts in the database)."""

    def __init__(self) -> None:
        self.verdicts: dict[tuple[str, str, str, str], Verdict] = {}

    def lookup(self, keys: Sequence[CacheKey], *, judge: str | None, prompt_version: str) -> dict[CacheKey, Verdict]:
        found: dict[CacheKey, Verdict] = {}
        for fingerprint, digest in keys:
            person = [v for (f, h, _, _), v in self.verdicts.items() if (f, h) == (fingerprint, digest) and v.decided_by is DecidedBy.PERSON]
            verdict = person[0] if person else self.verdicts.get((fingerprint, digest, judge or "", prompt_version))
            if verdict is not None:
                found[(fingerprint, digest)] = verdict
        return found

    def store(self, entries: Sequence[CacheEntry]) -> None:
        for entry in entries:
            v = entry.verdict
            self.verdicts[(entry.item.fingerprint, entry.output_hash, v.judge, v.prompt_version)] = v


def _rule_verdict(correct: bool | None, note: str, extracted: str = "") -> Verdict:
    if correct is None:
        return Verdict(None, None, judge=RULE_VERSION, raw_output="", extracted=extracted, note=note)
    return Verdict(correct, DecidedBy.RULE, judge=RULE_VERSION, prompt_version=RULE_VERSION, raw_output=note,
                   extracted=extracted, note=note)


def rule_stage(item: Item, prediction: str | None, *, judge_available: bool) -> Verdict:
    """What the rules decide alone; `correct=None` means the item goes on down the cascade."""
    if prediction is None:
        return _rule_verdict(False, "no prediction for this item")
    if item.type is ItemType.SINGLE_CHOICE:
        extraction = extract_option(prediction, item.options or {})
        if extraction.letter is not None:
            return _rule_verdict(extraction.letter == item.answer, f"extracted by {extraction.rule}", extraction.letter)
        if extraction.refused:
            return _rule_verdict(False, "refusal: no answer")
        if not judge_available:
            return _rule_verdict(False, "no option could be extracted (no LLM judge configured)")
        return _rule_verdict(None, "no option could be extracted")
    decision = judge_open(item.answer, prediction, item.answer_hint)
    return _rule_verdict(decision.correct, decision.rule)


def _conversation(item: Item, prediction: str, prompts: JudgePrompts) -> Messages:
    if item.type is ItemType.SINGLE_CHOICE:
        return prompts.choice_messages(question=item.question, options=item.options or {}, output=prediction)
    return prompts.open_messages(answer=item.answer, hint=item.answer_hint, output=prediction)


def _model_verdict(item: Item, reply: JudgeReply, judge_name: str, prompt_version: str) -> Verdict:
    if reply.content is None:
        return Verdict(None, None, judge=judge_name, prompt_version=prompt_version, note=reply.error)
    if item.type is ItemType.SINGLE_CHOICE:
        parsed = parse_choice(reply.content, item.options or {}, item.answer)
    else:
        parsed = parse_true_false(reply.content)
    if parsed.correct is None:
        return Verdict(None, None, judge=judge_name, prompt_version=prompt_version, raw_output=reply.content,
                       note=f"malformed judge reply: {parsed.problem}")
    return Verdict(parsed.correct, DecidedBy.MODEL, judge=judge_name, prompt_version=prompt_version,
                   raw_output=reply.content, extracted=parsed.letter)


def judge_submission(
    items: Sequence[Item],
    predictions: Sequence[Prediction],
    *,
    judge: ChatJudge | None = None,
    cache: VerdictCache | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
    prompts: JudgePrompts = BUILT_IN_PROMPTS,
) -> list[Outcome]:
    """One outcome per item, in item order. Prediction ids must already be checked against the items. Judge
    verdicts are asked with `prompts`, stamped with `prompts.version` and looked up in the cache under it."""
    texts = {p.id: p.text for p in predictions}
    total = len(items)
    outcomes: list[Outcome] = []
    for index, item in enumerate(items):
        text = texts.get(item.id)
        # A thinking model's trace is not its answer: the shared reader takes the answer part (EPIC does the same).
        answer = answer_part(text) if text is not None else Answer(None)
        if text is not None and answer.text is None:
            verdict = _rule_verdict(False, answer.note)
        else:
            verdict = rule_stage(item, answer.text, judge_available=judge is not None)
            if answer.removed and verdict.decided and verdict.decided_by is DecidedBy.RULE:
                verdict = replace(verdict, note=f"{verdict.note} ({answer.note})", raw_output=f"{verdict.raw_output} ({answer.note})")
        judged = answer.text if answer.removed else None
        outcomes.append(Outcome(index, item, text, verdict, output_hash(judged if judged is not None else (text or "")),
                                reasoning=answer.note, answer=judged))
    pending = [o.index for o in outcomes if not o.verdict.decided]
    progress(total - len(pending), total)
    if not pending:
        return outcomes
    if cache is not None:
        keys = [(outcomes[i].item.fingerprint, outcomes[i].output_hash) for i in pending]
        found = cache.lookup(keys, judge=judge.name if judge else None, prompt_version=prompts.version)
        for i, key in zip(pending, keys):
            if key in found:
                outcomes[i] = _replace(outcomes[i], found[key])
        pending = [i for i in pending if not outcomes[i].verdict.decided]
        progress(total - len(pending), total)
    if judge is None:
        return outcomes
    # Identical (item, output) pairs are asked once.
    unique: dict[CacheKey, list[int]] = {}
    for i in pending:
        unique.setdefault((outcomes[i].item.fingerprint, outcomes[i].output_hash), []).append(i)
    groups = list(unique.values())
    done = total - len(pending)
    for start in range(0, len(groups), JUDGE_CHUNK):
        chunk = groups[start : start + JUDGE_CHUNK]
        replies = judge.complete_many([_conversation(outcomes[g[0]].item, outcomes[g[0]].judged_text or "", prompts)
                                       for g in chunk])
        fresh: list[CacheEntry] = []
        for group, reply in zip(chunk, replies):
            first = outcomes[group[0]]
            verdict = _model_verdict(first.item, reply, judge.name, prompts.version)
            for i in group:
                outcomes[i] = _replace(outcomes[i], verdict)
            if verdict.decided:
                fresh.append(CacheEntry(first.item, first.judged_text or "", first.output_hash, verdict))
            done += len(group) if verdict.decided else 0
        if cache is not None and fresh:
            cache.store(fresh)
        progress(done, total)
    return outcomes


def _replace(outcome: Outcome, verdict: Verdict) -> Outcome:
    return replace(outcome, verdict=verdict)


__all__ = ["UNDECIDED", "CacheEntry", "ChatJudge", "MemoryCache", "VerdictCache", "judge_submission", "output_hash"]
