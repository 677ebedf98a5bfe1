"""A device from photos: each view shows the state's own photo, else its photo with the state's overlays drawn on
it (the renderer's controls in their look for the state, over their boxes), else the photo; `view_image` decides
for the player and the device lab alike."""
from __future__ import annotations

import os

import numpy as np
from PIL import Image

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.render import draw_overlays, look_key, view_image

PHOTO = Image.new("RGB", (800, 600), (214, 210, 202))  # a plain wall: whatever is drawn on it shows


def _device(**looks):
    data = {
        "format": "vge-device/1", "id": "lamp-photo", "category": "Heater", "initial_state": "off",
        "views": {"front": {"kind": "orthographic", "image": "front.png"},
                  "top": {"kind": "orthographic", "image": "top.png"}},
        "components": {
            "lamp": {"boxes": {"front": [600, 600, 700, 733]}, "look": {"shape": "light"}},
            "screen": {"boxes": {"front": [100, 100, 500, 300]}, "look": {"shape": "display"}},
            "door": {"boxes": {"top": [200, 200, 800, 800]}, "look": {"shape": "door"}},
        },
        "states": {
            "off": {"description": "Off.", "look": {"dark": True, **looks.get("off", {})},
                    "on": {"lamp": [{"next_state": "on", "atomic_action": "press", "parameter": []}]}},
            "on": {"description": "On.", "look": looks.get("on", {}), "on": {}},
        },
    }
    return load_device(data, allow_boxless=True)


def _pixel(image, box, w=800, h=600):
    """The colour at the centre of a 0..1000 box of the image."""
    cx, cy = (box[0] + box[2]) / 2000 * w, (box[1] + box[3]) / 2000 * h
    return tuple(np.asarray(image)[int(cy), int(cx)])


def test_a_lit_lamp_drawn_on_the_photo_changes_its_pixel_between_states():
    overlays = {"overlays": {"front": ["lamp"]}}
    device = _device(off=overlays, on={**overlays, "components": {"lamp": {"on": True, "color": "#ff2020"}}})
    lamp = device.components["lamp"].boxes["front"]
    off, on = (draw_overlays(PHOTO, device, "front", state) for state in ("off", "on"))
    assert _pixel(off, lamp) != _pixel(on, lamp)
    assert _pixel(on, lamp)[0] > 200 and _pixel(on, lamp)[1] < 80  # red, as its look says
    assert _pixel(off, [0, 0, 50, 50]) == _pixel(PHOTO, [0, 0, 50, 50])  # the photo elsewhere is untouched
    assert look_key(device, "front", "off") != look_key(device, "front", "on")


def test_a_displays_text_and_an_open_door_are_drawn_on_their_photos():
    device = _device(off={"overlays": {"front": ["screen"], "top": ["door"]}},
                     on={"overlays": {"front": ["screen"], "top": ["door"]},
                         "components": {"screen": {"text": "88:88"}, "door": {"open": 1}}})
    screen = device.components["screen"].boxes["front"]
    front = [np.asarray(draw_overlays(PHOTO, device, "front", s)).astype(int) for s in ("off", "on")]
    region = (slice(int(screen[1] * 0.6), int(screen[3] * 0.6)), slice(int(screen[0] * 0.8), int(screen[2] * 0.8)))
    assert np.abs(front[0][region] - front[1][region]).sum() > 0  # the text lit in "on" only
    top = [np.asarray(draw_overlays(PHOTO, device, "top", s)) for s in ("off", "on")]
    assert (top[0] != top[1]).any()


def test_without_overlays_states_look_alike_on_a_photo_and_the_photo_is_shown(tmp_path):
    device = _device()
    assert look_key(device, "front", "off") == look_key(device, "front", "on")
    PHOTO.save(tmp_path / "front.png")
    found = view_image(device, "front", "on", photo_path=lambda name: tmp_path / name, cache_dir=tmp_path / "cache")
    assert found == tmp_path / "front.png"


def test_view_image_picks_the_state_photo_then_overlays_then_the_render(tmp_path):
    device = _device(off={"photos": {"front": "off-front.png"}},
                     on={"overlays": {"front": ["lamp"]}, "components": {"lamp": {"on": True}}})
    PHOTO.save(tmp_path / "front.png")

    def photo_path(name):
        return tmp_path / name

    cache = tmp_path / "cache"
    assert view_image(device, "front", "off", photo_path=photo_path, cache_dir=cache) == tmp_path / "off-front.png"
    drawn = view_image(device, "front", "on", photo_path=photo_path, cache_dir=cache)
    assert drawn.parent.parent == cache and drawn.stat().st_size > 0
    assert view_image(device, "front", "on", photo_path=photo_path, cache_dir=cache) == drawn  # cached
    lamp = device.components["lamp"].boxes["front"]
    assert _pixel(Image.open(drawn).convert("RGB"), lamp) != _pixel(PHOTO, lamp)
    # a photo replaced under the same name is drawn on anew
    Image.new("RGB", (800, 600), (20, 20, 20)).save(tmp_path / "front.png")
    os.utime(tmp_path / "front.png", ns=(1, 1))
    assert view_image(device, "front", "on", photo_path=photo_path, cache_dir=cache) != drawn
    # no file for the photos (a device shipped without them): the renderer draws the view
    rendered = view_image(device, "front", "on", photo_path=lambda name: None, cache_dir=cache)
    assert Image.open(rendered).size == (512, 512)
