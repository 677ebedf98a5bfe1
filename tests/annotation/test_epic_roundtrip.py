"""Items of every EPIC family, exported to the raw layout, are read back identically by the site's EPIC importer
(scoring/benchmarks/epic/importer.py through `manage.py import_epic --strict`)."""
import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from annotation.core import rle
from annotation.core.epic import LEAVES
from annotation.services.editing import item_save
from annotation.services.export import project_export
from annotation.services.projects import images_upload
from scoring.models import Sample

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db

SIZE = (60, 80)


def _box(y1, y2, x1, x2, size=SIZE):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


CASES = {
    "TargetLocalization/SpatialRelatedAttributes/SpatialRelation": dict(
        texts={"text_label": "the two mugs left of the laptop"}, count=2, precise_count=True, count_in_description=True,
        instances={"masklet_target": [_box(0, 10, 0, 10), _box(20, 30, 20, 30)]}),
    "Navigation/GroundDetection": dict(
        texts={"scene_description_en": "a corridor"}, instances={"masklet_ground": [_box(40, 60, 0, 80)]}),
    "Navigation/FeasiblePath/FeasiblePath_Exo": dict(
        texts={"text_label": "the sofa22the fridge"},
        instances={"masklet_path": [_box(30, 60, 0, 80)], "masklet_target_area": [_box(30, 35, 0, 5), _box(30, 35, 70, 75)]}),
    "Manipulation/AffordanceRegion": dict(
        texts={"text_label": "open the drawer", "reference_object_description_en": "white drawer"},
        instances={"masklet_reference_area": [_box(10, 40, 10, 40)], "masklet_affordance_region": [_box(20, 25, 20, 30)]}),
    "Manipulation/ContactRelationship/ContactRelationship_TypeTwo": dict(
        texts={"text_label": "the plate2the cup"}, count=1,
        instances={"masklet_reference_object": [_box(0, 10, 0, 10), _box(0, 10, 20, 30)],
                   "masklet_contact_target": [_box(10, 20, 5, 25)]}),
    "Manipulation/PlacementRegion": dict(
        texts={"reference_object_description_en": "a pot", "placement_region_description_en": "the top shelf"},
        placement_feasible=False,
        instances={"masklet_reference_object": [_box(0, 10, 0, 10)], "masklet_placement_region": [_box(40, 50, 40, 70)]}),
}


def test_exported_items_import_identically_through_the_epic_importer(tmp_path, curator, project_factory):
    image = png_bytes(np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8))
    other = png_bytes(np.random.default_rng(1).integers(0, 255, (60, 80, 3), dtype=np.uint8))
    expected = {}
    for number, (leaf, labels) in enumerate(CASES.items()):
        project = project_factory(leaf=leaf, slug=f"p{number}")
        [item] = images_upload(user=curator, name="a.png", data=image, project=project).items
        item = item_save(user=curator, item_id=item.pk, version=1, **labels)
        assert item.findings == [], item.findings
        expected[leaf] = item
    vm = project_factory(leaf="Navigation/VisualMatching", slug="vm")
    [vm_item] = images_upload(user=curator, name="vm.zip", data=zip_bytes([("s/a.png", image), ("s/b.png", other)]),
                              project=vm).items
    expected["Navigation/VisualMatching"] = item_save(
        user=curator, item_id=vm_item.pk, version=1, texts={"reference_area_description_en": "blue chairs"}, count=1,
        instances={"masklet_reference_area": [_box(0, 10, 0, 10)], "masklet_matching_area": [_box(30, 40, 30, 40)]})

    exported = {}
    for item in expected.values():
        project_export(project=item.project, root=tmp_path)
    for gt_file in sorted((tmp_path / "EPIC_Bench").rglob("*_mask_rle.json")):
        exported[gt_file.relative_to(tmp_path).as_posix()] = json.loads(gt_file.read_text())

    out = StringIO()
    call_command("import_epic", str(tmp_path), "--split", "annotated", "--public", "--strict", stdout=out, stderr=out)
    assert "7 created" in out.getvalue() and "0 problems" in out.getvalue(), out.getvalue()

    samples = {s.key: s for s in Sample.objects.filter(split__name="annotated")}
    assert set(samples) == set(exported)
    for key, document in exported.items():
        sample = samples[key]
        assert sample.ground_truth == document  # read back identically
        leaf = next(path for path in LEAVES if key.startswith(f"EPIC_Bench/{path}/"))
        item = expected[leaf]
        assert sample.task == leaf.rsplit("/", 1)[1]
        assert sample.ground_truth["mask_annotation"] == {m.name: item.instances.get(m.name, [])
                                                         for m in LEAVES[leaf].masklets}
        images = [i["name"] for i in sample.inputs["images"]]
        assert images[0].endswith("_image.png")
        if LEAVES[leaf].overlay:
            assert images[1].endswith(LEAVES[leaf].overlay.suffix)
    vm_key = next(k for k in samples if "VisualMatching" in k)
    assert [i["name"].rsplit("/", 1)[1] for i in samples[vm_key].inputs["images"]] == [
        f"vm-{vm_item.pk:06d}-A_image.png", f"vm-{vm_item.pk:06d}-A_reference_area_overlay.png",
        f"vm-{vm_item.pk:06d}-B_image.png"]
