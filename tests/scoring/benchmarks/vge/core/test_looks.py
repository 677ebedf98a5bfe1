"""State looks (vge-device/1 `look`): validated with JSON paths, pruned with their components, drawn in every
view where the component shows, and never derived from a state's name or index."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device, prune_ucsm
from scoring.benchmarks.vge.core.library import build_library, parse_spec
from scoring.benchmarks.vge.core.render import render_view, resolve_looks, visual_key
from scoring.benchmarks.vge.core.silhouettes import DETAILS


def problems_of(data):
    with pytest.raises(DeviceInvalid) as info:
        load_device(data)
    return {p.path: p.message for p in info.value.problems}


def image(device, view, state):
    return np.asarray(Image.open(io.BytesIO(render_view(device, view, state))).convert("RGB")).astype(int)


def region(device, component, view, state, pad=30):
    x1, y1, x2, y2 = (int(v * 0.512) for v in device.components[component].boxes[view])
    return image(device, view, state)[max(0, y1 - pad) : y2 + pad, max(0, x1 - pad) : x2 + pad]


def with_looks(data, looks, shapes=None):
    for state, look in looks.items():
        data["states"][state]["look"] = look
    for name, shape in (shapes or {}).items():
        data["components"][name]["look"] = shape
    return data


# -- validation ------------------------------------------------------------------------------------------------


def test_a_look_naming_an_unknown_component_is_refused_with_its_path(tiny_data):
    with_looks(tiny_data, {"idle": {"components": {"lever": {"open": 1}}}})
    assert problems_of(tiny_data) == {"states.idle.look.components.lever": "unknown component 'lever'"}


@pytest.mark.parametrize("field, value, path, message", [
    ("open", 2, "states.idle.look.components.door.open", "must be a number from 0 to 1 (got 2)"),
    ("pressed", "yes", "states.idle.look.components.door.pressed", "must be true or false"),
    ("colour", "#ff0000", "states.idle.look.components.door.colour", "unknown look field"),
    ("color", "red", "states.idle.look.components.door.color", "must be a colour '#rrggbb' (got 'red')"),
    ("text", "a very long display text", "states.idle.look.components.door.text", "at most 12 characters"),
])
def test_bad_look_fields_are_named(tiny_data, field, value, path, message):
    with_looks(tiny_data, {"idle": {"components": {"door": {field: value}}}})
    assert message in problems_of(tiny_data)[path]


def test_bad_effect_and_detents_are_named(tiny_data):
    with_looks(tiny_data, {"idle": {"effect": {"kind": "fireworks"}}}, {"knob": {"shape": "dial", "detents": 1}})
    problems = problems_of(tiny_data)
    assert "must be one of flame" in problems["states.idle.look.effect.kind"]
    assert "2..36" in problems["components.knob.look.detents"]


def test_devices_without_looks_still_load_and_render(tiny):
    for view in tiny.views:
        assert image(tiny, view, "off").shape == (512, 512, 3)
    assert len({visual_key(tiny, s) for s in tiny.states}) == 1  # nothing of a state shows: one render per view


def test_pruning_drops_the_looks_of_dropped_components(tiny_data):
    with_looks(tiny_data, {"idle": {"components": {"start": {"pressed": True}, "door": {"open": 1}}}})
    layout = {"id": "tiny-2", "views": tiny_data["views"],
              "components": {k: v for k, v in tiny_data["components"].items() if k != "start"}}
    pruned = load_device(prune_ucsm(tiny_data, layout))
    assert dict(pruned.states["idle"].look["components"]) == {"door": {"open": 1}}


# -- drawing ---------------------------------------------------------------------------------------------------


def test_each_kind_of_look_changes_the_pixels_around_its_component_in_every_view_it_shows(tiny_data):
    tiny_data["components"]["display"] = {"boxes": {"front": [620, 450, 900, 560]}, "look": {"shape": "display"}}
    tiny_data["components"]["lamp"] = {"boxes": {"front": [620, 620, 680, 680]}, "look": {"shape": "light"}}
    tiny_data["components"]["toggle"] = {"boxes": {"front": [720, 600, 790, 760]}, "look": {"shape": "switch"}}
    with_looks(tiny_data, {
        "off": {"dark": True},
        "idle": {"components": {"door": {"open": 1}, "knob": {"position": 3}, "display": {"text": "12:30"},
                                "lamp": {"on": True, "color": "#ff4a3d"}, "toggle": {"position": 1},
                                "power_button": {"pressed": True}}},
    }, {"knob": {"shape": "dial", "detents": 6}})
    device = load_device(tiny_data)
    for component, view in [("door", "front"), ("door", "left"), ("knob", "front"), ("display", "front"),
                            ("lamp", "front"), ("toggle", "front"), ("power_button", "front"),
                            ("power_button", "dashboard")]:
        before, after = region(device, component, view, "off"), region(device, component, view, "idle")
        assert (np.abs(before - after).max(axis=2) > 24).sum() > 40, (component, view)
    axo = np.abs(image(device, "front_top", "off") - image(device, "front_top", "idle")).max(axis=2)
    assert (axo > 24).sum() > 400  # the open door shows in the axonometric view too


def test_a_dark_display_is_blank_and_an_unlit_display_never_shows_a_code(tiny_data):
    tiny_data["components"]["display"] = {"boxes": {"front": [620, 450, 900, 560]}, "look": {"shape": "display"}}
    device = load_device(tiny_data)
    looks = [resolve_looks(device, s)["components"]["display"] for s in device.states]
    assert {look["text"] for look in looks} == {""}  # no text declared: nothing, whatever the state's name or index
    with_looks(tiny_data, {"off": {"dark": True, "components": {"display": {"text": "88:88"}}}})
    assert resolve_looks(load_device(tiny_data), "off")["components"]["display"] == {"on": False, "text": "", "color": "#78ffaa"}


def test_dial_pointer_sits_at_its_detent(tiny_data):
    with_looks(tiny_data, {"idle": {"components": {"knob": {"position": 2}}}, "warm": {"components": {"knob": {"angle": 0}}}},
               {"knob": {"shape": "dial", "detents": 5}})
    device = load_device(tiny_data)
    assert resolve_looks(device, "off")["components"]["knob"] == {"angle": -135.0}
    assert resolve_looks(device, "idle")["components"]["knob"] == {"angle": 0.0}  # the middle of five marks
    assert visual_key(device, "idle") == visual_key(device, "warm") != visual_key(device, "off")
    assert render_view(device, "front", "idle") == render_view(device, "front", "warm")  # deterministic


def test_effects_are_drawn_around_the_body(tiny_data):
    with_looks(tiny_data, {"heating": {"effect": {"kind": "steam", "level": 1}}})
    device = load_device(tiny_data)
    for view in ("front", "front_top"):
        diff = np.abs(image(device, view, "off") - image(device, view, "heating")).max(axis=2)
        assert (diff > 24).sum() > 200, view


def test_categories_have_their_own_silhouette_and_every_category_has_details():
    assert {spec.name for spec in parse_spec()} <= set(DETAILS)
    kettle = load_device(next(d for d in build_library(seed=7)[0] if d["id"] == "electric-kettle-01"))
    plain = load_device({**next(d for d in build_library(seed=7)[0] if d["id"] == "electric-kettle-01"), "category": "Other"})
    a, b = image(kettle, "front", "idle"), image(plain, "front", "idle")
    x1 = int(kettle.look["body"][0] * 760 / max(kettle.look["body"]) / 2)  # half the body's width on the 0..1000 scale
    left_of_body = slice(0, int((500 - x1) * 0.512) - 4)
    assert (np.abs(a[:, left_of_body] - b[:, left_of_body]).max(axis=2) > 24).sum() > 300  # the spout sticks out
