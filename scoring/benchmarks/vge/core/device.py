"""Device definitions (`vge-device/1`): loading, validation and UCSM pruning.

`load_device(data)` turns the JSON mapping into a frozen `Device` or raises `DeviceInvalid` listing every
problem with the JSON path of the offending field (`states.heating.on.power_button[0].next_state`), in document
order. The shape is checked by the JSON Schema in `schemas/vge-device-1.schema.json` (which also holds the
problem texts), the references between fields here. Unreachable states are warnings, not errors.
`prune_ucsm` cuts a category machine down to one device.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from jsonschema import Draft202012Validator, validators

from scoring.benchmarks.vge.core.grammar import ACTIONS

FORMAT = "vge-device/1"
# A transition's atomic_action: the grammar table's physical actions (the schema's enum is held to it by a test).
PHYSICAL_ACTIONS = tuple(spec.name for spec in ACTIONS if spec.physical)
VIEW_KINDS = ("orthographic", "axonometric", "dashboard")
DASHBOARD = "dashboard"
TIMED_WAIT = "timed_wait"
IMMEDIATE = "immediate"
SPECIAL_TRIGGERS = (TIMED_WAIT, IMMEDIATE)
STANDARD_VIEWS = ("front", "back", "left", "right", "top", "bottom", "front_top", "back_bottom")

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class DeviceInvalid(ValueError):
    """A device definition that cannot be used; `problems` name each offending field by its JSON path."""

    def __init__(self, problems: list[Problem], source: str = ""):
        self.problems = problems
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(where + "; ".join(str(p) for p in problems))


@dataclass(frozen=True)
class View:
    name: str
    kind: str
    image: str | None = None
    unlock_view: str | None = None  # dashboard only: where its unlock box sits
    unlock_box: Box | None = None


@dataclass(frozen=True)
class Component:
    name: str
    boxes: Mapping[str, Box]
    look: Mapping[str, Any] = field(default_factory=dict)  # optional rendering hints (shape, colour)


@dataclass(frozen=True)
class Transition:
    trigger: str  # component name, timed_wait or immediate
    next_state: str
    description: str
    action: str | None = None  # press/rotate/push/pull/grasp for component triggers
    parameter: tuple[str, ...] = ()


@dataclass(frozen=True)
class State:
    name: str
    description: str
    error: bool
    on: Mapping[str, tuple[Transition, ...]]
    look: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Device:
    id: str
    category: str
    views: Mapping[str, View]
    components: Mapping[str, Component]
    initial_state: str
    states: Mapping[str, State]
    look: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    digest: str = ""  # sha256 of the JSON as written (key order included: views and components are drawn in it)

    @property
    def dashboard(self) -> View | None:
        view = self.views.get(DASHBOARD)
        return view if view is not None and view.kind == DASHBOARD else None


def normalise_param(value: Any) -> str:
    """One params item as a string: surrounding quotes dropped, whole numbers as integer strings."""
    text = str(value).strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    try:
        number = float(text)
    except ValueError:
        return text
    if number != number or number in (float("inf"), float("-inf")):
        return text
    if number == int(number):
        return str(int(number))
    return repr(number)


def _canonical_digest(data: Mapping[str, Any]) -> str:
    # Not sorted: the order of views and components is part of the device (listed and drawn in that order).
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()


def load_device(data: Any, *, source: str = "", allow_boxless: bool = False) -> Device:
    """Validate a `vge-device/1` mapping and build the device; raises `DeviceInvalid` with every problem.

    The shape (the JSON Schema) first, then the references between fields; a device is built only from a
    definition without problems, and then checked for loops of immediate transitions.
    """
    if not isinstance(data, Mapping):
        raise DeviceInvalid([Problem("", "a device definition must be a JSON object")], source)
    shape = shape_findings(data)
    references = check_references(data, flawed={f.path for f in shape}, allow_boxless=allow_boxless)
    shown = [f for f in shape if not references.within_unresolved(f.path)]
    problems = in_document_order(data, shown + references.found)
    if problems:
        raise DeviceInvalid(problems, source)
    device = _build_device(data)
    problems = immediate_loop_problems(device.states)
    if problems:
        raise DeviceInvalid(problems, source)
    return device


# -- findings and their order ----------------------------------------------------------------------------------

JsonPath = tuple[str | int, ...]


class Finding(NamedTuple):
    """A problem while its path is still a tuple (for ordering); `whole` marks a finding about an entry as a
    whole, listed after the findings about its fields."""

    path: JsonPath
    message: str
    whole: bool = False


# Problems are listed in document order: the format's fields in the order of the format, and what the author
# names (views, components, states, a component's boxes, a state's triggers) in the order of the file.
_FIELD_ORDER = (
    "format", "id", "category", "views", "components", "states", "initial_state",
    "kind", "image", "unlock", "view", "box", "boxes", "description", "error", "on",
    "next_state", "transition_description", "atomic_action", "parameter",
)
_NAMED_BY_AUTHOR = (
    ("views",), ("components",), ("states",), ("components", "*", "boxes"), ("states", "*", "on"),
    ("states", "*", "look", "components"),
)


def in_document_order(data: Mapping[str, Any], found: list[Finding]) -> list[Problem]:
    """The findings as problems, in document order; findings at the same place keep their order."""

    def key(finding: Finding) -> tuple[float, ...]:
        order = _document_order(data, finding.path)
        return order + (math.inf,) if finding.whole else order

    return [Problem(render_path(f.path), f.message) for f in sorted(found, key=key)]


def _document_order(data: Any, path: JsonPath) -> tuple[int, ...]:
    key = []
    for depth, step in enumerate(path):
        if isinstance(step, int):
            key.append(step)
        elif _named_by_author(path[:depth]):
            key.append(list(data).index(step))
        else:
            key.append(_FIELD_ORDER.index(step) if step in _FIELD_ORDER else len(_FIELD_ORDER))
        data = data[step] if depth + 1 < len(path) else None  # only the last step may be missing
    return tuple(key)


def _named_by_author(parent: JsonPath) -> bool:
    return any(len(p) == len(parent) and all(a in ("*", b) for a, b in zip(p, parent)) for p in _NAMED_BY_AUTHOR)


def render_path(path: JsonPath) -> str:
    """A JSON path as problems name it: `states.heating.on.timed_wait[0].next_state`."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else f".{step}" if text else step
    return text


