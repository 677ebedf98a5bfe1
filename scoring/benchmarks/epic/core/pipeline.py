"""Reading prediction files (std_format or raw responses) and scoring them, in one or several processes.

Rules: the reference skips lines that are not JSON objects; we skip them too but report each with its line
number; a file that cannot be read at all, or holds no record, is rejected (`SubmissionRejected`). GT JSON
files are read once per process and cached. Results come back in input order whatever the worker count.
"""
from __future__ import annotations

import json
import math
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from scoring.core.contract import FileProblem, SubmissionRejected

from .fields import first
from .geometry import forget_prepared, prepare
from .raw import to_std_record
from .scorer import Options, SampleScore, gt_json_path, score_sample
from .taxonomy import GT_FIELDS, family


@dataclass(frozen=True)
class Line:
    number: int  # 1-based line number in the file (array files: 1-based item number)
    record: Mapping[str, Any]


@dataclass(frozen=True)
class ParsedFile:
    lines: tuple[Line, ...]
    problems: tuple[FileProblem, ...] = ()
    raw: bool = False


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SubmissionRejected(f"The file {path} does not exist.", [FileProblem(f"{path} does not exist")])
    except UnicodeDecodeError as exc:
        raise SubmissionRejected("The file is not UTF-8 text.", [FileProblem(f"not UTF-8 text at byte {exc.start}")])
    except OSError as exc:
        raise SubmissionRejected(f"The file cannot be read: {exc}", [FileProblem(str(exc))])


def parse_text(text: str, *, raw: bool = False, coordinate_system: str = "auto",
               format_type: str | None = None) -> ParsedFile:
    """Records of a JSONL (or JSON array) text; raw response lines are converted to std_format first."""
    problems: list[FileProblem] = []
    items: list[tuple[int, Any]] = []
    stripped = text.strip()
    if not stripped:
        raise SubmissionRejected("The file is empty.", [FileProblem("the file holds no record")])
    if stripped.startswith("[") and not raw:
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise SubmissionRejected(
                "The file starts with '[' but is not a JSON array.",
                [FileProblem(f"invalid JSON: {exc.msg}", line=exc.lineno)],
            )
        items = list(enumerate(data if isinstance(data, list) else [data], start=1))
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line:
                continue
            try:
                items.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                problems.append(FileProblem(f"not valid JSON ({exc.msg} at column {exc.colno}); line skipped",
                                            line=number))
    lines: list[Line] = []
    for number, item in items:
        if not isinstance(item, dict):
            problems.append(FileProblem(f"a {type(item).__name__}, not a JSON object; skipped", line=number))
            continue
        if raw:
            if not isinstance(item.get("response"), (str, type(None))):
                problems.append(FileProblem("'response' is not a string; read as no valid response", line=number,
                                            field="response"))
            if not item.get("images"):
                problems.append(FileProblem("no 'images'; the task and the GT cannot be found", line=number,
                                            field="images"))
            item = to_std_record(item, format_type=format_type, coordinate_system=coordinate_system)
        lines.append(Line(number, item))
    if not lines:
        raise SubmissionRejected("The file holds no usable record.", problems or [FileProblem("no record")])
    return ParsedFile(tuple(lines), tuple(problems), raw)


def read_file(path: Path | str, *, raw: bool = False, coordinate_system: str = "auto") -> ParsedFile:
    return parse_text(_read_text(Path(path)), raw=raw, coordinate_system=coordinate_system)


# ---------------------------------------------------------------------------------------------------------
# GT lookup for the CLI: gt_json_path as given, else relative to the prediction file or a GT root
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GTResolver:
    roots: tuple[str, ...] = ()
    _cache: dict[str, tuple[Any, str | None]] = field(default_factory=dict, compare=False, repr=False)

    def load(self, record: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str | None]:
        path = gt_json_path(record)
        inline = record.get("ground_truth")
        has_inline = isinstance(inline, dict) and any(str(k).startswith("masklet_") for k in inline)
        if path is None:
            return None, None if has_inline else "no gt_json_path and no inline ground truth"
        if path not in self._cache:
            if len(self._cache) >= 512:  # bounded: a full split's GT would otherwise stay in memory
                self._cache.pop(next(iter(self._cache)))
            self._cache[path] = self._read(path)
        data, problem = self._cache[path]
        return data, (None if has_inline else problem)

    def _read(self, path: str) -> tuple[Any, str | None]:
        candidates = [path] + [os.path.join(root, path) for root in self.roots]
        for candidate in candidates:
            if os.path.isfile(candidate):
                try:
                    with open(candidate, "rb") as handle:
                        data = json.loads(handle.read())
                except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                    return None, f"ground truth {path} is not valid JSON: {exc}"
                if not isinstance(data, dict):
                    return None, f"ground truth {path} is not a JSON object"
                return data, None
        return None, f"ground truth file {path} not found"


