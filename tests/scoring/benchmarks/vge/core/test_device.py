"""Device validation names the offending field by its JSON path; pruning keeps what a device can reach."""
from __future__ import annotations

import pytest

from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device, prune_ucsm


def problems_of(data):
    with pytest.raises(DeviceInvalid) as info:
        load_device(data)
    return {p.path: p.message for p in info.value.problems}


def test_valid_device_loads(tiny):
    assert tiny.dashboard.unlock_box == (600, 100, 950, 400)
    assert tiny.states["off"].on["power_button"][0].parameter == ("0",)
    assert tiny.warnings == ()


def test_unknown_next_state_is_reported_with_its_path(tiny_data):
    tiny_data["states"]["heating"]["on"]["timed_wait"][0]["next_state"] = "nowhere"
    assert "unknown state" in problems_of(tiny_data)["states.heating.on.timed_wait[0].next_state"]


def test_unknown_component_trigger(tiny_data):
    tiny_data["states"]["off"]["on"]["lever"] = []
    assert "unknown component" in problems_of(tiny_data)["states.off.on.lever"]


@pytest.mark.parametrize("box, message", [([0, 0, 1001, 5], "outside"), ([5, 5, 5, 9], "empty"), ([1, 2, 3], "four integers"), ([0.5, 1, 2, 3], "four integers")])
def test_bad_boxes(tiny_data, box, message):
    tiny_data["components"]["start"]["boxes"]["front"] = box
    assert message in problems_of(tiny_data)["components.start.boxes.front"]


def test_box_on_unknown_view(tiny_data):
    tiny_data["components"]["start"]["boxes"]["roof"] = [1, 1, 5, 5]
    assert "unknown view" in problems_of(tiny_data)["components.start.boxes.roof"]


def test_duplicate_transition(tiny_data):
    item = dict(tiny_data["states"]["off"]["on"]["power_button"][0], next_state="warm")
    tiny_data["states"]["off"]["on"]["power_button"].append(item)
    assert "duplicates transition [0]" in problems_of(tiny_data)["states.off.on.power_button[1]"]


def test_numeric_parameters_are_normalised_before_duplicate_check(tiny_data):
    item = dict(tiny_data["states"]["off"]["on"]["power_button"][0], parameter=[0.0], next_state="warm")
    tiny_data["states"]["off"]["on"]["power_button"].append(item)
    assert "states.off.on.power_button[1]" in problems_of(tiny_data)


def test_two_immediates(tiny_data):
    tiny_data["states"]["error"]["on"]["immediate"].append({"next_state": "idle"})
    assert "at most one" in problems_of(tiny_data)["states.error.on.immediate"]


def test_immediate_loop(tiny_data):
    tiny_data["states"]["off"]["on"]["immediate"] = [{"next_state": "error"}]
    msg = next(m for p, m in problems_of(tiny_data).items() if p.endswith(".on.immediate"))
    assert "loop" in msg and "off" in msg and "error" in msg


def test_bad_action_name(tiny_data):
    tiny_data["states"]["off"]["on"]["power_button"][0]["atomic_action"] = "kick"
    assert "press" in problems_of(tiny_data)["states.off.on.power_button[0].atomic_action"]


def test_dashboard_needs_unlock_on_known_view(tiny_data):
    tiny_data["views"]["dashboard"]["unlock"]["view"] = "roof"
    assert "states" not in problems_of(tiny_data)
    assert "views.dashboard.unlock.view" in problems_of(tiny_data)


def test_unknown_initial_state_and_format(tiny_data):
    tiny_data["initial_state"] = "nope"
    tiny_data["format"] = "vge-device/2"
    found = problems_of(tiny_data)
    assert "initial_state" in found and "format" in found


def test_unreachable_state_is_a_warning(tiny_data):
    tiny_data["states"]["island"] = {"description": "alone", "on": {}}
    assert load_device(tiny_data).warnings == ("states.island: unreachable from initial_state 'off'",)


def test_error_message_carries_the_source(tiny_data):
    tiny_data["initial_state"] = 3
    with pytest.raises(DeviceInvalid, match=r"^dev\.json: initial_state"):
        load_device(tiny_data, source="dev.json")


def test_pruning_drops_missing_components_and_unreachable_states(tiny_data):
    layout = {"id": "tiny-2", "views": tiny_data["views"],
              "components": {k: v for k, v in tiny_data["components"].items() if k != "start"}}
    pruned = load_device(prune_ucsm(tiny_data, layout))
    assert "start" not in pruned.states["idle"].on
    assert set(pruned.states) == {"off", "idle", "warm", "error"}  # heating and done are gone
