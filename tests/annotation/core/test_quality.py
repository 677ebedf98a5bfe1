"""Pure quality-control pieces (issue 32): mask provenance checks, agreement with gold, consensus comparison."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.core import rle
from annotation.core.provenance import MAX_HISTORY, ProvenanceError, check_entry, check_provenance, current_prompt
from annotation.core.quality import GoldRow, consensus_compare, gold_agreement, gold_summaries

SIZE = (360, 640)
GOOD = {"source": "sam", "model": "sam-vit_b", "checkpoint_sha256": "a" * 64, "decoder": "browser",
        "prompts": [{"points": [[100, 120, 1], [300, 40, 0]], "box": None, "multimask": True, "pick": 1}],
        "predicted_iou": 0.93, "painted_share": 0.12, "history": [{"op": "sam", "pixels": 900},
                                                                   {"op": "brush", "pixels": 40}]}


def box(y1, y2, x1, x2):
    mask = np.zeros(SIZE, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def test_a_good_entry_is_kept_and_its_prompt_is_the_last_set():
    entry = check_entry(GOOD, where="provenance.m[0]", image_size=SIZE)
    assert entry["history_dropped"] == 0 and entry["painted_share"] == 0.12
    prompt = current_prompt(entry)
    assert prompt.points == ((100.0, 120.0, 1), (300.0, 40.0, 0)) and prompt.pick == 1 and prompt.box is None


@pytest.mark.parametrize("change, field", [
    ({"source": "magic"}, "provenance.m[0].source"),
    ({"decoder": "gpu"}, "provenance.m[0].decoder"),
    ({"decoder": None}, "provenance.m[0].decoder"),
    ({"model": None}, "provenance.m[0].model"),
    ({"checkpoint_sha256": "xyz"}, "provenance.m[0].checkpoint_sha256"),
    ({"prompts": []}, "provenance.m[0].prompts"),
    ({"prompts": [{"points": [[700, 10, 1]], "box": None}]}, "provenance.m[0].prompts[0].points[0]"),
    ({"prompts": [{"points": [[10, 10, 2]], "box": None}]}, "provenance.m[0].prompts[0].points[0]"),
    ({"prompts": [{"points": [], "box": [0, 0, 700, 10]}]}, "provenance.m[0].prompts[0].box"),
    ({"prompts": [{"points": [[1, 1, 1]], "pick": -1}]}, "provenance.m[0].prompts[0].pick"),
    ({"predicted_iou": float("nan")}, "provenance.m[0].predicted_iou"),
    ({"predicted_iou": 7}, "provenance.m[0].predicted_iou"),
    ({"painted_share": 1.5}, "provenance.m[0].painted_share"),
    ({"history": [{"op": "teleport", "pixels": 1}]}, "provenance.m[0].history[0].op"),
    ({"history": [{"op": "brush", "pixels": -3}]}, "provenance.m[0].history[0].pixels"),
    ({"colour": "red"}, "provenance.m[0].colour"),
])
def test_a_bad_field_is_refused_by_its_json_path(change, field):
    with pytest.raises(ProvenanceError) as caught:
        check_entry({**GOOD, **change}, where="provenance.m[0]", image_size=SIZE)
    assert caught.value.field == field, caught.value


def test_the_history_is_bounded_and_the_dropped_edits_counted():
    long = {**GOOD, "history": [{"op": "brush", "pixels": i} for i in range(MAX_HISTORY + 7)]}
    entry = check_entry(long, where="p", image_size=SIZE)
    assert len(entry["history"]) == MAX_HISTORY and entry["history_dropped"] == 7
    assert entry["history"][-1]["pixels"] == MAX_HISTORY + 6


def test_provenance_lists_one_entry_per_instance():
    with pytest.raises(ProvenanceError) as caught:
        check_provenance({"m": [GOOD, None]}, instance_counts={"m": 1}, image_sizes={"m": SIZE})
    assert caught.value.field == "provenance.m"
    with pytest.raises(ProvenanceError) as caught:
        check_provenance({"other": [GOOD]}, instance_counts={"m": 1}, image_sizes={"m": SIZE})
    assert caught.value.field == "provenance.other"
    assert check_provenance({"m": [None]}, instance_counts={"m": 1}, image_sizes={"m": SIZE}) == {"m": [None]}


def test_a_painted_mask_has_no_prompt_to_regenerate():
    painted = {"source": "manual", "painted_share": 1.0, "history": [{"op": "brush", "pixels": 10}]}
    assert current_prompt(check_entry(painted, where="p", image_size=SIZE)) is None


def test_gold_agreement_compares_masks_and_labels():
    gold = {"texts": {"text_label": "The red disc."}, "count": 1, "instances": {"m": [box(100, 200, 100, 200)]}}
    same = {"texts": {"text_label": "the  red disc"}, "count": 1, "instances": {"m": [box(100, 200, 100, 200)]}}
    result = gold_agreement(gold, same, scored_masklets=["m"], text_fields=["text_label"], count_field="count",
                            has_feasibility=False)
    assert result.mean_iou == 1.0 and result.labels_match and result.mismatches == ()
    other = {"texts": {"text_label": "the blue box"}, "count": 2, "instances": {"m": [box(100, 200, 100, 150)]}}
    result = gold_agreement(gold, other, scored_masklets=["m"], text_fields=["text_label"], count_field="count",
                            has_feasibility=False)
    assert result.mean_iou == pytest.approx(0.5) and not result.labels_match
    assert result.mismatches == ("text_label", "count")
    summary = gold_summaries([GoldRow("anna", 1.0, 1.0, True), GoldRow("anna", 0.5, 1.0, False)])["anna"]
    assert (summary.honeypots, summary.mean_iou, summary.labels_share) == (2, 0.75, 0.5)


def test_consensus_flags_below_the_threshold_and_takes_the_annotators_pick():
    mask = box(100, 200, 100, 200)
    proposals = [box(0, 50, 0, 50), box(100, 200, 100, 200)]
    assert not consensus_compare(mask, proposals, pick=1, min_iou=0.8).flagged
    flagged = consensus_compare(mask, proposals, pick=0, min_iou=0.8)
    assert flagged.flagged and flagged.iou == 0.0 and flagged.proposal_index == 0
    assert consensus_compare(mask, proposals, pick=9, min_iou=0.8).proposal_index == 0  # fewer proposals now