# -- the shape: the JSON Schema ---------------------------------------------------------------------------------

SCHEMA_FILE = Path(__file__).with_name("schemas") / "vge-device-1.schema.json"


def _is_object(checker: Any, instance: Any) -> bool:
    return isinstance(instance, dict) or isinstance(instance, Mapping)  # the first is the quick, usual case


def _is_integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(checker: Any, instance: Any) -> bool:
    return isinstance(instance, (int, float)) and not isinstance(instance, bool)


# JSON types as a definition arrives in Python: any Mapping is an object (jsonschema wants a dict), and 5.0 is
# not an integer (jsonschema takes any number without a fraction; a box of floats has always been refused).
_DeviceValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"object": _is_object, "integer": _is_integer, "number": _is_number}
    ),
)

# When a field fails several keywords the first of these words its problem: a box of three floats is "not four
# integers" rather than "outside 0..1000", a dashboard of kind 'kiosk' gets the list of kinds.
_KEYWORD_ORDER = ("required", "type", "enum", "const", "not", "minItems", "maxItems", "minProperties", "pattern")


class _SchemaMessages:
    """The device schema, read once, and the wording of its errors.

    A subschema with `x-message` / `x-messages` words every error raised in it or below it (down to the next
    subschema with messages) and the problem is placed at that subschema's value: an item of a box that is out
    of range is reported as the box.
    """

    def __init__(self, schema: dict[str, Any]):
        self.schema = _inline_references(schema, schema.get("$defs", {}))
        self.validator = _DeviceValidator(self.schema)
        # id(subschema) -> (the subschema whose messages word its errors, steps of instance path between them).
        # jsonschema hands back the very subschema objects, and the cache keeps them alive. Every definition has
        # messages of its own, so one used in several places is worded alike in all of them.
        self._owners: dict[int, tuple[Mapping[str, Any], int]] = {}
        self._index(self.schema, self.schema, 0)

    def _index(self, node: Any, owner: Mapping[str, Any], depth: int) -> None:
        if not isinstance(node, dict):
            return
        if "x-message" in node or "x-messages" in node:
            owner, depth = node, 0
        self._owners[id(node)] = (owner, depth)
        for child in node.get("properties", {}).values():
            self._index(child, owner, depth + 1)
        for keyword in ("additionalProperties", "items"):
            self._index(node.get(keyword), owner, depth + 1)
        for keyword in ("not", "then"):
            self._index(node.get(keyword), owner, depth)

    def errors(self, data: Mapping[str, Any]) -> list[tuple[JsonPath, str, str]]:
        """(path, keyword, message) of every schema error in `data`, in no particular order."""
        out = []
        for error in self.validator.iter_errors(data):
            path = tuple(error.absolute_path)
            keyword = str(error.validator)
            if keyword == "required":
                # A missing field is worded by its own messages, as a null would be.
                for name in error.validator_value:
                    if name not in error.instance:
                        owner = error.schema["properties"][name]
                        out.append((path + (name,), keyword, _wording(owner, keyword, None)))
                continue
            owner, below = self._owners[id(error.schema)]
            path = path[: len(path) - below]
            out.append((path, keyword, _wording(owner, keyword, _value_at(data, path))))
        return out


