"""python -m scoring tiny-bench --samples S.json ANSWERS.jsonl: prints the overall score."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from scoring.core.contract import SampleRecord
from tests.tiny_benchmark.core.scoring import read_answers, score


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring tiny-bench")
    parser.add_argument("--samples", required=True, type=Path)
    parser.add_argument("answers", type=Path)
    args = parser.parse_args(argv)
    samples = [SampleRecord(key=s["key"], position=i, task=s["task"], ground_truth={"answer": s["answer"]})
               for i, s in enumerate(json.loads(args.samples.read_text()))]
    print(json.dumps({"overall": score(samples, read_answers(args.answers)).overall}))
    return 0
