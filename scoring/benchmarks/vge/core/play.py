"""Browser play input: a structured action message from the play page -> the action text the engine reads.

Rules: the page sends `{"action": name, "coord": [x, y], "params": [...]}` with coordinates already on the
0..1000 scale. A message that is not one well-formed action is refused here (PlayInputError, naming the
field) and never reaches the engine, so it costs no turn; everything accepted is an ordinary action text,
the same grammar an agent writes. Also the budget bars' maxima, derived from an EpisodeState dict.
"""
from __future__ import annotations

from typing import Any, Mapping

from scoring.benchmarks.vge.core.grammar import BY_NAME, CANONICAL, COORD_RANGE, NONE, REQUIRED

# Which params each action takes from the play page: the grammar table's (grammar.ACTIONS), position by position.
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
    on_image = range(COORD_RANGE[0], COORD_RANGE[1] + 1)
    x = _int_in(coord[0], on_image, "coord[0]")
    y = _int_in(coord[1], on_image, "coord[1]")
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
    spec = BY_NAME[name]
    label = spec.label
    if spec.coord == NONE:
        return f"{label}()"
    if name == "switch_view":
        if message.get("params"):
            (view,) = _params(message, 1)
            if not isinstance(view, str) or not view or len(view) > MAX_VIEW_NAME or not view.replace("_", "").isalnum():
                raise PlayInputError("params[0]", "expected a view name")
            return f"{label}(params=[{view}])"
        x, y = _coord(message)
        return f"{label}(coord=[{x}, {y}])"
    assert spec.coord == REQUIRED
    x, y = _coord(message)
    given = _params(message, len(spec.params))
    params = []
    for position, (param, value) in enumerate(zip(spec.params, given)):
        allowed = param.allowed()
        assert allowed is not None  # a view name is Switch_view's only, above
        params.append(_int_in(value, allowed, f"params[{position}]"))
    if not params:
        return f"{label}(coord=[{x}, {y}])"
    return f"{label}(coord=[{x}, {y}], params=[{', '.join(map(str, params))}])"


def budget_maxima(state: Mapping[str, Any]) -> dict[str, float]:
    """The full length of each budget bar: the global budget at the start, and the local budget when the
    current goal became current (both budgets fall by exactly one per turn in between)."""
    turns = state["turns"]
    return {
        "global": state["global_left"] + turns,
        "local": state["local_left"] + (turns - state["goal_since"]),
    }