def _inline_references(node: Any, definitions: Mapping[str, Any]) -> Any:
    """`node` with each `{"$ref": "#/$defs/<name>"}` in it replaced, in place, by that definition (the same
    object). The device schema refers to nothing else and never to itself, and jsonschema then spends no
    reference lookup per value (validation takes about 40% less time)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return definitions[node["$ref"].removeprefix("#/$defs/")]
        for key, value in node.items():
            node[key] = _inline_references(value, definitions)
    elif isinstance(node, list):
        node[:] = [_inline_references(value, definitions) for value in node]
    return node


def _wording(owner: Mapping[str, Any], keyword: str, got: Any) -> str:
    text = owner.get("x-messages", {}).get(keyword) or owner["x-message"]
    return text.replace("{got!r}", repr(got)).replace("{got}", str(got))


def _value_at(data: Any, path: JsonPath) -> Any:
    for step in path:
        data = data[step]
    return data


@functools.cache
def _schema_messages() -> _SchemaMessages:
    return _SchemaMessages(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def shape_findings(data: Mapping[str, Any]) -> list[Finding]:
    """The definition against the `vge-device/1` schema: at most one finding per field."""
    def key(error: tuple[JsonPath, str, str]) -> tuple[str, int]:
        path, keyword, _ = error
        return render_path(path), _KEYWORD_ORDER.index(keyword) if keyword in _KEYWORD_ORDER else len(_KEYWORD_ORDER)

    errors = sorted(_schema_messages().errors(data), key=key)
    found: dict[JsonPath, Finding] = {}
    for path, _, message in errors:
        found.setdefault(path, Finding(path, message))
    return list(found.values())


# -- references between fields ---------------------------------------------------------------------------------


class References:
    """Findings about the references between fields, and the entries whose names do not resolve.

    An entry that names an unknown view, component or state (a box, a trigger, a transition, the dashboard's
    unlock) is reported once, for that name: not also for its shape, and its contents are not checked.
    """

    def __init__(self, flawed: set[JsonPath]):
        self.flawed = flawed  # paths with a shape problem: not checked again
        self.found: list[Finding] = []
        self._unresolved: set[JsonPath] = set()

    def add(self, path: JsonPath, message: str, *, whole: bool = False) -> None:
        self.found.append(Finding(path, message, whole))

    def unresolved(self, entry: JsonPath, message: str, *, field: str = "") -> None:
        self._unresolved.add(entry)
        self.add(entry + (field,) if field else entry, message)

    def within_unresolved(self, path: JsonPath) -> bool:
        return any(path[: len(entry)] == entry for entry in self._unresolved)


def check_references(data: Mapping[str, Any], *, flawed: set[JsonPath], allow_boxless: bool) -> References:
    """What the schema cannot say: names that must refer to views, components or states; boxes that must not
    be empty; transitions that must not repeat."""
    found = References(flawed)
    check_dashboard_unlock(data, found)
    check_plain_view(data, found)
    check_component_boxes(data, found, allow_boxless=allow_boxless)
    check_transitions(data, found)
    check_initial_state(data, found)
    check_state_looks(data, found)
    return found


def _entries(value: Any) -> Mapping[str, Any]:
    """A section's entries by name; a section that is not an object (a shape problem) names nothing."""
    return value if isinstance(value, Mapping) else {}


def _names_one_of(value: Any, names: Mapping[str, Any]) -> bool:
    return isinstance(value, str) and value in names


def _check_box_area(box: list[int], path: JsonPath, found: References) -> None:
    if path not in found.flawed and not (box[0] < box[2] and box[1] < box[3]):
        found.add(path, f"box {box} is empty (needs x1 < x2 and y1 < y2)")


