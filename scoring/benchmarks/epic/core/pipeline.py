"""Reading prediction files (std_format or raw responses) and scoring them, in one or several processes.

Rules: the reference skips lines that are not JSON objects; we skip them too but report each with its line
number; a file that cannot be read at all, or holds no record, is rejected (`SubmissionRejected`). GT JSON
files are read once per process and cached. Results come back in input order whatever the worker count.
"""
from __future__ import annotations

import io
import json
import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Mapping, Sequence

from scoring.core.bounded import array_items
from scoring.core.contract import FileProblem, SubmissionRejected
from scoring.core.jsonl import JsonLine, json_error, json_lines, line_limit, too_many_lines

from .fields import first
from .geometry import forget_prepared, prepare
from .raw import to_std_record
from .scorer import Options, SampleScore, gt_json_path, score_readings_many, score_samples
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
    # Numbers of the lines whose shape is the other format than the one the file was read as: raw responses in a
    # file read as std_format, std_format records in one read as raw (see `looks_raw`, `looks_std`).
    other_format: tuple[int, ...] = ()


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise SubmissionRejected(f"The file {path} does not exist.", [FileProblem(f"{path} does not exist")]) from exc
    except UnicodeDecodeError as exc:
        raise SubmissionRejected("The file is not UTF-8 text.", [FileProblem(f"not UTF-8 text at byte {exc.start}")]) from exc
    except OSError as exc:
        raise SubmissionRejected(f"The file cannot be read: {exc}", [FileProblem(str(exc))]) from exc


_EMPTY = "The file is empty."
_LEADING_SPACE = re.compile(r"\s*")


def parse_text(text: str, *, raw: bool | None = False, coordinate_system: str = "auto",
               format_type: str | None = None, samples: int | None = None, read_answers: bool = True) -> ParsedFile:
    """Records of a JSONL (or JSON array) text; raw response lines are converted to std_format first.

    `raw=None` takes each record as raw when it looks raw (`looks_raw`); with True or False the lines that look
    like the other format are listed in `other_format` (see `format_problem`). `samples`, the split's size, bounds the records (scoring.core.jsonl).
    `read_answers=False` leaves raw responses unread (see raw.to_std_record): the pre-check's bounded work."""
    if not text or text.isspace():
        raise SubmissionRejected(_EMPTY, [FileProblem("the file holds no record")])
    if text.startswith("\ufeff"):
        text = text[1:]
    leading = _LEADING_SPACE.match(text)  # always a match (of no characters, at worst)
    start = leading.end() if leading else 0
    if raw is not True and text[start : start + 1] == "[":
        entries = _array_items(text, samples)
    else:
        entries = json_lines(io.StringIO(text), samples=samples)
    return _records(entries, raw=raw, coordinate_system=coordinate_system, format_type=format_type,
                    read_answers=read_answers)


def read_file(path: Path | str, *, raw: bool | None = False, coordinate_system: str = "auto",
              samples: int | None = None, read_answers: bool = True) -> ParsedFile:
    """`parse_text` of a file, streamed: a JSON Lines file is read a line at a time (a JSON array whole)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = _first_byte(handle)
            if head is None:
                raise SubmissionRejected(_EMPTY, [FileProblem("the file holds no record")])
            if head != b"[" or raw is True:
                handle.seek(0)
                return _records(json_lines(handle, samples=samples), raw=raw, coordinate_system=coordinate_system,
                                read_answers=read_answers)
    except FileNotFoundError as exc:
        raise SubmissionRejected(f"The file {path} does not exist.", [FileProblem(f"{path} does not exist")]) from exc
    except OSError as exc:
        raise SubmissionRejected(f"The file cannot be read: {exc}", [FileProblem(str(exc))]) from exc
    return parse_text(_read_text(path), raw=raw, coordinate_system=coordinate_system, samples=samples,
                      read_answers=read_answers)


def _first_byte(handle: BinaryIO) -> bytes | None:
    """The file's first byte that is not whitespace (or a byte-order mark), or None for an empty file."""
    while chunk := handle.read(1 << 16):
        rest = chunk.lstrip(b" \t\r\n\xef\xbb\xbf")
        if rest:
            return rest[:1]
    return None


def _array_items(text: str, samples: int | None) -> Iterator[JsonLine]:
    """The items of a JSON array text one at a time (numbered from 1; scoring.core.bounded.array_items, which refuses
    an item longer than a line may be), so the bound on records applies before the rest is decoded; a text that is
    not an array, or an item that cannot be read, rejects the file."""
    limit = line_limit(samples) if samples is not None else None
    number = 0
    try:
        for item in array_items(text):
            number = item.number
            if limit is not None and number > limit:
                raise too_many_lines(samples or 0, number, unit="records")
            yield JsonLine(number, item.value)
    except json.JSONDecodeError as exc:
        raise SubmissionRejected("The file starts with '[' but is not a JSON array.",
                                 [FileProblem(f"invalid JSON: {exc.msg}", line=exc.lineno)]) from None
    except (RecursionError, ValueError) as exc:
        raise SubmissionRejected("The file starts with '[' but an item of it cannot be read.",
                                 [FileProblem(f"item {number + 1}: {json_error(exc)}", line=number + 1)]) from None


