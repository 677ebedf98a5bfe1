"""Issue 32: "The field labelled "Instruction given to the robot" (`text_label`) becomes the model's "Target Object
Description" in the published sample's prompt, while the "Target object, described" field is not used. Each field
must land where its label says (an EPIC sample built here must read exactly like one of the paper's)."

An annotator who fills in each editor field by what its label says publishes, per EPIC task type, a sample whose
prompt (`Sample.inputs["prompt"]`, then the whole user message from `sample_prompt`) is exactly the prompt of the
paper's own sample carrying the same descriptions (docs/formats/epic.md sections 1.3, 1.4 and 2.1)."""
import json
import re
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from annotation.core.epic import LEAVES
from annotation.services.editing import item_save
from scoring.benchmarks.epic.core.prompts import description_lines, prompt_task, sample_prompt
from scoring.benchmarks.epic.core.taxonomy import LEAF_BY_NAME
from scoring.models import Sample
from tests.annotation.conftest import box_rle

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db

# One leaf per task type, with the paper's text_annotation for it (the format file's section 1.4 examples).
PAPER = {
    "TargetLocalization/BasicAttributes/Color": {"text_label": ["the two red mugs on the desk"],
                                                 "target_object_description_en": ["two red mugs"]},
    "Navigation/GroundDetection": {"scene_description_en": ["an office corridor"]},
    "Navigation/FeasiblePath/FeasiblePath_Ego": {"text_label": ["the glass door at the end of the hall"]},
    "Navigation/FeasiblePath/FeasiblePath_Exo": {"text_label": ["the sofa22the fridge"]},
    "Navigation/VisualMatching": {"reference_area_description_en": ["blue chairs"]},
    "Manipulation/AffordanceRegion": {"text_label": ["open the drawer"],
                                      "reference_object_description_en": ["white drawer"]},
    "Manipulation/ContactRelationship/ContactRelationship_TypeOne": {"text_label": ["the plate"]},
    "Manipulation/ContactRelationship/ContactRelationship_TypeTwo": {"text_label": ["the plate2the cup"]},
    "Manipulation/ContactRelationship/ContactRelationship_TypeThree": {"text_label": ["the plate2the cup2the bowl"]},
    "Manipulation/PlacementRegion": {"reference_object_description_en": ["a large pot"],
                                     "placement_region_description_en": ["the top shelf"]},
}


def _box(y1, y2, x1, x2):
    return box_rle(y1, y2, x1, x2, size=(60, 80))


def _editor_labels(client, item) -> dict[str, str]:
    page = client.get(f"/annotation/items/{item.pk}/").content.decode()
    config = json.loads(re.search(r'id="editor-config"[^>]*>(.*?)</script>', page, re.S).group(1))
    return config["leaf"]["field_labels"]


def _fill_by_label(labels: dict[str, str], paper_lines: list[str]) -> dict[str, str]:
    """What an annotator types: the paper's text for the prompt line a label names, else a note of their own."""
    by_line = dict(line.split(": ", 1) for line in paper_lines)
    texts = {}
    for field, label in labels.items():
        if field.startswith("count_"):
            continue
        line = next((name for name in by_line if label.startswith(name)), None)
        texts[field] = by_line[line].rstrip(".") if line else f"a note for {field}"
    return texts


@pytest.mark.parametrize("leaf_path", list(PAPER))
def test_fields_land_in_the_published_prompt_where_their_labels_say(
        leaf_path, tmp_path, client, annotator, item_factory, project_factory):
    """"Each field must land where its label says (an EPIC sample built here must read exactly like one of the
    paper's)." """
    leaf = LEAVES[leaf_path]
    scoring_leaf = LEAF_BY_NAME[leaf.name]
    paper_lines = description_lines({"text_annotation": PAPER[leaf_path]}, scoring_leaf)
    if leaf_path == "Navigation/FeasiblePath/FeasiblePath_Exo":
        paper_lines = ["Target Area Description: the sofa22the fridge."]  # the raw text; the converter normalizes
    image = png_bytes(np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8))
    project = project_factory(leaf=leaf_path, slug="mapped")
    data, name = (zip_bytes([("s/a.png", image), ("s/b.png", image)]), "s.zip") if leaf.images == 2 else (image, "a.png")
    [item] = item_factory(data, name=name, project=project, assignee=annotator)
    client.force_login(annotator)
    labels = _editor_labels(client, item)
    texts = _fill_by_label(labels, paper_lines)
    instances = {m.name: [_box(10 * i, 10 * i + 8, 0, 20)] for i, m in enumerate(leaf.masklets)}
    item_save(user=annotator, item_id=item.pk, version=item.version, texts=texts, instances=instances,
              count=1 if leaf.count_field else None,
              placement_feasible=True if leaf.has_feasibility else None)

    from annotation.services.export import project_export
    project_export(project=project, root=tmp_path)
    out = StringIO()
    call_command("import_epic", str(tmp_path), "--split", "annotated", "--public", "--strict", stdout=out, stderr=out)
    [sample] = Sample.objects.filter(split__name="annotated")

    expected = description_lines({"text_annotation": PAPER[leaf_path]}, scoring_leaf)
    assert sample.inputs["prompt"] == expected, (labels, texts)
    images = [i["name"] for i in sample.inputs["images"]]
    task = prompt_task(scoring_leaf)
    assert sample_prompt(task, sample.inputs["prompt"], images) == sample_prompt(task, expected, images)
    # Fields the model never sees say so, and every prompt field is named by the line it becomes.
    for field, label in labels.items():
        if field in leaf.text_fields:
            assert (leaf.prompt_line(field) is not None) != ("not in the prompt" in label), label


def test_target_localization_text_label_is_the_target_object_description(client, annotator, item_factory, small_png):
    """"The field labelled "Instruction given to the robot" (`text_label`) becomes the model's "Target Object
    Description" in the published sample's prompt, while the "Target object, described" field is not used." """
    [item] = item_factory(small_png, assignee=annotator)
    client.force_login(annotator)
    labels = _editor_labels(client, item)
    assert labels["text_label"].startswith("Target Object Description")
    assert "Instruction given to the robot" not in labels.values()
    assert "not in the prompt" in labels["target_object_description_en"]