def check_dashboard_unlock(data: Mapping[str, Any], found: References) -> None:
    """The dashboard's unlock box sits on another view of the device, and is not empty."""
    views = _entries(data.get("views"))
    dashboard = views.get(DASHBOARD)
    if not isinstance(dashboard, Mapping) or dashboard.get("kind") != DASHBOARD:
        return
    unlock = dashboard.get("unlock")
    if not isinstance(unlock, Mapping):
        return
    view = unlock.get("view")
    if not _names_one_of(view, views) or view == DASHBOARD:
        found.unresolved(("views", DASHBOARD, "unlock"), f"unknown or invalid view {view!r}", field="view")
    elif "box" in unlock:
        _check_box_area(unlock["box"], ("views", DASHBOARD, "unlock", "box"), found)


def check_plain_view(data: Mapping[str, Any], found: References) -> None:
    """Besides the dashboard, a device has a usable view to start on."""
    views = _entries(data.get("views"))
    if views and not any(
        name != DASHBOARD and isinstance(spec, Mapping) and spec.get("kind") in VIEW_KINDS and spec["kind"] != DASHBOARD
        for name, spec in views.items()
    ):
        found.add(("views",), "needs at least one view besides the dashboard", whole=True)


def check_component_boxes(data: Mapping[str, Any], found: References, *, allow_boxless: bool) -> None:
    """Each box is on a view of the device and not empty; a component shows on some view (a UCSM's need not)."""
    views = _entries(data.get("views"))
    for name, spec in _entries(data.get("components")).items():
        path: JsonPath = ("components", name)
        if path in found.flawed:
            continue
        boxes = spec.get("boxes", {})
        for view, box in boxes.items():
            if view not in views:
                found.unresolved(path + ("boxes", view), f"unknown view '{view}'")
            else:
                _check_box_area(box, path + ("boxes", view), found)
        if not boxes and not allow_boxless:
            found.add(path + ("boxes",), "the component is visible on no view")


def check_transitions(data: Mapping[str, Any], found: References) -> None:
    """Triggers name components, transitions lead to states, and no two transitions of a trigger have the same
    action and parameters (compared normalised: 0, 0.0 and "0" are the same)."""
    components = _entries(data.get("components"))
    states = _entries(data.get("states"))
    for name, spec in states.items():
        on = spec.get("on", {}) if isinstance(spec, Mapping) else None
        if not isinstance(on, Mapping):
            continue
        for trigger, items in on.items():
            path: JsonPath = ("states", name, "on", trigger)
            if trigger not in SPECIAL_TRIGGERS and trigger not in components:
                found.unresolved(path, f"unknown component '{trigger}'")
            elif isinstance(items, list):
                _check_trigger_transitions(path, trigger, items, states, found)


def _check_trigger_transitions(
    path: JsonPath, trigger: str, items: list[Any], states: Mapping[str, Any], found: References
) -> None:
    first_of: dict[tuple[str | None, tuple[str, ...]], int] = {}
    for i, item in enumerate(items):
        item_path = path + (i,)
        if not isinstance(item, Mapping):
            continue
        next_state = item.get("next_state")
        if not _names_one_of(next_state, states):
            found.unresolved(item_path, f"unknown state {next_state!r}", field="next_state")
            continue
        if item_path + ("atomic_action",) in found.flawed or item_path + ("parameter",) in found.flawed:
            continue  # no key to compare
        key = _transition_key(trigger, item)
        if key in first_of:
            message = f"duplicates transition [{first_of[key]}] (same trigger, action and parameters)"
            found.add(item_path, message, whole=True)
        else:
            first_of[key] = i


