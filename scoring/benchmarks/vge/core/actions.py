"""The action grammar: `Name(coord=[x, y], params=[...])` found in free agent or player text.

Rules (docs/formats/vge.md): the action is the last call of the seven names on the last line containing
`Action:` (any case), else the last call anywhere; names are case-insensitive; coords are rounded half up
and range-checked by the engine; params are compared as normalised strings. Parsing never raises.
A thinking model's trace is not its action: the text is first read by the shared rule
(`scoring.core.reasoning.strip_think`, as EPIC's reader): a `<think>` never closed leaves no action (an invalid
turn), every `<think>…</think>` block is removed before the action is looked for.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from scoring.benchmarks.vge.core.device import normalise_param
from scoring.benchmarks.vge.core.grammar import ACTION_NAMES, CANONICAL, PHYSICAL
from scoring.core.reasoning import strip_think

# A call is a name immediately followed by "(" (no space: "press (the button)" in prose is not a call),
# not preceded by a word character ("compress(" is not a call). The names are the grammar table's (grammar.py).
_CALL = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(ACTION_NAMES) + r")\(", re.IGNORECASE)
_ACTION_LINE = re.compile(r"action\s*:", re.IGNORECASE)
_ARG = re.compile(r"\s*([A-Za-z_]+)\s*=\s*", re.ASCII)


@dataclass(frozen=True)
class Action:
    name: str  # lower case, one of ACTION_NAMES
    coord: tuple[int, int] | None
    params: tuple[str, ...]

    @property
    def physical(self) -> bool:
        return self.name in PHYSICAL

    def text(self) -> str:
        parts = []
        if self.coord is not None:
            parts.append(f"coord=[{self.coord[0]}, {self.coord[1]}]")
        if self.params:
            parts.append("params=[" + ", ".join(self.params) + "]")
        return f"{CANONICAL[self.name]}({', '.join(parts)})"

    def as_dict(self) -> dict:
        return {"name": self.name, "coord": list(self.coord) if self.coord else None, "params": list(self.params)}

    @classmethod
    def from_dict(cls, data: dict) -> "Action":
        coord = data.get("coord")
        return cls(data["name"], tuple(coord) if coord else None, tuple(data.get("params", ())))


@dataclass(frozen=True)
class ParseResult:
    action: Action | None
    error: str = ""  # why no action could be read (the invalid-turn notification)


def _close(text: str, start: int) -> int:
    """Index of the ")" closing the call opened just before `start` (quotes respected); len(text) if none."""
    quote = ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == ")":
            return i
    return len(text)


def _split_items(body: str) -> list[str]:
    items, current, quote = [], [], ""
    for ch in body:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch == ",":
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    items.append("".join(current))
    items = [i.strip() for i in items]
    if items == [""]:
        return []
    return items


def _parse_args(args: str) -> tuple[dict[str, list[str]], str]:
    """`coord=[...], params=[...]` -> {key: items}; the second value is an error message or ''."""
    out: dict[str, list[str]] = {}
    pos = 0
    while True:
        while pos < len(args) and args[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(args):
            return out, ""
        m = _ARG.match(args, pos)
        if not m:
            return out, f"could not read the arguments '{args.strip()}' (expected coord=[x, y] and/or params=[...])"
        key = m.group(1).lower()
        if key not in ("coord", "params"):
            return out, f"unknown argument '{m.group(1)}' (expected coord or params)"
        if key in out:
            return out, f"argument '{key}' given twice"
        pos = m.end()
        if pos >= len(args) or args[pos] != "[":
            return out, f"{key} must be a list in brackets, like {key}=[...]"
        end = pos + 1
        quote = ""
        while end < len(args):
            ch = args[end]
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "]":
                break
            end += 1
        if end >= len(args):
            return out, f"{key} list is not closed with ']'"
        out[key] = _split_items(args[pos + 1 : end])
        pos = end + 1


def _round_half_up(text: str) -> int | None:
    text = text.strip().strip("'\"").strip()
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return math.floor(value + 0.5)


def find_call(text: str) -> re.Match[str] | None:
    """The call that is the action: last one on the last `Action:` line, else the last one anywhere."""
    calls = list(_CALL.finditer(text))
    if not calls:
        return None
    action_lines = [m.start() for m in _ACTION_LINE.finditer(text)]
    if action_lines:
        line_start = text.rfind("\n", 0, action_lines[-1]) + 1
        line_end = text.find("\n", action_lines[-1])
        line_end = len(text) if line_end < 0 else line_end
        on_line = [c for c in calls if line_start <= c.start() < line_end]
        if on_line:
            return on_line[-1]
    return calls[-1]


def parse_action(text: str) -> ParseResult:
    """Read the action out of free text. Range and applicability checks are the engine's."""
    if not isinstance(text, str):
        return ParseResult(None, "the output is not text")
    answer = strip_think(text)  # the shared rule (EPIC's and PLAN's readers use it too)
    if answer is None:
        return ParseResult(None, "the thinking trace was never closed (<think> without </think>): no action")
    text = answer
    call = find_call(text)
    if call is None:
        return ParseResult(None, "no action found (expected e.g. Action: Press(coord=[x, y], params=[0]))")
    name = call.group(1).lower()
    end = _close(text, call.end())
    if end >= len(text):
        return ParseResult(None, f"{CANONICAL[name]}( is not closed with ')'")
    args, error = _parse_args(text[call.end() : end])
    if error:
        return ParseResult(None, f"{CANONICAL[name]}: {error}")
    coord: tuple[int, int] | None = None
    if "coord" in args:
        items = args["coord"]
        values = [_round_half_up(i) for i in items]
        if len(items) != 2 or any(v is None for v in values):
            return ParseResult(None, f"{CANONICAL[name]}: malformed coord [{', '.join(items)}] (expected two numbers [x, y])")
        coord = (values[0], values[1])  # type: ignore[assignment]
    params = tuple(normalise_param(p) for p in args.get("params", []))
    return ParseResult(Action(name, coord, params))
