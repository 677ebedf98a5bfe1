"""Drafts started from a category's UCSM, edited, pruned to what the photos show; boxes from masks; agreement."""
from __future__ import annotations

import numpy as np
import pytest

from devicelab.core import drafts
from devicelab.core.agreement import box_agreement, box_iou
from devicelab.core.boxes import BoxError, box_check, mask_box, to_scale


def test_draft_starts_as_the_category_ucsm_without_views():
    data = drafts.draft_start("Heater", "h1")
    assert data["id"] == "h1" and data["views"] == {} and set(data["components"]) == {
        "power_switch", "thermostat", "mode_button", "light"}
    assert drafts.component_kinds("Heater")["thermostat"] == "dial"


def test_unknown_category_named():
    with pytest.raises(drafts.DraftError, match="category: unknown category 'Toaster'"):
        drafts.draft_start("Toaster", "t1")


def test_prune_keeps_the_components_on_photos_and_drops_unreachable_states():
    data = drafts.view_set(drafts.draft_start("Heater", "h1"), view="front", image="front.png")
    data = drafts.box_set(data, component="thermostat", view="front", box=[1, 1, 50, 50])
    pruned = drafts.machine_prune(data)
    # nothing turns it on without the switch: pruned to the off state
    assert set(pruned["components"]) == {"thermostat"} and set(pruned["states"]) == {"off"}
    data = drafts.view_set(data, view="top", image="top.png")
    data = drafts.box_set(data, component="power_switch", view="top", box=[1, 1, 50, 50])
    pruned = drafts.machine_prune(data)
    assert {"off", "low", "high", "overheat"} <= set(pruned["states"]) and "eco" not in pruned["states"]


def test_dashboard_needs_a_parent_view_with_a_photo():
    data = drafts.draft_start("Microwave", "m1")
    with pytest.raises(drafts.DraftError, match="views.dashboard.unlock.view"):
        drafts.view_set(data, view="dashboard", image="d.png", unlock=("front", [1, 1, 9, 9]))
    data = drafts.view_set(data, view="front", image="f.png")
    data = drafts.view_set(data, view="dashboard", image="d.png", unlock=("front", [1, 1, 9, 9]))
    assert data["views"]["dashboard"]["unlock"] == {"view": "front", "box": [1, 1, 9, 9]}


def test_graph_has_an_edge_per_transition_and_marks_missing_targets():
    data = drafts.transition_add(drafts.draft_start("Heater", "h1"), state="off", trigger="timed_wait",
                                 next_state="nowhere")
    g = drafts.graph(data)
    assert len(g["nodes"]) == len(data["states"]) and g["nodes"][0]["initial"]
    missing = [e for e in g["edges"] if e["missing"]]
    assert [e["path"] for e in missing] == ["states.off.on.timed_wait[0]"]


def test_box_from_mask_on_the_thousand_scale():
    mask = np.zeros((200, 400), bool)
    mask[50:100, 100:200] = True
    assert mask_box(mask) == (100, 50, 199, 99)
    assert to_scale((100, 50, 199, 99), 400, 200) == (250, 250, 500, 500)
    assert mask_box(np.zeros((3, 3), bool)) is None


@pytest.mark.parametrize("box, words", [([5, 5, 1, 9], "negative size"), ([0, 0, 0, 9], "empty"),
                                        ([0, 0, 10, 1001], "outside its image"), ([1, 2, 3], "four integers")])
def test_bad_boxes_named(box, words):
    with pytest.raises(BoxError, match=words) as info:
        box_check(box, field="box")
    assert info.value.field == "box"


def test_iou_agreement_of_two_annotators():
    assert box_iou([0, 0, 10, 10], [5, 0, 15, 10]) == pytest.approx(50 / 150)
    agreement = box_agreement([("dial", "front", "ann", [0, 0, 10, 10]), ("dial", "front", "bob", [0, 0, 10, 10]),
                               ("lamp", "front", "ann", [0, 0, 10, 10]), ("lamp", "front", "ann", [0, 0, 20, 10]),
                               ("lamp", "front", "bob", [0, 0, 10, 10]), ("knob", "top", "ann", [0, 0, 1, 1])])
    assert [(p.component, round(p.iou, 3)) for p in agreement.pairs] == [("dial", 1.0), ("lamp", 0.5)]
    assert agreement.mean_iou == pytest.approx(0.75) and agreement.share_at(0.75) == 0.5


def _two_photos():
    data = drafts.view_set(drafts.draft_start("Heater", "h1"), view="front", image="front.png")
    data = drafts.view_set(data, view="top", image="top.png")
    data = drafts.box_set(data, component="light", view="front", box=[700, 500, 760, 560])
    return drafts.box_set(data, component="power_switch", view="top", box=[150, 500, 220, 620])


def test_overlays_are_set_per_state_and_view_and_a_state_photo_replaces_them():
    data = drafts.overlays_set(_two_photos(), state="low", view="front", components=["light", "light"])
    assert data["states"]["low"]["look"]["overlays"] == {"front": ["light"]}
    photo = drafts.state_photo_set(data, state="low", view="front", image="low-front.png")
    assert "overlays" not in photo["states"]["low"]["look"]
    again = drafts.overlays_set(photo, state="low", view="front", components=["light"])
    assert "photos" not in again["states"]["low"]["look"]  # one look per view
    cleared = drafts.overlays_set(data, state="low", view="front", components=[])
    assert "overlays" not in cleared["states"]["low"]["look"]


@pytest.mark.parametrize("kwargs, path", [
    ({"state": "nope", "view": "front", "components": ["light"]}, "states.nope.look.overlays.front"),
    ({"state": "low", "view": "left", "components": ["light"]}, "states.low.look.overlays.left"),
    ({"state": "low", "view": "front", "components": ["light", "power_switch"]}, "states.low.look.overlays.front[1]"),
])
def test_bad_overlays_named_by_path(kwargs, path):
    with pytest.raises(drafts.DraftError) as caught:
        drafts.overlays_set(_two_photos(), **kwargs)
    assert caught.value.path == path


def test_component_look_values_in_the_renderers_vocabulary():
    values = drafts.look_values_parse("on=true color=#ffb030 text=HI_THERE open=1 position=0.5", path="p")
    assert values == {"on": True, "color": "#ffb030", "text": "HI THERE", "open": 1, "position": 0.5}
    data = drafts.component_look_set(_two_photos(), state="low", component="light", values={"color": "#0000ff"})
    assert data["states"]["low"]["look"]["components"]["light"]["color"] == "#0000ff"
    for text, path in (("glow=1", "p.glow"), ("on=maybe", "p.on"), ("open=wide", "p.open"), ("on", "p.on")):
        with pytest.raises(drafts.DraftError) as caught:
            drafts.look_values_parse(text, path="p")
        assert caught.value.path == path


def test_prune_keeps_the_authored_looks_of_kept_states():
    data = drafts.overlays_set(_two_photos(), state="low", view="front", components=["light"])
    data = drafts.component_look_set(data, state="low", component="light", values={"color": "#0000ff"})
    pruned = drafts.machine_prune(data)
    look = pruned["states"]["low"]["look"]
    assert look["overlays"] == {"front": ["light"]} and look["components"]["light"]["color"] == "#0000ff"
