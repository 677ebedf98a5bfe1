"""VGE's protocol for the runner: the stand-in's heuristic finds the parts drawn on a view image (the device file is
read here only to check it); option checks; the observation as the paper lists it."""
from __future__ import annotations

import copy

import pytest

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.render import render_view
from scoring.benchmarks.vge.core.run import PROTOCOL, observation_text, standin_reply, visible_boxes
from scoring.core.runner import RunError

from .conftest import TINY


def centre_inside(box, target) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return target[0] <= cx <= target[2] and target[1] <= cy <= target[3]


def test_the_heuristic_sees_parts_in_the_image_only() -> None:
    device = load_device(copy.deepcopy(TINY), source="test")
    png = render_view(device, "front", "off")
    boxes = visible_boxes(png)
    assert boxes
    parts = [c["boxes"]["front"] for c in TINY["components"].values() if "front" in c["boxes"]]
    hits = {i for i, part in enumerate(parts) for box in boxes if centre_inside(box, part)}
    assert len(hits) >= 3  # most of the five front parts are found from the pixels
    reply = standin_reply("Turn it on.", ["front", "left"], "front", 0, png)
    assert "Action: Press(coord=[" in reply or "Action: Rotate(coord=[" in reply
    assert standin_reply("Wait for it.", ["front"], "front", 0, png).endswith("Timed_wait()")


def test_options_are_checked_with_the_fields_named() -> None:
    assert PROTOCOL.check_options({}, model="m") == {"history": "full", "lambda": None, "perturbation": "",
                                                     "instruction": "original"}
    assert PROTOCOL.check_options({"history": "3", "perturbation": "blur:2"}, model="m")["history"] == 3
    for bad, words in (({"history": "lots"}, "history"), ({"perturbation": "smudge:1"}, "smudge"),
                       ({"colour": 1}, "unknown option 'colour'")):
        with pytest.raises(RunError, match=words):
            PROTOCOL.check_options(bad, model="m")


def test_the_observation_names_instruction_views_and_feedback() -> None:
    text = observation_text({"turn": 2, "instruction": "Open it.", "view": "front",
                             "accessible_views": ["front", "left"]}, "It hums.")
    assert "Instruction: Open it." in text and "Accessible views: front, left" in text
    assert "Feedback on your previous action: It hums." in text and "Current view: front" in text
