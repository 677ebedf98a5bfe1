"""Bounds on the shape of untrusted JSON and text, checked before anything is decoded: one helper per shape, used by
every reader of an uploaded file (scoring.core.jsonl and through it each benchmark's reader and the pre-check), the
play socket and the API's JSON bodies.

Rules: a line is read with a bounded buffer and refused past `max_line_bytes` before it is decoded (decoding JSON
costs up to ~27 times its text); a JSON text is refused when nested deeper than `max_json_depth` (found without
recursion); the items of a whole-file JSON array are read one at a time, each refused past `max_line_bytes`. The
site sets the limits from its settings once (`set_bounds` in ScoringConfig.ready()); the CLI keeps the defaults.
Pure: no Django.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np

from scoring.core.contract import FileProblem, SubmissionRejected

MIB = 1024 * 1024
BLOCK = 1 << 16  # bytes read from a file at a time


@dataclass(frozen=True)
class Bounds:
    # The longest line (and whole-file array item) read: real lines are a record each, at most a few hundred KB (a
    # VGE episode of many turns, an EPIC mask as an uncompressed run-length list); decoding one costs up to ~27x.
    max_line_bytes: int = 4 * MIB
    # The deepest nesting of lists and objects in one JSON value: real records nest 3 to 6 deep.
    max_json_depth: int = 64


_current = [Bounds()]


def bounds() -> Bounds:
    return _current[0]


def set_bounds(value: Bounds) -> None:
    """The site's limits (from its settings), set once when it starts."""
    _current[0] = value


def line_too_long(number: int, limit: int, *, name: str = "the file", unit: str = "line") -> SubmissionRejected:
    message = (f"{name}, {unit} {number:,}: a {unit} of more than {limit:,} bytes; a prediction file holds one "
               f"record per {unit} and none needs that many, so reading stopped there")
    return SubmissionRejected(message, [FileProblem(message, line=number)])


_ENDS_BYTES = re.compile(rb"\r\n|\r|\n")
_ENDS_TEXT = re.compile(r"\r\n|\r|\n")


def _blocks(source: Any) -> Iterator[Any]:
    if hasattr(source, "read"):
        while block := source.read(BLOCK):
            yield block
    elif isinstance(source, (str, bytes)):
        yield source
    else:
        yield from source


def bounded_lines(source: Iterable[str | bytes] | Any, *, max_bytes: int | None = None,
                  name: str = "the file") -> Iterator[str | bytes]:
    """The physical lines of a source, without their endings (\\n, \\r\\n or \\r): an open file (read in blocks of
    64 KiB), a text or bytes, or any iterable of chunks. At most `max_bytes` are held for one line: a longer line
    raises `line_too_long` before the rest of it is read."""
    limit = bounds().max_line_bytes if max_bytes is None else max_bytes
    pending: list[Any] = []  # the pieces of the line being read
    held = 0
    number = 0
    held_cr: Any = None  # a \r ending a block, held back in case the next block starts with \n
    for block in _blocks(source):
        if not block:
            continue
        if held_cr is not None:
            block = held_cr + block
            held_cr = None
        cr = "\r" if isinstance(block, str) else b"\r"
        if block.endswith(cr):
            held_cr, block = cr, block[:-1]
        # A block without a \r (the usual: files end lines with \n) split at \n by str/bytes.split, the same pieces as
        # the pattern gives at ~1/20 of its cost (on a 6,661-line EPIC file ~4% of the CLI's instructions went to it).
        if cr not in block:
            pieces = block.split("\n" if isinstance(block, str) else b"\n")
        else:
            pieces = (_ENDS_TEXT if isinstance(block, str) else _ENDS_BYTES).split(block)
        if len(pieces) > 1:
            first = pieces[0]
            completed = first[:0].join(pending + [first]) if pending else first
            pending, held = [], 0
            for line in [completed, *pieces[1:-1]]:
                number += 1
                if len(line) > limit:
                    raise line_too_long(number, limit, name=name)
                yield line
        pending.append(pieces[-1])
        held += len(pieces[-1])
        if held > limit:
            raise line_too_long(number + 1, limit, name=name)
    if held or held_cr is not None:  # a last line without an ending, or one ended by a \r held back
        yield pending[0][:0].join(pending)


