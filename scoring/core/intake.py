"""What an upload's JSON lines say about the format they are in, from the field names alone: which benchmark's
predictions file a file looks like (a format's `line_signatures`), and which field of a line is a misspelling of a
field the format knows ("field `imgs` is not known — did you mean `images`?").

Rules: only JSON object lines are looked at; a key pattern ending in `*` stands for every key with that start; a
signature claims a line holding every one of its keys. Pure: no Django, no benchmark named.
"""
from __future__ import annotations

import difflib
import json
from typing import Any, Iterable, Mapping, Sequence

from scoring.core.contract import FileProblem

Signature = Sequence[str]  # keys (or patterns) a line of one format always holds


def _key_matches(key: str, pattern: str) -> bool:
    return key.startswith(pattern[:-1]) if pattern.endswith("*") else key == pattern


def key_known(key: str, known: Iterable[str]) -> bool:
    return any(_key_matches(key, pattern) for pattern in known)


def line_claimed(keys: Iterable[str], signatures: Sequence[Signature]) -> bool:
    """Whether a line with these keys holds every key of one of the signatures."""
    present = list(keys)
    return any(signature and all(any(_key_matches(k, pattern) for k in present) for pattern in signature)
               for signature in signatures)


def head_objects(head: bytes, *, complete: bool) -> list[Mapping[str, Any]]:
    """The JSON object lines of the start of a file (`complete`: `head` is the whole file, else its last, cut line is
    left out); lines that are not JSON objects are skipped."""
    lines = head.split(b"\n")
    if not complete:
        lines = lines[:-1]
    found: list[Mapping[str, Any]] = []
    for text in lines:
        try:
            item = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(item, dict):
            found.append(item)
    return found


def head_fits(objects: Sequence[Mapping[str, Any]], signatures: Sequence[Signature]) -> bool:
    """Whether every object line of a file's start holds one of the signatures (and there is one at least)."""
    return bool(objects) and bool(signatures) and all(line_claimed(map(str, o), signatures) for o in objects)


def misnamed_fields(keys: Iterable[str], known: Sequence[str]) -> list[tuple[str, str]]:
    """(key, the known field it looks like) for each key of a line that the format does not know and that is close
    to a known field the line lacks."""
    present = [str(k) for k in keys]
    missing = [name for name in known if not name.endswith("*") and name not in present]
    found = []
    for key in present:
        if key_known(key, known):
            continue
        close = difflib.get_close_matches(key, missing, n=1, cutoff=0.6)
        if close:
            found.append((key, close[0]))
    return found


def misnamed_problem(line: int, key: str, meant: str) -> FileProblem:
    return FileProblem(f"field `{key}` is not known — did you mean `{meant}`?", line=line, field=key)


def with_misnamed_fields(problems: Sequence[FileProblem], lines: Iterable[tuple[int, Mapping[str, Any]]],
                         known: Sequence[str]) -> list[FileProblem]:
    """The problems, with those of each line that has a misnamed field replaced by what was misnamed (the rest of
    that line's problems follow from it: a field the reader looked for was not there). `lines`: (number, object) of
    the file's object lines."""
    at_fault = {p.line for p in problems if p.line is not None}
    hints: dict[int, list[FileProblem]] = {}
    for number, item in lines:
        if number in at_fault:
            misnamed = misnamed_fields(item, known)
            if misnamed:
                hints[number] = [misnamed_problem(number, key, meant) for key, meant in misnamed]
    if not hints:
        return list(problems)
    hinted = set(hints)
    out: list[FileProblem] = []
    for problem in problems:
        if problem.line in hinted:
            out.extend(hints.pop(problem.line, ()))  # the line's hints once, in place of its problems
        else:
            out.append(problem)
    return out
