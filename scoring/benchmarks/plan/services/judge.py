"""The judge this site uses (the LLM client from settings, its prompts, what the format page shows of them) and the
verdict cache over PlanVerdict rows."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from django.conf import settings
from django.db.models import Q

from scoring.benchmarks.plan.core.engine import CacheEntry, CacheKey
from scoring.benchmarks.plan.core.judge_client import OpenAIJudgeClient
from scoring.benchmarks.plan.core.protocol import (
    BUILT_IN_MODEL_PROMPTS,
    BUILT_IN_PROMPTS,
    PARAPHRASE_NOTE,
    JudgePrompts,
    ModelPrompts,
    PromptFileError,
    load_model_prompts,
    load_prompt_file,
)
from scoring.benchmarks.plan.core.rules import RULE_VERSION
from scoring.benchmarks.plan.core.types import DecidedBy, Verdict
from scoring.benchmarks.plan.models import PlanDecider, PlanVerdict


def judge_client_from_settings() -> OpenAIJudgeClient | None:
    """The LLM judge when JUDGE_BASE_URL and JUDGE_MODEL are set; None means rules, then people."""
    if not (settings.JUDGE_BASE_URL and settings.JUDGE_MODEL):
        return None
    return OpenAIJudgeClient(
        base_url=settings.JUDGE_BASE_URL,
        model=settings.JUDGE_MODEL,
        api_key=settings.JUDGE_API_KEY,
        # Optional tuning (not environment settings): tests shorten the backoff.
        max_in_flight=getattr(settings, "JUDGE_MAX_IN_FLIGHT", 16),
        timeout=getattr(settings, "JUDGE_TIMEOUT", 60.0),
        max_retries=getattr(settings, "JUDGE_MAX_RETRIES", 4),
        backoff=getattr(settings, "JUDGE_BACKOFF", 0.5),
    )


def judge_prompts_from_settings() -> JudgePrompts:
    """The judge prompts this site uses: the file PLAN_JUDGE_PROMPT_FILE names (e.g. the paper's exact wording),
    else the built-in paraphrase. A file that cannot be read or used raises PromptFileError naming it."""
    return _prompt_file()[0]


def model_prompts_from_settings() -> ModelPrompts:
    """What evaluated models are asked (the prompt file's "model_prompts", else the built-in text)."""
    return _prompt_file()[1]


def _prompt_file() -> tuple[JudgePrompts, ModelPrompts]:
    path = settings.PLAN_JUDGE_PROMPT_FILE
    if not path:
        return BUILT_IN_PROMPTS, BUILT_IN_MODEL_PROMPTS
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise PromptFileError(f"PLAN_JUDGE_PROMPT_FILE {path}: cannot read it ({exc.strerror})") from None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if _PROMPT_CACHE.get("key") != key:
        text = Path(path).read_text(encoding="utf-8")
        source = f"PLAN_JUDGE_PROMPT_FILE {path}"
        _PROMPT_CACHE.update(key=key, value=(load_prompt_file(text, source=source),
                                             load_model_prompts(text, source=source, default=BUILT_IN_MODEL_PROMPTS)))
    return _PROMPT_CACHE["value"]


_PROMPT_CACHE: dict[str, Any] = {}


def format_prompts() -> list[tuple[str, str]]:
    """The format page's prompts (FormatGuide.prompts): the suffixes models are asked with and the judge prompt
    version verdicts are stamped with, as this site uses them now; a prompt file that cannot be used says so."""
    try:
        model, judge = model_prompts_from_settings(), judge_prompts_from_settings()
    except PromptFileError as exc:
        return [("Prompt file", f"cannot be used, so nothing is judged until it is fixed: {exc}")]
    model_source = "supplied by this site" if model.label == "site" else "the paper's appendix B.1, verbatim"
    judge_source = (f"a paraphrase of the paper's judge prompts ({PARAPHRASE_NOTE})"
                    if judge.label == BUILT_IN_PROMPTS.label else "supplied by this site")
    return [
        ("After every question", model.base),
        ("After a single-choice question", model.single_choice_suffix),
        ("After an open question", model.open_suffix),
        ("Model prompts", f"{model.label}#{model.digest}: {model_source}"),
        ("Judge prompt version", f"{judge.version}: {judge_source}; every verdict is stamped with it"),
    ]


def protocol_in_use() -> str:
    """What of PLAN's judging protocol this site's settings decide (`ScoringProtocol.in_use`): whether an LLM judge
    is configured and the judge prompts' version verdicts are given under now."""
    configured = settings.JUDGE_BASE_URL and settings.JUDGE_MODEL  # as judge_client_from_settings decides
    judge = f"the LLM judge is {settings.JUDGE_MODEL}" if configured else "no LLM judge is configured"
    try:
        prompts = judge_prompts_from_settings()
    except PromptFileError:
        return f"On this site {judge}, and its judge prompt file cannot be used."
    source = "the built-in paraphrase of appendix B.2" if prompts.label == BUILT_IN_PROMPTS.label else "this site's"
    return f"On this site {judge}; judge prompts {prompts.version} ({source})."


def provenance_options(options: Mapping[str, Any], model: str = "") -> dict[str, Any]:
    """The protocol options a PLAN score states in its provenance (the plugin's `provenance_options`): the cascade,
    the rules' version, the LLM judge's model ("" when none is configured) and the judge prompts' version and hash (sha256 over their four texts, 16 hex digits),
    as this site's settings decide them when the score is made."""
    configured = bool(settings.JUDGE_BASE_URL and settings.JUDGE_MODEL)  # as judge_client_from_settings decides
    try:
        prompts = judge_prompts_from_settings()
        version, digest = prompts.version, prompts.digest
    except PromptFileError:
        version, digest = "unusable prompt file", ""
    cascade = ["rules", "llm-judge", "people"] if configured else ["rules", "people"]
    return {"cascade": cascade, "rules": RULE_VERSION, "judge_model": settings.JUDGE_MODEL if configured else "",
            "judge_prompts": version, "judge_prompts_hash": digest}


def _verdict_of(row: PlanVerdict) -> Verdict:
    return Verdict(
        correct=row.correct,
        decided_by=DecidedBy(row.decided_by),
        judge=row.judge,
        prompt_version=row.prompt_version,
        raw_output=row.raw_output,
        extracted=row.extracted,
        note=row.note,
    )


class DatabaseVerdictCache:
    """scoring.benchmarks.plan.core's VerdictCache over PlanVerdict rows: a person's verdict first, then the judge's."""

    def lookup(self, keys: Sequence[CacheKey], *, judge: str | None, prompt_version: str) -> dict[CacheKey, Verdict]:
        wanted = set(keys)
        found: dict[CacheKey, Verdict] = {}
        fingerprints = sorted({f for f, _ in wanted})
        for start in range(0, len(fingerprints), 500):
            rows = PlanVerdict.objects.filter(item_fingerprint__in=fingerprints[start : start + 500]).filter(
                Q(decided_by=PlanDecider.PERSON) | Q(judge=judge or "", prompt_version=prompt_version)
            )
            for row in rows.order_by("created_at"):
                key = (row.item_fingerprint, row.output_hash)
                if key not in wanted:
                    continue
                if row.decided_by == PlanDecider.PERSON or key not in found:
                    found[key] = _verdict_of(row)
        return found

    def store(self, entries: Sequence[CacheEntry]) -> None:
        PlanVerdict.objects.bulk_create(
            [
                PlanVerdict(
                    item_key=e.item.id[:300],
                    item_fingerprint=e.item.fingerprint,
                    output_hash=e.output_hash,
                    output_text=e.output,
                    judge=e.verdict.judge[:200],
                    prompt_version=e.verdict.prompt_version,
                    decided_by=e.verdict.decided_by.value if e.verdict.decided_by else PlanDecider.MODEL,
                    correct=bool(e.verdict.correct),
                    extracted=e.verdict.extracted[:10],
                    raw_output=e.verdict.raw_output,
                    note=e.verdict.note,
                )
                for e in entries
                if e.verdict.decided
            ],
            ignore_conflicts=True,
        )
