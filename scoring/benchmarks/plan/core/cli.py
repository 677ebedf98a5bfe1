"""`python -m scoring plan-bench --items ITEMS PRED --output OUT.json`: score a PLAN-Bench prediction file.

Rule judge only, unless `--judge-url` names an OpenAI-compatible endpoint; then unresolved items go to that judge.
Items the cascade cannot decide stay undecided (`correct: null`) and the summary says how many.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from scoring.benchmarks.plan.core.aggregate import Row, Summary, summarise
from scoring.benchmarks.plan.core.engine import MemoryCache, judge_submission
from scoring.benchmarks.plan.core.judge_client import OpenAIJudgeClient
from scoring.benchmarks.plan.core.protocol import BUILT_IN_PROMPTS, PromptFileError, load_prompt_file
from scoring.benchmarks.plan.core.readers import check_prediction_ids, read_items, read_predictions
from scoring.benchmarks.plan.core.types import DIMENSION_KEYS, SUBTASKS, Outcome
from scoring.core.contract import SubmissionRejected


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m scoring plan-bench", description=__doc__.splitlines()[0])
    p.add_argument("predictions", type=Path, help="predictions: JSONL {id, prediction}, or a VLMEvalKit xlsx/tsv")
    p.add_argument("--items", type=Path, required=True, help="items: plan-item/1 JSONL or a VLMEvalKit TSV")
    p.add_argument("--output", type=Path, required=True, help="where to write the JSON result")
    p.add_argument("--judge-url", help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1")
    p.add_argument("--judge-model", default="", help="judge model name (required with --judge-url)")
    p.add_argument("--judge-key", default=os.environ.get("JUDGE_API_KEY", ""), help="API key (default: $JUDGE_API_KEY)")
    p.add_argument("--judge-concurrency", type=int, default=16, help="judge requests in flight at once")
    p.add_argument("--judge-timeout", type=float, default=60.0, help="seconds per judge request")
    p.add_argument("--no-intervals", action="store_true", help="skip bootstrap confidence intervals")
    p.add_argument("--judge-prompts", type=Path, default=None,
                   help="JSON file of judge prompts (open_system, open_user, choice_system, choice_user), e.g. the "
                        "paper's exact wording; default: the built-in paraphrase")
    return p


def summary_json(summary: Summary) -> dict[str, Any]:
    by_dimension = {key: summary.breakdown.get(key) for key in DIMENSION_KEYS.values()}
    return {
        "overall": summary.overall,
        "by_dimension": by_dimension,
        "by_subtask": {code: summary.breakdown.get(code) for code in SUBTASKS},
        "single_choice": summary.breakdown.get("single_choice"),
        "open": summary.breakdown.get("open"),
        "items": summary.total,
        "correct": summary.correct,
        "undecided": summary.undecided,
        "final": summary.final,
        "range": {k: list(v) for k, v in summary.ranges.items()},
        "counts": summary.counts,
        "intervals": {k: list(v) for k, v in summary.intervals.items()},
    }


def sample_json(outcome: Outcome) -> dict[str, Any]:
    v = outcome.verdict
    return {
        "id": outcome.item.id,
        "subtask": outcome.item.subtask,
        "type": outcome.item.type.value,
        "correct": v.correct,
        "extracted": v.extracted or None,
        "decided_by": v.decided_by.value if v.decided_by else None,
        "judge": v.judge,
        "prompt_version": v.prompt_version,
        "raw_judge_output": v.raw_output,
        "note": v.note,
    }


def rows_of(outcomes: list[Outcome]) -> list[Row]:
    return [Row(o.item.dimension, o.item.subtask, o.item.type, o.verdict.correct) for o in outcomes]


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.judge_url and not args.judge_model:
        print("--judge-model is required with --judge-url", file=sys.stderr)
        return 2
    try:
        items = read_items(args.items)
        predictions = read_predictions(args.predictions)
        check_prediction_ids(items, predictions)
    except SubmissionRejected as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        for problem in exc.problems[1:]:
            print(f"  {problem}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    prompts = BUILT_IN_PROMPTS
    if args.judge_prompts is not None:
        try:
            prompts = load_prompt_file(args.judge_prompts.read_text(encoding="utf-8"), source=str(args.judge_prompts))
        except (OSError, PromptFileError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    judge = None
    if args.judge_url:
        judge = OpenAIJudgeClient(
            base_url=args.judge_url,
            model=args.judge_model,
            api_key=args.judge_key,
            timeout=args.judge_timeout,
            max_in_flight=args.judge_concurrency,
        )
    try:
        outcomes = judge_submission(items, predictions, judge=judge, cache=MemoryCache(), prompts=prompts)
    finally:
        if judge is not None:
            judge.close()
    summary = summarise(rows_of(outcomes), intervals=not args.no_intervals)
    result = {"summary": summary_json(summary), "samples": [sample_json(o) for o in outcomes]}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    overall = "awaiting judgement" if summary.overall is None else f"{summary.overall:.1f}%"
    print(f"{summary.total} items, overall {overall}, {summary.undecided} undecided -> {args.output}")
    return 0
