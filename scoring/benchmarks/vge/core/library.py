"""The demo device library: 26 category UCSMs, seeded device variants with their own layouts, and tasks.

Pure and deterministic: `build_library(seed=..., variants=2)` returns the same devices and tasks for the
same seed. A variant drops some optional components (the UCSM is pruned to what the device shows) and
places its components at seeded positions on the faces of its body; geometry hints go under `look`.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from scoring.benchmarks.vge.core.device import FORMAT, load_device, prune_ucsm
from scoring.benchmarks.vge.core.library_spec import SPEC
from scoring.benchmarks.vge.core.task_defs import Task, generate_tasks

FACES = ("front", "back", "left", "right", "top", "bottom")
ORTHO_VIEWS = FACES
AXO_VIEWS = ("front_top", "back_bottom")
# Relative sizes (of the face's shorter side) per control shape: (width, height).
SHAPE_SIZE = {
    "button": (0.16, 0.16), "dial": (0.26, 0.26), "switch": (0.14, 0.22), "handle": (0.42, 0.14),
    "lid": (0.62, 0.5), "door": (0.62, 0.78), "display": (0.46, 0.2), "light": (0.08, 0.08), "lever": (0.34, 0.1),
}
PALETTE = ("#d9d9d9", "#3b3b3b", "#f2efe6", "#b8c7d9", "#c94f4f", "#6f8f72", "#e3c77a", "#8a8fa3")


@dataclass(frozen=True)
class CategorySpec:
    name: str
    body: tuple[int, int, int]
    dashboard: bool
    components: tuple[tuple[str, str, str, bool], ...]  # name, layout shape, face, optional
    ucsm: dict[str, Any]
    looks: dict[str, dict[str, Any]] = field(default_factory=dict)  # component -> its `look` (shape drawn, detents)
    invisible: tuple[tuple[str, str, str], ...] = ()  # (state, state, why) pairs that deliberately look alike


# A light's (or display text's) colour by name in the spec's look fields.
COLOURS = {
    "green": "#50e66e", "red": "#ff4a3d", "amber": "#ffb030", "blue": "#4aa8ff", "white": "#f4f4f4",
    "orange": "#ff8a2a", "yellow": "#ffd75a", "dim": "#3f8f65", "cyan": "#7fe8ff",
}
SWITCH_SHAPES = ("switch", "toggle", "slider", "lever")
OPEN_SHAPES = ("door", "lid", "cover", "handle", "drawer", "tray", "basket")


class SpecError(ValueError):
    pass


def _look_value(shape: str, value: str, where: str) -> dict[str, Any]:
    """One `component=value` of a state's look in the spec, as the component's `vge-device/1` look."""
    try:
        if shape == "dial":
            return {"angle": float(value[:-3])} if value.endswith("deg") else {"position": int(value)}
        if shape in SWITCH_SHAPES:
            return {"position": float(value)}
        if shape in OPEN_SHAPES:
            return {"open": float(value)}
        if shape == "indicator":
            return {"level": float(value)}
        if shape == "light":
            return {"on": False} if value == "off" else {"on": True, "color": COLOURS.get(value, COLOURS["green"] if value == "on" else value)}
        if shape == "display":
            color, _, text = value.rpartition("@") if "@" in value else ("", "", value)
            out: dict[str, Any] = {"text": "" if text == "-" else text.replace("_", " ")}
            return {**out, "color": COLOURS[color]} if color else out
        if shape == "button":
            if value in ("down", "up"):
                return {"pressed": value == "down"}
            pressed, _, colour = value.partition("+")  # down+red: held in with its lamp lit red
            return {"pressed": pressed == "down", "on": True, "color": COLOURS[colour]}
    except (ValueError, KeyError) as exc:
        raise SpecError(f"{where}: cannot read look value '{value}' for a {shape} ({exc})") from exc
    raise SpecError(f"{where}: a {shape} has no look value")


def _effect(value: str, where: str) -> dict[str, Any]:
    kind, _, level = value.partition(":")
    try:
        return {"kind": kind, "level": float(level)} if level else {"kind": kind}
    except ValueError as exc:
        raise SpecError(f"{where}: bad effect '{value}'") from exc


def parse_spec(text: str = SPEC) -> list[CategorySpec]:
    out: list[CategorySpec] = []
    current: dict[str, Any] | None = None

    def finish() -> None:
        if current is not None:
            _finish_looks(current)
            out.append(CategorySpec(current["name"], current["body"], current["dash"], tuple(current["comps"]),
                                    current["ucsm"], current["looks"], tuple(current["invisible"])))

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        where = f"library spec line {number}"
        if line.startswith("@"):
            finish()
            parts = line[1:].split()
            current = {
                "name": parts[0], "body": tuple(int(p) for p in parts[1:4]), "dash": "dash" in parts[4:], "comps": [],
                "looks": {}, "rest": {}, "state_looks": {}, "invisible": [],
                "ucsm": {"format": FORMAT, "id": f"ucsm-{parts[0]}", "category": parts[0], "initial_state": None,
                         "states": {}, "components": {},
                         "views": {v: {"kind": "axonometric" if v in AXO_VIEWS else "orthographic"}
                                   for v in ORTHO_VIEWS + AXO_VIEWS}},
            }
            continue
        if current is None:
            raise SpecError(f"{where}: no category yet")
        ucsm = current["ucsm"]
        head, _, text_part = line.partition("|")
        words = head.split()
        if words[0] in ("c", "c?"):
            name, shape, face = words[1:4]
            options = dict(w.split("=", 1) for w in words[4:])
            current["comps"].append((name, shape, face, words[0] == "c?"))
            ucsm["components"][name] = {"boxes": {}}
            look: dict[str, Any] = {"shape": options.get("as", shape)}
            if "detents" in options:
                look["detents"] = int(options["detents"])
            current["looks"][name] = look
            if "rest" in options:
                current["rest"][name] = (options["rest"], where)
        elif words[0] == "s":
            name, flags = words[1], set(words[2:])
            ucsm["initial_state"] = ucsm["initial_state"] or name
            description, _, look_part = text_part.partition("|")
            state: dict[str, Any] = {"description": description.strip(), "on": {}}
            if "error" in flags:
                state["error"] = True
            ucsm["states"][name] = state
            current["state_looks"][name] = ("dark" in flags, look_part.split(), where)
        elif words[0] == "t":
            arrow = words.index(">")
            source, trigger, target = words[1], words[2], words[arrow + 1]
            item: dict[str, Any] = {"next_state": target, "transition_description": text_part.strip()}
            if trigger == "~":
                trigger = "timed_wait"
            elif trigger == "^":
                trigger = "immediate"
            else:
                item["atomic_action"] = words[3]
                params = words[4] if arrow > 4 else "-"
                item["parameter"] = [] if params == "-" else params.split(",")
            ucsm["states"][source]["on"].setdefault(trigger, []).append(item)
        elif words[0] == "i":
            current["invisible"].append((words[1], words[2], text_part.strip()))
        else:
            raise SpecError(f"{where}: cannot read '{line}'")
    finish()
    return out


def _finish_looks(current: dict[str, Any]) -> None:
    """Dial detents from the rotations the UCSM makes (unless given), then each state's look."""
    ucsm, looks = current["ucsm"], current["looks"]
    for name, look in looks.items():
        if look["shape"] == "dial" and "detents" not in look:
            counts = [int(item["parameter"][1]) for state in ucsm["states"].values() for item in state["on"].get(name, [])
                      if item.get("atomic_action") == "rotate" and len(item.get("parameter", [])) > 1]
            look["detents"] = max([2] + [c + 1 for c in counts])
    for state, (dark, pairs, where) in current["state_looks"].items():
        components: dict[str, Any] = {}
        effect = None
        given = dict(p.split("=", 1) for p in pairs)
        for name, (value, _rest_where) in current["rest"].items():
            given.setdefault(name, value)
        for name, value in given.items():
            if name == "fx":
                effect = _effect(value, where)
                continue
            if name not in looks:
                raise SpecError(f"{where}: state '{state}' gives a look to unknown component '{name}'")
            components[name] = _look_value(looks[name]["shape"], value, where)
            position = components[name].get("position")
            if looks[name]["shape"] == "dial" and position is not None and position >= looks[name]["detents"]:
                raise SpecError(f"{where}: dial '{name}' has {looks[name]['detents']} detents, not position {position}")
        look = {"dark": dark, "components": components}
        if effect:
            look["effect"] = effect
        ucsm["states"][state]["look"] = look
    for name, look in looks.items():
        ucsm["components"][name]["look"] = look


