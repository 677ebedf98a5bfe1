"""The live checks of a device draft: each bad input named by its JSON path and view (issue 33)."""
from __future__ import annotations

from devicelab.core import drafts
from devicelab.core.checks import ERROR, WARNING, draft_checks, has_errors


def heater_draft():
    """A Heater drawn on two photos: the dial, the mode button and the lamp on the front, the switch on the top;
    each state's look drawn over them (overlays)."""
    data = drafts.draft_start("Heater", "heater-lab-1")
    data = drafts.view_set(data, view="front", image="front.png")
    data = drafts.view_set(data, view="top", image="top.png")
    data = drafts.box_set(data, component="thermostat", view="front", box=[100, 100, 300, 300])
    data = drafts.box_set(data, component="mode_button", view="front", box=[400, 400, 500, 500])
    data = drafts.box_set(data, component="light", view="front", box=[700, 500, 760, 560])
    data = drafts.box_set(data, component="power_switch", view="top", box=[150, 500, 220, 620])
    for state in data["states"]:  # each state drawn over the photos: the dial, the lamp, the switch
        data = drafts.overlays_set(data, state=state, view="front", components=["thermostat", "light"])
        data = drafts.overlays_set(data, state=state, view="top", components=["power_switch"])
    return data


def by_path(checks):
    return {c.path: c for c in checks}


def test_a_complete_draft_has_no_error():
    checks = draft_checks(heater_draft(), photos=frozenset({"front", "top"}))
    assert not has_errors(checks), [str(c) for c in checks]


def test_box_outside_its_image_is_named_with_its_view():
    data = drafts.box_set(heater_draft(), component="light", view="front", box=[900, 500, 1200, 560])
    check = by_path(draft_checks(data))["components.light.boxes.front"]
    assert (check.view, check.level) == ("front", ERROR) and "outside 0..1000" in check.message


def test_negative_box_size_is_named_once():
    data = drafts.box_set(heater_draft(), component="light", view="front", box=[760, 560, 700, 500])
    found = [c for c in draft_checks(data) if c.path == "components.light.boxes.front"]
    assert len(found) == 1 and "negative size" in found[0].message and found[0].view == "front"


def test_transition_to_a_missing_state():
    data = drafts.transition_add(heater_draft(), state="low", trigger="mode_button", next_state="turbo",
                                 action="press", parameter=["1"])
    check = by_path(draft_checks(data))["states.low.on.mode_button[1].next_state"]
    assert "unknown state 'turbo'" in check.message


def test_transition_bound_to_a_component_on_no_photo():
    data = drafts.box_set(heater_draft(), component="mode_button", view="front", box=None)
    checks = by_path(draft_checks(data))
    assert "box on no view" in checks["states.low.on.mode_button"].message
    assert checks["states.low.on.mode_button"].level == ERROR


def test_immediate_loop_makes_a_task_endless():
    data = drafts.transition_add(heater_draft(), state="off", trigger="immediate", next_state="overheat")
    loop = [c for c in draft_checks(data) if "never ends" in c.message]
    assert len(loop) == 1 and loop[0].path.endswith(".on.immediate") and "off -> overheat -> off" in loop[0].message


def test_overlapping_boxes_of_two_components_warn_on_their_view():
    data = drafts.box_set(heater_draft(), component="mode_button", view="front", box=[250, 250, 500, 500])
    check = by_path(draft_checks(data))["components.mode_button.boxes.front"]
    assert (check.level, check.view) == (WARNING, "front") and "'thermostat'" in check.message


def test_unreachable_state_warns():
    data = drafts.state_set(heater_draft(), name="broken", description="Nothing happens.")
    check = by_path(draft_checks(data))["states.broken"]
    assert check.level == WARNING and "unreachable" in check.message


def test_states_no_view_tells_apart_warn():
    data = drafts.state_set(heater_draft(), name="low2", description="Same as low.")
    data["states"]["low2"]["look"] = data["states"]["low"]["look"]
    data = drafts.transition_add(data, state="low", trigger="light", next_state="low2", action="press")
    alike = [c for c in draft_checks(data) if "looks the same" in c.message]
    assert [c.path for c in alike] == ["states.low2"]


def test_dashboard_without_its_region():
    data = heater_draft()
    data["views"]["dashboard"] = {"kind": "dashboard", "image": "dash.png"}
    check = by_path(draft_checks(data))["views.dashboard.unlock"]
    assert check.view == "dashboard" and check.level == ERROR


def test_box_on_a_view_without_photo():
    data = heater_draft()
    checks = by_path(draft_checks(data, photos=frozenset({"front"})))
    assert checks["components.power_switch.boxes.top"].message == "a box on view 'top', which has no photo"


def test_a_state_photo_tells_alike_states_apart():
    data = drafts.state_set(heater_draft(), name="low2", description="Same as low.")
    data["states"]["low2"]["look"] = dict(data["states"]["low"]["look"])
    data = drafts.transition_add(data, state="low", trigger="light", next_state="low2", action="press")
    data = drafts.state_photo_set(data, state="low2", view="front", image="low2-front.png")
    assert not [c for c in draft_checks(data) if "looks the same" in c.message]
    checks = by_path(draft_checks(data, photos=frozenset({"top"})))
    assert checks["states.low2.look.photos.front"].view == "front"


def test_photos_without_overlays_tell_no_state_apart():
    data = heater_draft()
    for state in data["states"]:
        data = drafts.overlays_set(data, state=state, view="front", components=[])
        data = drafts.overlays_set(data, state=state, view="top", components=[])
    alike = [c.path for c in draft_checks(data) if "looks the same as 'off'" in c.message]
    assert alike == ["states.low", "states.high", "states.eco", "states.overheat"]


def test_overlays_name_what_is_not_there_with_path_and_view():
    data = heater_draft()
    data["states"]["low"]["look"]["overlays"] = {"front": ["light", "nope", "power_switch"], "left": ["light"]}
    checks = by_path(draft_checks(data, photos=frozenset({"front", "top"})))
    assert checks["states.low.look.overlays.front[1]"].message == "unknown component 'nope'"
    assert checks["states.low.look.overlays.front[2]"].view == "front"
    assert "no box on view 'front'" in checks["states.low.look.overlays.front[2]"].message
    assert checks["states.low.look.overlays.left"].view == "left"
    assert has_errors(list(checks.values()))


def test_a_photo_and_overlays_on_one_view_are_one_look_too_many():
    data = heater_draft()
    data["states"]["low"]["look"]["photos"] = {"front": "low-front.png"}
    check = by_path(draft_checks(data))["states.low.look.overlays.front"]
    assert check.level == ERROR and "one look per view" in check.message
