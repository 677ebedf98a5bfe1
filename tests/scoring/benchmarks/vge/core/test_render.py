"""Renders: every view of a library device is a PNG; the looks follow the state; the disk cache is keyed."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.render import cached_render, render_view, visual_key


def _device(device_id):
    devices, _ = build_library(seed=7)
    return load_device(next(d for d in devices if d["id"] == device_id))


def test_every_view_renders_and_controls_are_drawn_inside_their_boxes():
    device = _device("microwave-01")
    for view in device.views:
        image = np.asarray(Image.open(io.BytesIO(render_view(device, view, device.initial_state))).convert("RGB"))
        assert image.shape == (512, 512, 3)
    front = np.asarray(Image.open(io.BytesIO(render_view(device, "front", "idle"))).convert("RGB")).astype(int)
    x1, y1, x2, y2 = (int(v * 0.512) for v in device.components["door"].boxes["front"])
    # the door is drawn over its box: the box region is not plain body colour
    assert front[y1:y2, x1:x2].std() > 10


def test_display_follows_state_and_states_that_look_alike_share_one_render():
    device = _device("microwave-01")
    assert visual_key(device, "idle") != visual_key(device, "time_set")
    assert render_view(device, "dashboard", "idle") != render_view(device, "dashboard", "time_set")
    # the microwave's error state snaps back to idle: both are drawn from the same look only if declared alike
    keys = {state: visual_key(device, state) for state in device.states}
    assert len(set(keys.values())) == len(keys)
    assert visual_key(device, "idle") == visual_key(_device("microwave-01"), "idle")  # deterministic


def test_cached_render_writes_once(tmp_path):
    device = _device("lamp-01")
    path = cached_render(device, "front", "off", tmp_path)
    stamp = path.stat().st_mtime_ns
    assert cached_render(device, "front", "off", tmp_path) == path and path.stat().st_mtime_ns == stamp
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
