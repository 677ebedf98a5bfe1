"""Live checks of a device draft (a `vge-device/1` mapping being authored), each naming its JSON path and view.

The device schema and the cross-reference checks of the VGE core run first (a draft's components may still lack
boxes); then what an author needs besides: transitions bound to components absent from every view, boxes outside
their image or of negative size, overlapping boxes of different components in one view, a dashboard without its
region, unreachable states, loops of immediate transitions (a task that never comes to rest), a state's overlays
(components drawn over a view's photo) naming what is not there, and states that no view can tell apart (on a
photo: the state's photo or overlays; elsewhere the renderer's looks). Errors block submitting; warnings do not.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.benchmarks.vge.core.device import (
    DASHBOARD,
    IMMEDIATE,
    SPECIAL_TRIGGERS,
    DeviceInvalid,
    Finding,
    check_references,
    in_document_order,
    load_device,
    shape_findings,
)
from scoring.benchmarks.vge.core.render import look_key

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Check:
    path: str  # the JSON path in the draft's definition: components.dial.boxes.front
    view: str  # the view the problem is on ("" when it is on none)
    message: str
    level: str = ERROR

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "view": self.view, "message": self.message, "level": self.level}

    def __str__(self) -> str:
        where = f" (view {self.view})" if self.view else ""
        return f"{self.path}{where}: {self.message}"


def _view_of(path: str) -> str:
    """The view a path is about: components.<c>.boxes.<view> or views.<view>."""
    parts = path.split(".")
    if len(parts) >= 4 and parts[0] == "components" and parts[2] == "boxes":
        return parts[3]
    if len(parts) >= 2 and parts[0] == "views":
        return parts[1]
    if len(parts) >= 5 and parts[0] == "states" and parts[2] == "look" and parts[3] in ("photos", "overlays"):
        return parts[4].split("[")[0]
    return ""


def _entries(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _boxes(data: Mapping[str, Any]) -> list[tuple[str, str, list[Any]]]:
    """(component, view, box) of every box shaped like one (four numbers)."""
    out = []
    for name, spec in _entries(data.get("components")).items():
        for view, box in _entries(_entries(spec).get("boxes")).items():
            if isinstance(box, list) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box):
                out.append((name, view, box))
    return out


def draft_checks(data: Mapping[str, Any], *, photos: frozenset[str] | None = None) -> list[Check]:
    """Every problem of a draft, errors before warnings, each in document order. `photos`: the views that have a
    photo (None: not checked)."""
    if not isinstance(data, Mapping):
        return [Check("", "", "a device definition must be a JSON object")]
    shape = shape_findings(data)
    references = check_references(data, flawed={f.path for f in shape}, allow_boxless=True)
    found = [f for f in shape if not references.within_unresolved(f.path)] + references.found
    found += _negative_boxes(data) + _absent_components(data) + _immediate_loops(data) + _overlay_findings(data)
    errors = [Check(p.path, _view_of(p.path), p.message) for p in in_document_order(data, found)]
    errors += _dashboard_region(data, errors)
    if photos is not None:
        errors += _boxes_without_photo(data, photos)
    seen: set[tuple[str, str]] = set()
    unique = []
    for check in errors:  # a box both empty and negative is told once, the plainer way first
        if (check.path, check.message) not in seen and not (
                "is empty" in check.message and any(c.path == check.path and "negative" in c.message for c in errors)):
            seen.add((check.path, check.message))
            unique.append(check)
    warnings = _overlaps(data) + _unreachable(data)
    if not unique:
        warnings += _alike_states(data)
    return unique + warnings


def _negative_boxes(data: Mapping[str, Any]) -> list[Finding]:
    found = []
    for name, view, box in _boxes(data):
        x1, y1, x2, y2 = box
        if x2 < x1 or y2 < y1:
            found.append(Finding(("components", name, "boxes", view),
                                 f"box {box} has a negative size ({x2 - x1} x {y2 - y1}): x2 must exceed x1 and y2 y1"))
    return found


def _absent_components(data: Mapping[str, Any]) -> list[Finding]:
    """A transition whose component has no box on any view: no player could ever operate it."""
    components = _entries(data.get("components"))
    found = []
    for state, spec in _entries(data.get("states")).items():
        for trigger in _entries(_entries(spec).get("on")):
            if trigger in SPECIAL_TRIGGERS or trigger not in components:
                continue
            if not _entries(_entries(components[trigger]).get("boxes")):
                found.append(Finding(("states", state, "on", trigger),
                                     f"bound to component '{trigger}', which has a box on no view (mark it on a "
                                     "photo, or prune the machine)"))
    return found


def _immediate_loops(data: Mapping[str, Any]) -> list[Finding]:
    """Immediate transitions that never come to rest: a task entering the loop would never end."""
    states = _entries(data.get("states"))

    def next_of(name: str) -> str | None:
        items = _entries(_entries(states.get(name)).get("on")).get(IMMEDIATE)
        if isinstance(items, list) and items and isinstance(items[0], Mapping):
            target = items[0].get("next_state")
            return target if isinstance(target, str) and target in states else None
        return None

    reported: set[str] = set()
    found = []
    for start in states:
        chain = [start]
        current = next_of(start)
        while current is not None:
            if current in chain:
                loop = chain[chain.index(current):]
                if not reported & set(loop):
                    reported |= set(loop)
                    text = " -> ".join(loop + [current])
                    found.append(Finding(("states", loop[0], "on", IMMEDIATE),
                                         f"immediate transitions loop ({text}): a task entering it never ends"))
                break
            chain.append(current)
            current = next_of(current)
    return found


def _dashboard_region(data: Mapping[str, Any], errors: list[Check]) -> list[Check]:
    dashboard = _entries(_entries(data.get("views")).get(DASHBOARD))
    if dashboard and dashboard.get("kind") == DASHBOARD and "unlock" not in dashboard:
        if not any(c.path.startswith("views.dashboard") for c in errors):
            return [Check("views.dashboard.unlock", DASHBOARD, "the dashboard close-up has no region on its parent view")]
    return []


def _boxes_without_photo(data: Mapping[str, Any], photos: frozenset[str]) -> list[Check]:
    out = [Check(f"components.{name}.boxes.{view}", view, f"a box on view '{view}', which has no photo")
           for name, view, _ in _boxes(data) if view not in photos]
    for state, spec in _entries(data.get("states")).items():
        state_photos = _entries(_entries(_entries(spec).get("look")).get("photos"))
        out += [Check(f"states.{state}.look.photos.{view}", view, f"a state photo of view '{view}', which has no "
                      "photo of its own") for view in state_photos if view not in photos]
        overlays = _entries(_entries(_entries(spec).get("look")).get("overlays"))
        out += [Check(f"states.{state}.look.overlays.{view}", view, f"overlays on view '{view}', which has no photo")
                for view in overlays if view not in photos]
    return out


def _overlaps(data: Mapping[str, Any]) -> list[Check]:
    """Boxes of different components that overlap in one view: a click there acts on the smaller one only."""
    by_view: dict[str, list[tuple[str, list[Any]]]] = {}
    for name, view, box in _boxes(data):
        by_view.setdefault(view, []).append((name, box))
    out = []
    for view, boxes in by_view.items():
        for (a, p), (b, q) in itertools.combinations(boxes, 2):
            w = min(p[2], q[2]) - max(p[0], q[0])
            h = min(p[3], q[3]) - max(p[1], q[1])
            if w > 0 and h > 0:
                out.append(Check(f"components.{b}.boxes.{view}", view,
                                 f"overlaps the box of '{a}' by {w} x {h}: a click there acts on the smaller box only",
                                 WARNING))
    return out


def _unreachable(data: Mapping[str, Any]) -> list[Check]:
    states = _entries(data.get("states"))
    initial = data.get("initial_state")
    if not isinstance(initial, str) or initial not in states:
        return []
    seen, todo = {initial}, [initial]
    while todo:
        for items in _entries(_entries(states[todo.pop()]).get("on")).values():
            for item in items if isinstance(items, list) else []:
                target = _entries(item).get("next_state")
                if isinstance(target, str) and target in states and target not in seen:
                    seen.add(target)
                    todo.append(target)
    return [Check(f"states.{name}", "", f"unreachable from initial_state '{initial}'", WARNING)
            for name in states if name not in seen]


def _alike_states(data: Mapping[str, Any]) -> list[Check]:
    """States that every view shows alike (core/render.py:look_key: on a view with a photo, the state's photo or its
    overlays; elsewhere the renderer's looks): a player can tell them apart by the feedback text only."""
    try:
        device = load_device(data, allow_boxless=True)
    except DeviceInvalid:
        return []
    keys: dict[tuple[str, ...], list[str]] = {}
    for state in device.states:
        keys.setdefault(tuple(look_key(device, view, state) for view in device.views), []).append(state)
    return [Check(f"states.{other}", "", f"looks the same as '{group[0]}' in every view (give it a look: a photo, "
                  "or overlays on a photo: a lamp, a display's text, an open door)", WARNING)
            for group in keys.values() for other in group[1:]]


def _overlay_findings(data: Mapping[str, Any]) -> list[Finding]:
    """A state's `look.overlays` ({view: [component, ...]}): each on a view of the device, each component with a
    box there, and not beside a photo of the same view (one look per view)."""
    views = _entries(data.get("views"))
    components = _entries(data.get("components"))
    found = []
    for state, spec in _entries(data.get("states")).items():
        look = _entries(_entries(spec).get("look"))
        if "overlays" not in look:
            continue
        where = ("states", state, "look", "overlays")
        overlays = look["overlays"]
        if not isinstance(overlays, Mapping):
            found.append(Finding(where, "overlays are {view: [component, ...]}"))
            continue
        photos = _entries(look.get("photos"))
        for view, names in overlays.items():
            if view not in views:
                found.append(Finding((*where, view), f"overlays on view '{view}', which the device does not have"))
            elif view in photos:
                found.append(Finding((*where, view), f"view '{view}' has a photo in this state too: one look per view"))
            if not isinstance(names, list):
                found.append(Finding((*where, view), "a list of component names"))
                continue
            for index, name in enumerate(names):
                if not isinstance(name, str) or name not in components:
                    found.append(Finding((*where, view, index), f"unknown component {name!r}"))
                elif view not in _entries(_entries(components[name]).get("boxes")):
                    found.append(Finding((*where, view, index), f"component '{name}' has no box on view '{view}'"))
    return found


def has_errors(checks: list[Check]) -> bool:
    return any(c.level == ERROR for c in checks)
