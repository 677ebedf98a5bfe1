"""Device authoring through the services (issue 33): drafts from a category's UCSM, autosave with versions,
photos per view, boxes proposed by a click, live checks, tasks, play-test, two review rounds, publish, export."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from PIL import Image as PILImage

from annotation.embeddings import embedding_compute
from devicelab.core import drafts as draft_core
from devicelab.models import DeviceDraft, DraftRevision
from devicelab.selectors import draft_view_image, project_agreement
from devicelab.services import drafts as draft_services
from devicelab.services import photos as photo_services
from devicelab.services import review as review_services
from devicelab.services.errors import DeviceLabError
from scoring.models import Sample
from simulator.models import Device, Task
from simulator.selectors import devices_with_tasks
from simulator.services.library import vge_import
from simulator.services.view_images import device_view_image
from tests.devicelab.conftest import photo_bytes

pytestmark = pytest.mark.django_db

FRONT_BOXES = {"thermostat": [200, 250, 400, 500], "mode_button": [550, 300, 650, 400], "light": [750, 600, 800, 660]}


def with_photos(draft, user):
    version = draft.version
    for view in ("front", "top"):
        draft = photo_services.view_photo_set(user=user, draft_id=draft.pk, version=version, view=view,
                                              name=f"{view}.png", data=photo_bytes(view))
        version = draft.version
    return draft


def authored(draft, user):
    """The Heater on two photos, every control boxed, the UCSM pruned to them."""
    draft = with_photos(draft, user)
    for component, box in FRONT_BOXES.items():
        draft = draft_services.box_set(user=user, draft_id=draft.pk, version=draft.version, component=component,
                                       view="front", box=box)
    draft = draft_services.box_set(user=user, draft_id=draft.pk, version=draft.version, component="power_switch",
                                   view="top", box=[300, 400, 400, 600])
    return draft_services.machine_prune(user=user, draft_id=draft.pk, version=draft.version)


def test_draft_starts_from_the_category_ucsm(draft):
    assert draft.definition["category"] == "Heater" and draft.definition["views"] == {}
    assert set(draft.definition["components"]) == {"power_switch", "thermostat", "mode_button", "light"}
    assert draft.revisions.get().kind == DraftRevision.Kind.CREATE
    # the live checks are there from the start: every transition's component is on no photo yet
    assert any("box on no view" in c["message"] for c in draft.checks)


def test_unknown_category_is_refused_by_field(curator, project):
    with pytest.raises(DeviceLabError, match="unknown category 'Toaster'") as info:
        draft_services.draft_create(user=curator, project=project, category="Toaster", device_id="t1")
    assert info.value.field == "category"


def test_only_curators_create_projects(annotator):
    with pytest.raises(DeviceLabError) as info:
        draft_services.project_create(user=annotator, name="x", slug="x")
    assert info.value.status == 403


def test_autosave_keeps_every_version_and_refuses_a_stale_one(draft, annotator):
    definition = dict(draft.definition, initial_state="low")
    saved = draft_services.draft_save(user=annotator, draft_id=draft.pk, version=1, definition=definition)
    assert saved.version == 2
    with pytest.raises(DeviceLabError) as info:  # a second tab, still at version 1
        draft_services.draft_save(user=annotator, draft_id=draft.pk, version=1, definition=draft.definition)
    assert info.value.status == 409 and info.value.extra == {"version": 2}
    draft.refresh_from_db()
    assert draft.definition["initial_state"] == "low"  # the last saved version is kept
    assert list(draft.revisions.values_list("version", flat=True)) == [1, 2]
    reverted = draft_services.draft_revert(user=annotator, draft_id=draft.pk, version=2, to_version=1)
    assert reverted.version == 3 and reverted.definition["initial_state"] == "off"


def test_autosave_refuses_a_changed_id(draft, annotator):
    with pytest.raises(DeviceLabError, match="definition.id") as info:
        draft_services.draft_save(user=annotator, draft_id=draft.pk, version=1, definition={**draft.definition,
                                                                                             "id": "other"})
    assert info.value.field == "definition.id"


def test_someone_else_may_not_edit(draft, annotator2):
    with pytest.raises(DeviceLabError) as info:
        draft_services.draft_save(user=annotator2, draft_id=draft.pk, version=1, definition=draft.definition)
    assert info.value.status == 403


def test_a_photo_that_is_not_an_image_is_refused_naming_the_view(draft, annotator):
    with pytest.raises(DeviceLabError) as info:
        photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="left", name="left.png",
                                      data=b"this is text, not a photo")
    assert info.value.field == "photos.left" and "(view left)" in info.value.message
    assert "not an image" in info.value.message
    draft.refresh_from_db()
    assert draft.version == 1 and not draft.photos.exists()


def test_an_oversized_photo_is_refused(draft, annotator, settings):
    settings.SAM_MAX_IMAGE_PIXELS = 100 * 100
    with pytest.raises(DeviceLabError, match="over the limit") as info:
        photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="front", name="f.png",
                                      data=photo_bytes(size=(200, 200)))
    assert info.value.field == "photos.front"


def test_unknown_view_and_archive_refused(draft, annotator):
    with pytest.raises(DeviceLabError, match="unknown view 'inside'"):
        photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="inside", name="x.png",
                                      data=photo_bytes())
    with pytest.raises(DeviceLabError, match="one photo per view"):
        photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="front", name="x.zip",
                                      data=b"PK\x03\x04rest")


def test_exif_orientation_is_normalised(draft, annotator):
    # 640x480 stored with orientation 6 (turn 90°): upright it is 480 wide and 640 high
    data = photo_bytes(size=(640, 480), fmt="JPEG", exif_orientation=6)
    draft = photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="front",
                                          name="front.jpg", data=data)
    image = draft.photos.get(view="front").image
    assert (image.width, image.height) == (480, 640)
    assert draft.definition["views"]["front"] == {"kind": "orthographic", "image": "front.jpg"}


def test_dashboard_needs_its_region_on_a_photographed_parent(draft, annotator):
    with pytest.raises(DeviceLabError, match="views.dashboard.unlock") as info:
        photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="dashboard",
                                      name="d.png", data=photo_bytes())
    assert info.value.field.startswith("views.dashboard.unlock")
    with pytest.raises(DeviceLabError, match="negative size") as info:
        photo_services.view_photo_set(user=annotator, draft_id=draft.pk, version=1, view="dashboard",
                                      name="d.png", data=photo_bytes(), unlock=("front", [500, 500, 100, 100]))
    assert info.value.field == "views.dashboard.unlock.box"


def test_click_proposes_a_box_from_the_classical_backend(draft, annotator):
    draft = with_photos(draft, annotator)
    first = photo_services.component_propose(user=annotator, draft_id=draft.pk, view="front", x=300, y=370)
    assert first.pending is not None  # the embedding is computed by the worker first
    embedding_compute(embedding_id=first.pending.pk)
    proposal = photo_services.component_propose(user=annotator, draft_id=draft.pk, view="front", x=300, y=370)
    x1, y1, x2, y2 = proposal.box
    # the drawn dial spans 200..400 x 250..500 of the view
    assert abs(x1 - 200) <= 15 and abs(y1 - 250) <= 15 and abs(x2 - 400) <= 15 and abs(y2 - 500) <= 15
    assert proposal.backend
    with pytest.raises(DeviceLabError, match="x must be an integer in 0..1000"):
        photo_services.component_propose(user=annotator, draft_id=draft.pk, view="front", x=1200, y=10)


def test_a_box_with_negative_size_is_refused_naming_path_and_view(draft, annotator):
    draft = with_photos(draft, annotator)
    with pytest.raises(DeviceLabError) as info:
        draft_services.box_set(user=annotator, draft_id=draft.pk, version=draft.version, component="thermostat",
                               view="front", box=[400, 500, 200, 250])
    assert info.value.field == "components.thermostat.boxes.front"
    assert "(view front)" in info.value.message and "negative size" in info.value.message


def test_a_transition_to_a_missing_state_is_a_live_check_that_blocks_submitting(draft, annotator):
    draft = authored(draft, annotator)
    assert not [c for c in draft.checks if c["level"] == "error"], draft.checks
    draft = draft_services.draft_edit(
        user=annotator, draft_id=draft.pk, version=draft.version, note="typo",
        change=lambda d: {**d, "states": {**d["states"], "low": {**d["states"]["low"], "on": {
            **d["states"]["low"]["on"], "thermostat": [{**d["states"]["low"]["on"]["thermostat"][0],
                                                        "next_state": "hgih"}]}}}})
    check = next(c for c in draft.checks if c["level"] == "error")
    assert check["path"] == "states.low.on.thermostat[0].next_state" and "unknown state 'hgih'" in check["message"]
    with pytest.raises(DeviceLabError) as info:
        review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    assert info.value.status == 409 and info.value.field == "states.low.on.thermostat[0].next_state"


def test_the_whole_way_from_photos_to_a_published_split(draft, annotator, reviewers, curator, tmp_path):
    draft = authored(draft, annotator)
    assert set(draft.definition["states"]) == {"off", "low", "high", "eco", "overheat"}
    previews = review_services.tasks_preview(draft)
    assert previews and all(p.l_opt > 0 and p.task.instructions for p in previews)
    task = review_services.playtest_install(user=annotator, draft_id=draft.pk)
    assert task.device.device_id == f"lab-draft-{draft.pk}" and task.sample is None
    # an unpublished draft: not on the simulator's list, its photos not under the public media folder
    assert task.device not in devices_with_tasks() and task.device.images_dir.startswith("private/")
    draft = review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    first, second = reviewers
    with pytest.raises(DeviceLabError, match="Only reviewers"):
        review_services.draft_review(user=annotator, draft_id=draft.pk, verdict="approve")
    review_services.draft_review(user=first, draft_id=draft.pk, verdict="approve")
    with pytest.raises(DeviceLabError, match="approved this version already"):
        review_services.draft_review(user=first, draft_id=draft.pk, verdict="approve")
    with pytest.raises(DeviceLabError, match="not waiting|only an accepted"):
        review_services.draft_publish(user=curator, draft_id=draft.pk, split_name="lab", public=False)
    review_services.draft_review(user=second, draft_id=draft.pk, verdict="approve")
    draft.refresh_from_db()
    assert draft.state == DeviceDraft.State.ACCEPTED and draft.review_round == 2
    publication = review_services.draft_publish(user=curator, draft_id=draft.pk, split_name="lab", public=False)
    assert publication.version == 1 and publication.split.hidden_ground_truth
    assert Device.objects.get(device_id="heater-lab").images_dir == "private/vge/devices/heater-lab"  # hidden split
    assert Sample.objects.filter(split=publication.split).count() == publication.tasks == len(previews)
    assert Task.objects.filter(device__device_id="heater-lab", sample__split=publication.split).exists()

    # the export loads elsewhere through import_vge (here: under another id, into another split)
    archive = zipfile.ZipFile(io.BytesIO(review_services.draft_export(draft)))
    archive.extractall(tmp_path)
    folder = tmp_path / "heater-lab"
    data = json.loads((folder / "heater-lab.json").read_text())
    assert data["format"] == "vge-device/1" and (folder / data["views"]["front"]["image"]).is_file()
    data["id"] = "heater-elsewhere"
    (folder / "heater-lab.json").write_text(json.dumps(data))
    tasks = [json.loads(line) for line in (folder / "tasks.jsonl").read_text().splitlines()]
    (folder / "tasks.jsonl").write_text("".join(json.dumps({**t, "id": t["id"].replace("heater-lab", "heater-elsewhere"),
                                                            "device": "heater-elsewhere"}) + "\n" for t in tasks))
    report = vge_import(path=folder, split_name="elsewhere", public=True)
    assert (report.devices, report.tasks) == (1, len(previews))
    with PILImage.open(tmp_path / "heater-lab" / "front.png") as photo:
        assert photo.size == (640, 480)


def test_revise_sends_it_back_and_issues_are_marked_on_a_view(draft, annotator, reviewers):
    draft = authored(draft, annotator)
    review_services.playtest_install(user=annotator, draft_id=draft.pk)
    draft = review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    with pytest.raises(DeviceLabError, match=r"issues\[0\].view: the device has no view 'left'"):
        review_services.draft_review(user=reviewers[0], draft_id=draft.pk, verdict="revise",
                                     issues=[{"view": "left", "text": "blurred"}])
    review = review_services.draft_review(user=reviewers[0], draft_id=draft.pk, verdict="revise",
                                          issues=[{"view": "front", "box": [200, 250, 400, 500],
                                                   "text": "the dial's box misses its pointer"}])
    assert review.issues[0]["view"] == "front"
    draft.refresh_from_db()
    assert draft.state == DeviceDraft.State.NEEDS_REVISION and draft.review_round == 0


def test_box_agreement_of_two_annotators(draft, annotator, annotator2, curator, project):
    draft = with_photos(draft, annotator)
    draft_services.box_set(user=annotator, draft_id=draft.pk, version=None, component="thermostat", view="front",
                           box=[200, 250, 400, 500])
    draft.assignee = annotator2
    draft.save()
    draft_services.box_set(user=annotator2, draft_id=draft.pk, version=None, component="thermostat", view="front",
                           box=[200, 250, 400, 450])
    agreement = project_agreement(project)
    assert [(p.first, p.second) for p in agreement.pairs] == [("ann", "bea")]
    assert agreement.mean_iou == pytest.approx(0.8)


def test_submitting_needs_a_play_test_of_this_version(draft, annotator):
    draft = authored(draft, annotator)
    with pytest.raises(DeviceLabError, match="Play-test") as info:
        review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    assert info.value.status == 409
    review_services.playtest_install(user=annotator, draft_id=draft.pk)
    draft = draft_services.box_set(user=annotator, draft_id=draft.pk, version=draft.version, component="light",
                                   view="front", box=[750, 600, 800, 660])
    with pytest.raises(DeviceLabError, match="Play-test"):  # changed since its play-test
        review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    review_services.playtest_install(user=annotator, draft_id=draft.pk)
    assert review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version).state == "submitted"


def test_a_state_photo_is_what_the_player_shows_in_that_state(draft, annotator, reviewers, curator, tmp_path):
    draft = authored(draft, annotator)
    with pytest.raises(DeviceLabError, match="view 'left' has no photo yet"):
        photo_services.state_photo_set(user=annotator, draft_id=draft.pk, version=draft.version, state="high",
                                       view="left", name="x.png", data=photo_bytes("front", size=(320, 240)))
    draft = photo_services.state_photo_set(user=annotator, draft_id=draft.pk, version=draft.version, state="high",
                                           view="front", name="hot.png", data=photo_bytes("front", size=(320, 240)))
    assert draft.definition["states"]["high"]["look"]["photos"] == {"front": "high-front.png"}
    review_services.playtest_install(user=annotator, draft_id=draft.pk)
    draft = review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    for reviewer in reviewers:
        review_services.draft_review(user=reviewer, draft_id=draft.pk, verdict="approve")
    publication = review_services.draft_publish(user=curator, draft_id=draft.pk, split_name="lab", public=True)
    assert device_view_image(device_row=publication.device, view="front", state="high").name == "high-front.png"
    assert device_view_image(device_row=publication.device, view="front", state="low").name == "front.png"
    archive = zipfile.ZipFile(io.BytesIO(review_services.draft_export(draft)))
    assert "heater-lab/high-front.png" in archive.namelist()
    archive.extractall(tmp_path)
    (tmp_path / "heater-lab" / "high-front.png").unlink()
    with pytest.raises(Exception, match="states.high.look.photos.front"):
        vge_import(path=tmp_path / "heater-lab")


def test_overlays_on_a_photo_are_what_the_editor_and_the_published_player_show(draft, annotator, reviewers, curator):
    draft = authored(draft, annotator)
    alike = [c["path"] for c in draft.checks if "looks the same" in c["message"]]
    assert "states.low" in alike  # two plain photos tell no state apart
    for state in draft.definition["states"]:
        draft = draft_services.draft_edit(
            user=annotator, draft_id=draft.pk, version=draft.version, note="overlays",
            change=lambda d, s=state: draft_core.overlays_set(d, state=s, view="front",
                                                              components=["light", "thermostat"]))
        draft = draft_services.draft_edit(
            user=annotator, draft_id=draft.pk, version=draft.version, note="overlays",
            change=lambda d, s=state: draft_core.overlays_set(d, state=s, view="top", components=["power_switch"]))
    assert not [c for c in draft.checks if "looks the same" in c["message"]]
    editor = {state: draft_view_image(draft, view="front", state=state).read_bytes() for state in ("off", "low")}
    lamp = FRONT_BOXES["light"]
    pixels = {state: PILImage.open(io.BytesIO(png)).convert("RGB").getpixel(
        ((lamp[0] + lamp[2]) * 640 // 2000, (lamp[1] + lamp[3]) * 480 // 2000)) for state, png in editor.items()}
    assert pixels["off"] != pixels["low"]  # the lamp is lit in "low" only
    review_services.playtest_install(user=annotator, draft_id=draft.pk)
    draft = review_services.draft_submit(user=annotator, draft_id=draft.pk, version=draft.version)
    for reviewer in reviewers:
        review_services.draft_review(user=reviewer, draft_id=draft.pk, verdict="approve")
    publication = review_services.draft_publish(user=curator, draft_id=draft.pk, split_name="lab", public=True)
    for state, png in editor.items():  # the published device's player shows the very same image
        assert device_view_image(device_row=publication.device, view="front", state=state).read_bytes() == png