# ---------------------------------------------------------------------------------------------------------
# Scoring, optionally in parallel
# ---------------------------------------------------------------------------------------------------------

_worker_state: dict[str, Any] = {}


def _init_worker(roots: tuple[str, ...], options: Options) -> None:
    _worker_state["resolver"] = GTResolver(roots)
    _worker_state["options"] = options


def _score_chunk(chunk: Sequence[tuple[int, Mapping[str, Any]]]) -> list[SampleScore]:
    resolver: GTResolver = _worker_state["resolver"]
    options: Options = _worker_state["options"]
    loaded = [(index, record, *resolver.load(record)) for index, record in chunk]
    _prepare_masks((record, raw_gt) for _, record, raw_gt, _ in loaded)
    try:
        return [score_sample(record, raw_gt, index=index, options=options, gt_problem=problem)
                for index, record, raw_gt, problem in loaded]
    finally:
        forget_prepared()


def _prepare_masks(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> None:
    """Batch-decode the run lengths of the GT masks a chunk will score (see geometry.prepare); display-only
    masks (reference areas and objects) are never read, so they are left alone."""
    values: list[Any] = []
    for record, raw_gt in pairs:
        fam = family(first(record.get("task_category")), first(record.get("task_type")))
        if fam is None:
            continue
        names = GT_FIELDS[fam]
        masks = raw_gt.get("mask_annotation") if isinstance(raw_gt, dict) else None
        inline = record.get("ground_truth")
        for name in (names.localization, names.path, names.target_area):
            if not name:
                continue
            if isinstance(masks, dict) and name in masks:
                values.append(masks[name])
            elif isinstance(inline, dict) and name in inline:
                values.append(inline[name])
    prepare(values)


def score_records(records: Sequence[Mapping[str, Any]], *, options: Options = Options(), roots: Sequence[str] = (),
                  workers: int = 1, progress: Callable[[int, int], None] | None = None,
                  chunk_size: int = 256) -> list[SampleScore]:
    """Score records whose GT is referenced by gt_json_path (or inline); results in input order."""
    indexed = list(enumerate(records))
    chunks = [indexed[i : i + chunk_size] for i in range(0, len(indexed), chunk_size)]
    total = len(indexed)
    results: list[SampleScore] = []
    if workers <= 1 or len(chunks) <= 1:
        _init_worker(tuple(roots), options)
        for chunk in chunks:
            results.extend(_score_chunk(chunk))
            if progress:
                progress(len(results), total)
        return results
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                             initargs=(tuple(roots), options)) as pool:
        for part in pool.map(_score_chunk, chunks):
            results.extend(part)
            if progress:
                progress(len(results), total)
    return results


def score_with_gt(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]], *,
                  options: Options = Options(), progress: Callable[[int, int], None] | None = None,
                  total: int = 0, every: int = 250) -> list[SampleScore]:
    """Score (record, raw GT, GT problem) triples where the caller already holds the GT (the site)."""
    out: list[SampleScore] = []
    batch: list[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]] = []

    def flush() -> None:
        _prepare_masks((record, raw_gt) for record, raw_gt, _ in batch)
        try:
            for record, raw_gt, problem in batch:
                out.append(score_sample(record, raw_gt, index=len(out), options=options, gt_problem=problem))
        finally:
            forget_prepared()
        batch.clear()
        if progress:
            progress(len(out), total)

    for triple in pairs:
        batch.append(triple)
        if len(batch) >= every:
            flush()
    if batch:
        flush()
    return out



def finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
