"""An item exported to the toolkit's raw layout reads back identically."""

import numpy as np
import pytest
from django.core.management import call_command

from annotation.core import rle
from annotation.core.epic import LEAVES
from annotation.core.export import read_layout
from annotation.services.editing import item_save
from annotation.services.export import project_export

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db


def _box(y1, y2, x1, x2, size):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def test_tl_item_round_trips_through_the_raw_layout(tmp_path, item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    masks = [_box(10, 50, 10, 60, (360, 640)), _box(100, 150, 300, 400, (360, 640))]
    saved = item_save(user=annotator, item_id=item.pk, version=1, texts={"text_label": "the two red mugs"},
                      count=2, precise_count=True, count_in_description=True,
                      instances={"masklet_target": masks})
    call_command("export_annotation", item.project.slug, str(tmp_path))

    [sample] = read_layout(tmp_path, LEAVES)
    assert sample.leaf_path == "TargetLocalization/BasicAttributes/Color"
    assert sample.text_annotation == {"text_label": ["the two red mugs"], "count_target_instance": [2],
                                      "precise_count": [True], "count_in_description": [True]}
    assert sample.mask_annotation == {"masklet_target": saved.instances["masklet_target"]}
    image_path = tmp_path / sample.image_paths[0]
    assert image_path.name.endswith("_image.png")
    with item.images.get().file.open("rb") as handle:
        assert image_path.read_bytes() == handle.read()


def test_placement_item_exports_a_rendered_reference_overlay(tmp_path, item_factory, curator, project_factory, scene_png):
    project = project_factory(leaf="Manipulation/PlacementRegion", slug="place")
    [item] = item_factory(scene_png[0], project=project)
    size = (360, 640)
    item_save(user=curator, item_id=item.pk, version=1,
              texts={"reference_object_description_en": "a pot", "placement_region_description_en": "shelf"},
              placement_feasible=False,
              instances={"masklet_reference_object": [_box(0, 40, 0, 40, size)],
                                  "masklet_placement_region": [_box(200, 300, 200, 400, size)]})
    project_export(project=project, root=tmp_path)
    [sample] = read_layout(tmp_path, LEAVES)
    assert sample.overlay_path.endswith("_reference_object_overlay.png")
    assert sample.text_annotation["placement_feasible"] == [False]
    assert [rle.area(r) for r in sample.mask_annotation["masklet_placement_region"]] == [20000]


def test_visual_matching_item_exports_both_images_and_the_double_underscore_gt(tmp_path, item_factory, curator,
                                                                               project_factory):
    project = project_factory(leaf="Navigation/VisualMatching", slug="vm")
    a, b = png_bytes(np.full((30, 40, 3), 50, np.uint8)), png_bytes(np.full((20, 25, 3), 90, np.uint8))
    [item] = item_factory(zip_bytes([("s/a.png", a), ("s/b.png", b)]), name="vm.zip", project=project)
    item_save(user=curator, item_id=item.pk, version=1, count=1,
              instances={"masklet_reference_area": [_box(0, 10, 0, 10, (30, 40))],
                                  "masklet_matching_area": [_box(5, 10, 5, 10, (20, 25))]})
    project_export(project=project, root=tmp_path)
    [sample] = read_layout(tmp_path, LEAVES)
    assert sample.gt_path.endswith(f"vm-{item.pk:06d}-A__vm-{item.pk:06d}-B_mask_rle.json")
    assert [p.rsplit("/", 1)[1] for p in sample.image_paths] == [f"vm-{item.pk:06d}-A_image.png",
                                                                 f"vm-{item.pk:06d}-B_image.png"]
    assert rle.size_of(sample.mask_annotation["masklet_matching_area"][0]) == (20, 25)


def test_uploaded_reference_overlay_is_exported_as_is(tmp_path, curator, project_factory, item_factory, scene_png):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from .conftest import client_for

    project = project_factory(leaf="Manipulation/AffordanceRegion", slug="afford")
    [item] = item_factory(scene_png[0], project=project)
    overlay = png_bytes(np.full((360, 640, 3), 7, np.uint8))
    client = client_for(curator)
    url = f"/api/annotation/items/{item.pk}/overlay/"
    wrong = client.post(url, {"file": SimpleUploadedFile("o.png", png_bytes(np.zeros((10, 10, 3), np.uint8)))})
    assert wrong.status_code == 400 and "overlay is 10x10, image 1 is 640x360" in wrong.json()["detail"]
    response = client.post(url, {"file": SimpleUploadedFile("o.png", overlay)})
    assert response.status_code == 200 and response.json()["has_overlay"] and response.json()["version"] == 2
    project_export(project=project, root=tmp_path)
    [sample] = read_layout(tmp_path, LEAVES)
    assert (tmp_path / sample.overlay_path).read_bytes() == overlay
