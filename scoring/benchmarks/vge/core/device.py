"""Device definitions (`vge-device/1`): loading, validation and UCSM pruning.

`load_device(data)` turns the JSON mapping into a frozen `Device` or raises `DeviceInvalid` listing every
problem with the JSON path of the offending field (`states.heating.on.power_button[0].next_state`).
Unreachable states are warnings, not errors. `prune_ucsm` cuts a category machine down to one device.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

FORMAT = "vge-device/1"
PHYSICAL_ACTIONS = ("press", "rotate", "push", "pull", "grasp")
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
    digest: str = ""  # sha256 of the canonical JSON: keys render caches

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


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _box(value: Any, path: str, problems: list[Problem]) -> Box | None:
    if not isinstance(value, list) or len(value) != 4 or not all(_is_int(v) for v in value):
        problems.append(Problem(path, "a box must be a list of four integers [x1, y1, x2, y2]"))
        return None
    x1, y1, x2, y2 = value
    if not all(0 <= v <= 1000 for v in value):
        problems.append(Problem(path, f"box {value} lies outside 0..1000"))
        return None
    if x2 <= x1 or y2 <= y1:
        problems.append(Problem(path, f"box {value} is empty (needs x1 < x2 and y1 < y2)"))
        return None
    return (x1, y1, x2, y2)


def _canonical_digest(data: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def load_device(data: Any, *, source: str = "", allow_boxless: bool = False) -> Device:
    """Validate a `vge-device/1` mapping and build the device; raises `DeviceInvalid` with every problem."""
    problems: list[Problem] = []
    if not isinstance(data, Mapping):
        raise DeviceInvalid([Problem("", "a device definition must be a JSON object")], source)
    if data.get("format") != FORMAT:
        problems.append(Problem("format", f"must be '{FORMAT}' (got {data.get('format')!r})"))
    device_id = data.get("id")
    if not isinstance(device_id, str) or not device_id.strip():
        problems.append(Problem("id", "must be a non-empty string"))
        device_id = ""
    category = data.get("category", "")
    if not isinstance(category, str):
        problems.append(Problem("category", "must be a string"))
        category = ""

    views: dict[str, View] = {}
    raw_views = data.get("views")
    if not isinstance(raw_views, Mapping) or not raw_views:
        problems.append(Problem("views", "must be a non-empty object of view name -> {kind}"))
        raw_views = {}
    for name, spec in raw_views.items():
        path = f"views.{name}"
        if not isinstance(spec, Mapping):
            problems.append(Problem(path, "must be an object"))
            continue
        kind = spec.get("kind")
        if kind not in VIEW_KINDS:
            problems.append(Problem(f"{path}.kind", f"must be one of {', '.join(VIEW_KINDS)} (got {kind!r})"))
            continue
        if (kind == DASHBOARD) != (name == DASHBOARD):
            problems.append(Problem(f"{path}.kind", "the dashboard is the view named 'dashboard', of kind 'dashboard'"))
            continue
        image = spec.get("image")
        if image is not None and not isinstance(image, str):
            problems.append(Problem(f"{path}.image", "must be a file name"))
            image = None
        unlock_view = unlock_box = None
        if kind == DASHBOARD:
            unlock = spec.get("unlock")
            if not isinstance(unlock, Mapping):
                problems.append(Problem(f"{path}.unlock", "a dashboard needs unlock: {view, box}"))
                continue
            unlock_view = unlock.get("view")
            if unlock_view not in raw_views or unlock_view == DASHBOARD:
                problems.append(Problem(f"{path}.unlock.view", f"unknown or invalid view {unlock_view!r}"))
                continue
            unlock_box = _box(unlock.get("box"), f"{path}.unlock.box", problems)
            if unlock_box is None:
                continue
        views[name] = View(name, kind, image, unlock_view, unlock_box)
    if raw_views and not any(v.kind != DASHBOARD for v in views.values()):
        problems.append(Problem("views", "needs at least one view besides the dashboard"))

    components: dict[str, Component] = {}
    raw_components = data.get("components")
    if not isinstance(raw_components, Mapping):
        problems.append(Problem("components", "must be an object of component name -> {boxes}"))
        raw_components = {}
    for name, spec in raw_components.items():
        path = f"components.{name}"
        if name in SPECIAL_TRIGGERS:
            problems.append(Problem(path, f"'{name}' is a reserved trigger name"))
            continue
        if not isinstance(spec, Mapping) or not isinstance(spec.get("boxes", {}), Mapping):
            problems.append(Problem(path, "must be an object with boxes: {view: [x1, y1, x2, y2]}"))
            continue
        boxes: dict[str, Box] = {}
        for view_name, raw_box in spec.get("boxes", {}).items():
            if view_name not in raw_views:
                problems.append(Problem(f"{path}.boxes.{view_name}", f"unknown view '{view_name}'"))
                continue
            box = _box(raw_box, f"{path}.boxes.{view_name}", problems)
            if box is not None:
                boxes[view_name] = box
        if not spec.get("boxes") and not allow_boxless:
            problems.append(Problem(f"{path}.boxes", "the component is visible on no view"))
        look = spec.get("look", {})
        components[name] = Component(name, boxes, look if isinstance(look, Mapping) else {})

    states: dict[str, State] = {}
    raw_states = data.get("states")
    if not isinstance(raw_states, Mapping) or not raw_states:
        problems.append(Problem("states", "must be a non-empty object of state name -> {description, on}"))
        raw_states = {}
    for name, spec in raw_states.items():
        path = f"states.{name}"
        if not isinstance(spec, Mapping):
            problems.append(Problem(path, "must be an object"))
            continue
        description = spec.get("description", "")
        if not isinstance(description, str):
            problems.append(Problem(f"{path}.description", "must be a string"))
            description = ""
        error = spec.get("error", False)
        if not isinstance(error, bool):
            problems.append(Problem(f"{path}.error", "must be true or false"))
            error = False
        raw_on = spec.get("on", {})
        if not isinstance(raw_on, Mapping):
            problems.append(Problem(f"{path}.on", "must be an object of trigger -> [transitions]"))
            raw_on = {}
        on: dict[str, tuple[Transition, ...]] = {}
        for trigger, items in raw_on.items():
            tpath = f"{path}.on.{trigger}"
            if trigger not in SPECIAL_TRIGGERS and trigger not in raw_components:
                problems.append(Problem(tpath, f"unknown component '{trigger}'"))
                continue
            if not isinstance(items, list):
                problems.append(Problem(tpath, "must be a list of transitions"))
                continue
            if trigger == IMMEDIATE and len(items) > 1:
                problems.append(Problem(tpath, "a state may have at most one immediate transition"))
            seen: dict[tuple[str | None, tuple[str, ...]], int] = {}
            built: list[Transition] = []
            for i, item in enumerate(items):
                ipath = f"{tpath}[{i}]"
                if not isinstance(item, Mapping):
                    problems.append(Problem(ipath, "must be an object"))
                    continue
                next_state = item.get("next_state")
                if next_state not in raw_states:
                    problems.append(Problem(f"{ipath}.next_state", f"unknown state {next_state!r}"))
                    continue
                text = item.get("transition_description", "")
                if not isinstance(text, str):
                    problems.append(Problem(f"{ipath}.transition_description", "must be a string"))
                    text = ""
                action = item.get("atomic_action")
                parameter: tuple[str, ...] = ()
                if trigger in SPECIAL_TRIGGERS:
                    if action is not None:
                        problems.append(Problem(f"{ipath}.atomic_action", f"a {trigger} transition takes no action"))
                        continue
                else:
                    if action not in PHYSICAL_ACTIONS:
                        problems.append(
                            Problem(f"{ipath}.atomic_action", f"must be one of {', '.join(PHYSICAL_ACTIONS)} (got {action!r})")
                        )
                        continue
                    raw_params = item.get("parameter", [])
                    if raw_params is None:
                        raw_params = []
                    if not isinstance(raw_params, list) or not all(
                        isinstance(p, str) or (isinstance(p, (int, float)) and not isinstance(p, bool)) for p in raw_params
                    ):
                        problems.append(Problem(f"{ipath}.parameter", "must be a list of strings"))
                        continue
                    parameter = tuple(normalise_param(p) for p in raw_params)
                key = (action, parameter)
                if key in seen:
                    problems.append(
                        Problem(ipath, f"duplicates transition [{seen[key]}] (same trigger, action and parameters)")
                    )
                    continue
                seen[key] = i
                built.append(Transition(trigger, next_state, text, action, parameter))
            on[trigger] = tuple(built)
        look = spec.get("look", {})
        states[name] = State(name, description, error, on, look if isinstance(look, Mapping) else {})

    initial = data.get("initial_state")
    if initial not in raw_states:
        problems.append(Problem("initial_state", f"unknown state {initial!r}"))

    # Immediate loops: follow each state's single immediate edge; a revisit is a loop.
    if not problems:
        for start in states:
            chain = [start]
            current = start
            while states[current].on.get(IMMEDIATE):
                current = states[current].on[IMMEDIATE][0].next_state
                if current in chain:
                    loop = " -> ".join(chain[chain.index(current):] + [current])
                    problems.append(Problem(f"states.{start}.on.immediate", f"immediate transitions loop: {loop}"))
                    break
                chain.append(current)
            if problems:
                break
    if problems:
        raise DeviceInvalid(problems, source)

    warnings = [f"states.{s}: unreachable from initial_state '{initial}'" for s in sorted(set(states) - reachable_states(states, initial))]
    look = data.get("look", {})
    return Device(
        id=device_id,
        category=category,
        views=views,
        components=components,
        initial_state=initial,
        states=states,
        look=look if isinstance(look, Mapping) else {},
        warnings=tuple(warnings),
        digest=_canonical_digest(data),
    )


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
    components the device lacks are dropped, then the states no longer reachable from `initial_state`.
    Immediate transitions are kept with their state. The result is a full `vge-device/1` mapping.
    """
    kept = set(layout["components"])
    unknown = kept - set(ucsm.get("components", {}))
    if unknown:
        raise DeviceInvalid([Problem(f"components.{n}", "not a component of the UCSM") for n in sorted(unknown)])
    states: dict[str, dict[str, Any]] = {}
    for name, spec in ucsm["states"].items():
        on = {t: list(v) for t, v in spec.get("on", {}).items() if t in SPECIAL_TRIGGERS or t in kept}
        states[name] = {**{k: v for k, v in spec.items() if k != "on"}, "on": on}
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