def _transition_key(trigger: str, item: Mapping[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """What tells the transitions of one trigger apart: the action and the normalised parameters."""
    if trigger in SPECIAL_TRIGGERS:
        return None, ()
    return item["atomic_action"], tuple(normalise_param(p) for p in item.get("parameter") or [])


def check_initial_state(data: Mapping[str, Any], found: References) -> None:
    initial = data.get("initial_state")
    if not _names_one_of(initial, _entries(data.get("states"))):
        found.add(("initial_state",), f"unknown state {initial!r}")


def check_state_looks(data: Mapping[str, Any], found: References) -> None:
    """A state's look names components of the device (a look changes only how the device is drawn)."""
    components = _entries(data.get("components"))
    for name, spec in _entries(data.get("states")).items():
        look = spec.get("look") if isinstance(spec, Mapping) else None
        if not isinstance(look, Mapping) or not isinstance(look.get("components"), Mapping):
            continue
        for component in look["components"]:
            if component not in components:
                found.unresolved(("states", name, "look", "components", component), f"unknown component '{component}'")


def immediate_loop_problems(states: Mapping[str, State]) -> list[Problem]:
    """Immediate transitions must come to rest: follow each state's single immediate edge, and a revisit is a
    loop. Only the first loop found is reported."""
    for start in states:
        chain = [start]
        current = start
        while states[current].on.get(IMMEDIATE):
            current = states[current].on[IMMEDIATE][0].next_state
            if current in chain:
                loop = " -> ".join(chain[chain.index(current):] + [current])
                return [Problem(f"states.{start}.on.immediate", f"immediate transitions loop: {loop}")]
            chain.append(current)
    return []


# -- building --------------------------------------------------------------------------------------------------


def _look(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    look = spec.get("look", {})
    return look if isinstance(look, Mapping) else {}  # rendering hints only: anything else is ignored


def _build_device(data: Mapping[str, Any]) -> Device:
    """The `Device` of a definition without problems."""
    states = {name: _build_state(name, spec) for name, spec in data["states"].items()}
    initial = data["initial_state"]
    unreachable = sorted(set(states) - reachable_states(states, initial))
    return Device(
        id=data["id"],
        category=data.get("category", ""),
        views={name: _build_view(name, spec) for name, spec in data["views"].items()},
        components={
            name: Component(name, {view: tuple(box) for view, box in spec.get("boxes", {}).items()}, _look(spec))
            for name, spec in data["components"].items()
        },
        initial_state=initial,
        states=states,
        look=_look(data),
        warnings=tuple(f"states.{s}: unreachable from initial_state '{initial}'" for s in unreachable),
        digest=_canonical_digest(data),
    )


def _build_view(name: str, spec: Mapping[str, Any]) -> View:
    if spec["kind"] != DASHBOARD:
        return View(name, spec["kind"], spec.get("image"))
    unlock = spec["unlock"]
    return View(name, DASHBOARD, spec.get("image"), unlock["view"], tuple(unlock["box"]))


def _build_state(name: str, spec: Mapping[str, Any]) -> State:
    on = {
        trigger: tuple(_build_transition(trigger, item) for item in items)
        for trigger, items in spec.get("on", {}).items()
    }
    return State(name, spec.get("description", ""), spec.get("error", False), on, _look(spec))


def _build_transition(trigger: str, item: Mapping[str, Any]) -> Transition:
    action, parameter = _transition_key(trigger, item)
    return Transition(trigger, item["next_state"], item.get("transition_description", ""), action, parameter)


def reachable_states(states: Mapping[str, State], initial: str) -> set[str]:
    seen = {initial}
    todo = [initial]
    while todo:
        current = todo.pop()
        for transitions in states[current].on.values():
            for t in transitions:
                if t.next_state not in seen:
                    seen.add(t.next_state)
                    todo.append(t.next_state)
    return seen


def prune_ucsm(ucsm: Mapping[str, Any], layout: Mapping[str, Any]) -> dict[str, Any]:
    """The device JSON for a UCSM cut down to the components of `layout`.

    `layout` holds the device's `id`, `views` and `components` (each with boxes); the UCSM's transitions on
    components the device lacks are dropped (and their per-state looks), then the states no longer reachable
    from `initial_state`. Immediate transitions are kept with their state. The result is a full `vge-device/1` mapping.
    """
    kept = set(layout["components"])
    unknown = kept - set(ucsm.get("components", {}))
    if unknown:
        raise DeviceInvalid([Problem(f"components.{n}", "not a component of the UCSM") for n in sorted(unknown)])
    states: dict[str, dict[str, Any]] = {}
    for name, spec in ucsm["states"].items():
        on = {t: list(v) for t, v in spec.get("on", {}).items() if t in SPECIAL_TRIGGERS or t in kept}
        states[name] = {**{k: v for k, v in spec.items() if k != "on"}, "on": on}
        look = spec.get("look")
        if isinstance(look, Mapping) and isinstance(look.get("components"), Mapping):  # looks of kept components
            states[name]["look"] = {**look, "components": {c: v for c, v in look["components"].items() if c in kept}}
    seen = {ucsm["initial_state"]}
    todo = [ucsm["initial_state"]]
    while todo:
        for items in states[todo.pop()]["on"].values():
            for item in items:
                if item["next_state"] not in seen:
                    seen.add(item["next_state"])
                    todo.append(item["next_state"])
    out = {
        "format": FORMAT,
        "id": layout["id"],
        "category": ucsm.get("category", ""),
        "views": layout["views"],
        "components": layout["components"],
        "initial_state": ucsm["initial_state"],
        "states": {name: spec for name, spec in states.items() if name in seen},
    }
    if "look" in layout:
        out["look"] = layout["look"]
    return out