def looks_raw(item: Mapping[str, Any]) -> bool:
    """A raw response line: a `response` and no `formatted_response_*` field."""
    return "response" in item and not any(str(k).startswith("formatted_response_") for k in item)


def looks_std(item: Mapping[str, Any]) -> bool:
    """A std_format line: some `formatted_response_*` field and no `response`."""
    return "response" not in item and any(str(k).startswith("formatted_response_") for k in item)


LINES_SHOWN = 10


def format_problem(parsed: ParsedFile, *, how_raw: str, how_std: str) -> FileProblem | None:
    """The file looks like the other format than the one it is read as (`ParsedFile.other_format`): raw responses
    read as std_format would score as no valid response (they have no formatted_response_* field); std_format lines
    read as raw would be searched for a `response` they do not have. Said once, at the first such line; `how_raw`
    and `how_std` say how to choose the other format where the file is given (a form's box, a CLI flag)."""
    lines = parsed.other_format
    if not lines:
        return None
    shown = ", ".join(map(str, lines[:LINES_SHOWN])) + (", ..." if len(lines) > LINES_SHOWN else "")
    count = f"{len(lines)} of the {len(parsed.lines)} lines read"
    if parsed.raw:
        return FileProblem(
            f"this looks like std_format, not raw responses: {count} have formatted_response_* fields and no "
            f"'response' (lines {shown}), and read as raw responses they would score as no valid response; "
            f"{how_std}", line=lines[0], field="formatted_response_*")
    return FileProblem(
        f"this looks like raw responses: {count} have a 'response' and no formatted_response_* field (lines {shown}), "
        f"and the file is read as std_format, where they would score as no valid response; {how_raw}",
        line=lines[0], field="response")


def head_in_other_format(head: bytes, *, raw: bool, complete: bool) -> int:
    """How many JSON object lines the start of a file holds when every one of them looks like the other format than
    `raw` says (raw responses when reading std_format, std_format lines when reading raw); 0 otherwise, or when
    the start holds no object line. `complete`: `head` is the whole file (else its last, cut line is left out)."""
    lines = head.split(b"\n")
    if not complete:
        lines = lines[:-1]
    other = 0
    for text in lines:
        try:
            item = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(item, dict):
            continue
        if not (looks_std(item) if raw else looks_raw(item)):
            return 0
        other += 1
    return other


def _records(entries: Iterable[JsonLine], *, raw: bool | None, coordinate_system: str = "auto",
             format_type: str | None = None, read_answers: bool = True) -> ParsedFile:
    """Lines of records from decoded entries. A line that cannot be used is a problem saying "skipped" (the site
    rejects the file for it); what the reference reads anyway is a problem without it (a note)."""
    problems: list[FileProblem] = []
    lines: list[Line] = []
    other_format: list[int] = []
    for entry in entries:
        number, item = entry.number, entry.value
        if entry.error:
            problems.append(FileProblem(f"{entry.error}; line skipped", line=number))
            continue
        if not isinstance(item, dict):
            problems.append(FileProblem(f"a {type(item).__name__}, not a JSON object; skipped", line=number))
            continue
        if (raw is True and looks_std(item)) or (raw is False and looks_raw(item)):
            other_format.append(number)
        if raw or (raw is None and looks_raw(item)):
            converted = _raw_record(number, item, problems, coordinate_system=coordinate_system,
                                    format_type=format_type, read_answer=read_answers)
            if converted is None:
                continue
            item = converted
        lines.append(Line(number, item))
    if not lines:
        raise SubmissionRejected("The file holds no usable record.", problems or [FileProblem("no record")])
    return ParsedFile(tuple(lines), tuple(problems), raw is True, tuple(other_format))


def _raw_record(number: int, item: dict[str, Any], problems: list[FileProblem], *, coordinate_system: str,
                format_type: str | None, read_answer: bool) -> dict[str, Any] | None:
    """A raw response line as a std_format record, or None (with a problem) when it cannot be read as one."""
    images = item.get("images")
    if images is not None and not isinstance(images, list):
        problems.append(FileProblem(f"'images' must be a list of image paths, not a {type(images).__name__}; "
                                    "line skipped", line=number, field="images"))
        return None
    if not isinstance(item.get("response"), (str, type(None))):
        problems.append(FileProblem("'response' is not a string; read as no valid response", line=number,
                                    field="response"))
    if not images:
        problems.append(FileProblem("no 'images'; the task and the GT cannot be found", line=number,
                                    field="images"))
    try:
        return to_std_record(item, format_type=format_type, coordinate_system=coordinate_system,
                             read_answer=read_answer)
    except (TypeError, ValueError, AttributeError, RecursionError) as exc:
        # The line's values are of shapes the reference never meets: the file's problem, not the site's.
        problems.append(FileProblem(f"this raw response line cannot be read ({type(exc).__name__}); line skipped",
                                    line=number))
        return None


