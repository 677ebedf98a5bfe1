"""A device draft's definition as it is authored: started from its category's UCSM, with views (photos), boxes,
states and transitions edited one change at a time, and the machine pruned to what the photos show.

Every function returns a new mapping (the input is never changed) or raises `DraftError` naming the JSON path.
"""
from __future__ import annotations

import copy
import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from scoring.benchmarks.vge.core.device import (
    DASHBOARD,
    IMMEDIATE,
    PHYSICAL_ACTIONS,
    SPECIAL_TRIGGERS,
    STANDARD_VIEWS,
    TIMED_WAIT,
    DeviceInvalid,
    prune_ucsm,
)
from scoring.benchmarks.vge.core.library import parse_spec
from scoring.benchmarks.vge.core.render import LOOK_VALUES

VIEWS = (*STANDARD_VIEWS, DASHBOARD)
AXONOMETRIC = ("front_top", "back_bottom")
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")


class DraftError(ValueError):
    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


@functools.cache
def _ucsms() -> dict[str, dict[str, Any]]:
    return {spec.name: spec.ucsm for spec in parse_spec()}


def categories() -> list[str]:
    return list(_ucsms())


def ucsm_for(category: str) -> dict[str, Any]:
    """A copy of the category's universal state machine (a boxless `vge-device/1` mapping)."""
    if category not in _ucsms():
        raise DraftError("category", f"unknown category {category!r}; one of {', '.join(categories())}")
    return copy.deepcopy(_ucsms()[category])


def component_kinds(category: str) -> dict[str, str]:
    """The UCSM's components and their kinds (button, dial, switch, door ...), as drawn."""
    return {name: spec.get("look", {}).get("shape", "control") for name, spec in ucsm_for(category)["components"].items()}


def draft_start(category: str, device_id: str) -> dict[str, Any]:
    """The UCSM offered as the starting machine: every component, no view and no box yet."""
    data = ucsm_for(category)
    data["id"] = device_id
    data["views"] = {}
    return data


def view_kind(view: str) -> str:
    if view not in VIEWS:
        raise DraftError("views", f"unknown view {view!r}; one of {', '.join(VIEWS)}")
    return DASHBOARD if view == DASHBOARD else "axonometric" if view in AXONOMETRIC else "orthographic"


def view_set(data: Mapping[str, Any], *, view: str, image: str,
             unlock: tuple[str, Sequence[int]] | None = None) -> dict[str, Any]:
    """The view with its photo's file name (and, for the dashboard, its region on the parent view)."""
    kind = view_kind(view)
    out = copy.deepcopy(dict(data))
    spec: dict[str, Any] = {"kind": kind, "image": image}
    if kind == DASHBOARD:
        if unlock is None:
            old = out.get("views", {}).get(DASHBOARD, {}).get("unlock")
            if old is None:
                raise DraftError("views.dashboard.unlock", "the dashboard close-up needs its region on the parent view")
            spec["unlock"] = old
        else:
            parent, box = unlock
            if parent == DASHBOARD or parent not in out.get("views", {}):
                raise DraftError("views.dashboard.unlock.view", f"the parent view {parent!r} has no photo yet")
            spec["unlock"] = {"view": parent, "box": list(box)}
    views = dict(out.get("views", {}))
    views[view] = spec
    out["views"] = {name: views[name] for name in VIEWS if name in views}  # the format's order
    return out


def state_photo_set(data: Mapping[str, Any], *, state: str, view: str, image: str) -> dict[str, Any]:
    """How `view` looks in `state` (a photo where the appearance changes): the state's `look.photos[view]`."""
    out = copy.deepcopy(dict(data))
    path = f"states.{state}.look.photos.{view}"
    if state not in out.get("states", {}):
        raise DraftError(path, f"no state {state!r}")
    if view not in out.get("views", {}):
        raise DraftError(path, f"view '{view}' has no photo yet: its own photo first")
    look = out["states"][state].setdefault("look", {})
    look.setdefault("photos", {})[view] = image
    overlays = look.get("overlays")
    if isinstance(overlays, dict):  # one look per view: the photo replaces the overlays
        overlays.pop(view, None)
        if not overlays:
            look.pop("overlays")
    return out


def overlays_set(data: Mapping[str, Any], *, state: str, view: str, components: Sequence[str]) -> dict[str, Any]:
    """How `view` looks in `state` drawn by the renderer: `components` drawn in their look for the state over their
    boxes on the view's photo (the state's `look.overlays[view]`); none: the photo as it is. A state photo of the
    view gives way (one look per view)."""
    out = copy.deepcopy(dict(data))
    path = f"states.{state}.look.overlays.{view}"
    if state not in out.get("states", {}):
        raise DraftError(path, f"no state {state!r}")
    if view not in out.get("views", {}):
        raise DraftError(path, f"view '{view}' has no photo yet: its own photo first")
    for index, name in enumerate(components):
        boxes = out.get("components", {}).get(name, {}).get("boxes", {})
        if view not in boxes:
            raise DraftError(f"{path}[{index}]", f"component {name!r} has no box on view '{view}'")
    look = out["states"][state].setdefault("look", {})
    overlays = look.setdefault("overlays", {})
    if components:
        overlays[view] = list(dict.fromkeys(components))
        photos = look.get("photos")
        if isinstance(photos, dict):
            photos.pop(view, None)
            if not photos:
                look.pop("photos")
    else:
        overlays.pop(view, None)
    if not overlays:
        look.pop("overlays")
    return out


