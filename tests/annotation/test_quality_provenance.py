"""Issue 32, quality control: "Mask provenance: every instance keeps how it was made — prompts (points, boxes, the
SAM model and checkpoint hash, the decoder path: browser or server), the predicted IoU, the share painted by
brush/eraser, the edits — shown to reviewers and exported with the sample, so a ground truth can be audited or
regenerated when SAM changes." """
from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import Item, PublishedSample
from annotation.review import services as rs
from annotation.services.editing import item_save, item_submit
from tests.annotation.conftest import box_rle, client_for

pytestmark = pytest.mark.django_db

PROVENANCE = {"source": "classic", "model": "classic", "checkpoint_sha256": None, "decoder": "server",
              "prompts": [{"points": [[150, 150, 1]], "box": None, "multimask": True, "pick": 0}],
              "predicted_iou": 0.97, "painted_share": 0.05,
              "history": [{"op": "classic", "pixels": 10000}, {"op": "brush", "pixels": 500}]}


def reviewer(django_user_model, name):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    user.groups.add(Group.objects.get_or_create(name="reviewer")[0])
    return user


def accept(item, reviewers):
    for person in reviewers:
        item.refresh_from_db()
        rs.review_open(user=person, item=item)
        rs.review_submit(user=person, item_id=item.pk, version=item.version,
                         round=rs.item_progress(item).current_round, verdict="accept")
    item.refresh_from_db()
    return item


@pytest.fixture
def labelled(item_factory, annotator, scene_png):
    """An item saved through the API with one mask and how it was made."""
    [item] = item_factory(scene_png[0], assignee=annotator)
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", {
        "version": item.version, "texts": {"text_label": "the red disc"}, "count": 1, "precise_count": True,
        "instances": {"masklet_target": [box_rle(100, 200, 100, 200)]},
        "provenance": {"masklet_target": [PROVENANCE]},
    }, format="json")
    assert response.status_code == 200, response.content
    return Item.objects.get(pk=item.pk)


def test_the_save_keeps_each_masks_provenance_in_the_item_and_its_history(labelled):
    entry = labelled.provenance["masklet_target"][0]
    assert entry["prompts"][0]["points"] == [[150.0, 150.0, 1]] and entry["decoder"] == "server"
    assert entry["predicted_iou"] == 0.97 and entry["painted_share"] == 0.05
    assert [h["op"] for h in entry["history"]] == ["classic", "brush"]
    assert labelled.revisions.order_by("-pk").first().snapshot["provenance"] == labelled.provenance


@pytest.mark.parametrize("bad, field", [
    ({**PROVENANCE, "decoder": "quantum"}, "provenance.masklet_target[0].decoder"),
    ({**PROVENANCE, "prompts": [{"points": [[9999, 5, 1]], "box": None}]},
     "provenance.masklet_target[0].prompts[0].points[0]"),
    ({**PROVENANCE, "painted_share": 2}, "provenance.masklet_target[0].painted_share"),
    ({**PROVENANCE, "checkpoint_sha256": "not-a-hash"}, "provenance.masklet_target[0].checkpoint_sha256"),
])
def test_bad_provenance_is_refused_with_the_field_named(item_factory, annotator, scene_png, bad, field):
    [item] = item_factory(scene_png[0], assignee=annotator)
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", {
        "version": item.version, "instances": {"masklet_target": [box_rle(100, 200, 100, 200)]},
        "provenance": {"masklet_target": [bad]}}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in json.dumps(body), body
    assert Item.objects.get(pk=item.pk).version == item.version  # nothing saved


def test_provenance_must_list_one_entry_per_instance(item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", {
        "version": item.version, "instances": {"masklet_target": [box_rle(100, 200, 100, 200)]},
        "provenance": {"masklet_target": [PROVENANCE, PROVENANCE]}}, format="json")
    assert response.status_code == 400 and "provenance.masklet_target" in json.dumps(response.json())


def test_a_save_without_provenance_keeps_null_entries(item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    saved = item_save(user=annotator, item_id=item.pk, version=item.version,
                      instances={"masklet_target": [box_rle(100, 200, 100, 200), box_rle(0, 10, 0, 10)]})
    assert saved.provenance == {"masklet_target": [None, None]}


def test_the_project_export_writes_provenance_beside_the_ground_truth(labelled, curator):
    client = Client()
    client.force_login(curator)
    response = client.get(f"/annotation/projects/{labelled.project.slug}/export.zip")
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    [name] = [n for n in archive.namelist() if n.endswith("_provenance.json")]
    document = json.loads(archive.read(name))
    assert document["instances"] == labelled.provenance and document["version"] == labelled.version
    assert archive.read(name.replace("_provenance.json", "_mask_rle.json"))  # beside the mask file


def test_the_published_sample_keeps_the_provenance_and_curators_see_it(labelled, annotator, curator,
                                                                       django_user_model):
    item = item_submit(user=annotator, item_id=labelled.pk, version=labelled.version)
    accept(item, [reviewer(django_user_model, "rob"), reviewer(django_user_model, "rita")])
    split, [link] = rs.items_publish(user=curator, item_ids=[item.pk], split_name="audited")
    assert PublishedSample.objects.get(pk=link.pk).provenance == labelled.provenance
    client = Client()
    client.force_login(curator)
    page = client.get(f"/annotation/review/splits/{split.pk}/").content.decode()
    assert "How the masks were made" in page and "predicted_iou" in page


def test_reviewers_see_how_each_mask_was_made(labelled, annotator, django_user_model):
    item_submit(user=annotator, item_id=labelled.pk, version=labelled.version)
    client = Client()
    client.force_login(reviewer(django_user_model, "rob"))
    page = client.get(f"/annotation/review/items/{labelled.pk}/").content.decode()
    table = page[page.index('id="provenance"'):]
    assert "classic" in table and "server" in table and "1 positive, 0 negative click(s)" in table
    assert "0.970" in table and "5 %" in table and "classic, brush" in table