# ---------------------------------------------------------------------------------------------------------
# GT lookup for the CLI: gt_json_path as given, else relative to the prediction file or a GT root
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GTResolver:
    roots: tuple[str, ...] = ()
    # Bounded (a full split's GT would otherwise stay in memory), the oldest dropped first: an OrderedDict, whose
    # oldest key is found at once (a dict's first key is found past the slots of every key deleted before it).
    _cache: OrderedDict[str, tuple[Any, str | None]] = field(default_factory=OrderedDict, compare=False, repr=False)

    def load(self, record: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str | None]:
        path = gt_json_path(record)
        inline = record.get("ground_truth")
        has_inline = isinstance(inline, dict) and any(str(k).startswith("masklet_") for k in inline)
        if path is None:
            return None, None if has_inline else "no gt_json_path and no inline ground truth"
        if path not in self._cache:
            if len(self._cache) >= 512:
                self._cache.popitem(last=False)
            self._cache[path] = self._read(path)
        data, problem = self._cache[path]
        return data, (None if has_inline else problem)

    def _read(self, path: str) -> tuple[Any, str | None]:
        # The roots joined only when the path as given is not found (the usual path is absolute, or found at once).
        for candidate in chain((path,), (os.path.join(root, path) for root in self.roots)):
            # Opened without asking first whether it is a file (a stat per GT file, ~5% of a full split's run):
            # what is missing or not a file is the next candidate's turn, as `os.path.isfile` said before.
            try:
                fd = os.open(candidate, os.O_RDONLY)
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                continue
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the path, which isfile read as no file
                if isinstance(exc, ValueError) or not os.path.isfile(candidate):
                    continue
                return None, f"ground truth {path} is not valid JSON: {exc}"
            try:
                try:
                    text = _read_whole(fd)
                finally:
                    os.close(fd)
            except IsADirectoryError:
                continue  # a folder opens for reading, and fails at the read
            except OSError as exc:
                return None, f"ground truth {path} is not valid JSON: {exc}"
            try:
                data = json.loads(text)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                return None, f"ground truth {path} is not valid JSON: {exc}"
            if not isinstance(data, dict):
                return None, f"ground truth {path} is not a JSON object"
            return data, None
        return None, f"ground truth file {path} not found"


_FIRST_READ = 1 << 16  # a GT file is ~1 KB: read in one call, no size asked first


def _read_whole(fd: int) -> bytes:
    """A file's bytes by its descriptor: one read where the file is shorter than `_FIRST_READ` (a regular file's
    read stops short only at its end), else reads until one returns nothing."""
    data = os.read(fd, _FIRST_READ)
    if len(data) < _FIRST_READ:
        return data
    parts = [data]
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


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
        return score_samples([(record, raw_gt, problem) for _, record, raw_gt, problem in loaded], options=options,
                             indices=[index for index, *_ in loaded])
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
    # Imported here: a one-process run (the usual) starts without them.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

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
    return [toolkit for toolkit, _ in _score_batched(pairs, options=options, progress=progress, total=total,
                                                      every=every, both=False)]


def score_readings_with_gt(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]], *,
                           options: Options = Options(), progress: Callable[[int, int], None] | None = None,
                           total: int = 0, every: int = 250) -> list[tuple[SampleScore, SampleScore]]:
    """`score_with_gt` under both readings at once: (the toolkit's, the strict) per triple (`score_readings`)."""
    return _score_batched(pairs, options=options, progress=progress, total=total, every=every, both=True)


def _score_batched(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]], *,
                   options: Options, progress: Callable[[int, int], None] | None, total: int, every: int,
                   both: bool) -> list[tuple[SampleScore, SampleScore]]:
    out: list[tuple[SampleScore, SampleScore]] = []
    batch: list[tuple[Mapping[str, Any], Mapping[str, Any] | None, str | None]] = []

    def flush() -> None:
        _prepare_masks((record, raw_gt) for record, raw_gt, _ in batch)
        try:
            indices = range(len(out), len(out) + len(batch))
            if both:
                out.extend(score_readings_many(batch, options=options, indices=indices))
            else:
                out.extend((one, one) for one in score_samples(batch, options=options, indices=indices))
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