# Opening brackets become +1 and closing ones -1 (as int8); everything else is deleted.
_BRACKETS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nested_deeper_than(text: str | bytes, limit: int) -> bool:
    """Whether the lists and objects of a JSON text nest more than `limit` deep (brackets inside strings do not
    count). Found without recursion and without decoding, at C speed: escapes, then strings removed, the brackets
    alone as +1 and -1, their running sum."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    if b'"' in data:
        # Escaped backslashes first, then escaped quotes, as a JSON lexer reads them; what is left between
        # quotes (the odd pieces) is strings.
        data = b"".join(data.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')[::2])
    marks = np.frombuffer(data.translate(_BRACKETS, _NOT_BRACKETS), dtype=np.int8)
    return bool(marks.size) and int(np.cumsum(marks, dtype=np.int32).max()) > limit


def depth_error(text: str | bytes, *, max_depth: int | None = None) -> str:
    """"" when a JSON text nests at most `max_depth` deep, else what is wrong, in words."""
    limit = bounds().max_json_depth if max_depth is None else max_depth
    if nested_deeper_than(text, limit):
        return f"not valid JSON here: lists or objects are nested too deeply to read (more than {limit} deep)"
    return ""


class TooDeep(ValueError):
    """A JSON text nested more deeply than allowed (its message in the words of `depth_error`)."""


def loads(text: str | bytes, *, max_depth: int | None = None) -> Any:
    """json.loads after the depth check; raises `TooDeep` for a text too deep, else what json.loads raises."""
    error = depth_error(text, max_depth=max_depth)
    if error:
        raise TooDeep(error)
    return json.loads(text)


@dataclass(frozen=True)
class ArrayItem:
    number: int  # 1-based position in the array
    value: Any = None


def array_items(text: str, *, start: int = 0, max_bytes: int | None = None, max_depth: int | None = None,
                name: str = "the file") -> Iterator[ArrayItem]:
    """The items of a JSON array text (whose '[' is at or after `start`) one at a time. Each item is decoded from a
    window of the text that grows up to `max_bytes`: an item longer than that is refused (`line_too_long`, unit
    "item") before it is decoded whole; one nested too deeply too. Other errors raise json.JSONDecodeError."""
    limit = bounds().max_line_bytes if max_bytes is None else max_bytes
    decoder = json.JSONDecoder()
    at = _skip_space(text, text.index("[", start) + 1)
    if text[at : at + 1] == "]":
        at = _skip_space(text, at + 1)
    else:
        number = 0
        while True:
            number += 1
            value, at = _decode_item(decoder, text, at, number, limit, max_depth, name)
            yield ArrayItem(number, value)
            at = _skip_space(text, at)
            if text[at : at + 1] == ",":
                at = _skip_space(text, at + 1)
                continue
            if text[at : at + 1] == "]":
                at = _skip_space(text, at + 1)
                break
            raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
    if at < len(text):
        raise json.JSONDecodeError("Extra data", text, at)


def _decode_item(decoder: json.JSONDecoder, text: str, at: int, number: int, limit: int, max_depth: int | None,
                 name: str) -> tuple[Any, int]:
    size = min(BLOCK, limit)
    while True:
        window = text[at : at + size]
        whole = at + size >= len(text)
        error = depth_error(window, max_depth=max_depth)
        if error:
            raise SubmissionRejected(f"{name}, item {number:,}: {error}", [FileProblem(error, line=number)])
        try:
            value, end = decoder.raw_decode(window)
        except json.JSONDecodeError as exc:
            if whole:
                raise json.JSONDecodeError(exc.msg, text, at + exc.pos) from None
            if size >= limit:
                raise line_too_long(number, limit, name=name, unit="item") from None
            size = min(size * 4, limit)
            continue
        if end == len(window) and not whole and size < limit:  # a number may go on past the window
            size = min(size * 4, limit)
            continue
        return value, at + end


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at



def document_error(data: bytes, *, name: str = "the file") -> str:
    """"" when `data` is one JSON document within the bounds (an array read an item at a time, anything else no
    longer than a line may be), else what is wrong, in words. Never raises; keeps nothing it decoded."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return f"the file is not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at {exc.start + 1} cannot be decoded"
    stripped = text.lstrip(" \t\r\n")
    try:
        if stripped[:1] == "[":
            for _ in array_items(stripped, name=name):
                pass
            return ""
        limit = bounds().max_line_bytes
        if len(data) > limit:
            return f"{name}: a JSON document of more than {limit:,} bytes that is not an array"
        loads(text)
    except SubmissionRejected as exc:
        return exc.message
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except (ValueError, RecursionError) as exc:
        return f"not valid JSON ({exc})"
    return ""
