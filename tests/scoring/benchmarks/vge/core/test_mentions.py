"""Issue 32, Players: ""Press the round red button" with two red buttons on the panel: instructions must name a
component unambiguously (generated instructions checked for ambiguity against the device's components)."""
from __future__ import annotations

import copy
import functools

from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.mentions import ambiguous_mentions, mentions
from scoring.benchmarks.vge.core.task_defs import generate_tasks


@functools.cache
def demo():
    devices, tasks = build_library()  # what make_demo_vge installs
    return {d["id"]: load_device(d, source=d["id"]) for d in devices}, tasks


def test_the_round_red_button_on_the_practice_panel_fits_two_components():
    """""Press the round red button" with two red buttons on the panel": the check finds both."""
    device = load_device(practice.DEVICE, source="practice")
    [mention] = ambiguous_mentions("Press the round red button.", device)
    assert mention.matches == ("button", "mode_button")
    assert [m.matches for m in mentions("Press the big round red button.", device)] == [("button",)]
    assert [m.matches for m in mentions("Double press its small button.", device)] == [("mode_button",)]
    assert mentions("Open the door.", device)[0].matches == ("door",)


def test_every_demo_and_practice_instruction_names_its_components_unambiguously():
    """"instructions must name a component unambiguously (generated instructions checked for ambiguity against the
    device's components)": every instruction of every demo task, and of the practice task."""
    devices, tasks = demo()
    assert len(tasks) > 200
    ambiguous = [(t.id, text, [m.phrase for m in ambiguous_mentions(text, devices[t.device])])
                 for t in tasks for text in t.instructions if ambiguous_mentions(text, devices[t.device])]
    assert ambiguous == []
    device = load_device(practice.DEVICE, source="practice")
    assert [text for text in practice.task().instructions if ambiguous_mentions(text, device)] == []


def test_the_generator_names_the_component_a_goal_acts_on_when_its_description_is_ambiguous():
    """"generated instructions checked for ambiguity against the device's components": a transition saying "The
    button clicks" on a device with two buttons becomes an instruction naming the one it acts on."""
    data = copy.deepcopy(practice.DEVICE)
    data["id"] = "two-buttons"
    device = load_device(data, source="test")
    assert ambiguous_mentions(device.states["ready"].on["button"][0].description, device)
    tasks = generate_tasks(device, seed=3, count=6)
    texts = [text for t in tasks for text in t.instructions]
    assert texts and all(not ambiguous_mentions(text, device) for text in texts)
    assert any("big button clicks" in text for text in texts)
