"""The demo authors one device from drawn photos through the real code paths, and an agent plays it."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from devicelab.core import demo_photos
from devicelab.models import BoxMark, DeviceDraft
from simulator.models import Task
from simulator.services.view_images import device_view_image

pytestmark = pytest.mark.django_db


def test_demo_photos_are_deterministic():
    assert demo_photos.photo("front") == demo_photos.photo("front") != demo_photos.photo("top")


def test_demo_device_is_authored_reviewed_published_and_played_by_an_agent(token_client, capsys):
    call_command("make_demo_devicelab")
    draft = DeviceDraft.objects.get(device_id="heater-lab-demo")
    assert draft.state == DeviceDraft.State.PUBLISHED and draft.reviews.count() == 2
    # every box came from a click through the segmenter, close to where the control was drawn
    for mark in BoxMark.objects.filter(draft=draft):
        truth = demo_photos.CONTROLS[mark.component][1]
        assert mark.proposed_by and max(abs(a - b) for a, b in zip(mark.box, truth)) <= 20, (mark.component, mark.box)
    # each state's look is drawn over the photos: no two states look alike, and the player shows the lamp lit
    assert not [c for c in draft.checks if "looks the same" in c["message"]]
    device = draft.publications.get().device
    off, low = (device_view_image(device_row=device, view="front", state=s) for s in ("off", "low"))
    assert off.read_bytes() != low.read_bytes()
    # an agent plays the published task "turn it on" through the API: to the top view, push the switch up
    task = next(t for t in Task.objects.filter(device__device_id="heater-lab-demo", sample__split__name="lab-demo")
                if t.definition["goals"] == ["low"])
    created = token_client.post("/api/vge/episodes/", {"task": task.task_id}, format="json")
    assert created.status_code == 201, created.content
    episode = created.json()["episode"]
    view, x, y = demo_photos.centre("power_switch")
    outputs = [f"Action: Switch_view(params=[{view}])", f"Action: Push(coord=[{x}, {y}], params=[0])"]
    for output in outputs:
        step = token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json")
        assert step.status_code == 200, step.content
    detail = token_client.get(f"/api/vge/episodes/{episode}/").json()
    assert detail["finished"] and detail["success"], detail
    call_command("make_demo_devicelab")  # idempotent
    assert "exists already" in capsys.readouterr().out
