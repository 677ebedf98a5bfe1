"""Browser play input: a structured action message from the play page -> the action text the engine reads.

Rules: the page sends `{"action": name, "coord": [x, y], "params": [...]}` with coordinates already on the
0..1000 scale. A message that is not one well-formed action is refused here (PlayInputError, naming the
field) and never reaches the engine, so it costs no turn; everything accepted is an ordinary action text,
the same grammar an agent writes. Also the budget bars' maxima, derived from an EpisodeState dict.
"""
from __future__ import annotations

from typing import Any, Mapping

from scoring.benchmarks.vge.core.actions import CANONICAL

# Which params each action takes from the play page: (name, allowed values) per position.
PRESS_MODES = (0, 1, 2)  # click, long press, double click
DIRECTIONS = (0, 1, 2, 3, 4)  # up, down, left, right, in/out
ROTATE_DIRECTIONS = (0, 1)  # clockwise, counter-clockwise
MAX_DETENTS = 12
MAX_VIEW_NAME = 60


class PlayInputError(ValueError):
    """A play-page message that is not a well-formed action; `field` says which part is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _int_in(value: Any, allowed: range | tuple[int, ...], field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise PlayInputError(field, f"expected a whole number, got {str(value)[:40]!r}")
    if value not in allowed:
        shown = f"{allowed.start}..{allowed.stop - 1}" if isinstance(allowed, range) else ", ".join(map(str, allowed))
        raise PlayInputError(field, f"{value} is not one of {shown}")
    return value


def _coord(message: Mapping[str, Any]) -> tuple[int, int]:
    coord = message.get("coord")
    if not isinstance(coord, (list, tuple)) or len(coord) != 2:
        raise PlayInputError("coord", "expected [x, y] (click on the image)")
    x = _int_in(coord[0], range(0, 1001), "coord[0]")
    y = _int_in(coord[1], range(0, 1001), "coord[1]")
    return x, y


def _params(message: Mapping[str, Any], count: int) -> list[Any]:
    params = message.get("params", [])
    if not isinstance(params, (list, tuple)):
        raise PlayInputError("params", "expected a list")
    if len(params) != count:
        raise PlayInputError("params", f"expected {count} item(s), got {len(params)}")
    return list(params)


def action_text(message: Mapping[str, Any]) -> str:
    """The action text of one play-page message, e.g. `Press(coord=[512, 300], params=[0])`."""
    if not isinstance(message, Mapping):
        raise PlayInputError("message", "expected a JSON object")
    name = message.get("action")
    if not isinstance(name, str) or name.lower() not in CANONICAL:
        raise PlayInputError("action", f"unknown action {str(name)[:40]!r}; one of {', '.join(CANONICAL.values())}")
    name = name.lower()
    label = CANONICAL[name]
    if name == "timed_wait":
        return f"{label}()"
    if name == "switch_view":
        if message.get("params"):
            (view,) = _params(message, 1)
            if not isinstance(view, str) or not view or len(view) > MAX_VIEW_NAME or not view.replace("_", "").isalnum():
                raise PlayInputError("params[0]", "expected a view name")
            return f"{label}(params=[{view}])"
        x, y = _coord(message)
        return f"{label}(coord=[{x}, {y}])"
    x, y = _coord(message)
    if name == "grasp":
        _params(message, 0)
        return f"{label}(coord=[{x}, {y}])"
    if name == "press":
        (mode,) = _params(message, 1)
        params = [_int_in(mode, PRESS_MODES, "params[0]")]
    elif name == "rotate":
        direction, detents = _params(message, 2)
        params = [_int_in(direction, ROTATE_DIRECTIONS, "params[0]"),
                  _int_in(detents, range(1, MAX_DETENTS + 1), "params[1]")]
    else:  # push, pull
        (direction,) = _params(message, 1)
        params = [_int_in(direction, DIRECTIONS, "params[0]")]
    return f"{label}(coord=[{x}, {y}], params=[{', '.join(map(str, params))}])"


def budget_maxima(state: Mapping[str, Any]) -> dict[str, float]:
    """The full length of each budget bar: the global budget at the start, and the local budget when the
    current goal became current (both budgets fall by exactly one per turn in between)."""
    turns = state["turns"]
    return {
        "global": state["global_left"] + turns,
        "local": state["local_left"] + (turns - state["goal_since"]),
    }