def look_values_parse(text: str, *, path: str) -> dict[str, Any]:
    """`on=true color=#ffb030 text=HI open=1` as a component's look values (the renderer's vocabulary, LOOK_VALUES);
    each bad one named by its path."""
    values: dict[str, Any] = {}
    for token in text.split():
        key, sep, raw = token.partition("=")
        kind = LOOK_VALUES.get(key)
        if not sep or kind is None:
            raise DraftError(f"{path}.{key}", f"{token!r}: give key=value, the key one of {', '.join(LOOK_VALUES)}")
        if kind is bool:
            if raw.lower() not in ("true", "false"):
                raise DraftError(f"{path}.{key}", f"{raw!r} is not true or false")
            values[key] = raw.lower() == "true"
        elif kind is float:
            try:
                number = float(raw)
            except ValueError:
                raise DraftError(f"{path}.{key}", f"{raw!r} is not a number") from None
            values[key] = int(number) if number.is_integer() else number
        else:
            values[key] = raw.replace("_", " ") if key == "text" else raw
    return values


def component_look_set(data: Mapping[str, Any], *, state: str, component: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a component looks like in a state (`look.components[component]`: a lamp on and its colour, a display's
    text, a door open...), merged over what the UCSM gave it."""
    out = copy.deepcopy(dict(data))
    path = f"states.{state}.look.components.{component}"
    if state not in out.get("states", {}):
        raise DraftError(path, f"no state {state!r}")
    if component not in out.get("components", {}):
        raise DraftError(path, f"no component {component!r}")
    look = out["states"][state].setdefault("look", {})
    look.setdefault("components", {}).setdefault(component, {}).update(values)
    return out


def state_photos(data: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(state, view) -> the file of every state photo."""
    out = {}
    for state, spec in data.get("states", {}).items():
        look = spec.get("look") if isinstance(spec, Mapping) else None
        photos = look.get("photos") if isinstance(look, Mapping) else None
        for view, name in (photos.items() if isinstance(photos, Mapping) else []):
            if isinstance(name, str):
                out[(state, view)] = name
    return out


def photo_file(data: Mapping[str, Any], *, view: str, state: str = "") -> str | None:
    """The file name the definition gives a photo: the view's `image`, or with `state` the state's photo of it."""
    if state:
        return state_photos(data).get((state, view))
    name = data.get("views", {}).get(view, {}).get("image")
    return name if isinstance(name, str) else None


def box_set(data: Mapping[str, Any], *, component: str, view: str, box: Sequence[int] | None) -> dict[str, Any]:
    """The component's box on a view (None removes it)."""
    out = copy.deepcopy(dict(data))
    if component not in out.get("components", {}):
        raise DraftError(f"components.{component}", f"not a component of the {out.get('category')} machine")
    if box is not None and view not in out.get("views", {}):
        raise DraftError(f"components.{component}.boxes.{view}", f"view '{view}' has no photo yet")
    boxes = out["components"][component].setdefault("boxes", {})
    if box is None:
        boxes.pop(view, None)
    else:
        boxes[view] = list(box)
    return out


def machine_prune(data: Mapping[str, Any]) -> dict[str, Any]:
    """The category's UCSM cut down to the components that have a box on some photo (one action): transitions
    on other components dropped, then states no longer reachable. Looks and edited descriptions of kept states
    stay as the UCSM has them; the draft's boxes and views are kept."""
    ucsm = ucsm_for(str(data.get("category")))
    shown = {name: spec for name, spec in data.get("components", {}).items() if spec.get("boxes")}
    if not shown:
        raise DraftError("components", "no component has a box on any photo yet: mark the controls first")
    layout = {"id": data["id"], "views": data.get("views", {}), "components": shown}
    try:
        pruned = prune_ucsm(ucsm, layout)
    except DeviceInvalid as exc:
        raise DraftError(exc.problems[0].path, exc.problems[0].message) from None
    return _authored_looks_kept(pruned, data)


def _authored_looks_kept(pruned: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """What the author gave a kept state's look (its photos, its overlays, its components' looks) survives pruning,
    less the components pruned away."""
    kept = set(pruned["components"])
    for name, spec in pruned["states"].items():
        old = data.get("states", {}).get(name, {}).get("look", {})
        if not isinstance(old, Mapping):
            continue
        look = spec.setdefault("look", {})
        if isinstance(old.get("photos"), Mapping):
            look["photos"] = dict(old["photos"])
        if isinstance(old.get("overlays"), Mapping):
            overlays = {view: [c for c in names if c in kept] for view, names in old["overlays"].items()
                        if isinstance(names, list)}
            if any(overlays.values()):
                look["overlays"] = {view: names for view, names in overlays.items() if names}
        if isinstance(old.get("components"), Mapping):
            look["components"] = {**look.get("components", {}),
                                  **{c: v for c, v in old["components"].items() if c in kept}}
        if not look:
            spec.pop("look")
    return pruned


def _name(value: str, path: str) -> str:
    if not value or not set(value) <= NAME_CHARS:
        raise DraftError(path, f"{value!r}: use lower-case letters, digits and _")
    return value


def state_set(data: Mapping[str, Any], *, name: str, description: str, error: bool = False) -> dict[str, Any]:
    out = copy.deepcopy(dict(data))
    states = out.setdefault("states", {})
    spec = states.setdefault(_name(name, f"states.{name}"), {"on": {}})
    spec["description"] = description.strip()
    if error:
        spec["error"] = True
    else:
        spec.pop("error", None)
    return out


def state_remove(data: Mapping[str, Any], *, name: str) -> dict[str, Any]:
    out = copy.deepcopy(dict(data))
    if name not in out.get("states", {}):
        raise DraftError(f"states.{name}", "no such state")
    if name == out.get("initial_state"):
        raise DraftError(f"states.{name}", "the initial state cannot be removed")
    del out["states"][name]
    return out  # transitions into it stay, and the live checks name each one


def transition_add(data: Mapping[str, Any], *, state: str, trigger: str, next_state: str, action: str = "",
                   parameter: Sequence[str] = (), description: str = "") -> dict[str, Any]:
    """A transition from `state`: on a component (with an atomic action and parameters), `timed_wait` or
    `immediate`. The target may not exist yet: the live checks say so."""
    out = copy.deepcopy(dict(data))
    if state not in out.get("states", {}):
        raise DraftError(f"states.{state}", "no such state")
    path = f"states.{state}.on.{trigger}"
    if trigger not in SPECIAL_TRIGGERS and trigger not in out.get("components", {}):
        raise DraftError(path, f"unknown component '{trigger}'")
    item: dict[str, Any] = {"next_state": _name(next_state, path + ".next_state"),
                            "transition_description": description.strip()}
    if trigger not in SPECIAL_TRIGGERS:
        if action not in PHYSICAL_ACTIONS:
            raise DraftError(path + ".atomic_action", f"{action!r} is not one of {', '.join(PHYSICAL_ACTIONS)}")
        item["atomic_action"] = action
        item["parameter"] = [str(p).strip() for p in parameter if str(p).strip()]
    out["states"][state].setdefault("on", {}).setdefault(trigger, []).append(item)
    return out


def transition_remove(data: Mapping[str, Any], *, state: str, trigger: str, index: int) -> dict[str, Any]:
    out = copy.deepcopy(dict(data))
    items = out.get("states", {}).get(state, {}).get("on", {}).get(trigger)
    if not isinstance(items, list) or not 0 <= index < len(items):
        raise DraftError(f"states.{state}.on.{trigger}[{index}]", "no such transition")
    del items[index]
    if not items:
        del out["states"][state]["on"][trigger]
    return out


def graph(data: Mapping[str, Any], *, size: int = 520) -> dict[str, Any]:
    """The state machine as a plain SVG graph: states on a circle (initial first), one edge per transition."""
    states = list(data.get("states", {}))
    initial = data.get("initial_state")
    if initial in states:
        states.remove(initial)
        states.insert(0, initial)
    centre, radius = size / 2, size / 2 - 60
    nodes = {}
    for i, name in enumerate(states):
        angle = -math.pi / 2 + 2 * math.pi * i / max(1, len(states))
        spec = data["states"][name]
        nodes[name] = {"name": name, "x": round(centre + radius * math.cos(angle), 1),
                       "y": round(centre + radius * math.sin(angle), 1), "initial": name == initial,
                       "error": bool(isinstance(spec, Mapping) and spec.get("error"))}
    edges = []
    for name in states:
        spec = data["states"][name]
        for trigger, items in (spec.get("on", {}) if isinstance(spec, Mapping) else {}).items():
            for index, item in enumerate(items if isinstance(items, list) else []):
                target = item.get("next_state") if isinstance(item, Mapping) else None
                label = trigger if trigger in (TIMED_WAIT, IMMEDIATE) else (
                    f"{item.get('atomic_action', '?')} {trigger} {','.join(item.get('parameter') or [])}".strip())
                a, b = nodes[name], nodes.get(target)
                edge = {"source": name, "target": target, "trigger": trigger, "index": index, "label": label,
                        "missing": b is None, "path": f"states.{name}.on.{trigger}[{index}]"}
                if b is not None:
                    # A curve bent to one side, so the two directions between a pair of states do not overlap.
                    mx, my = (a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2
                    dx, dy = b["x"] - a["x"], b["y"] - a["y"]
                    bend = 0.18 + 0.08 * index
                    cx, cy = (mx - dy * bend, my + dx * bend) if name != target else (a["x"] + 40, a["y"] - 60)
                    edge.update(x1=a["x"], y1=a["y"], x2=b["x"], y2=b["y"], cx=round(cx, 1), cy=round(cy, 1))
                edges.append(edge)
    return {"size": size, "nodes": list(nodes.values()), "edges": edges}
