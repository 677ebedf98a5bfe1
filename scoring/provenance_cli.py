"""`python -m scoring verify PROVENANCE.json FILE --split-dir DIR` and `python -m scoring provenance FILE ...`: make a
score again from its file and its split, off the site, and compare it with a provenance file key by key. Pure: no
Django, no database (a benchmark whose scorer needs the site is verified there: `python manage.py verify_provenance`).

A split folder holds `samples.jsonl`, one sample per line ({key, position, category, group, task, inputs,
ground_truth}), as `python manage.py export_split_dir` writes it for those who may see the split's ground truth.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from scoring import benchmarks
from scoring.core import provenance as core
from scoring.core.contract import SampleRecord, ScorerInput, SubmissionRejected

SAMPLES_FILE = "samples.jsonl"
SAMPLE_FIELDS = ("key", "position", "category", "group", "task", "inputs", "ground_truth")


class SplitDirInvalid(ValueError):
    pass


def read_split_dir(folder: Path) -> list[SampleRecord]:
    """The samples of a split folder, in position order; SplitDirInvalid naming the file, line and field."""
    path = folder / SAMPLES_FILE
    if not path.is_file():
        raise SplitDirInvalid(f"{path}: no such file (a split folder holds {SAMPLES_FILE})")
    samples = []
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise SplitDirInvalid(f"{path}, line {number}: not JSON ({exc})") from None
            if not isinstance(row, dict) or not isinstance(row.get("key"), str):
                raise SplitDirInvalid(f"{path}, line {number}, field 'key': a sample is an object with a key")
            for name in ("inputs", "ground_truth"):
                if not isinstance(row.get(name, {}), dict):
                    raise SplitDirInvalid(f"{path}, line {number}, field '{name}': must be an object")
            samples.append(SampleRecord(
                key=row["key"], position=int(row.get("position") or 0), category=str(row.get("category") or ""),
                group=str(row.get("group") or ""), task=str(row.get("task") or ""), inputs=row.get("inputs") or {},
                ground_truth=row.get("ground_truth") or {}))
    return sorted(samples, key=lambda s: (s.position, s.key))


def rescore(*, benchmark: str, split: str, split_version: int, file: Path, samples: Sequence[SampleRecord],
            upload_options: dict[str, Any], model: str) -> dict[str, Any]:
    """The provenance keys and figures of `file` scored now against `samples` by the benchmark's pure scorer
    (`BenchmarkPlugin.rescorer`). LookupError when the benchmark has none (it is verified on the site)."""
    plugin = benchmarks.plugin_for(benchmark)
    scorer = plugin.rescore_function()
    if scorer is None:
        raise LookupError(f"{benchmark} is scored with what the site holds (its scorer: {plugin.scorer}), so its "
                          "scores are verified on the site: python manage.py verify_provenance PROVENANCE.json")
    result = scorer(ScorerInput(file_path=file, samples=samples, options=upload_options, model=model))
    digest, size = core.file_sha256(file)
    keys = core.ScoreKeys(
        benchmark=benchmark, split=split, split_version=split_version,
        ground_truth_sha256=core.ground_truth_sha256(samples), file_sha256=digest, file_size=size,
        scorer_version=result.scorer_version, options=plugin.provenance_options_of(upload_options, model),
        hub_version=core.HUB_VERSION, upload_options=upload_options, model=model)
    return core.document(keys.as_dict(), core.figures_of(result))


def _print_keys(found: dict[str, Any]) -> None:
    for key in core.KEYS:
        value = found.get(key)
        print(f"{key}: {json.dumps(value, sort_keys=True, ensure_ascii=False) if isinstance(value, dict) else value}")


def verify_main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m scoring verify",
                                description="Score FILE again and compare it with PROVENANCE.json key by key: "
                                            "prints 'same', or every key that differs (exit 1).")
    p.add_argument("provenance", type=Path, help="a provenance file (/submissions/<id>/provenance.json)")
    p.add_argument("file", type=Path, help="the prediction file it names by sha256")
    p.add_argument("--split-dir", type=Path, required=True,
                   help=f"the split's folder: {SAMPLES_FILE} with the ground truth (manage.py export_split_dir)")
    args = p.parse_args(argv)
    try:
        claimed = core.read_document(args.provenance.read_bytes())
        samples = read_split_dir(args.split_dir)
    except core.ProvenanceInvalid as exc:
        print(f"refused: {args.provenance} is not a provenance file: {exc}", file=sys.stderr)
        return 2
    except (OSError, SplitDirInvalid) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    if not args.file.is_file():
        print(f"refused: {args.file}: no such file", file=sys.stderr)
        return 2
    try:
        found = rescore(benchmark=claimed["benchmark"], split=claimed["split"],
                        split_version=claimed["split_version"], file=args.file, samples=samples,
                        upload_options=claimed["upload_options"], model=claimed["model"])
    except (LookupError, benchmarks.UnknownBenchmark) as exc:
        print(f"cannot verify here: {exc}", file=sys.stderr)
        return 2
    except SubmissionRejected as exc:
        print(f"differs: the scorer refuses {args.file}: {exc.message}", file=sys.stderr)
        return 1
    # The hub's version says which hub made the score; this one may be another and still make the same number.
    differences = core.differences(claimed, found, keys=tuple(k for k in core.COMPARED if k != "hub_version"))
    _print_keys(found)
    if claimed.get("hub_version") != found.get("hub_version"):
        print(f"note: scored by hub {claimed.get('hub_version')}, verified with {found.get('hub_version')}")
    print(core.report(differences))
    return 1 if differences else 0


def provenance_main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m scoring provenance",
                                description="Score FILE against a split folder and print its provenance keys and "
                                            "figures as a provenance file (JSON) holds them.")
    p.add_argument("file", type=Path)
    p.add_argument("--benchmark", required=True)
    p.add_argument("--split-dir", type=Path, required=True)
    p.add_argument("--split", default="", help="the split's name (default: the folder's name)")
    p.add_argument("--split-version", type=int, default=1)
    p.add_argument("--model", default="", help="the model's name (EPIC: its family's coordinate system)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an upload option, as the site stores it (repeatable), e.g. raw=true")
    p.add_argument("--output", "-o", type=Path, help="write the provenance JSON here")
    args = p.parse_args(argv)
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep or not name:
            print(f"refused: --option {item!r}: write NAME=VALUE", file=sys.stderr)
            return 2
        options[name] = value
    try:
        samples = read_split_dir(args.split_dir)
        found = rescore(benchmark=args.benchmark, split=args.split or args.split_dir.name,
                        split_version=args.split_version, file=args.file, samples=samples, upload_options=options,
                        model=args.model)
    except (OSError, SplitDirInvalid, LookupError, benchmarks.UnknownBenchmark) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    except SubmissionRejected as exc:
        print(f"rejected: {exc.message}", file=sys.stderr)
        return 1
    text = json.dumps(found, indent=2, ensure_ascii=False)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
    _print_keys(found)
    print(f"overall: {found['figures']['overall']}")
    return 0
