"""Reading uploaded JSON Lines: the one way every benchmark's reader, and the pre-check, decode a file's lines.

Rules: a file is read one line at a time, never split into a list; a split bounds how many lines a file for it may
hold (`line_limit`), and reading stops with `SubmissionRejected` at the first line past the bound; whatever cannot be
decoded (bad UTF-8, bad JSON, nesting too deep, an integer too long to convert) is a problem of its line, never an
exception. Lines end at \\n, \\r\\n or \\r; blank lines are skipped and not counted. Pure: no Django.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from scoring.core.bounded import bounded_lines, depth_error
from scoring.core.contract import FileProblem, SubmissionRejected

LINE_MARGIN = 1000  # lines a file may hold beyond its split's samples, however small the split


def line_limit(samples: int) -> int:
    """How many lines a file for a split of `samples` samples may hold: room for duplicates and mistakes (twice the
    split, and never fewer than the samples plus LINE_MARGIN), not for a file a thousand times the split."""
    return max(2 * samples, samples + LINE_MARGIN)


def too_many_lines(samples: int, number: int, *, unit: str = "lines") -> SubmissionRejected:
    """The refusal of a file whose line (or record) `number` is past the bound of a split of `samples` samples."""
    limit = line_limit(samples)
    message = (f"Too many {unit}: this split has {samples:,} samples; a file may hold at most {limit:,} {unit} (one "
               f"per sample, with room for mistakes). Reading stopped at {unit[:-1]} {number:,}.")
    return SubmissionRejected(message, [FileProblem(message, line=number)])


@dataclass(frozen=True)
class TextLine:
    number: int  # 1-based line number in the file
    text: str = ""
    error: str = ""  # why the line could not be decoded; "" when `text` holds it


@dataclass(frozen=True)
class JsonLine:
    number: int
    value: Any = None
    error: str = ""  # why the line is not a JSON value; "" when `value` holds it


def decode_json(text: str | bytes) -> tuple[Any, str]:
    """A JSON document: (value, "") or (None, what is wrong with it, in words). Never raises."""
    error = depth_error(text)
    if error:
        return None, error
    try:
        return json.loads(text), ""
    except (ValueError, RecursionError) as exc:
        return None, json_error(exc)


def json_error(exc: ValueError | RecursionError) -> str:
    """What an exception of Python's JSON decoder means, in words for the submitter."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "not valid JSON here: lists or objects are nested too deeply to read"
    if isinstance(exc, UnicodeDecodeError):
        return _not_utf8(exc)
    if "digits" in str(exc):  # Python's limit on the digits of an integer it converts
        return f"not valid JSON here: a number has more than {sys.get_int_max_str_digits():,} digits"
    return f"not valid JSON ({exc})"


def _not_utf8(exc: UnicodeDecodeError) -> str:
    return (f"the file is not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at column {exc.start + 1} cannot be "
            "decoded (save the file as UTF-8)")


def text_lines(chunks: Iterable[str | bytes] | Any, *, samples: int | None = None) -> Iterator[TextLine]:
    """The non-blank lines of a file (an open binary file, io.StringIO over a text, or any lines), decoded as UTF-8
    (a byte-order mark before the first is allowed). With `samples`, the split's size: raises `too_many_lines` at the
    first line past `line_limit(samples)`, before parsing it or reading on; a line longer than the site's bound
    (scoring.core.bounded) raises `line_too_long` before it is read whole."""
    limit = line_limit(samples) if samples is not None else None
    count = 0
    for number, raw in enumerate(bounded_lines(chunks), start=1):
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                text, error = "", _not_utf8(exc)
            else:
                error = ""
        else:
            text, error = (raw[1:] if number == 1 and raw.startswith("\ufeff") else raw), ""
        if not error and not text.strip():
            continue
        count += 1
        if limit is not None and count > limit:
            raise too_many_lines(samples or 0, number)
        yield TextLine(number, text, error)


def json_lines(chunks: Iterable[str | bytes] | Any, *, samples: int | None = None) -> Iterator[JsonLine]:
    """The non-blank lines of a file as JSON values, read as `text_lines` reads them."""
    for line in text_lines(chunks, samples=samples):
        if line.error:
            yield JsonLine(line.number, None, line.error)
            continue
        value, error = decode_json(line.text)
        yield JsonLine(line.number, value, error)
