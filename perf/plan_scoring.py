"""PLAN-Bench scoring speed: a 699-item submission with the rule judge alone (target < 2 s), and 516 open items
sent to a local judge server that answers in 200 ms (targets: >= 8 calls in flight, wall < 30 s).

Run: .venv/bin/python perf/plan_scoring.py
"""
from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.benchmarks.plan.core.aggregate import summarise
from scoring.benchmarks.plan.core.cli import rows_of
from scoring.benchmarks.plan.core.engine import MemoryCache, judge_submission
from scoring.benchmarks.plan.core.judge_client import OpenAIJudgeClient
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer
from scoring.benchmarks.plan.core.readers import check_prediction_ids, read_items, read_predictions
from scoring.benchmarks.plan.core.types import DIMENSIONS

SIZES = {"Spatial Cognition": 259, "Temporal Reasoning": 210, "Multi-Step Planning": 230}
SINGLE, OPEN_WITH_HINT = 183, 486


def make_items(rng: random.Random) -> list[dict]:
    """699 items shaped like the paper's: 183 single-choice, 516 open (486 with a hint), 3 dimensions, 16 subtasks."""
    records = []
    for dimension, count in SIZES.items():
        codes = DIMENSIONS[dimension]
        for k in range(count):
            code = codes[k % len(codes)]
            records.append({"id": f"{code.lower()}-{k:04d}", "dimension": dimension, "subtask": code})
    rng.shuffle(records)
    for n, r in enumerate(records):
        r["images"] = [f"{r['id']}/{i}.jpg" for i in range(1 + n % 4)]
        if n < SINGLE:
            r.update(type="single_choice", question="Which?", options={"A": "left", "B": "right", "C": "up", "D": "down"},
                     answer="ABCD"[n % 4], answer_hint=None)
        else:
            steps = ["pick mug", "open tap", "fill mug", "close tap"]
            r.update(type="open", question="Plan the steps.", options=None, answer=", ".join(steps),
                     answer_hint="Steps 2 and 3 may be swapped" if n - SINGLE < OPEN_WITH_HINT else None)
    return records


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def main() -> int:
    rng = random.Random(7)
    items_records = make_items(rng)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        items_path = write(folder / "items.jsonl", items_records)
        # Rule run: exact, reworded, reordered and wrong outputs the rules settle.
        preds = []
        for r in items_records:
            if r["type"] == "single_choice":
                preds.append({"id": r["id"], "prediction": rng.choice(["A", "The answer is B", "(C)", "D."])})
            else:
                preds.append({"id": r["id"], "prediction": rng.choice([
                    r["answer"], r["answer"].upper(), "pick mug -> fill mug -> open tap -> close tap", "close tap, pick mug, open tap, fill mug"])})
        pred_path = write(folder / "pred_rule.jsonl", preds)
        start = time.perf_counter()
        items = read_items(items_path)
        predictions = read_predictions(pred_path)
        check_prediction_ids(items, predictions)
        outcomes = judge_submission(items, predictions)
        summary = summarise(rows_of(outcomes))
        rule_wall = time.perf_counter() - start
        print(f"rule judge: {len(items)} items ({sum(r['type'] == 'open' for r in items_records)} open) read, judged and "
              f"aggregated with 1000-resample bootstrap in {rule_wall:.3f} s (target < 2 s); "
              f"overall {summary.overall}, undecided {summary.undecided}")

        # LLM run: every open output needs the judge.
        llm_preds = [{"id": r["id"], "prediction": f"I would {r['answer']} (variant {i})" if r["type"] == "open" else "A"}
                     for i, r in enumerate(items_records)]
        predictions = read_predictions(write(folder / "pred_llm.jsonl", llm_preds))
        with LocalJudgeServer(delay=0.2) as server:
            judge = OpenAIJudgeClient(base_url=server.base_url, model="local-judge", max_in_flight=16, timeout=10)
            start = time.perf_counter()
            outcomes = judge_submission(items, predictions, judge=judge, cache=MemoryCache())
            llm_wall = time.perf_counter() - start
            judge.close()
            calls, peak = len(server.requests), server.peak_in_flight
        summary = summarise(rows_of(outcomes))
        by_model = sum(1 for o in outcomes if o.verdict.decided_by and o.verdict.decided_by.value == "model")
        print(f"LLM judge (200 ms per reply): {calls} calls, peak {peak} in flight (client saw {judge.peak_in_flight}; "
              f"target >= 8), wall {llm_wall:.2f} s (target < 30 s; serial would be {calls * 0.2:.0f} s); "
              f"{by_model} decided by the model, undecided {summary.undecided}")
        ok = rule_wall < 2 and peak >= 8 and llm_wall < 30
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
