"""A small hand-made device whose distances and outcomes are easy to work out by hand."""
from __future__ import annotations

import copy

import pytest

from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.task_defs import Task

TINY = {
    "format": "vge-device/1",
    "id": "tiny",
    "category": "Microwave",
    "views": {
        "front": {"kind": "orthographic"},
        "left": {"kind": "orthographic"},
        "front_top": {"kind": "axonometric"},
        "dashboard": {"kind": "dashboard", "unlock": {"view": "front", "box": [600, 100, 950, 400]}},
    },
    "components": {
        "power_button": {"boxes": {"front": [700, 150, 760, 210], "dashboard": [100, 200, 300, 400]}},
        "door": {"boxes": {"front": [50, 80, 560, 900], "left": [300, 80, 700, 900]}},
        "start": {"boxes": {"front": [100, 920, 200, 980]}},
        "knob": {"boxes": {"front": [300, 300, 400, 400]}},
        "sticker": {"boxes": {"front": [320, 320, 340, 340]}},
    },
    "initial_state": "off",
    "states": {
        "off": {"description": "It is off.", "on": {
            "power_button": [{"next_state": "idle", "atomic_action": "press", "parameter": ["0"],
                              "transition_description": "The display lights up."}]}},
        "idle": {"description": "It is idle.", "on": {
            "start": [{"next_state": "heating", "atomic_action": "press", "transition_description": "It hums."}],
            "door": [{"next_state": "error", "atomic_action": "pull", "parameter": ["4"],
                      "transition_description": "The door opens while it is on!"}],
            "knob": [{"next_state": "warm", "atomic_action": "rotate", "parameter": ["0", "*"],
                      "transition_description": "The knob clicks."}]}},
        "heating": {"description": "It is heating.", "on": {
            "timed_wait": [{"next_state": "done", "transition_description": "It beeps."}]}},
        "done": {"description": "The food is done.", "on": {
            "door": [{"next_state": "off", "atomic_action": "pull", "parameter": ["4"],
                      "transition_description": "The door opens."}]}},
        "warm": {"description": "It is set to warm.", "on": {
            "knob": [{"next_state": "idle", "atomic_action": "rotate", "parameter": ["1", "*"],
                      "transition_description": "The knob clicks back."}]}},
        "error": {"description": "Something went wrong.", "error": True, "on": {
            "immediate": [{"next_state": "off", "transition_description": "It resets."}]}},
    },
}


@pytest.fixture
def tiny_data():
    return copy.deepcopy(TINY)


@pytest.fixture
def tiny():
    return load_device(copy.deepcopy(TINY))


@pytest.fixture
def engine(tiny):
    return Engine(tiny)


def make_task(goals=("idle",), task_id="tiny/t1", lam=5, start_state="off", start_view="front"):
    return Task(task_id, "tiny", start_state, start_view, tuple(goals), tuple(f"Reach {g}." for g in goals), lam)
