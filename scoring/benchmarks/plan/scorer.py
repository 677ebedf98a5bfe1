"""PLAN-Bench on the site: split samples and an uploaded file in, a ScoringResult out, through the core cascade.

Runs in the Celery worker. The LLM judge is used when JUDGE_BASE_URL and JUDGE_MODEL are set; verdicts come from and
go to the database cache; what stays undecided joins the human queue. A submission with undecided items gets
`overall=None` and `details = {"final": False, "undecided": N, "range": {...}, "status_text": "awaiting judgement
(N items)"}` until people decide the rest (scoring.benchmarks.plan.services.judgements.plan_judgement_decide then
recomputes it).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from scoring.benchmarks.plan.core.aggregate import Row, score_fields, summarise
from scoring.benchmarks.plan.core.engine import judge_submission
from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION
from scoring.benchmarks.plan.core.readers import (
    FORMAT_NAMES,
    check_prediction_ids,
    parse_predictions,
    sniff_format,
    unknown_prediction_ids,
    wrong_file_kind,
)
from scoring.benchmarks.plan.core.rules import RULE_VERSION
from scoring.benchmarks.plan.core.types import DIMENSION_OF, Item, ItemType, Outcome, Prediction
from scoring.benchmarks.plan.services.judge import (
    DatabaseVerdictCache,
    judge_client_from_settings,
    judge_prompts_from_settings,
)
from scoring.benchmarks.plan.services.judgements import plan_judgements_enqueue
from scoring.core.contract import PrecheckReport, SampleRecord, SampleResult, ScorerInput, ScoringResult

SCORER_VERSION = f"plan-bench/1 ({RULE_VERSION}, {PROMPT_VERSION})"


def scorer_version(prompt_version: str) -> str:
    """The version a score is stamped with: the rules and the judge prompts it was judged under."""
    return f"plan-bench/1 ({RULE_VERSION}, {prompt_version})"


def current_scorer_version() -> str:
    """The version a score made now bears: the rules and the judge prompts the settings name (the plugin's
    `scorer_version`, read when a re-score decides which scores are out of date)."""
    return scorer_version(judge_prompts_from_settings().version)
OUTPUT_SHOWN = 4000  # characters of each output kept for the drill-down


def item_from_record(record: SampleRecord) -> Item:
    inputs, truth = record.inputs, record.ground_truth
    return Item(
        id=record.key,
        dimension=record.category or DIMENSION_OF.get(record.task, ""),
        subtask=record.task,
        type=ItemType(inputs.get("type") or record.group or "open"),
        question=str(inputs.get("question", "")),
        answer=str(truth.get("answer", "")),
        images=tuple(inputs.get("images") or ()),
        options=inputs.get("options") or None,
        answer_hint=truth.get("answer_hint") or None,
    )


def sample_result(outcome: Outcome) -> SampleResult:
    v = outcome.verdict
    outcome_name = "undecided" if v.correct is None else "correct" if v.correct else "wrong"
    if outcome.prediction is None:
        outcome_name = "missing"
    details: dict[str, Any] = {
        "dimension": outcome.item.dimension,
        "type": outcome.item.type.value,
        "output": (outcome.prediction or "")[:OUTPUT_SHOWN],
        "extracted": v.extracted,
        "decided_by": v.decided_by.value if v.decided_by else None,
        "judge": v.judge,
        "prompt_version": v.prompt_version,
        "raw_judge_output": v.raw_output,
        "note": v.note,
        "fingerprint": outcome.item.fingerprint,
        "output_hash": outcome.output_hash,
    }
    if outcome.reasoning:
        details["reasoning_stripped"] = outcome.reasoning
    if v.correct is None:
        details["judgement_key"] = f"{outcome.item.fingerprint}:{outcome.output_hash}"
    return SampleResult(
        index=outcome.index,
        key=outcome.item.id,
        score=None if v.correct is None else float(v.correct),
        task=outcome.item.subtask,
        outcome=outcome_name,
        invalid=outcome.prediction is None,
        components={"correct": v.correct},
        details=details,
    )


def rows_from_outcomes(outcomes: Sequence[Outcome]) -> list[Row]:
    return [Row(o.item.dimension, o.item.subtask, o.item.type, o.verdict.correct) for o in outcomes]


def read_predictions_for(inp: ScorerInput, items: Sequence[Item]) -> list[Prediction]:
    """The file's predictions as the scorer reads them (at most the split's line bound), every id one of the
    split's items; `SubmissionRejected` otherwise."""
    predictions = parse_predictions(inp.file_path.read_bytes(), name=inp.file_path.name, samples=len(items))
    check_prediction_ids(list(items), predictions)
    return predictions


def sniff(head: bytes, options: Mapping[str, Any], *, complete: bool) -> str | None:
    """Said before an upload is stored: the file is the questions, not predictions (readers.wrong_file_kind)."""
    return wrong_file_kind(head, complete=complete)


def precheck(inp: ScorerInput) -> PrecheckReport:
    """What the scorer would refuse, without judging anything: the file read as `score` reads it (JSON Lines or a
    VLMEvalKit sheet, told apart by content), its ids checked against the split, and which items no line answers."""
    data = inp.file_path.read_bytes()
    predictions = parse_predictions(data, name=inp.file_path.name, samples=len(inp.samples))
    items = [item_from_record(r) for r in inp.samples]
    return PrecheckReport.of(unknown_prediction_ids(items, predictions),
                             file_format=FORMAT_NAMES[sniff_format(inp.file_path.name, data)],
                             records=len(predictions), matched_keys=[p.id for p in predictions],
                             samples=inp.samples)


def score(inp: ScorerInput) -> ScoringResult:
    items = [item_from_record(r) for r in inp.samples]
    predictions = read_predictions_for(inp, items)
    judge = judge_client_from_settings()
    prompts = judge_prompts_from_settings()
    try:
        outcomes = judge_submission(
            items, predictions, judge=judge, cache=DatabaseVerdictCache(), progress=inp.progress,
            prompts=prompts,
        )
    finally:
        if judge is not None:
            judge.close()
    plan_judgements_enqueue(outcomes=[o for o in outcomes if not o.verdict.decided])
    fields = score_fields(summarise(rows_from_outcomes(outcomes)), judge=judge.name if judge else "",
                          prompt_version=prompts.version)
    return ScoringResult(
        overall=fields["overall"],
        breakdown=fields["breakdown"],
        samples=[sample_result(o) for o in outcomes],
        scorer_version=scorer_version(prompts.version),
        intervals={k: tuple(v) for k, v in fields["intervals"].items()},
        details=fields["details"],
    )
