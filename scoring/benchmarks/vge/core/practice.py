"""The practice panel: a device and a task that teach the controls, one goal per kind of action.

Not part of the demo library or any split: practice episodes have no sample, so they are never scored and
never enter the Human row (which counts only baseline tasks of the demo split). The instructions say exactly
what to do (which action, which parameters, where), and `HINTS` say what to try when a turn did not work.
"""
from __future__ import annotations

from typing import Any

from scoring.benchmarks.vge.core.device import FORMAT
from scoring.benchmarks.vge.core.task_defs import Task

DEVICE_ID = "practice-panel"
TASK_ID = "practice-panel/learn"

_PANEL = [140, 235, 400, 420]  # on the front; the dashboard is its close-up


def _state(description: str, looks: dict[str, Any], on: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"description": description, "look": {"components": looks, **extra}, "on": on}


def _t(next_state: str, text: str, action: str | None = None, parameter: list[str] | None = None) -> list[dict[str, Any]]:
    item: dict[str, Any] = {"next_state": next_state, "transition_description": text}
    if action:
        item["atomic_action"] = action
        item["parameter"] = parameter or []
    return [item]


# Each state keeps the looks of the lessons before it: the panel shows how far the player has come.
_L1 = {"display": {"text": "PRESS OK"}, "light": {"on": True, "color": "#50e66e"}, "button": {"pressed": True}}
_L2 = {**_L1, "display": {"text": "LONG OK"}}
_L3 = {**_L2, "display": {"text": "DIAL 2"}, "dial": {"position": 2}}
_L4 = {**_L3, "display": {"text": "DOOR OK"}, "door": {"open": 1}}
_L5 = {**_L4, "display": {"text": "DRAWER OK"}, "drawer": {"open": 1}}
_L6 = {**_L5, "display": {"text": "SWITCH OK"}, "switch": {"position": 1}, "light": {"on": True, "color": "#ffb030"}}
_L7 = {**_L6, "display": {"text": "MODE 2"}, "mode_button": {"pressed": True}}
_L8 = {**_L7, "display": {"text": "LIFTED"}, "handle": {"open": 1}}
_L9 = {**_L8, "display": {"text": "WELL DONE"}}

DEVICE: dict[str, Any] = {
    "format": FORMAT,
    "id": DEVICE_ID,
    "category": "Practice",
    "views": {
        "front": {"kind": "orthographic"}, "top": {"kind": "orthographic"}, "left": {"kind": "orthographic"},
        "front_top": {"kind": "axonometric"},
        "dashboard": {"kind": "dashboard", "unlock": {"view": "front", "box": _PANEL}},
    },
    "components": {
        "button": {"boxes": {"front": [440, 250, 510, 320]}, "look": {"shape": "button"}},
        "dial": {"boxes": {"front": [560, 240, 680, 360]}, "look": {"shape": "dial", "detents": 4}},
        "light": {"boxes": {"front": [730, 270, 770, 310]}, "look": {"shape": "light"}},
        "switch": {"boxes": {"front": [800, 240, 850, 340]}, "look": {"shape": "switch"}},
        "door": {"boxes": {"front": [140, 450, 420, 760]}, "look": {"shape": "door"}},
        "drawer": {"boxes": {"front": [480, 620, 840, 720]}, "look": {"shape": "drawer"}},
        "display": {"boxes": {"front": [160, 250, 380, 310], "dashboard": [145, 250, 855, 443]}, "look": {"shape": "display"}},
        "mode_button": {"boxes": {"front": [240, 340, 300, 400], "dashboard": [403, 540, 597, 734]}, "look": {"shape": "button"}},
        "handle": {"boxes": {"top": [350, 420, 650, 500]}, "look": {"shape": "handle"}},
    },
    "initial_state": "ready",
    "states": {
        "ready": _state("The practice panel is on; its display says HELLO.",
                        {"display": {"text": "HELLO"}, "light": {"on": False}},
                        {"button": _t("pressed", "The button clicks and the light turns green.", "press", ["0"])}),
        "pressed": _state("The light is green.", _L1,
                          {"button": _t("long", "You hold the button down; the display says LONG OK.", "press", ["1"])}),
        "long": _state("The display says LONG OK.", _L2,
                       {"dial": _t("dial2", "The dial clicks twice clockwise.", "rotate", ["0", "2"])}),
        "dial2": _state("The dial points at its third mark.", _L3,
                        {"door": _t("door_open", "The door swings open.", "pull", ["4"])}),
        "door_open": _state("The door is open.", _L4,
                            {"drawer": _t("drawer_out", "The drawer slides out.", "pull", ["4"])}),
        "drawer_out": _state("The drawer is out.", _L5,
                             {"switch": _t("switch_on", "The switch flips up and the light turns amber.", "push", ["0"])}),
        "switch_on": _state("The switch is up.", _L6,
                            {"mode_button": _t("mode2", "The small button clicks twice; the display says MODE 2.", "press", ["2"])}),
        "mode2": _state("The display says MODE 2.", _L7,
                        {"handle": _t("lifted", "You lift the handle.", "grasp")}),
        "lifted": _state("The handle is lifted.", _L8, {"timed_wait": _t("done", "After a moment the display says WELL DONE.")}),
        "done": _state("The display says WELL DONE.", _L9, {}, effect={"kind": "glow", "level": 0.5, "color": "#50e66e"}),
    },
}

LESSONS = (
    # Each instruction names its component unambiguously (core/mentions.py): the panel has two round red buttons.
    ("pressed", "Press the big round red button: choose Press (C) and click on it.",
     "Choose Press (key C), then click in the middle of the big round red button, just right of the display panel."),
    ("long", "Now hold it: choose Long press (L) and click the big red button again.",
     "A long press is its own action: choose Long press (key L), then click the big red button again."),
    ("dial2", "Turn the dial two detents clockwise: choose Rotate (R), clockwise, 2 detents, and click the dial.",
     "Each mark around the dial is one detent. Choose Rotate (R), set the direction to clockwise and Detents to 2, then click the dial."),
    ("door_open", "Open the door: choose Pull (O) with the direction 'out' and click the door.",
     "Doors and drawers come towards you: choose Pull (O), set the direction to 'out', then click the big door on the left."),
    ("drawer_out", "Pull the drawer out: Pull (O), direction 'out', click the drawer.",
     "Choose Pull (O) with the direction 'out' and click the wide drawer at the bottom right."),
    ("switch_on", "Flip the switch up: choose Push (U) with the direction 'up' and click the switch.",
     "A switch is pushed: choose Push (U), set the direction to 'up' (or press the Up arrow key), then click the tall switch on the right."),
    ("mode2", "Look closer at the panel at the top left (Look closer, V, then click it), then Double press (D) its small button.",
     "The small button sits on a panel that needs a close-up: choose Look closer (V) and click the panel, or use the 'dashboard' view button once it appears; then choose Double press (D) and click the small button."),
    ("lifted", "Go to the top view (listed under the image) and Grasp (G) the handle.",
     "The handle is only on the top: click the 'top' view button (or its number key), choose Grasp (G) and click the handle."),
    ("done", "Wait (W) until the display says WELL DONE.",
     "Some things take time: press 'Wait a while' (W) without clicking on the image."),
)
HINTS = tuple(hint for _, _, hint in LESSONS)


def task() -> Task:
    """The practice task: every lesson in order, from the front view, with a generous budget."""
    return Task(TASK_ID, DEVICE_ID, "ready", "front", tuple(goal for goal, _, _ in LESSONS),
                tuple(text for _, text, _ in LESSONS), 5)
