"""`python -m scoring epic-bench PRED.jsonl --output OUT.json`: score EPIC-Bench predictions without Django.

PRED is the toolkit's std_format (GT inline or via gt_json_path) or, with --raw, raw model responses. OUT holds
the toolkit's summary and one row per sample, in input order, and says which scorer mode produced it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scoring.core.collector import collector_paused
from scoring.core.contract import FileProblem, SubmissionRejected

from .fields import COORDINATE_SYSTEMS, FAMILY_COORDINATES, model_family
from .pipeline import format_problem, read_file, score_records
from .scorer import SCORER_VERSION, Options, SampleScore, summarize


def sample_problems(line: int, sample: SampleScore) -> list[dict]:
    """What a reader of the file should fix, with line and field: dropped items, unknown tasks, GT errors."""
    out = []
    if sample.outcome == "unknown_task":
        out.append(FileProblem(f"unknown task ({sample.category or '-'}, {sample.task_type or '-'}): placeholder "
                               "score 0", line=line, field="task_type").as_dict())
    for note in sample.details.get("notes", ()):
        name, _, text = note.partition(": ")
        out.append(FileProblem(text, line=line, field=f"formatted_response_{name}").as_dict())
    if sample.gt_error:
        why = sample.details.get("gt_problem") or sample.error or "ground truth error"
        out.append(FileProblem(f"ground truth: {why}", line=line, field="ground_truth").as_dict())
    return out


def write_result(path: Path, payload: dict) -> None:
    """The result JSON, streamed: the head as one indented block, then one sample row per line. Each part goes
    through json's C encoder (an `indent` makes json fall back to its pure-Python encoder, which took longer than
    the scoring on a full split) and nothing holds the whole text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # One encoder for every row: json.dumps with an option builds a JSONEncoder a call (~15% of the writing).
    encode = json.JSONEncoder(ensure_ascii=False).encode
    head = {key: value for key, value in payload.items() if key != "samples"}
    with path.open("w", encoding="utf-8") as out:
        out.write("{\n")
        for key, value in head.items():
            out.write(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n")
        out.write(' "samples": [')
        for i, row in enumerate(payload["samples"]):
            out.write(("\n  " if i == 0 else ",\n  ") + encode(row))
        out.write("\n ]\n}\n")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m scoring epic-bench", description=__doc__.splitlines()[0])
    p.add_argument("predictions", help="std_format JSONL (or JSON array); raw responses JSONL with --raw")
    p.add_argument("--output", "-o", help="where to write the result JSON (default: print the summary only)")
    p.add_argument("--raw", action="store_true", help="the file holds raw responses {images, response}")
    p.add_argument("--workers", type=int, default=1, help="score in N processes (default 1)")
    p.add_argument("--compat", action="store_true",
                   help="reproduce the toolkit's reading of B1 (list-wrapped sentinels) and B5 (GT-missing invalid)")
    p.add_argument("--coord-mode", choices=[c for c in COORDINATE_SYSTEMS if c != "auto"],
                   help="override every record's coordinate_system")
    p.add_argument("--model", help="the model's name: its toolkit family's coordinate system (e.g. Qwen3-VL: "
                                   "normalized_0_1000) replaces auto unless --coord-mode is given")
    p.add_argument("--family", choices=[name for name, _ in FAMILY_COORDINATES],
                   help="the model's toolkit family, as --model would find it from a name")
    p.add_argument("--gt-root", action="append", default=[],
                   help="folder that relative gt_json_path values are resolved against (repeatable)")
    p.add_argument("--expected-counts", help="JSON with overall/by_category/by_type/by_group expected totals")
    p.add_argument("--strict", action="store_true", help="fail (exit 1) if any line had to be skipped")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # The cyclic garbage collector is off while the file is read, scored and written, then as it was: the run makes
    # many long-lived objects (records, GT dicts, rows) and few cycles, so each collection walks them all for
    # nothing (on the 6,661-sample file ~0.2 s of ~1.4 s CPU; the same peak memory).
    hold_freed_memory()
    with collector_paused():
        return _score_file(args)


def hold_freed_memory() -> None:
    """Have glibc's malloc keep the memory a batch frees for the next batch instead of handing it back to the kernel
    and faulting it in again, page by page: each chunk's numpy arrays (run lengths, box-IoU pairs) are a few MB,
    above malloc's default threshold for mapping them afresh and trimming the heap. On the 6,661-sample file ~78,000
    page faults become ~26,000 and ~0.08 s CPU less; the peak RSS ~10 MiB more (freed memory is held to the end).
    Process-wide and lasting (a CLI's process ends with its file); nothing is done where the C library has no
    mallopt (not glibc)."""
    import ctypes  # already imported by numpy

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's malloc.h
    mallopt(m_mmap_threshold, 16 << 20)
    mallopt(m_trim_threshold, 128 << 20)


def _score_file(args: argparse.Namespace) -> int:
    options = Options(compat=args.compat, coord_mode=args.coord_mode,
                      family=None if args.coord_mode else args.family or model_family(args.model))
    started = time.perf_counter()
    cpu_started = time.process_time()
    try:
        parsed = read_file(args.predictions, raw=args.raw)
    except SubmissionRejected as exc:
        print(f"rejected: {exc.message}", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    wrong_format = format_problem(parsed, how_raw="pass --raw", how_std="leave out --raw")
    for problem in (*parsed.problems, *([wrong_format] if wrong_format else [])):
        print(f"warning: {args.predictions}: {problem}", file=sys.stderr)
    if args.strict and parsed.problems:
        return 1
    expected = json.loads(Path(args.expected_counts).read_text()) if args.expected_counts else None
    roots = [*args.gt_root, str(Path(args.predictions).resolve().parent)]
    records = [line.record for line in parsed.lines]
    samples = score_records(records, options=options, roots=roots, workers=max(1, args.workers))
    summary = summarize(samples, expected)
    rows = []
    problems = [p.as_dict() for p in parsed.problems]
    for line, sample in zip(parsed.lines, samples):
        row = sample.as_row()
        row["line"] = line.number
        rows.append(row)
        problems.extend(sample_problems(line.number, sample))
    payload = {
        "std_response_jsonl": str(Path(args.predictions).resolve()),
        "scorer": {"version": SCORER_VERSION, "mode": options.mode_name,
                   "parser": "reference" if args.raw else None, "coord_override": args.coord_mode,
                   "family": options.family},
        "summary": summary,
        "problems": problems,
        "samples": rows,
    }
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    if args.output:
        write_result(Path(args.output), payload)
    overall = summary["overall"]
    print(json.dumps({"overall": overall, "mode": options.mode_name, "samples": len(samples),
                      "seconds": round(elapsed, 3), "cpu_seconds_main_process": round(cpu, 3)}, indent=1))
    return 0
