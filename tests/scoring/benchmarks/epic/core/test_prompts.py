"""The paper's prompts (App. C) as data, and one sample's messages assembled as the toolkit's converters assemble
them (docs/formats/epic.md section 2.1): the system message is the first non-empty line of the task's system prompt;
the user message is the rest of it, the response-format block, one ` <image> ` per image and the description lines."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scoring.benchmarks.epic.core import prompts as P
from scoring.benchmarks.epic.core.taxonomy import LEAF_BY_NAME, LEAVES
from scoring.core.contract import SampleRecord

ISSUE = ("EPIC prompts. Serve the paper's system prompts and response-format blocks (App. C) with each split's inputs "
         "download and on the format page, per task type, so a model author can run the benchmark exactly as the "
         "paper did.")

# build_swift_data.sh: the variables each converter is run with.
VARIABLES = {
    "TargetLocalization": ("system_prompt_base", "response_json"),
    "GroundDetection": ("system_prompt_base", "response_json"),
    "VisualMatching": ("system_prompt_base", "response_json"),
    "FeasiblePath_Ego": ("system_prompt_first_perspective", "response_json_1"),
    "FeasiblePath_Exo": ("system_prompt_third_perspective", "response_json_3"),
    "ContactRelationship_TypeOne": ("system_prompt_base_1", "response_json_1"),
    "ContactRelationship_TypeTwo": ("system_prompt_base_2", "response_json_2"),
    "ContactRelationship_TypeThree": ("system_prompt_base_3", "response_json_3"),
    "AffordanceRegion": ("system_prompt_base", "response_json"),
    "PlacementRegion": ("system_prompt_base", "response_json"),
}

# One GT's text fields per prompt task, and the description lines the converter writes for it.
CASES = {
    "TargetLocalization": ({"text_label": ["the two red mugs"]}, ["Target Object Description: the two red mugs"]),
    "GroundDetection": ({"scene_description_en": ["an office"]}, []),
    "VisualMatching": ({"reference_area_description_en": ["blue chairs"]}, []),
    "FeasiblePath_Ego": ({"text_label": ["the glass door"]}, ["Target Area Description: the glass door."]),
    "FeasiblePath_Exo": ({"text_label": ["the sofa22the fridge"]}, ["Target Area Description: the sofa, the fridge."]),
    "ContactRelationship_TypeOne": ({"text_label": ["the 2 plates"]}, ["Reference Object Description: the 2 plates"]),
    "ContactRelationship_TypeTwo": ({"text_label": ["the plate2the cup"]},
                                    ["Reference Object Description: the plate, the cup"]),
    "ContactRelationship_TypeThree": ({"text_label": ["the plate22 the cup"]},
                                      ["Reference Object Description: the plate, the cup"]),
    "AffordanceRegion": ({"text_label": ["open the drawer"], "reference_object_description_en": ["white drawer"]},
                         ["Reference Object Description: white drawer", "Task Description: open the drawer"]),
    "PlacementRegion": ({"reference_object_description_en": ["a large pot"],
                         "placement_region_description_en": ["the top shelf"]},
                        ["Reference Object Description: a large pot", "Placement Region Description: the top shelf"]),
}
LEAF_OF = {"TargetLocalization": LEAF_BY_NAME["Color"], **{name: LEAF_BY_NAME[name] for name in CASES
                                                           if name != "TargetLocalization"}}


def test_the_texts_are_the_toolkits_with_their_source():
    data = P.prompt_data()
    assert data["source"]["repository"] == "https://github.com/rxc205/EPIC-Bench-Eval"
    assert data["source"]["license"] == "Apache-2.0" and len(data["source"]["commit"]) == 40
    assert {task: (t.system_var, t.response_var) for task, t in P.task_prompts().items()} == VARIABLES
    tl = P.task_prompts()["TargetLocalization"]
    assert tl.system_prompt.startswith("\nYou are a target localization assistant.")
    # The TL template's trailing comma is the paper's (rule 3.11, bug B7): kept verbatim.
    assert '"bounding_boxes": [(x1, y1, x2, y2), (x3, y3, x4, y4), ...],    \n\n}' in tl.response_format
    # Optional extras, marked as such: the CoT prompts, JSON-only and fixed-coordinate formats.
    assert "system_prompt_cot" in data["variants"]["TargetLocalization"]
    assert "response_json_fixed_format_norm1000" in data["variants"]["GroundDetection"]
    # The default prompts name no coordinate system.
    assert not any("0-1000" in t.response_format for t in P.task_prompts().values())


def test_every_leaf_has_its_prompt():
    assert {P.prompt_task(leaf) for leaf in LEAVES} == set(VARIABLES)


@pytest.mark.parametrize("task", list(CASES))
def test_one_samples_messages_follow_the_converters_rules(task):
    """The issue: "so a model author can run the benchmark exactly as the paper did"."""
    text, expected_lines = CASES[task]
    leaf = LEAF_OF[task]
    lines = P.description_lines({"text_annotation": text, "mask_annotation": {}}, leaf)
    assert lines == expected_lines
    found = P.task_prompts()[task]
    images = [f"img{i}.png" for i in range(found.images)]
    built = P.sample_prompt(task, lines, images)
    first_line = next(line for line in found.system_prompt.splitlines() if line.strip()).strip()
    assert built.system == first_line and "\n" not in built.system
    rest = found.system_prompt.strip().split("\n", 1)[1].strip()
    user_lines = [rest, found.response_format.strip(), *[" <image> "] * found.images, *expected_lines]
    assert built.user == "\n".join(user_lines).strip()
    assert built.user.count("<image>") == found.images == {"VisualMatching": 3}.get(
        task, 1 if task in ("TargetLocalization", "GroundDetection") else 2)
    assert built.images == tuple(images)
    assert built.messages()[0] == {"role": "system", "content": first_line}


def test_feasible_path_descriptions_are_normalised():
    n = P.normalize_area_description
    assert n("the sofa22the fridge") == "the sofa, the fridge"
    assert n("222the sofa 22 the door22") == "the sofa, the door"  # leading and trailing commas go
    assert n("room 2 door") == "room 2 door"  # a single 2 stays
    assert n("  a ,  b  ") == "a, b"


def test_contact_types_two_and_three_read_every_2_as_a_separator_type_one_none():
    """Bug B8 kept as the paper ran it: CR types 2/3 replace every run of '2', so '2 cups' is mangled."""
    assert P.normalize_reference_objects("the plate2the cup") == "the plate, the cup"
    assert P.normalize_reference_objects("a22b 2 cups") == "a, b, cups"
    one = P.description_lines({"text_annotation": {"text_label": ["2 cups"]}}, LEAF_BY_NAME["ContactRelationship_TypeOne"])
    two = P.description_lines({"text_annotation": {"text_label": ["2 cups"]}}, LEAF_BY_NAME["ContactRelationship_TypeTwo"])
    assert one == ["Reference Object Description: 2 cups"] and two == ["Reference Object Description: , cups"]


def test_legacy_fields_are_read_as_the_converters_read_them():
    pr = P.description_lines({"mask_annotation": {"target_en": ["pot"], "placement_region_en": ["shelf"]}},
                             LEAF_BY_NAME["PlacementRegion"])
    assert pr == ["Reference Object Description: pot", "Placement Region Description: shelf"]
    ar = P.description_lines({"text_annotation": {"task_description_en": ["pull"]}, "mask_annotation": {"target_en": "knob"}},
                             LEAF_BY_NAME["AffordanceRegion"])
    assert ar == ["Reference Object Description: knob", "Task Description: pull"]
    assert P.description_lines({"text_label": ["a cup"]}, LEAF_BY_NAME["Color"]) == ["Target Object Description: a cup"]


def test_the_prompts_file_is_built_from_inputs_alone():
    """What prompts.jsonl holds for a sample depends on its inputs only: its ground truth is never read."""
    record = SampleRecord(key="EPIC_Bench/Manipulation/PlacementRegion/p1/p1_mask_rle.json", position=0,
                          category="Manipulation", group="PlacementRegion", task="PlacementRegion",
                          inputs={"images": [{"name": "EPIC_Bench/x/p1_image.jpg", "url": "/media/secret.jpg"},
                                             {"name": "EPIC_Bench/x/p1_reference_object_overlay.png"}],
                                  "prompt": ["Reference Object Description: pot",
                                             "Placement Region Description: shelf"]})
    with_truth = replace(record, ground_truth={"text_annotation": {"placement_feasible": [True]},
                                               "mask_annotation": {"masklet_placement_region": "SECRET"}})
    files = dict(P.input_files([record]))
    assert files == dict(P.input_files([with_truth]))
    [line] = [json.loads(x) for x in files["prompts.jsonl"].splitlines()]
    assert line["images"] == ["EPIC_Bench/x/p1_image.jpg", "EPIC_Bench/x/p1_reference_object_overlay.png"]
    assert line["user"].endswith(" <image> \n <image> \nReference Object Description: pot\n"
                                 "Placement Region Description: shelf")
    assert "/media/" not in files["prompts.jsonl"]
    templates = json.loads(files["prompt_templates.json"])
    assert templates["source"]["license"] == "Apache-2.0"
    assert set(templates["tasks"]) == set(VARIABLES) and len(templates["tasks"]["TargetLocalization"]["leaves"]) == 14
    assert templates["tasks"]["AffordanceRegion"]["user_template"].endswith(
        "Reference Object Description: {Reference Object Description}\nTask Description: {Task Description}")