def _slug(category: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", category).lower()


def _face_rect(body: tuple[int, int, int], face: str, scale: float) -> tuple[float, float, float, float]:
    w, h, d = body
    fw, fh = {"front": (w, h), "back": (w, h), "left": (d, h), "right": (d, h), "top": (w, d), "bottom": (w, d)}[face]
    half_w, half_h = fw * scale / 2, fh * scale / 2
    return (500 - half_w, 500 - half_h, 500 + half_w, 500 + half_h)


def _place(rng: random.Random, region: tuple[float, float, float, float], size: tuple[float, float],
           taken: list[tuple[float, float, float, float]]) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = region
    w, h = min(size[0], (x2 - x1) * 0.9), min(size[1], (y2 - y1) * 0.9)
    best = None
    for _ in range(200):
        cx = rng.uniform(x1 + w / 2 + 4, x2 - w / 2 - 4)
        cy = rng.uniform(y1 + h / 2 + 4, y2 - h / 2 - 4)
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        # keep a gap so boxes never touch: hits stay unambiguous
        if not any(box[0] < t[2] + 8 and t[0] < box[2] + 8 and box[1] < t[3] + 8 and t[1] < box[3] + 8 for t in taken):
            best = box
            break
        w, h = w * 0.97, h * 0.97
    if best is None:
        raise ValueError("no room for a component")
    taken.append(best)
    return tuple(int(round(v)) for v in best)  # type: ignore[return-value]


def layout_variant(spec: CategorySpec, index: int, *, seed: int) -> dict[str, Any]:
    """Views, components with boxes, and look hints for variant `index` of a category."""
    rng = random.Random(f"{seed}:{spec.name}:{index}")
    w, h, d = spec.body
    body = (int(w * rng.uniform(0.85, 1.15)), int(h * rng.uniform(0.85, 1.15)), int(d * rng.uniform(0.85, 1.15)))
    scale = 760 / max(body)
    comps = [c for c in spec.components if not (c[3] and index > 0 and rng.random() < 0.6)]
    if index > 0 and len(comps) == len(spec.components) and any(c[3] for c in spec.components):
        comps = [c for c in comps if not c[3]]  # every variant after the first shows fewer controls when it can
    faces = {face: _face_rect(body, face, scale) for face in FACES}
    taken: dict[str, list] = {face: [] for face in FACES}
    views: dict[str, Any] = {name: {"kind": "orthographic"} for name in ORTHO_VIEWS}
    views.update({name: {"kind": "axonometric"} for name in AXO_VIEWS})
    panel = None
    if spec.dashboard:
        fx1, fy1, fx2, fy2 = faces["front"]
        pw, ph = (fx2 - fx1) * rng.uniform(0.3, 0.4), (fy2 - fy1) * rng.uniform(0.22, 0.3)
        left = rng.random() < 0.5
        px1 = fx1 + 12 if left else fx2 - 12 - pw
        py1 = fy1 + 12 if rng.random() < 0.7 else fy2 - 12 - ph
        panel = (int(px1), int(py1), int(px1 + pw), int(py1 + ph))
        taken["front"].append(panel)
        views["dashboard"] = {"kind": "dashboard", "unlock": {"view": "front", "box": list(panel)}}
    components: dict[str, Any] = {}
    order = sorted(comps, key=lambda c: -SHAPE_SIZE[c[1]][0] * SHAPE_SIZE[c[1]][1])  # big things first
    panel_taken: list = []
    for name, shape, face, _ in order:
        if face == "panel":
            if panel is None:
                raise SpecError(f"{spec.name}: component '{name}' is on the panel, but the device has no dashboard")
            room: float = min(panel[2] - panel[0], panel[3] - panel[1])
            sw, sh = SHAPE_SIZE[shape]
            box = _place(rng, panel, (sw * room * 1.3, sh * room * 1.3), panel_taken)
            dash_box = _to_dashboard(box, panel)
            components[name] = {"boxes": {"front": list(box), "dashboard": list(dash_box)},
                                "look": {**spec.looks.get(name, {"shape": shape}), "face": "front"}}
            continue
        region = faces[face]
        room = min(region[2] - region[0], region[3] - region[1])
        sw, sh = SHAPE_SIZE[shape]
        grow = max(1.0, 56 / min(sw * room, sh * room))  # small faces still get controls big enough to hit
        size = (sw * room * grow, sh * room * grow)
        box = _place(rng, region, size, taken[face])
        components[name] = {"boxes": {face: list(box)}, "look": {**spec.looks.get(name, {"shape": shape}), "face": face}}
    look = {"body": list(body), "color": PALETTE[rng.randrange(len(PALETTE))], "panel": list(panel) if panel else None}
    return {"id": f"{_slug(spec.name)}-{index + 1:02d}", "views": views, "components": components, "look": look}


def _to_dashboard(box: tuple[int, int, int, int], panel: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Map a box inside the front panel to the dashboard close-up (panel scaled to fit 80 units of margin)."""
    px1, py1, px2, py2 = panel
    k = min(840 / (px2 - px1), 840 / (py2 - py1))
    ox = 500 - (px2 - px1) * k / 2
    oy = 500 - (py2 - py1) * k / 2
    return (
        int(round(ox + (box[0] - px1) * k)), int(round(oy + (box[1] - py1) * k)),
        int(round(ox + (box[2] - px1) * k)), int(round(oy + (box[3] - py1) * k)),
    )


def build_library(*, seed: int = 7, variants: int = 2, tasks_per_device: int = 4) -> tuple[list[dict[str, Any]], list[Task]]:
    """All device JSON mappings and their tasks, deterministic for a seed."""
    devices: list[dict[str, Any]] = []
    tasks: list[Task] = []
    for spec in parse_spec():
        load_device(spec.ucsm, source=f"UCSM {spec.name}", allow_boxless=True)  # the UCSM itself must be valid
        for index in range(variants):
            layout = layout_variant(spec, index, seed=seed)
            data = prune_ucsm(spec.ucsm, layout)
            device = load_device(data, source=layout["id"])
            devices.append(data)
            tasks += generate_tasks(device, seed=hash_seed(seed, layout["id"]), count=tasks_per_device)
    return devices, tasks


def build_test_tasks(devices: list[dict[str, Any]], *, seed: int = 7, every: int = 2) -> list[Task]:
    """One task on every `every`-th device (the first variant of each category for the library's two), drawn with
    another seed than the library's and named `<device>/test1`: the demo's hidden test split, apart from its tasks."""
    tasks: list[Task] = []
    for data in devices[::every]:
        device = load_device(data, source=data["id"])
        drawn = generate_tasks(device, seed=hash_seed(seed + 1, f"test/{data['id']}"), count=1)
        tasks += [Task(f"{device.id}/test{n + 1}", t.device, t.start_state, t.start_view, t.goals, t.instructions,
                       t.lam) for n, t in enumerate(drawn)]
    return tasks


def hash_seed(seed: int, text: str) -> int:
    value = seed
    for ch in text:
        value = (value * 131 + ord(ch)) % (2**31 - 1)
    return value
